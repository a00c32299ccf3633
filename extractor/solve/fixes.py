"""Fixes: a Problem and its trigger -> single-input changes that make the guard false, ranked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .domains import NO_VALUE
from .evaluate import EvalError, evaluate, parse_expr
from .problem import Problem, scan_refs, value_key
from .search import distance


@dataclass(frozen=True, slots=True)
class FixCandidate:
    assignment: dict[str, Any]
    changed: tuple[str, ...]
    target: str  # own_test | outer
    part: str


def find_fixes(problem: Problem, trigger: dict[str, Any], parts: list[tuple[str, str]],
               siblings: list[str], limit: int = 3) -> list[FixCandidate]:
    """Single-input changes to the trigger that make the guard false, ranked: the raise's own
    test first (smallest change), then each outer condition (turning the feature off). A fix
    is rejected when it makes another raise of the same function fire."""
    fixes: list[FixCandidate] = []
    ordered = [p for p in parts if p[0] == "own"] + [p for p in parts if p[0] == "outer"]
    for role, code in ordered:
        fix = _fix_for_part(problem, trigger, code, siblings)
        if fix is not None and all(f.assignment != fix[0] for f in fixes):
            fixes.append(FixCandidate(assignment=fix[0], changed=(fix[1],), target="own_test" if role == "own" else "outer", part=code))
        if len(fixes) >= limit:
            break
    return fixes


def _fix_for_part(problem: Problem, trigger: dict[str, Any], code: str, siblings: list[str]) -> tuple[dict[str, Any], str] | None:
    try:
        refs, _ = scan_refs(parse_expr(code), set(problem.variables), set(problem.constants))
    except EvalError:
        return None
    for name in [n for n in problem.variables if n in refs]:
        variable = problem.variables[name]
        current = trigger.get(name, NO_VALUE)
        options = [v for v in variable.candidates if value_key(v) != value_key(current)]

        def rank(value: Any, current: Any = current, default: Any = variable.default) -> tuple:
            # The smallest numeric change first (up to the bound); among equals, the default.
            kind, gap, text = distance(current, value)
            return (kind, gap, value_key(value) != value_key(default), text)

        for value in sorted(options, key=rank):
            env = dict(trigger)
            env[name] = value
            if problem.holds(env, code) is False and problem.holds(env) is False and not _trips(siblings, env):
                return env, name
    return None


def _trips(siblings: list[str], env: dict[str, Any]) -> bool:
    for code in siblings:
        try:
            if evaluate(code, env):
                return True
        except EvalError:
            continue
    return False
