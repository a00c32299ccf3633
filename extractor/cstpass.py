"""The libcst pass: the source of one unit (a definition that holds raises) -> RaiseFacts per raise.

A unit is parsed once. ``RaiseCollector`` descends only through statements (a raise is
a statement, so expressions never need visiting) and snapshots the chain of enclosing
nodes at every raise. Positions come from the ``ast`` pass, matched by order, so no
metadata provider is needed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from .messages import reconstruct_message, unknown
from .model import Guard, MessageTemplate
from .paths import extract_guard, handler_types
from .scope import ModuleNames, Scope, dotted, raw_code, strip_parens

_DESCEND = (
    cst.Module, cst.BaseCompoundStatement, cst.IndentedBlock, cst.SimpleStatementSuite,
    cst.SimpleStatementLine, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally,
    cst.MatchCase,
)
_MESSAGE_KEYWORDS = ("message", "msg")


@dataclass(frozen=True, slots=True)
class RaiseFacts:
    kind: str
    written: str | None
    is_call: bool
    caught: tuple[str, ...]
    cause: str | None
    message: MessageTemplate
    guard: Guard
    reason: str | None


class RaiseCollector(cst.CSTVisitor):
    """Collects every raise with the chain of statements around it, in source order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[cst.CSTNode] = []
        self.found: list[tuple[cst.Raise, tuple[cst.CSTNode, ...]]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Raise):
            self.found.append((node, (*self.stack, node)))
            return False
        if isinstance(node, _DESCEND):
            self.stack.append(node)
            return True
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


class UnitAnalysis:
    """Per-unit state: scopes are built once per function and shared by its raises."""

    def __init__(self, module_names: ModuleNames) -> None:
        self.module_names = module_names
        self._scopes: dict[int, Scope] = {}

    def scope_for(self, chain: tuple[cst.CSTNode, ...]) -> tuple[Scope, int]:
        """The scope of the innermost function around the raise, and its index in ``chain``."""
        functions = [i for i, node in enumerate(chain) if isinstance(node, cst.FunctionDef)]
        if not functions:
            return self._scope(None, frozenset()), 0
        outer: set[str] = set()
        for index in functions[:-1]:
            enclosing = self._scope(chain[index], frozenset())
            outer.update(enclosing.bindings, enclosing.params)
        innermost = functions[-1]
        return self._scope(chain[innermost], frozenset(outer)), innermost

    def _scope(self, function: cst.CSTNode | None, outer: frozenset[str]) -> Scope:
        key = id(function)
        scope = self._scopes.get(key)
        if scope is None:
            assert function is None or isinstance(function, cst.FunctionDef)
            scope = Scope(function, outer, self.module_names)
            self._scopes[key] = scope
        return scope

    def analyse(self, node: cst.Raise, chain: tuple[cst.CSTNode, ...]) -> RaiseFacts:
        scope, start = self.scope_for(chain)
        guard = extract_guard(chain, start, scope)
        handlers = [n for n in chain[start:] if isinstance(n, (cst.ExceptHandler, cst.ExceptStarHandler))]
        cause = raw_code(node.cause.item) if node.cause is not None else None
        return _describe(node, handlers, scope, guard, cause)


def _describe(node: cst.Raise, handlers: list, scope: Scope, guard: Guard, cause: str | None) -> RaiseFacts:
    def facts(**kw: object) -> RaiseFacts:
        base = dict(written=None, is_call=False, caught=(), reason=None)
        base.update(kw)
        return RaiseFacts(cause=cause, guard=guard, **base)  # type: ignore[arg-type]

    if node.exc is None:
        if not handlers:
            return facts(kind="reraise", message=unknown("reraise", "reraise"), reason="reraise_outside_except")
        return facts(kind="reraise", message=unknown("reraise", "reraise"), caught=handler_types(handlers[-1]))
    exc = strip_parens(node.exc)
    if isinstance(exc, cst.Name):
        for handler in reversed(handlers):
            if handler.name is not None and raw_code(handler.name.name) == exc.value:
                return facts(kind="reraise", written=exc.value, message=unknown("reraise", "reraise"), caught=handler_types(handler))
        value = scope.inline_value(exc.value)
        if isinstance(value, cst.Call):
            return facts(kind="name", written=raw_code(value.func), is_call=True, message=_call_message(value, scope))
        if value is not None or scope.is_local(exc.value) or exc.value in scope.params:
            return facts(kind="name", written=exc.value, message=unknown("opaque", "raised_object_unresolved"), reason="raised_variable")
    if isinstance(exc, cst.Call):
        return facts(kind="call", written=raw_code(exc.func), is_call=True, message=_call_message(exc, scope))
    written = raw_code(exc)
    if dotted(exc) is None:
        return facts(kind="name", written=written, message=unknown("opaque", "raised_expression"), reason="raised_expression")
    return facts(kind="name", written=written, message=unknown("none", "no_arguments"))


def _call_message(call: cst.Call, scope: Scope) -> MessageTemplate:
    if any(arg.star for arg in call.args):
        return unknown("unsupported", "star_arguments")
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    if len(positional) > 1:
        return unknown("multiple_args", "multiple_arguments")
    if positional:
        target = positional[0]
    else:
        target = next((keywords[k] for k in _MESSAGE_KEYWORDS if k in keywords), None)
        if target is None:
            return unknown("none", "no_arguments" if not keywords else "keyword_arguments_only")
    message = reconstruct_message(target, raw_code, scope.message_target)
    return message if message.parts is not None else replace(message, source=raw_code(target))


def parse_unit(text: str) -> list[tuple[cst.Raise, tuple[cst.CSTNode, ...]]]:
    """Parse one unit and return its raises with their enclosing chains, in source order.

    Raises:
        libcst.ParserSyntaxError: libcst cannot parse the unit.
        RecursionError: the unit nests deeper than the visitor can walk.
    """
    module = cst.parse_module(text)
    collector = RaiseCollector()
    module.visit(collector)
    return collector.found
