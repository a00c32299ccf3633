"""Method effects: what a method leaves on its object, for a public one a caller calls without arguments.

A card's guard often reads state that only the class's own methods set: ``send`` raises once
``close()`` has set ``self._closed = True``. For each such method (public, undecorated, not
``async``, a generator or a staticmethod, every parameter after the receiver with a default)
the method's statements are read as ways through it (``MethodEffect.paths``): each with the
tests that hold along it (an ``if``'s test or its negation, an ``assert``'s), the attributes
of the receiver it assigns (the value's source, or None where it is not one value: ``+=``, an
item or attribute of it stored, one of several targets), the methods it calls on the receiver
(``self.m()``, ``super().m()``), and whether it ends in a raise. Solving puts a new object's
values through them (solve.steps).

What runs is modelled as follows, and a method with anything else has no effect: a ``with``
block runs its body; a ``try`` its body, ``else`` and ``finally`` (no handler: the calls are
taken to return normally, as on the way to any raise); a loop that assigns no attribute of the
receiver and neither returns nor raises is passed over; the receiver passed whole to a call
(``f(self)``, ``setattr(self, ...)``), ``del self.x``, ``yield``, ``match`` and ``global`` are
not modelled. Only ``ast`` is read; nothing runs.
"""

from __future__ import annotations

import ast
import dataclasses

from ..model import EffectPath, MethodEffect
from .syntax import on_receiver, receiver_name, walk

MAX_PATHS = 8  # ways through one method: past that its effect is not recorded


class _Unmodelled(Exception):
    """A statement the effect does not model: the method gets no effect."""


@dataclasses.dataclass(slots=True)
class _Way:
    tests: list[str] = dataclasses.field(default_factory=list)
    stores: list[tuple[str, str | None]] = dataclasses.field(default_factory=list)
    calls: list[str] = dataclasses.field(default_factory=list)

    def fork(self, test: str) -> _Way:
        return _Way([*self.tests, test], list(self.stores), list(self.calls))

    def done(self, *, is_raise: bool = False) -> EffectPath:
        return EffectPath(tests=tuple(self.tests), stores=tuple(self.stores), calls=tuple(dict.fromkeys(self.calls)),
                          is_raise=is_raise)


def method_effects(node: ast.ClassDef) -> tuple[MethodEffect, ...]:
    """The effect of each method of the class that runs its body when called (undecorated, not
    ``async``, not a generator), in source order; ``is_bare`` where a caller may call it without
    arguments (public, every parameter after the receiver with a default): a step's candidate.
    The others are read where a step calls them on its object (``self._flush()``)."""
    found = []
    for stmt in node.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.decorator_list:
            continue
        receiver = receiver_name(stmt)
        if receiver is None or (bound := _bound_unless_generator(stmt)) is None:
            continue
        try:
            paths = _Reader(receiver).paths(stmt.body)
        except _Unmodelled:
            continue
        found.append(MethodEffect(method=stmt.name, receiver=receiver, paths=paths, bound=tuple(sorted(bound)),
                                  is_bare=_callable_bare(stmt)))
    return tuple(found)


def _bound_unless_generator(function: ast.FunctionDef) -> set[str] | None:
    """The names the method binds (its parameters, stores, imports), in one walk; None for a
    generator, whose call does not run its body."""
    bound = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    for n in walk(function):
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                bound.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.Yield, ast.YieldFrom)):
            return None
    return bound


