"""Solving: Guard + domains -> Trigger (and the values behind it), by verified search.

Each variable (a guard input, or an opaque atom such as ``os.path.exists(path)``) gets a
finite list of candidate values from its domain and from the constants the guard compares
it with. The search changes as few defaulted variables as possible (0, 1, 2, then 3),
assigns them depth first, cutting off a prefix as soon as a conjunct it decides is false,
and accepts an assignment only when the restricted evaluator says every conjunct is true,
so a trigger never contradicts its guard. A conjunction whose numeric bounds (declared
constraints included) leave no value is reported unreachable, with the conflicting parts.
"""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..collect.declarations import dotted_name
from ..model import Domain, Guard
from .domains import NO_VALUE, admits, choice_value, default_value, literal_value
from .evaluate import (
    PURE_FUNCTIONS,
    STR_METHODS,
    EvalError,
    evaluate,
    evaluate_tree,
    parse_expr,
    predicate,
)
from .values import EnumMember, StableSet

SEARCH_BUDGET = 1_500
MAX_CHANGED = 3
_FINITE_KINDS = {"bool", "NoneType"}


@dataclass
class Variable:
    name: str
    domain: Domain
    is_atom: bool = False
    is_boolean: bool = False
    default: Any = NO_VALUE
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
    _base: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # built once, on first use

    def env(self, assignment: dict[str, Any]) -> dict[str, Any]:
        """The constants and defaults, with ``assignment`` on top."""
        if self._base is None:
            self._base = {**self.constants, **{n: v.default for n, v in self.variables.items() if v.has_default}}
        return {**self._base, **assignment}

    def holds(self, env: dict[str, Any], code: str | None = None) -> bool | None:
        """True/False when the guard (or ``code``) evaluates, None when it cannot."""
        try:
            tree = parse_expr(code) if code else self.tree
        except EvalError:
            return None
        return self.holds_tree(env, tree)

    def holds_tree(self, env: dict[str, Any], tree: ast.AST | None) -> bool | None:
        try:
            return bool(evaluate_tree(tree, env))
        except EvalError:
            return None


@dataclass(frozen=True, slots=True)
class Solution:
    status: str  # solved | unsolved | unreachable
    assignment: dict[str, Any]
    changed: tuple[str, ...] = ()
    reason: str | None = None
    conflicts: tuple[str, ...] = ()


# --- building the problem -------------------------------------------------------------


def _is_pure_call(node: ast.Call) -> bool:
    name = dotted_name(node.func)
    if name == "isinstance" and len(node.args) == 2:
        types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        return all((dotted_name(t) or "") in {"int", "float", "str", "bool", "list", "dict", "tuple", "set", "bytes", "frozenset"} for t in types)
    if name in PURE_FUNCTIONS:
        return True
    # A str method is evaluated only on a str; on anything else the evaluator refuses.
    return isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS


def _scan(node: ast.expr, inputs: set[str], constants: set[str]) -> tuple[set[str], dict[str, bool]]:
    """Input references and opaque atoms (code -> used as a boolean) of a guard expression."""
    refs: set[str] = set()
    atoms: dict[str, bool] = {}
    stack: list[tuple[ast.AST, bool]] = [(node, True)]
    while stack:
        current, boolean = stack.pop()
        if isinstance(current, (ast.Name, ast.Attribute)):
            name = dotted_name(current)
            if name in inputs:
                refs.add(name)
            elif name is not None and name not in constants and name not in ("True", "False", "None"):
                atoms.setdefault(name, boolean)
            elif name is None:
                stack.append((current.value, False))  # type: ignore[union-attr]
            continue
        if isinstance(current, ast.Call) and not _is_pure_call(current):
            atoms.setdefault(ast.unparse(current), boolean)
            continue
        if isinstance(current, ast.Call):
            is_isinstance = dotted_name(current.func) == "isinstance"
            stack.extend((a, False) for a in (current.args[:1] if is_isinstance else current.args))
            if isinstance(current.func, ast.Attribute):
                stack.append((current.func.value, False))
            continue
        child_boolean = isinstance(current, (ast.BoolOp, ast.UnaryOp)) and boolean and (
            not isinstance(current, ast.UnaryOp) or isinstance(current.op, ast.Not)
        )
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.expr):
                stack.append((child, child_boolean))
    return refs, atoms


