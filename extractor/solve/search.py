"""The search: a Problem -> Solution, the assignment that makes the guard true.

The search changes as few defaulted variables as possible (0, 1, 2, then 3), assigns them
depth first, cutting off a prefix as soon as a conjunct it decides is false, and accepts an
assignment only when the restricted evaluator says every conjunct is true, so a trigger
never contradicts its guard. Where nothing is found, ``bounds`` may show the guard unreachable.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..collect.declarations import DOTTED
from ..model import Detailed, Reason, ReasonCode, TriggerStatus
from .bounds import bound_conflicts
from .derived import Binder, binders, coherence
from .evaluate import predicate
from .problem import Problem, Variable, conjuncts
from .seeds import value_key
from .values import Modelled

SEARCH_BUDGET = 1_500
MAX_CHANGED = 3
_FINITE_KINDS = {"bool", "NoneType"}


@dataclass(frozen=True, slots=True)
class Solution:
    status: str  # "solved", TriggerStatus.UNSOLVED or TriggerStatus.UNREACHABLE
    assignment: dict[str, Any]
    changed: tuple[str, ...] = ()
    reason: ReasonCode | None = None
    conflicts: tuple[str, ...] = ()


def distance(default: Any, value: Any) -> tuple[int, float, str]:
    """How far ``value`` is from ``default``: numbers by their difference, then values of
    the default's own type (``False`` for a flag defaulting to ``True``, not ``0``), then the rest."""
    if is_number(default) and is_number(value):
        return (0, abs(value - default), repr(value))  # exact: a large int would overflow float()
    if isinstance(value, Modelled):
        return (2, 0.0, "")  # (tensors in the order solve.arrays gives them: the typical 2-d one first)
    return (1 if type(value) is type(default) else 2, 0.0, repr(value))