def _callable_bare(function: ast.FunctionDef) -> bool:
    """Public, with a default for every parameter after the receiver."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    return not function.name.startswith("_") and len(args.defaults) >= len(positional) - 1 and all(d is not None for d in args.kw_defaults)


class _Reader:
    """The ways through a method body: ``paths`` reads its statements in order."""

    def __init__(self, receiver: str) -> None:
        self.receiver = receiver
        self.ended: list[EffectPath] = []
        self.finally_after = 0  # ``try`` blocks with a ``finally`` the statement is in: a return there runs it first

    def paths(self, body: list[ast.stmt]) -> tuple[EffectPath, ...]:
        live = self._block(body, [_Way()])
        self.ended.extend(way.done() for way in live)
        return tuple(self.ended)

    def _block(self, body: list[ast.stmt], live: list[_Way]) -> list[_Way]:
        for stmt in body:
            if not live:
                break
            live = self._statement(stmt, live)
            if len(live) + len(self.ended) > MAX_PATHS:
                raise _Unmodelled
        return live

    def _statement(self, stmt: ast.stmt, live: list[_Way]) -> list[_Way]:
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            self._calls(stmt.test, live)
            return [*self._block(stmt.body, [w.fork(test) for w in live]),
                    *self._block(stmt.orelse, [w.fork(f"not ({test})") for w in live])]
        if isinstance(stmt, (ast.Return, ast.Raise)):
            if self.finally_after:
                raise _Unmodelled
            self._calls(stmt, live)
            self.ended.extend(w.done(is_raise=isinstance(stmt, ast.Raise)) for w in live)
            return []
        if isinstance(stmt, ast.Assert):
            test = ast.unparse(stmt.test)
            self._calls(stmt.test, live)
            self.ended.extend(w.fork(f"not ({test})").done(is_raise=True) for w in live)
            return [w.fork(test) for w in live]
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                self._calls(item.context_expr, live)
                bound = [(name, None) for n in walk(item.optional_vars) if (name := self._stored(n)) is not None] \
                    if item.optional_vars is not None else []  # (``with open(p) as self.f``: not one value)
                for way in live:
                    way.stores.extend(bound)
            return self._block(stmt.body, live)
        if isinstance(stmt, ast.Try):
            self.finally_after += bool(stmt.finalbody)
            live = self._block(stmt.orelse, self._block(stmt.body, live))
            self.finally_after -= bool(stmt.finalbody)
            return self._block(stmt.finalbody, live)
        return self._simple(stmt, live)

    def _simple(self, stmt: ast.stmt, live: list[_Way]) -> list[_Way]:
        """An assignment, an expression, ``pass``, an import, or a loop that changes no state."""
        if isinstance(stmt, (ast.For, ast.While)):
            if any(isinstance(n, (ast.Return, ast.Raise)) or self._stored(n) is not None for n in walk(stmt)):
                raise _Unmodelled
        elif not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Pass, ast.Import, ast.ImportFrom)):
            raise _Unmodelled
        self._calls(stmt, live)
        stores = self._stores(stmt)
        for way in live:
            way.stores.extend(stores)
        return live

    def _stores(self, stmt: ast.stmt) -> list[tuple[str, str | None]]:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and (attribute := self._attribute(stmt.targets[0])):
            return [(attribute, ast.unparse(stmt.value))]
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and (attribute := self._attribute(stmt.target)):
            return [(attribute, ast.unparse(stmt.value))]
        targets = [*getattr(stmt, "targets", ()), *([stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else [])]
        return [(name, None) for target in targets for n in walk(target) if (name := self._stored(n)) is not None]

    def _attribute(self, target: ast.expr) -> str | None:
        """``self.a`` as a target: ``a``."""
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.receiver:
            return target.attr
        return None

    def _stored(self, node: ast.AST) -> str | None:
        """The receiver's attribute a store (or ``del``) through ``node`` changes: ``self.a = ``,
        ``self.a[k] = ``, ``self.a.b = ``, ``self.a += `` all change ``a``."""
        if not isinstance(node, (ast.Attribute, ast.Subscript)) or isinstance(node.ctx, ast.Load):
            return None
        base: ast.expr = node
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == self.receiver:
                return base.attr
            base = base.value
        return None

    def _calls(self, node: ast.AST, live: list[_Way]) -> None:
        """The methods ``node`` calls on the receiver; the receiver passed whole is not modelled."""
        called = []
        owned = {id(n.value) for n in walk(node) if isinstance(n, ast.Attribute)}
        for inner in walk(node):
            if isinstance(inner, (ast.Lambda, ast.Await, ast.NamedExpr, ast.Global, ast.Nonlocal, ast.Delete)):
                raise _Unmodelled
            if isinstance(inner, ast.Name) and inner.id == self.receiver and id(inner) not in owned:
                raise _Unmodelled  # (``f(self)``, ``x = self``: anything may change it)
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and on_receiver(inner.func.value, self.receiver):
                called.append(inner.func.attr)
        for way in live:
            way.calls.extend(called)
