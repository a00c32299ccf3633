"""Unreachability from numeric bounds: a Problem -> the conjuncts and declared constraints that
leave a variable no value (a conjunction such as ``x > 3 and x < 2``, or ``x < 0`` with ``ge=0``)."""

from __future__ import annotations

import ast
import math
from itertools import pairwise

from .domains import literal_value
from .problem import Problem, conjuncts, constant_value, variable_of

_FLIP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq}


def bound_conflicts(problem: Problem) -> tuple[str, ...]:
    """Conjuncts and declared constraints whose numeric bounds leave a variable no value."""
    bounds: dict[str, list[tuple[str, float, str]]] = {}
    for part in conjuncts(problem.tree):
        if not isinstance(part, ast.Compare):
            continue
        operands = [part.left, *part.comparators]
        for op, (left, right) in zip(part.ops, pairwise(operands)):
            _add_bound(problem, op, left, right, ast.unparse(part), bounds)
    for name, variable in problem.variables.items():
        for constraint in variable.domain.constraints:
            value = literal_value(constraint.value)
            if constraint.name in ("ge", "gt", "le", "lt") and isinstance(value, (int, float)):
                bounds.setdefault(name, []).append((constraint.name, value, f"{name}: declared {constraint.name}={constraint.value}"))
    for name, items in sorted(bounds.items()):
        if problem.variables[name].is_atom:
            continue
        low, high = -math.inf, math.inf
        low_open = high_open = False
        for kind, value, _ in items:
            if kind in ("ge", "gt", "eq") and (value > low or (value == low and kind == "gt")):
                low, low_open = value, kind == "gt"
            if kind in ("le", "lt", "eq") and (value < high or (value == high and kind == "lt")):
                high, high_open = value, kind == "lt"
        is_int = problem.variables[name].domain.types in (("int",),)
        if is_int:
            low = math.floor(low) + 1 if low_open and low == math.floor(low) else math.ceil(low) if low != -math.inf else low
            high = math.ceil(high) - 1 if high_open and high == math.ceil(high) else math.floor(high) if high != math.inf else high
            low_open = high_open = False
        if low > high or (low == high and (low_open or high_open)):
            return tuple(dict.fromkeys(text for _, _, text in items))
    return ()


def _add_bound(problem: Problem, op: ast.cmpop, left: ast.expr, right: ast.expr, text: str, bounds: dict) -> None:
    name, is_len = variable_of(left, problem)
    value = constant_value(right, problem.constants)
    if name is None:
        name, is_len = variable_of(right, problem)
        value = constant_value(left, problem.constants)
        op = _FLIP.get(type(op), type(op))()
    if name is None or is_len or isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    kind = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq"}.get(type(op))
    if kind is not None:
        bounds.setdefault(name, []).append((kind, value, text))  # exact: an int never goes through float()
