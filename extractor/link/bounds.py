"""A constraint's declared value -> the number pydantic prints, where the tree gives it statically.

``Field(ge=-(2**63))``, ``Field(le=_INT64_MAX)`` with ``_INT64_MAX = 2**63 - 1`` at module
level, or a constant imported from a module of the tree: pydantic's message shows the number
(``-9223372036854775808``). A name is replaced by its module constant's source (collect.constants,
the project's tables; a few levels deep), and the arithmetic of int and float literals is
computed by a walk over the parsed expression that knows numbers and ``+ - * / // % ** << >>``
only, with exponents and shifts bounded. Nothing of the analysed code runs; anything else
(``torch.iinfo(torch.long).max``) has no number here.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from ..model import FileFacts
from ..model.pytext import try_parse_expression
from .project import Project

_MAX_DEPTH = 4  # constants written in terms of constants
_MAX_EXPONENT = 1_024  # ``2**n``, ``1 << n``: a bound is a machine limit, never a huge number
_MAX_BITS = 4_096
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


def bound_number(project: Project, facts: FileFacts, code: str) -> int | float | None:
    """The number a declared bound's code denotes, or None where it is not known statically."""
    tree = try_parse_expression(code)
    if tree is None:
        return None
    try:
        value = _number(project, facts, tree, dict(facts.constants), 0)
    except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _number(project: Project, facts: FileFacts, node: ast.expr, constants: dict[str, str], depth: int) -> int | float | None:
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(project, facts, node.operand, constants, depth)
        return None if inner is None else -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _number(project, facts, node.left, constants, depth)
        right = _number(project, facts, node.right, constants, depth)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift, ast.RShift)) and not (isinstance(right, int) and 0 <= right <= _MAX_EXPONENT):
            return None
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, int) and result.bit_length() > _MAX_BITS:
            return None
        return result if isinstance(result, (int, float)) else None
    if isinstance(node, (ast.Name, ast.Attribute)) and depth < _MAX_DEPTH:
        chain = ast.unparse(node)
        found = project.named_constant(facts, chain) if chain not in constants else ("value", constants[chain])
        tree = try_parse_expression(found[1]) if found is not None and found[0] == "value" else None
        # (another module's constant: its source's names are that module's, so none is followed)
        deeper = depth + 1 if chain in constants else _MAX_DEPTH
        return _number(project, facts, tree, constants, deeper) if tree is not None else None
    return None