def is_number(value: Any) -> bool:
    """An int or a float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _options(variable: Variable, exclude_default: bool) -> list[Any]:
    is_skipped = exclude_default and variable.has_default
    values = [v for v in variable.candidates if not (is_skipped and value_key(v) == value_key(variable.default))]
    return sorted(values, key=lambda v: distance(variable.default, v)) if variable.has_default else values


def search(problem: Problem, budget: int = SEARCH_BUDGET, max_changed: int = MAX_CHANGED) -> Solution:
    """The assignment that makes the guard true with the fewest defaulted variables changed
    (at most ``max_changed`` of them)."""
    required = [v for v in problem.variables.values() if not v.has_default]
    optional = [v for v in problem.variables.values() if v.has_default]
    if any(not v.candidates for v in required):
        missing = next(v for v in required if not v.candidates)
        if missing.is_constant:
            return Solution(status=TriggerStatus.UNSOLVED, assignment={}, reason=Reason.UNKNOWN_CONSTANT)
        return Solution(status=TriggerStatus.UNSOLVED, assignment={}, reason=Detailed(code=Reason.NO_CANDIDATE_VALUES, value=missing.name))
    spent = 0
    exhausted = True
    parts = _conjunct_parts(problem)
    bound = binders(problem, lambda code: _reads(code, problem))
    required_names = {v.name for v in required}
    base = problem.env({})
    # A conjunct that reads none of the changed variables keeps its value under the
    # defaults: if that is not true, no value of this subset helps; if it is, only
    # the other conjuncts need evaluating. Exact: the same solutions, found sooner.
    untrue = [(names, status) for _, names, status in parts if status is not True]
    for size in range(min(len(optional), max_changed) + 1):
        for subset in itertools.combinations(optional, size):
            changing = {v.name for v in subset} | required_names
            blocked = [status for names, status in untrue if not names & changing]
            if blocked:
                # (a conjunct the evaluator cannot decide, ``getattr(cls, op)`` in a comprehension,
                # is no proof that nothing reaches the raise)
                exhausted = exhausted and all(status is False for status in blocked)
                continue
            pools = [_options(v, True) for v in subset] + [_options(v, False) for v in required]
            changed = tuple(v.name for v in [*subset, *required])
            found, spent = _first_assignment(changed, pools, parts, base, spent, budget, bound)
            if found is _OVER_BUDGET:
                return Solution(status=TriggerStatus.UNSOLVED, assignment={}, reason=Reason.SEARCH_BUDGET)
            if found is not None:
                return Solution(status="solved", assignment=found, changed=changed)
    if len(optional) > max_changed:
        exhausted = False
    # Unreachability is claimed only over true inputs: an opaque atom or a local bound several
    # times can hold different values at the different points the guard mentions it.
    conflicts = bound_conflicts(problem)
    if conflicts:
        return Solution(status=TriggerStatus.UNREACHABLE, assignment={}, reason=Reason.BOUNDS_CONFLICT, conflicts=conflicts)
    if problem.refusals:
        # Some assignment needed a value past the evaluator's limits: it is not known false.
        return Solution(status=TriggerStatus.UNSOLVED, assignment={}, reason=min(problem.refusals))
    has_atoms = any(v.is_atom for v in problem.variables.values())
    # (Nor over another module's constant: ``support.PGO = True`` may rebind it from outside.)
    if exhausted and not has_atoms and not problem.imported and all(_is_finite(v) for v in problem.variables.values()):
        return Solution(status=TriggerStatus.UNREACHABLE, assignment={}, reason=Reason.NO_VALUE_IN_FINITE_DOMAINS,
                        conflicts=(problem.code,))
    return Solution(status=TriggerStatus.UNSOLVED, assignment={}, reason=Reason.NO_CANDIDATE_SATISFIES)


_OVER_BUDGET: dict[str, Any] = {}  # a sentinel, compared by identity


_Test = Callable[[dict[str, Any]], "bool | None"]


def _first_assignment(changed: tuple[str, ...], pools: list[list[Any]], parts: list[tuple[_Test, set[str], bool | None]],
                      base: dict[str, Any], spent: int, budget: int, bound: Sequence[Binder] = ()) -> tuple[dict[str, Any] | None, int]:
    """The first assignment, in the order of ``itertools.product(*pools)``, under which
    every conjunct reading a changed variable is true; and the budget spent.

    Variables no conjunct reads together are searched apart, each group depth first on its
    own (``_depth_first``), smallest first: the first assignment of the product is the first
    of each group put together, and the cost at most the sum of the groups' own enumerations
    instead of their product (``not a_0 and not b and s[1:2] == "u"`` is three searches of
    one variable). ``bound``: the values conjuncts fix given others' (solve.derived)."""
    if any(not pool for pool in pools):
        return None, spent  # no assignment at all
    group = list(range(len(changed)))  # union-find over the changed variables' levels

    def root(level: int) -> int:
        while group[level] != level:
            group[level] = group[group[level]]
            level = group[level]
        return level

    level_of = {name: level for level, name in enumerate(changed)}
    for _, names, _ in parts:
        read = [level_of[name] for name in names if name in level_of]
        for level in read[1:]:
            group[root(level)] = root(read[0])
    groups: dict[int, list[int]] = {}
    for level in range(len(changed)):
        groups.setdefault(root(level), []).append(level)
    if len(groups) <= 1:
        return _depth_first(changed, pools, parts, base, (spent, budget), bound)
    env = base.copy()
    # Smallest first: a group with no answer ends the search, and is found at least cost.
    for levels in sorted(groups.values(), key=lambda levels: (math.prod(len(pools[level]) for level in levels), levels)):
        names = {changed[level] for level in levels}
        own = [part for part in parts if part[1] & names]
        found, spent = _depth_first(tuple(changed[level] for level in levels), [pools[level] for level in levels], own, base,
                                    (spent, budget), bound)
        if found is None or found is _OVER_BUDGET:
            return found, spent
        env.update((name, found[name]) for name in names)
    return env, spent


def _depth_first(changed: tuple[str, ...], pools: list[list[Any]], parts: list[tuple[_Test, set[str], bool | None]],
                 base: dict[str, Any], spending: tuple[int, int], bound: Sequence[Binder] = ()) -> tuple[dict[str, Any] | None, int]:
    """``_first_assignment`` of one group of variables: in their order, then, where that finds
    none, in the order that lets each binder derive its variable (``_ordered``), with what is
    left of the budget."""
    found, spent = _in_order(changed, pools, parts, base, spending, bound)
    if found is not None:
        return found, spent
    order, reordered = _ordered(changed, pools, bound)
    if order == changed:
        return found, spent
    return _in_order(order, reordered, parts, base, (spent, spending[1]), bound)


