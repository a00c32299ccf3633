"""Comprehensions in the allow-list: ``all(type(m) is str for m in names)``, ``[x for x in xs if x]``.

They run as Python runs them: the first ``for``'s iterable is evaluated where the
comprehension stands, the rest (and the conditions, and the element) once per item, with
the targets bound in a scope of their own. A generator expression is lazy, so ``any`` and
``all`` stop where Python stops (``any(1 / x for x in [1, 0])`` is True, with no division by
zero). Only plain containers are iterated (a list, tuple, str, bytes, dict, set), and each
item charges the evaluation's step budget (``ITEM_UNITS``), so nested loops stay bounded. A generator has no
text (its repr holds an address): formatting one is refused.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from typing import Any, cast

from ..values import StableSet, _StableOrder
from .core import BUILDERS, Fn, compiled
from .errors import EvalError, ValueFailure
from .limits import charge

_ITERABLE: tuple[type, ...] = (list, tuple, str, bytes, dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))
_ABSENT = object()
# What one item costs of the evaluation's step budget (limits.EVAL_STEPS): about 2,000 items
# per evaluation, in a millisecond or two; the search evaluates a guard up to 1,500 times.
ITEM_UNITS = 1_000
_NOT_ITERABLE = (int, float, complex, bool, type(None))  # plain values Python refuses to iterate (a TypeError)


class _Scope(Mapping[str, Any]):
    """The environment inside a comprehension: its targets, over the enclosing one. A key of
    the enclosing environment that mentions a target (``m.name``, ``len(m)``: an input or
    atom of the code outside, where ``m`` meant something else) is hidden, so it is
    computed from the target's value instead."""

    __slots__ = ("bound", "mentions", "outer")

    def __init__(self, outer: Mapping[str, Any], bound: dict[str, Any], mentions: re.Pattern[str]) -> None:
        self.outer, self.bound, self.mentions = outer, bound, mentions

    def __getitem__(self, key: str) -> Any:
        if key in self.bound:
            return self.bound[key]
        if self.mentions.search(key):
            raise KeyError(key)
        value = self.outer.get(key, _ABSENT)  # (through ``get``: an environment may record what is read, status.Reads)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:  # (the hot path: core looks names up with get)
        try:
            return self[key]
        except KeyError:
            return default

    def __iter__(self) -> Iterator[str]:
        yield from self.bound
        yield from (k for k in self.outer if k not in self.bound and not self.mentions.search(k))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Generator:
    """A generator expression's value: iterable once, with no text."""

    __slots__ = ("items",)

    def __init__(self, items: Iterator[Any]) -> None:
        self.items = items

    def __iter__(self) -> Iterator[Any]:
        return self.items

    def __next__(self) -> Any:
        return next(self.items)

    def __repr__(self) -> str:
        raise EvalError("the text of a generator")


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    raise EvalError(f"comprehension target outside the allow-list: {type(target).__name__}")


def _bind(target: ast.expr, value: Any, into: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        into[target.id] = value
        return
    elements = cast("ast.Tuple | ast.List", target).elts  # (_names checked the shape)
    items = list(_items(value))
    if len(items) != len(elements):
        raise ValueFailure(f"cannot unpack {len(items)} values into {len(elements)} targets")
    for element, item in zip(elements, items):
        _bind(element, item, into)


def _items(value: Any) -> Iterator[Any]:
    if isinstance(value, _Generator):
        return value.items
    if type(value) in _NOT_ITERABLE:
        raise ValueFailure(f"{type(value).__name__!r} object is not iterable")
    if not isinstance(value, _ITERABLE):
        raise EvalError(f"iteration over a value outside the allow-list: {type(value).__name__}")
    if isinstance(value, (set, frozenset)) and not isinstance(value, _StableOrder):
        value = StableSet(value)  # a run-independent order
    return iter(value)


def _iterate(generators: list[tuple[ast.comprehension, Fn, list[Fn]]], env: Mapping[str, Any], first: Any,
             mentions: re.Pattern[str], depth: int = 0) -> Iterator[Mapping[str, Any]]:
    """Each scope the element is evaluated in, in Python's order."""
    comprehension, iterable, conditions = generators[depth]
    source = first if depth == 0 else iterable(env)
    for item in _items(source):
        charge(ITEM_UNITS)
        bound = dict(env.bound) if isinstance(env, _Scope) else {}
        _bind(comprehension.target, item, bound)
        scope = _Scope(env.outer if isinstance(env, _Scope) else env, bound, mentions)
        if not all(condition(scope) for condition in conditions):
            continue
        if depth + 1 == len(generators):
            yield scope
        else:
            yield from _iterate(generators, scope, None, mentions, depth + 1)


def _comprehension(node: ast.GeneratorExp | ast.ListComp | ast.SetComp | ast.DictComp) -> Fn:
    if any(g.is_async for g in node.generators):
        return _refused("async comprehension")
    try:
        names = [name for g in node.generators for name in _names(g.target)]
    except EvalError as exc:
        return _refused(str(exc))
    mentions = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(set(names)))) + r")(?!\w)")
    generators = [(g, compiled(g.iter), [compiled(c) for c in g.ifs]) for g in node.generators]
    if isinstance(node, ast.DictComp):
        key, value = compiled(node.key), compiled(node.value)
        return lambda env: {key(s): value(s) for s in _iterate(generators, env, _first(generators, env), mentions)}
    element = compiled(node.elt)
    if isinstance(node, ast.GeneratorExp):
        # (The first iterable is evaluated, and checked, at once, as Python does.)
        def lazy(env: Mapping[str, Any]) -> _Generator:
            first = _first(generators, env)
            return _Generator(element(s) for s in _iterate(generators, env, first, mentions))

        return lazy
    make = list if isinstance(node, ast.ListComp) else StableSet
    return lambda env: make([element(s) for s in _iterate(generators, env, _first(generators, env), mentions)])


def _first(generators: list[tuple[ast.comprehension, Fn, list[Fn]]], env: Mapping[str, Any]) -> Any:
    value = generators[0][1](env)
    _items(value)  # refused now, not at the first item (a generator is not advanced)
    return value


def _refused(why: str) -> Fn:
    def refuse(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"refused: {why}")

    return refuse


BUILDERS.update({ast.GeneratorExp: _comprehension, ast.ListComp: _comprehension, ast.SetComp: _comprehension,
                 ast.DictComp: _comprehension})
