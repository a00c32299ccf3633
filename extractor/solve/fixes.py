"""Fixes: a Problem and its trigger -> single-input changes that make the guard false, ranked."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..collect.declarations import dotted_name
from ..collect.syntax import walk
from ..model import RAISES, FixTarget, PartRole, TriggerStatus
from ..model.markdown import code_span
from ..model.pytext import try_parse_expression
from .derived import equalities
from .domains import NO_VALUE
from .environ import ENVIRON, environment_words, reading
from .evaluate import FAILS, EvalError, outcome, parse_expr, predicate
from .posing import array_inputs, scan_refs
from .problem import Problem, classes_of, conjuncts
from .search import distance, is_number
from .seeds import value_key
from .status import atom_kind, spec_module
from .values import python_text


@dataclass(frozen=True, slots=True)
class FixCandidate:
    assignment: dict[str, Any]
    changed: tuple[str, ...]
    target: FixTarget
    part: str
    # Guards of other raises of the function that the evaluator cannot decide under the fix,
    # at a part that reads the changed input: one of them may fire instead.
    undecided: tuple[str, ...] = ()


_TARGETS: dict[str, FixTarget] = {PartRole.OWN: FixTarget.OWN_TEST, PartRole.OUTER: FixTarget.OUTER, PartRole.LEAVE: FixTarget.LEAVE}


@dataclass(frozen=True, slots=True)
class Known:
    """What the other raises' tests see besides a fix's values (a card's constants, the
    parameters' defaults), with its memo key, made once per search."""
    values: dict[str, Any]
    key: tuple

    @staticmethod
    def of(values: dict[str, Any]) -> Known:
        return Known(values, tuple(sorted((name, value_key(value)) for name, value in values.items())))


_NOTHING_KNOWN = Known({}, ())


def find_fixes(problem: Problem, trigger: dict[str, Any], parts: list[tuple[PartRole, str]],
               siblings: list[str], limit: int = 3, placeholders: frozenset[str] = frozenset(),
               defaults: dict[str, Any] | None = None, computed: tuple[str, ...] = ()) -> list[FixCandidate]:
    """Single-input changes to the trigger that make the guard false, ranked: the raise's own
    test first (smallest change), then each outer condition (turning the feature off), then
    each earlier ``if`` whose other branch only returns, breaks or continues (leaving before
    the raise: the ``leave`` parts, the one way out of an ``else: raise``). A fix
    is rejected when it makes another raise of the same function fire, or raise instead;
    ``placeholders``: inputs the trigger gives any value of their type (nothing reads them
    before the raise), left out of that check: the caller's own values stand there;
    ``defaults``: the function's parameters' default values, which the other raises' tests
    see where the trigger gives no value (the call leaves them out); ``computed``: the names the
    other raises' tests read that the function computes, which any change may change too (a
    test of one the evaluator cannot decide leaves a fix unsure: ``Placement.computed``)."""
    fixes: list[FixCandidate] = []
    ordered = [p for role in (PartRole.OWN, PartRole.OUTER, PartRole.LEAVE) for p in parts if p[0] == role]
    index = sibling_guards(tuple(sorted({*siblings, problem.code})), problem.lazy, computed)
    known = Known.of({**(defaults or {}), **problem.constants})
    unset = frozenset(defaults or ()).difference(trigger)  # (like the trigger's other inputs: the caller's own values may stand there)
    in_order = [(role, code, predicate(tree)) for role, code in parts if (tree := _parsed(code)) is not None]  # (the path's order)
    for role, code in ordered:
        # (a value under which control turns away at this part itself, not at an earlier one, first)
        def at_part(env: dict[str, Any], code: str = code) -> bool:
            turned = _first_false(in_order, {**problem.constants, **env})
            return turned is None or turned[1] == code

        fix = _fix_for_part(problem, trigger, code, siblings, index, known, unset, placeholders, at_part)
        first = _first_false(in_order, {**problem.constants, **fix[0]}) if fix is not None else None
        if first is not None and first[0] == PartRole.EXIT:
            continue  # control leaves at an earlier exit that raises (``key, value = text.split("=")`` of 1 part)
        if first is not None and first[0] in _TARGETS:
            role, code = first  # (where control turns away: turtle's ``'aaaa'`` leaves at ``not cstr.startswith("#")``)
        if fix is not None and all(f.assignment != fix[0] for f in fixes):
            fixes.append(FixCandidate(assignment=fix[0], changed=(fix[1],), target=_TARGETS[role], part=code, undecided=fix[2]))
        if len(fixes) >= limit:
            break
    return fixes


def _fix_for_part(problem: Problem, trigger: dict[str, Any], code: str, siblings: list[str], index: SiblingGuards,
                  known: Known, unset: frozenset[str] = frozenset(), placeholders: frozenset[str] = frozenset(),
                  at_part: Any = None) -> tuple[dict[str, Any], str, tuple[str, ...]] | None:
    """The best single-input change that makes ``code`` false, with the sibling guards left
    undecided under it; a change no sibling leaves undecided wins over a smaller one, and one
    under which control turns away at ``code`` itself (``at_part``) over one that leaves earlier."""
    fallback = None
    elsewhere = None  # (the first change that turns away at an earlier part)
    try:
        arrays = array_inputs({name: v.domain.annotation for name, v in problem.variables.items()})
        refs, calls = scan_refs(reading(code, problem.lazy), set(problem.variables), set(problem.constants),
                                classes_of(problem.constants) | arrays)
    except EvalError:
        return None
    refs |= {c for c in calls if atom_kind(c) == TriggerStatus.ENVIRONMENT}  # (a fact of the machine: ``h2`` installed)
    derived = _derived(code, problem, trigger)
    for name in [n for n in problem.variables if n in refs and not problem.variables[n].is_constant]:
        variable = problem.variables[name]
        current = trigger.get(name, NO_VALUE)
        options = [v for v in variable.candidates if value_key(v) != value_key(current)]

        def rank(value: Any, current: Any = current, default: Any = variable.default, prefer: str | None = variable.prefer) -> tuple:
            # The smallest numeric change first (up to the bound); among equals, the default.
            # The default, then a value of the trigger's own type (another member of its Enum, not ``''``),
            # then a positive number (``1`` over ``-1`` from ``0``: the same change, the usual value).
            kind, gap, text = distance(current, value)
            negative = is_number(value) and value < 0
            evident = prefer is None or type(value).__name__ == prefer  # the type the code uses the input as (collect.uses)
            return (kind != 0, gap, value_key(value) != value_key(default), type(value) is not type(current), not evident, negative, text)

        others = frozenset(n for n in trigger if n != name and n not in problem.constants) | unset  # (their values: any the caller has)
        for value in [*derived.get(name, ()), *sorted(options, key=rank)]:
            env = dict(trigger)
            env[name] = value
            # The cheap checks first (the answer is their conjunction): the part alone, then
            # the other raises (mostly answered from the memo), then the whole guard.
            checked = {n: v for n, v in env.items() if n not in placeholders} if placeholders else env
            if (problem.holds(env, code) is False and not _trips(siblings, checked, index, name, others, known)
                    and problem.holds(env) is False
                    and _calm(problem, env, name)):
                undecided = tuple(sorted(index.undecided(checked, name, others, known).intersection(siblings)))
                if at_part is not None and not at_part(env):
                    elsewhere = elsewhere or (env, name, undecided)
                    continue
                if not undecided:
                    return env, name, ()
                if fallback is None:
                    fallback = env, name, undecided
    return fallback or elsewhere


def _derived(code: str, problem: Problem, trigger: dict[str, Any]) -> dict[str, list[Any]]:
    """Per variable, the values a test ``name != expr`` is false for, ``expr`` under the trigger's
    values (solve.derived: ``v.shape`` set to ``(q.shape[0], 4)``), tried before the candidates."""
    tree = _parsed(code)
    if tree is None:
        return {}
    env = {**problem.constants, **trigger}
    found: dict[str, list[Any]] = {}
    for binder in equalities(tree, problem, lambda text: set(_names(text)), ast.NotEq):
        current = value_key(trigger.get(binder.target, NO_VALUE))
        found.setdefault(binder.target, []).extend(v for v in binder.values(env) if value_key(v) != current)
    return found


def _calm(problem: Problem, env: dict[str, Any], changed: str) -> bool:
    """Whether no try body the guard names that reads ``changed`` raises under ``env``: a fix
    that makes ``mapping[key]`` raise IndexError instead of KeyError swaps one error for
    another. (A body the fix does not touch raises as before, into the handler it reached:
    ``fallback=0`` where a KeyError's handler raises only while ``fallback is _UNSET``.)"""
    checks = [check for check in _calm_checks(problem.code) if changed in _names(check)]
    return not checks or all(problem.holds(problem.env(env), check) is False for check in checks)


@lru_cache(maxsize=256)
def _calm_checks(code: str) -> tuple[str, ...]:
    """``__raises__(E, (BaseException,))`` for each try body expression ``E`` the guard names
    (found once per guard: every fix candidate of its card asks)."""
    if RAISES not in code:
        return ()
    return tuple(f"{RAISES}({ast.unparse(node.args[0])}, (BaseException,))" for node in walk(parse_expr(code))
                 if isinstance(node, ast.Call) and dotted_name(node.func) == RAISES and node.args)


class SiblingGuards:
    """The guards of one function's raises, as a trie of their top-level conjuncts, to tell
    which of them an environment makes true.

    The raises of a function share their prefixes (each guard conjoins the negated tests of
    the raises before it), so one walk tests each distinct conjunct once: a function with n
    raises costs O(n) per environment instead of O(n^2). A guard fires when each of its
    conjuncts is truthy, in order, as ``evaluate`` of the whole guard would find (an error
    in a conjunct that is reached means it does not fire). Environments already asked about
    are answered from a memo: the cards of one function try many of the same values.
    """

    _MEMO_SIZE = 4096

    def __init__(self, codes: tuple[str, ...], lazy: tuple[tuple[str, str], ...] = (), computed: tuple[str, ...] = ()) -> None:
        self._root: dict[str, Any] = {}  # conjunct code -> [test, guard codes ending here, children]
        self._computed = frozenset(computed)  # (the function's own values: a change of any input may change them)
        for code in codes:
            try:
                parts = [ast.unparse(part) for part in conjuncts(reading(code, lazy))]
            except (EvalError, ValueError, RecursionError):
                continue  # a guard that does not parse never fires (``evaluate`` refuses it)
            children = self._root
            node: list[Any] = []
            for part in parts:
                node = children.get(part) or children.setdefault(part, [outcome(parse_expr(part)), [], {}, part])
                children = node[2]
            node[1].append(code)
        self._memo: dict[tuple, tuple[frozenset[str], frozenset[str]]] = {}  # key -> (firing, undecided)

    def firing(self, env: dict[str, Any], changed: str | None = None, others: frozenset[str] = frozenset(),
               known: Known = _NOTHING_KNOWN) -> frozenset[str]:
        """The guard codes that are true under ``env``, and those whose evaluation, in
        order, reaches a part that these values make raise (``'' <= 0``: where the real code
        tests it, it raises that error instead) and that reads ``changed`` and none of
        ``others`` (the trigger's other inputs: their values stand for any the caller has).
        ``known``: what the asking card knows besides ``env`` (its constants, an isinstance
        class whose plain instances are known, the parameters' defaults)."""
        return self._walk(env, changed, others, known)[0]

    def undecided(self, env: dict[str, Any], changed: str, others: frozenset[str] = frozenset(),
                  known: Known = _NOTHING_KNOWN) -> frozenset[str]:
        """The guard codes whose evaluation, in order, reaches a part the evaluator cannot
        decide under ``env`` (state it does not know, a call) that reads ``changed``: they
        may fire (``firing``'s are left out)."""
        return self._walk(env, changed, others, known)[1]

    def _walk(self, env: dict[str, Any], changed: str | None, others: frozenset[str],
              known: Known) -> tuple[frozenset[str], frozenset[str]]:
        key = (changed, others, known.key, *sorted((name, value_key(value)) for name, value in env.items()))
        found = self._memo.get(key)
        if found is None:
            if known.values:
                env = {**known.values, **env}
            fired: set[str] = set()
            maybe: set[str] = set()
            stack = [self._root]
            while stack:
                for test, ends, children, part in stack.pop().values():
                    result = test(env)
                    if result is True:
                        fired.update(ends)
                        stack.append(children)
                    elif result is FAILS or result is None:
                        names = _names(part) if changed is not None else frozenset()
                        if changed in names and (result is None or names.isdisjoint(others)):
                            (fired if result is FAILS else maybe).update(_all_ends(children, ends))
                        elif changed is not None and not names.isdisjoint(self._computed):
                            maybe.update(_all_ends(children, ends))  # (a value the function computes, maybe from ``changed``)
            if len(self._memo) >= self._MEMO_SIZE:
                self._memo.clear()
            found = self._memo[key] = (frozenset(fired), frozenset(maybe - fired))
        return found


@lru_cache(maxsize=4096)
def _names(code: str) -> frozenset[str]:
    """The dotted names an expression reads, with each of their prefixes (``a.b.c``: a, a.b, a.b.c)."""
    found: set[str] = set()
    for node in walk(parse_expr(code)):
        if isinstance(node, (ast.Name, ast.Attribute)) and (name := dotted_name(node)) is not None:
            parts = name.split(".")
            found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(found)


def _all_ends(children: dict[str, Any], ends: list[str]) -> list[str]:
    """The guard codes ending at a node or below it."""
    found = list(ends)
    stack = [children]
    while stack:
        for _, more, below, _ in stack.pop().values():
            found.extend(more)
            stack.append(below)
    return found


@lru_cache(maxsize=8)
def sibling_guards(codes: tuple[str, ...], lazy: tuple[tuple[str, str], ...] = (), computed: tuple[str, ...] = ()) -> SiblingGuards:
    """The SiblingGuards of a function's guards (sorted), shared by the cards of the function."""
    return SiblingGuards(codes, lazy, computed)


def _trips(siblings: list[str], env: dict[str, Any], index: SiblingGuards, changed: str | None = None,
           others: frozenset[str] = frozenset(), known: Known = _NOTHING_KNOWN) -> bool:
    """Whether ``env`` makes one of ``siblings`` (guards among those of ``index``) true, or
    makes a part of one raise that reads ``changed`` and none of ``others``."""
    fired = index.firing(env, changed, others, known)
    return bool(fired) and not fired.isdisjoint(siblings)


def describe_fix(candidate: FixCandidate, label: str, before: Any, after: Any, *, atom: bool, stand_in: bool,
                 array: Any = None) -> str:
    """The fix in words: what to set (``label``: the input, or the constructor keyword that
    sets it), from what, and which part of the guard it makes false; for a value of no
    declared type (``stand_in``), that it is one example of the values that do; for the
    ``ndim`` of a declared tensor, the tensor of that many dimensions to pass (``array``)."""
    part, new, old = code_span(candidate.part), code_span(python_text(after)), code_span(python_text(before))
    if array is not None:
        base = label.rpartition(".")[0]
        description = (f"pass {code_span(base)} with {after} dimension{'' if after == 1 else 's'}, for example "
                       f"{code_span(python_text(array))} (the trigger's has {old}), so that {part} is false")
    elif atom and label == ENVIRON and isinstance(after, dict) and isinstance(before, dict):
        description = f"{part} is false when {environment_words(after)} (the trigger assumes {environment_words(before)})"
    elif atom and (module := spec_module(label)) is not None:
        state = "is installed" if after is not None else "is not installed"
        description = f"{part} is false when the module {code_span(module)} {state} (`importlib.util.find_spec` finds it)"
    elif atom and candidate.part == label:  # (the test is the value itself: "`closed` is `False`")
        description = f"{part} is {new} (rather than {old})"
    elif atom:  # (state: no trigger may be claimed, so the value it is compared with is "rather than")
        description = f"{part} is false when {code_span(label)} is {new} (rather than {old})"
    elif stand_in:
        description = (f"set {code_span(label)} to a value of yours that makes {part} false, for example {new} "
                       f"(the trigger has {old}; nothing declares its type)")
    elif (tested := _type_test(candidate.part, label)) is not None:
        # (the test is the value's type: any value of the other kind will do; ``0`` for
        # ``isinstance(s, str)`` is one example, which pickle's next line refuses)
        negated, classes = tested
        if len(classes) == 1:
            article = "an" if classes[0].strip("`")[:1].lower() in "aeiou" else "a"
            kind = f"{article} {classes[0]}" if negated else f"a value that is not {article} {classes[0]}"
        else:
            listed = ", ".join(classes)
            kind = f"an instance of one of {listed}" if negated else f"a value that is none of {listed}"
        description = f"set {code_span(label)} to {kind}, for example {new} (the trigger has {old}), so that {part} is false"
    else:
        description = f"set {code_span(label)} to {new} (the trigger has {old}), so that {part} is false"
    if candidate.target == FixTarget.LEAVE:
        description += ": an earlier `return`, `break` or `continue` is taken before the raise"
    if candidate.undecided:
        one = len(candidate.undecided) == 1
        others = "another raise" if one else f"{len(candidate.undecided)} other raises"
        reads = "its test reads" if one else "their tests read"
        description += f" (but {others} of the function may then fire: {reads} values the tool does not know)"
    return description


def bare_test(part: str, name: str) -> bool:
    """Whether ``part`` tests only the truth of ``name`` or whether it is None (``not package``,
    ``node is None``): no type of the value is evident from it."""
    node = _parsed(part)
    if node is None:
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
        node = node.left
    return ast.unparse(node) == name


def _type_test(part: str, name: str) -> tuple[bool, list[str]] | None:
    """``(negated, the classes as code spans)`` where ``part`` is ``isinstance(name, classes)`` or its ``not``."""
    node = _parsed(part)
    if node is None:
        return None
    call = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else node
    negated = call is not node
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance" and len(call.args) == 2
            and not call.keywords and ast.unparse(call.args[0]) == name):
        return None
    classes = call.args[1]
    return negated, [code_span(ast.unparse(c)) for c in (classes.elts if isinstance(classes, ast.Tuple) else [classes])]


