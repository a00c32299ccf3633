"""Problems: a guard's tree, variables and constants -> whether the guard holds under an assignment.

A ``Problem`` is what the search solves (solve.posing builds it from a guard): the guard's
expression, its variables (each with its candidate values) and the module constants it reads;
``holds`` evaluates the guard under an assignment. ``conjuncts``, ``variable_of`` and
``constant_value`` read its guard's tests (the variable a test reads, the value of a constant
side: for the seeds and the bounds), ``classes_of`` its constants.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..collect.declarations import dotted_name
from ..model import Domain, Reason
from .domains import NO_VALUE
from .environ import reading
from .evaluate import EvalError, InstancesOf, TooLarge, Unknown, evaluate_tree
from .values import UnknownValue


@dataclass
class Variable:
    name: str
    domain: Domain
    is_atom: bool = False
    is_boolean: bool = False
    is_constant: bool = False  # a module-level name the guard needs the value of: assumed, never a fix
    default: Any = NO_VALUE
    prefer: str | None = None  # an untyped input's evident type (Param.used_as): its values are tried first
    candidates: list[Any] = field(default_factory=list)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_VALUE


@dataclass
class Problem:
    """A guard ready to solve: its expression, variables and module constants."""

    code: str
    tree: ast.expr
    variables: dict[str, Variable]
    constants: dict[str, Any]
    members: dict[str, list[Any]] = field(default_factory=dict)  # Enum member constant -> all members of its class
    imported: set[str] = field(default_factory=set)  # constants read from another module: it may be rebound from outside
    refusals: set[Reason] = field(default_factory=set)  # why evaluations failed that were not plain false (limits)
    lazy: tuple[tuple[str, str], ...] = ()  # attributes computed on reading, and their code (solve.environ.reading)
    # Inputs that take another input's value, never a variable of their own (link.constructors.tied_inputs:
    # set through the same constructor keyword): (input, the input whose value it has).
    ties: tuple[tuple[str, str], ...] = ()
    _base: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # built once, on first use
    lengths: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)  # (solve.seeds: ``len(x) == n``)

    def env(self, assignment: dict[str, Any]) -> dict[str, Any]:
        """The constants and defaults, with ``assignment`` on top."""
        if self._base is None:
            self._base = {**self.constants, **{n: v.default for n, v in self.variables.items() if v.has_default}}
        return self.tied({**self._base, **assignment})

    def tied(self, env: dict[str, Any]) -> dict[str, Any]:
        """``env`` with each tied input at its fellow's value (``ties``; a copy where any is)."""
        if not any(same in env for _, same in self.ties):
            return env
        return {**env, **{name: env[same] for name, same in self.ties if same in env}}

    def holds(self, env: dict[str, Any], code: str | None = None) -> bool | None:
        """True/False when the guard (or ``code``) evaluates, None when it cannot."""
        try:
            tree = reading(code, self.lazy) if code else self.tree
        except EvalError:
            return None
        return self.holds_tree(env, tree)

    def holds_tree(self, env: dict[str, Any], tree: ast.AST | None) -> bool | None:
        try:
            return bool(evaluate_tree(tree, self.tied(env)))
        except (TooLarge, Unknown, UnknownValue) as exc:  # (UnknownValue: bool() here of a constant of unknown value)
            self.refusals.add(exc.code)
            return None
        except EvalError:
            return None


def classes_of(constants: dict[str, Any]) -> frozenset[str]:
    """The names of ``constants`` bound as InstancesOf."""
    return frozenset(name for name, value in constants.items() if isinstance(value, InstancesOf))


def conjuncts(tree: ast.expr) -> Iterator[ast.expr]:
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        for value in tree.values:
            yield from conjuncts(value)
    else:
        yield tree


# Text methods that keep the length of the seeds' texts (``"a" * n``): ``len(s.strip()) > 3``
# is seeded as ``len(s) > 3`` is.
_SAME_LENGTH_CALLS = frozenset({"sorted", "list", "tuple", "reversed"})
_SAME_LENGTH = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "removeprefix", "removesuffix"})


def variable_of(node: ast.expr, problem: Problem) -> tuple[str | None, bool]:
    if isinstance(node, ast.Call) and dotted_name(node.func) == "len" and len(node.args) == 1:
        inner = node.args[0]
        while isinstance(inner, ast.Call):
            if isinstance(inner.func, ast.Attribute) and inner.func.attr in _SAME_LENGTH \
                    and all(isinstance(a, ast.Constant) and isinstance(a.value, str) and "a" not in a.value.lower() for a in inner.args):
                inner = inner.func.value
            elif dotted_name(inner.func) in _SAME_LENGTH_CALLS and len(inner.args) == 1 and not inner.keywords:
                inner = inner.args[0]  # (``len(sorted(data))``: as many items as ``data``)
            else:
                break
        if isinstance(inner, (ast.ListComp, ast.SetComp)) and len(inner.generators) == 1:
            inner = inner.generators[0].iter  # (``len([w for w in words if ...])``: at most as many as ``words``; seeds only)
        found, _ = variable_of(inner, problem)
        return found, True
    if isinstance(node, ast.Constant):
        return None, False  # a literal names no input and no opaque value
    key = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else ast.unparse(node)
    return (key, False) if key in problem.variables else (None, False)


def constant_value(node: ast.expr, env: Mapping[str, Any]) -> Any:
    try:
        return evaluate_tree(node, env)
    except EvalError:
        return NO_VALUE
