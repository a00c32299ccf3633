"""Construction: whether building the object a trigger needs passes the raises its
constructor runs (the owner's ``__init__``, ``__post_init__``, validators), and a trigger
searched past them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..model import CONSTRUCTING, RAW_KEYWORDS, Card, CardContext, Domain, DomainSource, TriggerStatus
from ..model.pytext import try_parse_expression
from .domains import NO_VALUE, default_source, field_domain, literal_value
from .evaluate import EvalError
from .posing import build_problem
from .problem import Problem
from .search import MAX_CHANGED, Solution, search
from .status import atom_kind


def past_construction(card: Card, ctx: CardContext, domains: dict[str, Domain], problem: Problem, solution: Solution,
                       state: frozenset[str], loops: dict[str, str]) -> Solution | None:
    """A trigger that also builds the object: when the one found sets attributes whose
    construction raises first (the owner's ``__post_init__``, validators), solve the guard
    again together with the negation of every raise construction runs, over the attributes
    those read (at their declared defaults unless changed). None where nothing better is found."""
    if solution.status != "solved" or not ctx.owner.checks or card.statement.guard.approximations:
        return None  # (the caller asks only for triggers that would be claimed: else not worth a second search)
    if constructs(problem, ctx, solution.assignment):
        return None
    if not any(n in ctx.owner.settable for n in solution.assignment if n in card.statement.guard.inputs):
        return None
    extra: dict[str, Domain] = {}
    required = {doc.input: doc for doc in ctx.owner.required}  # (a required field's declared type: ``model: str`` is no 1)
    for _, inputs in ctx.owner.checks:
        for name, default, factory in inputs:
            if name not in domains and name not in extra and name in ctx.owner.settable:
                source = default_source(default, factory)
                extra[name] = field_domain(required[name]) if name in required else Domain(
                    input=name, source=DomainSource.FIELD, default=source, has_default=source is not None)
    codes = [f"({card.statement.guard.code})", *(f"not ({code})" for code, _ in ctx.owner.checks)]
    guard = replace(card.statement.guard, code=" and ".join(codes), inputs=tuple(dict.fromkeys([*card.statement.guard.inputs, *extra])))
    try:
        joined = build_problem(guard, {**domains, **extra}, state, ctx.names.named, frozenset(loops))
    except EvalError:
        return None
    found = search(joined, max_changed=MAX_CHANGED + 2)  # the object's own settings come on top of the trigger's
    return found if found.status == "solved" and constructs(problem, ctx, found.assignment) else None


def constructs(problem: Problem, ctx: CardContext, env: dict[str, Any]) -> bool:
    """Whether constructing the object with ``env``'s attribute values passes every raise its
    construction runs (each guard false, attributes the trigger leaves at their defaults); never
    where a validator of its class calls what the tool does not read (Owner.unread_validators).
    A constructor's own parameter (a bare name in its guard) takes the value of the attribute
    the trigger sets through it, else its default: never a same-named input of the method."""
    if ctx.owner.refuses_first(keywords_through(ctx, env)):
        return False  # (a validator calls what the tool does not read: it may refuse the values first)
    return all(held is False for held in _checks_held(problem, ctx, env))


def fix_constructs(problem: Problem, ctx: CardContext, env: dict[str, Any], *, class_level: bool = False) -> bool:
    """``constructs`` (not for a ``class_level`` method: no object is built for its call), and for a
    raise construction runs (a validator's), every check the class runs once its fields pass
    (Owner.after_checks): a fix's values build the whole object, the trigger's are refused
    before those run."""
    if not class_level and not constructs(problem, ctx, env):
        return False
    after = ctx.owner.after_checks
    return not after or all(held is False for held in _checks_held(problem, replace(ctx, owner=replace(ctx.owner, checks=after)), env))


def unpassed_checks(problem: Problem, ctx: CardContext, env: dict[str, Any]) -> int:
    """How many raises construction runs ``env``'s values do not surely pass (held, or unknown)."""
    return sum(held is not False for held in _checks_held(problem, ctx, env))


def refuses(problem: Problem, ctx: CardContext, env: dict[str, Any]) -> bool:
    """Whether a raise construction runs surely fires for ``env``'s values (its guard holds,
    every value it reads known): ``ProfilerConfig(profiler='torch')`` without a
    ``torch_profiler_dir``. Unknown values refuse nothing here (``constructs`` is the proof)."""
    return any(held is True for held in _checks_held(problem, ctx, env))


def keywords_through(ctx: CardContext, env: dict[str, Any]) -> dict[str, Any]:
    """The constructor keywords ``env``'s attribute values are passed as."""
    return {keywords[0]: env[attribute] for attribute, keywords in ctx.owner.settable.items() if len(keywords) == 1 and attribute in env}


def _checks_held(problem: Problem, ctx: CardContext, env: dict[str, Any]) -> Iterator[bool | None]:
    """Whether each raise construction runs holds for ``env`` (None: unknown, a value the tool
    does not know)."""
    through = keywords_through(ctx, env)
    for code, inputs in ctx.owner.checks:
        scope = problem.env(env)
        known = True
        for name, default, factory in inputs:
            parameter = "." not in name
            if default == RAW_KEYWORDS:  # (a "before" model validator's raw input: the keywords given)
                scope[name] = dict(through)
            elif parameter and name in through:
                scope[name] = through[name]
            elif parameter or name not in scope:
                value = literal_value(default_source(default, factory))
                known = known and value is not NO_VALUE
                scope[name] = value
        yield problem.holds(scope, code) if known else None


def fresh_trigger(card: Card, ctx: CardContext, atoms: set[str], domains: dict[str, Domain], state: frozenset[str],
                  loops: frozenset[str], preferred: dict[str, str],
                  on_class: bool = False) -> tuple[Problem, Solution, dict[str, Any]] | None:
    """A trigger that reads the object's internal attributes as a new object has them, where
    every internal value the trigger assumed is one (``self.loaded`` of ``Config.__init__``'s
    ``self.loaded = False``): the problem solved with those values fixed, its solution, and
    the values. None where another internal value remains, or the fixed ones reach no raise.
    ``on_class``: the function is called on the class (a classmethod), which has what its body gives."""
    fresh = dict(ctx.state.constructed)
    if set(card.entry) & CONSTRUCTING or on_class:  # (a raise while the object is built: only what its class body gives is set yet)
        fresh = {name: source for name, source in fresh.items() if name in ctx.state.from_class and (not on_class or _immutable(source))}
    internal = {a for a in atoms if atom_kind(a) == TriggerStatus.INTERNAL}
    if not internal or not internal <= fresh.keys():
        return None
    return pinned_trigger(card, ctx, {name: fresh[name] for name in internal}, domains, state, loops, preferred)


def _immutable(source: str) -> bool:
    """Whether a class body's literal is one no code can change in place: a classmethod reads
    ``cls.UNITS = ("day", "week")`` as written, but a ``cls._registry = {}`` that
    ``register()`` fills (vLLM's factories, at import) holds what ran before the call."""
    return _constant(try_parse_expression(source))


def _constant(node: ast.expr | None) -> bool:
    """A literal constant, signed, or a tuple of them."""
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) or isinstance(node, ast.Tuple) and all(_constant(item) for item in node.elts)


def pinned_trigger(card: Card, ctx: CardContext, sources: dict[str, str], domains: dict[str, Domain], state: frozenset[str],
                   loops: frozenset[str], preferred: dict[str, str]) -> tuple[Problem, Solution, dict[str, Any]] | None:
    """The guard solved with the internal attributes ``sources`` names fixed at those values'
    sources: the problem, its solution and the values; None where no trigger is found, or one
    still assumes an internal value, or where the function calls on its object, before the raise,
    a method that assigns one of them (``self.fill()`` before ``if self.eof:``: the value there
    is the one that method leaves; a method it calls in turn is not followed)."""
    called = set(ctx.signature.receiver_calls)
    if "*" in called or any(write.store.method in called for write in card.solved.state if write.input in sources):
        return None
    pinned = {name: Domain(input=name, source=DomainSource.FIELD, choices=(source,), default=source, has_default=True)
              for name, source in sources.items()}
    try:
        again = build_problem(card.statement.guard, {**domains, **pinned}, state - sources.keys(), ctx.names.named, loops, preferred,
                              ctx.names.instances)
    except EvalError:
        return None
    found = search(again)
    if found.status != "solved" or any(v.is_atom and atom_kind(n) == TriggerStatus.INTERNAL
                                       for n, v in again.variables.items() if n in found.assignment):
        return None
    return again, found, {name: literal_value(source) for name, source in sorted(sources.items())}