def quiet_stand_ins(problem: Problem, envs: list[dict[str, Any]], siblings: list[str], choices: dict[str, list[Any]],
                    defaults: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """For each stand-in argument (``choices``: a required parameter no test before the raise
    reads -> values of its type, the current one first), the first value under which none of
    ``envs`` (the trigger under each fix) makes another raise of the function true, or its
    test raise on the value (``'' < 0``): the fixed call then runs past them
    (``WatermarkDetector(context_width=1, p_value_threshold=0.5)``, not ``0.0``, which the
    next raise refuses). Stand-ins no value quiets alone, where a test reads them together
    (``tokens < 1 or dim < 1``: neither at ``1`` with the other at ``0``), are tried at the same
    position of their values (both ``1``); one still not quieted keeps its first. Also the
    positions in ``envs`` that another raise still fires under, the stand-ins as chosen (no
    value of their type passes it: ``v_cache`` of ``k_cache``'s shape): no example's "after"."""
    index = sibling_guards(tuple(sorted({*siblings, problem.code})), problem.lazy)
    known = Known.of({**defaults, **problem.constants})

    def trips(env: dict[str, Any], values: dict[str, Any], changed: str | None = None) -> bool:
        return _trips(siblings, {**env, **values}, index, changed, known=known)

    def quiet(values: dict[str, Any], changed: str | None = None) -> bool:
        return not any(trips(env, values, changed) for env in envs)

    chosen: dict[str, Any] = {}
    for name, values in sorted(choices.items()):
        value = next((v for v in values if quiet({**chosen, name: v}, name)), NO_VALUE)
        if value is not NO_VALUE:
            chosen[name] = value
    rest = {name: values for name, values in choices.items() if name not in chosen and len(values) > 1}
    for position in range(1, _MAX_TOGETHER) if len(rest) > 1 else ():
        together = {name: values[position] for name, values in rest.items() if position < len(values)}
        if len(together) == len(rest) and quiet({**chosen, **together}):
            return {**chosen, **together}, []
    return chosen, [i for i, env in enumerate(envs) if trips(env, chosen)]


_MAX_TOGETHER = 4  # positions of the stand-ins' values tried together


def _parsed(code: str) -> ast.expr | None:
    return try_parse_expression(code.strip())  # (as parse_expr reads it)


def _first_false(parts: list[tuple[PartRole, str, Any]], env: dict[str, Any]) -> tuple[PartRole, str] | None:
    """The role and code of the first part of the path (in order) that ``env`` makes false:
    where control turns away from the raise; None where a part before it is undecided or none is."""
    for role, code, test in parts:
        holds = test(env)
        if holds is None:
            return None
        if holds is False:
            return role, code
    return None