def _in_order(changed: tuple[str, ...], pools: list[list[Any]], parts: list[tuple[_Test, set[str], bool | None]],
              base: dict[str, Any], spending: tuple[int, int], bound: Sequence[Binder] = ()) -> tuple[dict[str, Any] | None, int]:
    """The first assignment of one group of variables, in this order of levels.

    Depth first, one variable per level: a conjunct is tested at the level where the last
    changed variable it reads gets its value, and a false one cuts off every completion
    of that prefix (none can change it). A level tries first the values its binders derive
    from the earlier levels' (solve.derived: ``k.shape`` is ``q.shape``), then its pool.
    Each assignment tested in full, and each prefix cut off, spends one unit. ``_OVER_BUDGET``
    when the budget (``spending``: spent so far, and the budget) runs out first.
    """
    spent, budget = spending
    if any(not pool for pool in pools):
        return None, spent  # no assignment at all
    derive = _derivations(changed, bound)
    own, shared = _tests_by_level(changed, parts)
    known: list[list[bool | None]] = [[None] * len(pool) for pool in pools]
    env = base.copy()
    if not changed:
        return (env, spent + 1) if spent + 1 <= budget else (_OVER_BUDGET, spent + 1)
    last = len(changed) - 1

    def holds(level: int, index: int | None, value: Any) -> bool:
        env[changed[level]] = value
        if index is None:  # (a derived value: its own tests depend on the prefix it came from)
            return _all_true(own[level], env) and _all_true(shared[level], env)
        ok = known[level][index]
        if ok is None:
            ok = known[level][index] = _all_true(own[level], env)
        return ok and _all_true(shared[level], env)

    # An explicit stack of (index, value) iterators, one per assigned level.
    stack = [_choices(derive[0], pools[0], env)]
    while stack:
        level = len(stack) - 1
        choice = next(stack[-1], None)
        if choice is None:  # this level's values are used up
            stack.pop()
            continue
        if level == last:
            spent += 1
            if spent > budget:
                return _OVER_BUDGET, spent
        if not holds(level, *choice):
            if level < last:
                spent += 1
                if spent > budget:
                    return _OVER_BUDGET, spent
            continue
        if level == last:
            return env, spent
        stack.append(_choices(derive[level + 1], pools[level + 1], env))
    return None, spent


def _choices(derive: list[Binder], pool: list[Any], env: dict[str, Any]) -> Iterator[tuple[int | None, Any]]:
    """A level's values: those its binders derive under ``env`` (index None), then its pool's."""
    derived: list[Any] = []
    for binder in derive:
        for value in binder.values(env):
            if all(value_key(value) != value_key(seen) for seen in derived):
                derived.append(value)
    return itertools.chain(((None, value) for value in derived), enumerate(pool))


def _ordered(changed: tuple[str, ...], pools: list[list[Any]], bound: Sequence[Binder]) -> tuple[tuple[str, ...], list[list[Any]]]:
    """The levels in their order, but each variable a binder can derive as soon as that binder's
    inputs are placed (``v.shape`` after ``q.shape`` for ``v.shape == (q.shape[0], 4)``;
    ``k.shape`` after ``k.ndim``, then ``v.shape`` after it for ``v.shape == k.shape``): the first
    variable in order that has no binder or one whose inputs are all placed; where none has, the
    first. A guard without binders is searched in its own order."""
    sources: dict[str, list[frozenset[str]]] = {}
    for binder in bound:
        if binder.target in changed:
            sources.setdefault(binder.target, []).append(binder.reads & frozenset(changed))
    if not sources:
        return changed, pools
    order: list[str] = []
    pending = list(changed)
    while pending:
        placed = set(order)
        ready = next((name for name in pending if name not in sources or any(reads <= placed for reads in sources[name])), pending[0])
        order.append(ready)
        pending.remove(ready)
    position = {name: level for level, name in enumerate(changed)}
    return tuple(order), [pools[position[name]] for name in order]


