"""Operands of a guard's tests: the variable a test reads (``variable_of``) and the value of a
constant side (``constant_value``), shared by the seeds and the bounds."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ..collect.declarations import dotted_name
from .domains import NO_VALUE
from .evaluate import EvalError, evaluate_tree

if TYPE_CHECKING:
    from .problem import Problem

MAX_WITNESS_LENGTH = 4096  # a longer string or list would not be a readable trigger

# Text methods that keep the length of the seeds' texts (``"a" * n``): ``len(s.strip()) > 3``
# is seeded as ``len(s) > 3`` is.
_SAME_LENGTH = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "removeprefix", "removesuffix"})


def variable_of(node: ast.expr, problem: Problem) -> tuple[str | None, bool]:
    if isinstance(node, ast.Call) and dotted_name(node.func) == "len" and len(node.args) == 1:
        inner = node.args[0]
        while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in _SAME_LENGTH \
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) and "a" not in a.value.lower() for a in inner.args):
            inner = inner.func.value
        found, _ = variable_of(inner, problem)
        return found, True
    if isinstance(node, ast.Constant):
        return None, False  # a literal names no input and no opaque value
    key = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else ast.unparse(node)
    return (key, False) if key in problem.variables else (None, False)


def constant_value(node: ast.expr, env: dict[str, Any]) -> Any:
    try:
        return evaluate_tree(node, env)
    except EvalError:
        return NO_VALUE
