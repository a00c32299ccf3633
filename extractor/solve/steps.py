"""Steps: a trigger on a new object after a method a caller calls on it (``close()``, then ``send()``).

A guard that reads state only the class's own methods set (``self._closed``) is reached on a
new object once a method has set it. For each method of the object's class that a caller
calls without arguments and that assigns such an attribute (link.state.method_steps), the
new object's values (CardContext.state.constructed) are put through every way through the
method (collect.effects): a way whose tests the evaluator finds false is not taken; where a
test cannot be decided both ways are taken, a test of the form ``x is None`` or ``x == 3``
giving ``x`` that value on its way. The method leaves an attribute at one value where every
way taken assigns it (or leaves it at) that same literal value. It is no step where a way
taken may raise (a raise, an ``assert``, a test the values make fail: ``'x' in None``), calls
a method that assigns one of the attributes, or leaves one unknown; the methods it calls on
its object (MethodStep.called, ``STEP_DEPTH`` deep) are put through the same way, and none of
theirs may raise either.

The guard is then solved with those values fixed (solve.construction.pinned_trigger). Other
calls are not modelled: they are taken to return normally, as the calls on the way to any
raise are; what a called method assigns is not applied (one that assigns the attributes the
guard reads is refused).
"""

from __future__ import annotations

import ast
from typing import Any

from ..model import CONSTRUCTING, STEP_DEPTH, Card, CardContext, Domain, MethodStep
from ..model.codes import TriggerStatus
from ..model.pytext import try_parse_expression
from .construction import pinned_trigger
from .domains import NO_VALUE, literal_value
from .evaluate import FAILS, outcome, parse_expr
from .problem import Problem
from .search import Solution
from .status import atom_kind


def stepped_trigger(card: Card, ctx: CardContext, problem: Problem, atoms: set[str], domains: dict[str, Domain],
                    state: frozenset[str], loops: frozenset[str],
                    preferred: dict[str, str]) -> tuple[Problem, Solution, dict[str, Any], str] | None:
    """The first method (by name) after which a new object reaches the raise: the problem solved
    with the values it leaves, its solution, those values and the method; None where none does."""
    internal = {a for a in atoms if atom_kind(a) == TriggerStatus.INTERNAL}
    if not internal or not all(a.count(".") == 1 for a in internal) or set(card.entry) & CONSTRUCTING:
        return None  # (a raise while the object is built: no method of it runs first)
    writers = {write.store.method for write in card.solved.state if write.store.method is not None}
    others = set(card.statement.guard.inputs) - internal  # (what the trigger sets itself: no step may change it)
    for step in ctx.state.steps:
        left = left_by(step, dict(ctx.state.constructed), problem, internal, writers, others)
        if left is not None and (found := pinned_trigger(card, ctx, left, domains, state, loops, preferred)) is not None:
            return (*found, step.method)
    return None


def left_by(step: MethodStep, fresh: dict[str, str], problem: Problem, wanted: set[str], writers: set[str],
            others: set[str]) -> dict[str, str] | None:
    """The sources of the values of ``wanted`` once a new object (``fresh``: attribute -> source)
    has run ``step``; None where a way it may take raises (a raise, a test these values make fail,
    a method it calls that may, MethodStep.called), calls one of ``writers``, assigns one of
    ``others``, leaves one of ``wanted`` unknown, or two ways leave different values."""
    called = {method.method: method for method in step.called}
    found: dict[str, str] | None = None
    for path in step.paths:
        values = dict(fresh)
        taken = _taken(path.tests, values, problem)
        if taken is False:
            continue
        if taken == FAILS or path.is_raise or writers.intersection(path.calls) or any(name in others for name, _ in path.stores) \
                or not _calls_return(path.calls, values, called, problem, writers):
            return None
        for name, source in path.stores:
            if source is not None and literal_value(source) is not NO_VALUE:
                values[name] = source
            else:
                values.pop(name, None)
        left = {name: values.get(name) for name in wanted}
        if any(source is None for source in left.values()) or (found is not None and found != left):
            return None
        found = {name: source for name, source in left.items() if source is not None}
    return found


def _calls_return(names: tuple[str, ...], values: dict[str, str], called: dict[str, MethodStep], problem: Problem,
                  writers: set[str], depth: int = 0) -> bool:
    """Whether each of the methods ``names`` whose ways are read returns from ``values`` on every
    way it may take (none raises, makes a test fail, or calls one of ``writers``), and the methods
    they call in turn; one not read is taken to return."""
    for name in names:
        for path in called[name].paths if name in called and depth < STEP_DEPTH else ():
            trial = dict(values)
            taken = _taken(path.tests, trial, problem)
            if taken is False:
                continue
            if taken == FAILS or path.is_raise or writers.intersection(path.calls) \
                    or not _calls_return(path.calls, trial, called, problem, writers, depth + 1):
                return False
    return True


def _taken(tests: tuple[str, ...], values: dict[str, str], problem: Problem) -> bool | str:
    """Whether a way with ``tests`` may be taken from ``values`` (updated with what an undecided
    test of one attribute's value gives it), or ``FAILS`` where these values make a test raise
    (``'x' in None``)."""
    for test in tests:
        env = {**problem.constants, **{n: literal_value(s) for n, s in values.items()}}
        held = problem.holds(env, test)
        if held is False:
            return False
        if held is None:
            if outcome(parse_expr(test))(env) == FAILS:
                return FAILS
            values.update(_pinned(test))
    return True


def _pinned(test: str) -> dict[str, str]:
    """``{x: source}`` for a test that holds only where ``x`` has one literal value (``x is None``,
    ``x == 3``, ``not (x != 'a')``), else {}."""
    node = try_parse_expression(test)
    if node is None:
        return {}
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    node = node.operand if isinstance(node, ast.UnaryOp) and negated else node
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant)):
        return {}
    pins = (ast.IsNot, ast.NotEq) if negated else (ast.Is, ast.Eq)
    name = ast.unparse(node.left)
    if not isinstance(node.ops[0], pins) or not all(part.isidentifier() for part in name.split(".")):
        return {}
    return {name: ast.unparse(node.comparators[0])}