def build_problem(guard: Guard, domains: dict[str, Domain]) -> Problem:
    """Variables, candidates and constants for one guard.

    Raises:
        EvalError: the guard code is not a Python expression (an unmodelled guard).
    """
    tree = parse_expr(guard.code)
    constants = {name: value for name, source in guard.constants if (value := literal_value(source)) is not NO_VALUE}
    for domain in domains.values():
        for choice in domain.choices or ():
            if isinstance(member := choice_value(choice), EnumMember):
                constants[choice] = member  # ``Color.RED`` in the guard is that member
    refs, atoms = _scan(tree, set(guard.inputs) | set(guard.opaque), set(constants))
    variables: dict[str, Variable] = {}
    for name in [*guard.inputs, *guard.opaque]:
        if name in refs:
            domain = domains.get(name) or Domain(input=name, source="opaque" if name in guard.opaque else "unknown")
            # An opaque name (a local bound several times, a loop variable) is not an input:
            # the trigger can only assume a value for it.
            variables[name] = Variable(
                name=name, domain=domain, is_atom=name in guard.opaque,
                default=default_value(domain) if domain.has_default else NO_VALUE,
            )
    for code, boolean in sorted(atoms.items()):
        domain = Domain(input=code, source="opaque", types=("bool",) if boolean else ())
        variables[code] = Variable(name=code, domain=domain, is_atom=True, is_boolean=boolean)
    problem = Problem(code=guard.code, tree=tree, variables=variables, constants=constants)
    seeds = _comparison_seeds(problem)
    for variable in variables.values():
        variable.candidates = candidates(variable, seeds.get(variable.name, []))
    return problem