def _derivations(changed: tuple[str, ...], bound: Sequence[Binder]) -> list[list[Binder]]:
    """Each level's binders whose changed inputs all come at earlier levels."""
    position = {name: level for level, name in enumerate(changed)}
    return [[b for b in bound if b.target == name and all(position.get(read, -1) < level for read in b.reads)]
            for level, name in enumerate(changed)]


def _tests_by_level(changed: tuple[str, ...],
                    parts: list[tuple[_Test, set[str], bool | None]]) -> tuple[list[list[_Test]], list[list[_Test]]]:
    """Each conjunct at the level of the last changed variable it reads: those that read only
    that level's variable (``own``), and those that read several (``shared``).

    An own check depends on its variable's value alone (the others keep their base values):
    its outcome is kept per value, not recomputed under every prefix. Shared checks run each time.
    """
    level_of = {name: level for level, name in enumerate(changed)}
    own: list[list[_Test]] = [[] for _ in changed]
    shared: list[list[_Test]] = [[] for _ in changed]
    for test, names, _ in parts:
        read = {level_of[name] for name in names if name in level_of}
        if read:
            level = max(read)
            (own if len(read) == 1 else shared)[level].append(test)
    return own, shared


def _all_true(tests: list[_Test], env: dict[str, Any]) -> bool:
    """Whether every test is True under ``env``. A test that is not moves to the front of
    the list, to be tried first next time: the answer does not depend on the order, and a
    guard of many conjuncts (one per earlier raise of a long function) then costs the few
    that fail instead of the many that hold."""
    for index, test in enumerate(tests):
        if test(env) is not True:
            if index:
                tests.insert(0, tests.pop(index))
            return False
    return True


def _conjunct_parts(problem: Problem) -> list[tuple[Callable[[dict[str, Any]], bool | None], set[str], bool | None]]:
    """Each top-level conjunct of the guard: its test, the variables it may read (every
    variable whose name occurs in its text: a superset) and its value under the defaults
    alone (None where it cannot be evaluated)."""
    base = problem.env({})
    parts: list[tuple[Callable[[dict[str, Any]], bool | None], set[str], bool | None]] = []
    for part in conjuncts(problem.tree):
        code = ast.unparse(part)  # the form variables (opaque atoms included) are named in
        names = _reads(code, problem)
        test = predicate(part, problem.refusals)
        parts.append((test, names, test(base)))
    parts.extend((test, names, test(base)) for test, names in coherence(problem))  # (an array's ndim is its shape's length)
    return parts


def _reads(code: str, problem: Problem) -> set[str]:
    """The variables ``code`` may read (a superset: ``_dotted_words``); an array's sizes
    (``x.numel()``) read its ``x.shape`` and ``x.ndim`` where the guard gives them
    (evaluate.expressions._array_call)."""
    words = _dotted_words(code)
    names = {name for name in problem.variables if (name in words if DOTTED.fullmatch(name) else name in code)}
    sized = {m.group(1) for m in _SIZED.finditer(code)}
    return names | {f"{base}.{part}" for base in sized for part in ("shape", "ndim") if f"{base}.{part}" in problem.variables}


_SIZED = re.compile(r"(?<![\w.])(" + DOTTED.pattern + r")\.(?:numel|stride|size|dim)\(")


_WORDS = re.compile(r"(?<![\w.])" + DOTTED.pattern)


def _dotted_words(code: str) -> set[str]:
    """Every name and dotted name in ``code``, with each dotted name's prefixes (``self.x``
    in ``self.x.y``): a variable named so is read there when it is one of them (``n`` is not
    in ``len(n_0)``, ``x`` not in ``self.x``); a superset still (words in strings count)."""
    words: set[str] = set()
    for chain in _WORDS.findall(code):
        parts = chain.split(".")
        words.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return words


def _is_finite(variable: Variable) -> bool:
    domain = variable.domain
    return variable.is_boolean or domain.choices is not None or bool(domain.types) and set(domain.types) <= _FINITE_KINDS