def _comparison_seeds(problem: Problem) -> dict[str, list[Any]]:
    """Values each variable is compared with (constants, and other variables' candidates)."""
    seeds: dict[str, list[Any]] = {}
    env = dict(problem.constants)
    # Against an expression over other variables, seed with its value at their defaults.
    at_defaults = problem.env({})
    for node in ast.walk(problem.tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, (left, right) in zip(node.ops, zip(operands, operands[1:])):
            for side, other in ((left, right), (right, left)):
                name, is_len = _variable_of(side, problem)
                if name is None:
                    _seed_arithmetic(side, other, problem, env, seeds)
                    continue
                value = _constant(other, env)
                if value is NO_VALUE:
                    other_name, _ = _variable_of(other, problem)
                    if other_name is not None:
                        seeds.setdefault(name, []).extend(_generic(problem.variables[other_name]))
                    value = _constant(other, at_defaults)
                    if value is NO_VALUE:
                        continue
                if isinstance(op, (ast.In, ast.NotIn)) and side is left:
                    items = sorted(value, key=repr) if isinstance(value, (tuple, list, set, frozenset, dict)) else []
                    outside = [n for item in items for n in _neighbours(item)[1:] if n not in items]
                    seeds.setdefault(name, []).extend(items + outside[:2])
                elif is_len and isinstance(value, int):
                    seeds.setdefault(name, []).extend(_sized(problem.variables[name], value))
                else:
                    seeds.setdefault(name, []).extend(_neighbours(value))
    return seeds


def _seed_arithmetic(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``a + b > 3``: each variable of an arithmetic side gets the bound's neighbours too."""
    if not isinstance(side, ast.BinOp):
        return
    value = _constant(other, env)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    for node in ast.walk(side):
        name, _ = _variable_of(node, problem) if isinstance(node, (ast.Name, ast.Attribute)) else (None, False)
        if name is not None:
            seeds.setdefault(name, []).extend(_neighbours(value) + _neighbours(value + 1)[1:])


def _variable_of(node: ast.expr, problem: Problem) -> tuple[str | None, bool]:
    if isinstance(node, ast.Call) and dotted_name(node.func) == "len" and len(node.args) == 1:
        inner, _ = _variable_of(node.args[0], problem)
        return inner, True
    if isinstance(node, ast.Constant):
        return None, False  # a literal names no input and no opaque value
    key = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else ast.unparse(node)
    return (key, False) if key in problem.variables else (None, False)


def _constant(node: ast.expr, env: dict[str, Any]) -> Any:
    try:
        return evaluate_tree(node, env)
    except EvalError:
        return NO_VALUE


def _neighbours(value: Any) -> list[Any]:
    if isinstance(value, bool) or value is None:
        return [value]
    if isinstance(value, int):
        return [value, value - 1, value + 1]
    if isinstance(value, float) and math.isfinite(value):
        return [value, value - 0.5, value + 0.5, value - 1, value + 1]
    if isinstance(value, str):
        return [value, value + "_x", ""]
    if isinstance(value, tuple) and value and all(isinstance(v, int) for v in value):
        return [value, (*value[:-1], value[-1] - 1), (*value[:-1], value[-1] + 1)]
    return [value]


MAX_WITNESS_LENGTH = 4096  # a longer string or list would not be a readable trigger


def _sized(variable: Variable, n: int) -> list[Any]:
    lengths = [m for m in (n, n - 1, n + 1) if 0 <= m <= MAX_WITNESS_LENGTH]
    types = variable.domain.types
    if "str" in types and "list" not in types:
        return ["a" * m for m in lengths]
    return [[0] * m for m in lengths] + (["a" * m for m in lengths] if not types else [])


def _generic(variable: Variable) -> list[Any]:
    if variable.is_boolean:
        return [False, True]
    types = variable.domain.types
    out: list[Any] = []
    if variable.domain.choices is not None:
        out.extend(choice_value(c) for c in variable.domain.choices)
    if not types or "int" in types:
        out.extend([0, 1, -1, 2])
    if "float" in types:
        out.extend([0.0, 1.0, -1.0, 0.5])
    if not types or "str" in types:
        out.extend(["", "x"])
    if not types or "list" in types or "tuple" in types:
        out.extend([[], [0]])
    if "dict" in types:
        out.extend([{}, {"x": 0}])
    if "set" in types:
        out.extend([StableSet(), StableSet({0})])
    if not types or "bool" in types:
        out.extend([False, True])
    if "NoneType" in types or not types:
        out.append(None)
    return [v for v in out if v is not NO_VALUE]


def _key(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def candidates(variable: Variable, seeds: list[Any]) -> list[Any]:
    """The values worth trying for a variable: its default, seeds, then typical values of its type."""
    pool = ([variable.default] if variable.has_default else []) + seeds + _generic(variable)
    if variable.is_boolean:
        pool = [False, True]
    seen: dict[tuple[str, str], Any] = {}
    for value in pool:
        if value is NO_VALUE or _key(value) in seen:
            continue
        if variable.is_atom or admits(variable.domain, value):
            seen[_key(value)] = value
    return list(seen.values())


# --- search ---------------------------------------------------------------------------


def _distance(default: Any, value: Any) -> tuple[int, float, str]:
    if isinstance(default, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, abs(float(value) - float(default)), repr(value))
    return (1, 0.0, repr(value))


def _options(variable: Variable, exclude_default: bool) -> list[Any]:
    values = [v for v in variable.candidates if not (exclude_default and variable.has_default and _key(v) == _key(variable.default))]
    return sorted(values, key=lambda v: _distance(variable.default, v)) if variable.has_default else values


def search(problem: Problem, budget: int = SEARCH_BUDGET) -> Solution:
    """The assignment that makes the guard true with the fewest defaulted variables changed."""
    required = [v for v in problem.variables.values() if not v.has_default]
    optional = [v for v in problem.variables.values() if v.has_default]
    if any(not v.candidates for v in required):
        missing = next(v.name for v in required if not v.candidates)
        return Solution(status="unsolved", assignment={}, reason=f"no_candidate_values:{missing}")
    spent = 0
    exhausted = True
    parts = _conjunct_parts(problem)
    required_names = {v.name for v in required}
    base = problem.env({})
    for size in range(min(len(optional), MAX_CHANGED) + 1):
        for subset in itertools.combinations(optional, size):
            changing = {v.name for v in subset} | required_names
            # A conjunct that reads none of the changed variables keeps its value under the
            # defaults: if that is not true, no value of this subset helps; if it is, only
            # the other conjuncts need evaluating. Exact: the same solutions, found sooner.
            if any(status is not True and not names & changing for _, names, status in parts):
                continue
            pools = [_options(v, True) for v in subset] + [_options(v, False) for v in required]
            changed = tuple(v.name for v in [*subset, *required])
            found, spent = _first_assignment(changed, pools, parts, base, spent, budget)
            if found is _OVER_BUDGET:
                return Solution(status="unsolved", assignment={}, reason="search_budget")
            if found is not None:
                return Solution(status="solved", assignment=found, changed=changed)
    if len(optional) > MAX_CHANGED:
        exhausted = False
    # Unreachability is claimed only over true inputs: an opaque atom or a local bound several
    # times can hold different values at the different points the guard mentions it.
    conflicts = bound_conflicts(problem)
    if conflicts:
        return Solution(status="unreachable", assignment={}, reason="bounds_conflict", conflicts=conflicts)
    has_atoms = any(v.is_atom for v in problem.variables.values())
    if exhausted and not has_atoms and all(_is_finite(v) for v in problem.variables.values()):
        return Solution(status="unreachable", assignment={}, reason="no_value_in_finite_domains", conflicts=(problem.code,))
    return Solution(status="unsolved", assignment={}, reason="no_candidate_satisfies")


_OVER_BUDGET: dict[str, Any] = {}  # a sentinel, compared by identity
_Test = Callable[[dict[str, Any]], "bool | None"]


def _first_assignment(changed: tuple[str, ...], pools: list[list[Any]], parts: list[tuple[_Test, set[str], bool | None]],
                      base: dict[str, Any], spent: int, budget: int) -> tuple[dict[str, Any] | None, int]:
    """The first assignment, in the order of ``itertools.product(*pools)``, under which
    every conjunct reading a changed variable is true; and the budget spent.

    Depth first, one variable per level: a conjunct is tested at the level where the last
    changed variable it reads gets its value, and a false one cuts off every completion
    of that prefix (none can change it). The answer is the one plain enumeration finds;
    each assignment tested in full, and each prefix cut off, spends one unit, so the search
    never spends more than enumeration would up to the same answer. ``_OVER_BUDGET`` when
    the budget runs out first.
    """
    if any(not pool for pool in pools):
        return None, spent  # no assignment at all
    level_of = {name: level for level, name in enumerate(changed)}
    # A check that reads only its own level's variable (the others keep their base values)
    # depends on that value alone: its outcome is kept per value, not recomputed under
    # every prefix. Checks with several variables run each time.
    own: list[list[_Test]] = [[] for _ in changed]
    shared: list[list[_Test]] = [[] for _ in changed]
    for test, names, _ in parts:
        read = {level_of[name] for name in names if name in level_of}
        if read:
            level = max(read)
            (own if len(read) == 1 else shared)[level].append(test)
    known: list[list[bool | None]] = [[None] * len(pool) for pool in pools]
    env = base.copy()
    if not changed:
        return (env, spent + 1) if spent + 1 <= budget else (_OVER_BUDGET, spent + 1)
    last = len(changed) - 1

    def holds(level: int, index: int) -> bool:
        env[changed[level]] = pools[level][index]
        ok = known[level][index]
        if ok is None:
            ok = known[level][index] = all(test(env) is True for test in own[level])
        return ok and all(test(env) is True for test in shared[level])

    # An explicit stack of value indices, one per assigned level.
    stack = [iter(range(len(pools[0])))]
    while stack:
        level = len(stack) - 1
        index = next(stack[-1], None)
        if index is None:  # this level's values are used up
            stack.pop()
            continue
        if level == last:
            spent += 1
            if spent > budget:
                return _OVER_BUDGET, spent
        if not holds(level, index):
            if level < last:
                spent += 1
                if spent > budget:
                    return _OVER_BUDGET, spent
            continue
        if level == last:
            return env, spent
        stack.append(iter(range(len(pools[level + 1]))))
    return None, spent


def _conjunct_parts(problem: Problem) -> list[tuple[Callable[[dict[str, Any]], bool | None], set[str], bool | None]]:
    """Each top-level conjunct of the guard: its test, the variables it may read (every
    variable whose name occurs in its text: a superset) and its value under the defaults
    alone (None where it cannot be evaluated)."""
    base = problem.env({})
    parts: list[tuple[Callable[[dict[str, Any]], bool | None], set[str], bool | None]] = []
    for part in conjuncts(problem.tree):
        code = ast.unparse(part)  # the form variables (opaque atoms included) are named in
        names = {name for name in problem.variables if name in code}
        test = predicate(part)
        parts.append((test, names, test(base)))
    return parts


def _is_finite(variable: Variable) -> bool:
    domain = variable.domain
    return variable.is_boolean or domain.choices is not None or bool(domain.types) and set(domain.types) <= _FINITE_KINDS


# --- proving unreachability from numeric bounds ----------------------------------------------


def conjuncts(tree: ast.expr) -> Iterator[ast.expr]:
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        for value in tree.values:
            yield from conjuncts(value)
    else:
        yield tree


_FLIP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq}


def bound_conflicts(problem: Problem) -> tuple[str, ...]:
    """Conjuncts and declared constraints whose numeric bounds leave a variable no value."""
    bounds: dict[str, list[tuple[str, float, str]]] = {}
    for part in conjuncts(problem.tree):
        if not isinstance(part, ast.Compare):
            continue
        operands = [part.left, *part.comparators]
        for op, (left, right) in zip(part.ops, zip(operands, operands[1:])):
            _add_bound(problem, op, left, right, ast.unparse(part), bounds)
    for name, variable in problem.variables.items():
        for constraint in variable.domain.constraints:
            value = literal_value(constraint.value)
            if constraint.name in ("ge", "gt", "le", "lt") and isinstance(value, (int, float)):
                bounds.setdefault(name, []).append((constraint.name, float(value), f"{name}: declared {constraint.name}={constraint.value}"))
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
    name, is_len = _variable_of(left, problem)
    value = _constant(right, problem.constants)
    if name is None:
        name, is_len = _variable_of(right, problem)
        value = _constant(left, problem.constants)
        op = _FLIP.get(type(op), type(op))()  # type: ignore[misc]
    if name is None or is_len or isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    kind = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq"}.get(type(op))
    if kind is not None:
        bounds.setdefault(name, []).append((kind, float(value), text))


# --- fixes ----------------------------------------------------------------------------------


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
        refs, _ = _scan(parse_expr(code), set(problem.variables), set(problem.constants))
    except EvalError:
        return None
    for name in [n for n in problem.variables if n in refs]:
        variable = problem.variables[name]
        current = trigger.get(name, NO_VALUE)
        options = [v for v in variable.candidates if _key(v) != _key(current)]

        def rank(value: Any, current: Any = current, default: Any = variable.default) -> tuple:
            # The smallest numeric change first (up to the bound); among equals, the default.
            kind, gap, text = _distance(current, value)
            return (kind, gap, _key(value) != _key(default), text)

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
