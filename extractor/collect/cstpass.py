"""The libcst pass: the source of one unit (a definition that holds raises) -> RaiseFacts per raise.

A unit is parsed once. ``find_raises`` descends only through statements (a raise is a
statement, so expressions never need visiting) and keeps the chain of enclosing nodes of
every raise. Positions come from the ``ast`` pass, matched by order, so no
metadata provider is needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import libcst as cst

from ..model import Argument, Guard, Hole, MessageTemplate, Part, Passage, RaiseFacts, RaiseKind, Reason, Statement, Text
from .exits import handler_types
from .expressions import ExprModel
from .helpers import Callees
from .messages import reconstruct_message, unknown
from .paths import PathModel, extract_guard
from .scope import ModuleNames, Scope, dotted, raw_code, strip_parens

_BODIED = (
    cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase, cst.With,
    cst.FunctionDef, cst.ClassDef,
)
_MESSAGE_KEYWORDS = ("message", "msg")
CallOrRaise = cst.Raise | cst.Expr | cst.Return  # a raise, or a call statement that may call a raising helper
NO_CALLEES = Callees()


def _statement_children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statement-level children of a node, in source order (never expressions)."""
    if isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)):
        return node.body
    if isinstance(node, (cst.If, cst.For, cst.While)):
        return (node.body, node.orelse) if node.orelse is not None else (node.body,)
    if isinstance(node, (cst.Try, cst.TryStar)):
        tail = tuple(n for n in (node.orelse, node.finalbody) if n is not None)
        return (node.body, *node.handlers, *tail)
    if isinstance(node, cst.Match):
        return node.cases
    if isinstance(node, _BODIED):
        return (node.body,)
    return ()


def find_raises(module: cst.Module, callees: Callees = NO_CALLEES) -> list[tuple[CallOrRaise, tuple[cst.CSTNode, ...]]]:
    """Every raise with the chain of statements around it, in source order; with them, the call
    statements inside a function whose callee is one of ``callees`` (collect.helpers).

    Walks statements only (a raise is a statement), iteratively, so no expression is
    visited and no nesting depth can exhaust the stack.
    """
    found: list[tuple[CallOrRaise, tuple[cst.CSTNode, ...]]] = []
    work: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(module, ())]
    while work:
        node, chain = work.pop()
        chain = (*chain, node)
        if isinstance(node, cst.Raise):
            found.append((node, chain))
            continue
        if callees and isinstance(node, (cst.Expr, cst.Return)) and isinstance(node.value, cst.Call) \
                and _is_candidate(dotted(node.value.func), chain, callees):
            found.append((node, chain))
            continue
        for child in reversed(_statement_children(node)):
            work.append((child, chain))
    return found


def _is_candidate(callee: str | None, chain: tuple[cst.CSTNode, ...], callees: Callees) -> bool:
    """Whether a call statement of ``callee`` at the end of ``chain`` is read (helpers.Callees)."""
    if callee is None or not any(isinstance(n, cst.FunctionDef) for n in chain):
        return False
    return callee in callees.anywhere or callee in callees.in_branch and _is_branch_end(chain)


def _is_branch_end(chain: tuple[cst.CSTNode, ...]) -> bool:
    """Whether the statement at the end of ``chain`` ends a branch: the last of an ``if`` or
    ``else`` block of an ``if``, of an ``except`` block or of a ``case`` (helpers.is_branch_end)."""
    node, index = chain[-1], len(chain) - 2
    line = chain[index] if index >= 0 else None
    if isinstance(line, cst.SimpleStatementLine):
        if line.body[-1] is not node:
            return False
        node, index = line, index - 1
    block = chain[index] if index >= 1 else None
    if not isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) or block.body[-1] is not node:
        return False
    owner = chain[index - 1]
    if isinstance(owner, cst.Else):
        return index >= 2 and isinstance(chain[index - 2], cst.If)
    return isinstance(owner, (cst.If, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase))


class UnitAnalysis:
    """Per-unit state: scopes are built once per function and shared by its raises."""

    def __init__(self, module_names: ModuleNames, methods: tuple[str, Mapping[str, frozenset[str]]] | None = None,
                 changed: frozenset[str] = frozenset()) -> None:
        self.module_names = module_names
        self.methods = methods  # the unit's object parameter, and what its class's methods store (units.method_stores)
        self.changed = changed  # names whose object the unit may change in place (purity.first_changes)
        self._scopes: dict[int, Scope] = {}
        self._paths: dict[int, PathModel] = {}  # per scope

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
        scope = self._scope(chain[innermost], frozenset(outer))
        if innermost == functions[0]:
            scope.methods = self.methods  # (a nested function's own parameters are not the object)
        return scope, innermost

    def _scope(self, function: cst.CSTNode | None, outer: frozenset[str]) -> Scope:
        key = id(function)
        scope = self._scopes.get(key)
        if scope is None:
            assert function is None or isinstance(function, cst.FunctionDef)
            scope = Scope(function, outer, self.module_names)
            scope.changed = self.changed
            self._scopes[key] = scope
        return scope

    def close(self) -> None:
        """Drop the unit's models. Each one's reaching walk calls back into it (a reference
        cycle through the unit's whole tree): unlinked here, reference counting frees the
        tree at once, and the worker's collector finds nothing to walk (``pool._Task``)."""
        for paths in self._paths.values():
            paths.exprs.reaching = None
        self._paths.clear()
        self._scopes.clear()

    def analyse(self, node: CallOrRaise, chain: tuple[cst.CSTNode, ...]) -> RaiseFacts:
        if not isinstance(node, cst.Raise):
            return self.analyse_call(node, chain)
        scope, start = self.scope_for(chain)
        paths = self._paths.get(id(scope))
        if paths is None:
            paths = self._paths[id(scope)] = PathModel(scope)
        guard = extract_guard(chain, start, scope, paths)
        handlers = [n for n in chain[start:] if isinstance(n, (cst.ExceptHandler, cst.ExceptStarHandler))]
        cause = raw_code(node.cause.item) if node.cause is not None else None
        facts = _describe(node, handlers, scope, guard, cause, paths.exprs)
        statement = replace(facts.statement, lints=lint_message(facts.message, scope))
        passage = replace(facts.passage, evaluates=(*paths.evaluates, *facts.passage.evaluates))
        return replace(facts, statement=statement, passage=passage)

    def analyse_call(self, node: cst.Expr | cst.Return, chain: tuple[cst.CSTNode, ...]) -> RaiseFacts:
        """A call statement that may call a raising helper, read as a raise of what the helper
        raises: its guard, and its arguments (linking puts them into the helper's raise)."""
        scope, start = self.scope_for(chain)
        paths = self._paths.get(id(scope))
        if paths is None:
            paths = self._paths[id(scope)] = PathModel(scope)
        guard = extract_guard(chain, start, scope, paths)
        call = node.value
        assert isinstance(call, cst.Call)  # (find_raises took only calls)
        found = _call_message(call, scope, paths.exprs, node)
        passage = found.get("passage", Passage())
        return RaiseFacts(statement=Statement(kind=RaiseKind.HELPER_CALL, cause=None, guard=guard), written=raw_code(call.func),
                          is_call=True, message=found["message"],
                          passage=replace(passage, evaluates=(*paths.evaluates, *passage.evaluates)))


def _describe(node: cst.Raise, handlers: list[cst.ExceptHandler | cst.ExceptStarHandler], scope: Scope, guard: Guard, cause: str | None,
              exprs: ExprModel) -> RaiseFacts:
    def facts(kind: RaiseKind, **rest: Any) -> RaiseFacts:
        return RaiseFacts(statement=Statement(kind=kind, cause=cause, guard=guard), **rest)

    if node.exc is None:
        if not handlers:
            return facts(kind=RaiseKind.RERAISE, message=unknown("reraise", Reason.RERAISE), reason=Reason.RERAISE_OUTSIDE_EXCEPT)
        return facts(kind=RaiseKind.RERAISE, message=unknown("reraise", Reason.RERAISE), caught=handler_types(handlers[-1]))
    exc = strip_parens(node.exc)
    if isinstance(exc, cst.Name):
        for handler in reversed(handlers):
            if handler.name is not None and raw_code(handler.name.name) == exc.value:
                return facts(kind=RaiseKind.RERAISE, written=exc.value, message=unknown("reraise", Reason.RERAISE),
                             caught=handler_types(handler))
        value = scope.single_value(exc.value)
        if isinstance(value, cst.Call):
            return facts(kind=RaiseKind.NAME, written=raw_code(value.func), is_call=True, **_call_message(value, scope, exprs, node))
        if value is not None or scope.is_local(exc.value) or exc.value in scope.params:
            return facts(kind=RaiseKind.NAME, written=exc.value, message=unknown("opaque", Reason.RAISED_OBJECT_UNRESOLVED),
                         reason=Reason.RAISED_VARIABLE)
    if isinstance(exc, cst.Call):
        return facts(kind=RaiseKind.CALL, written=raw_code(exc.func), is_call=True, **_call_message(exc, scope, exprs, node))
    written = raw_code(exc)
    if dotted(exc) is None:
        return facts(kind=RaiseKind.NAME, written=written, message=unknown("opaque", Reason.RAISED_EXPRESSION),
                     reason=Reason.RAISED_EXPRESSION)
    return facts(kind=RaiseKind.NAME, written=written, message=unknown("none", Reason.NO_ARGUMENTS))


def _call_message(call: cst.Call, scope: Scope, exprs: ExprModel, at: CallOrRaise) -> dict[str, Any]:
    """The message of an exception call as its one argument reads (link composes the
    class's own rendering from ``arguments``), and every argument read as a message."""
    try:
        values = [_value_at(arg.value, exprs, at) for arg in call.args]
        evaluates = tuple(arg.star + (value or raw_code(arg.value)) for arg, value in zip(call.args, values))
        if any(arg.star for arg in call.args):
            return {"message": unknown("unsupported", Reason.STAR_ARGUMENTS), "passage": Passage(evaluates=evaluates)}
        arguments = tuple(
            Argument(code=raw_code(arg.value), keyword=arg.keyword.value if arg.keyword is not None else None,
                     message=_argument_message(arg.value, scope, exprs, at), value=value)
            for arg, value in zip(call.args, values)
        )
    except RecursionError:  # an argument too deep to write back as code (a 2,500-term concatenation)
        if any(arg.star for arg in call.args):
            return {"message": unknown("unsupported", Reason.STAR_ARGUMENTS)}
        if len(call.args) != 1 or call.args[0].keyword is not None:
            raise
        return {"message": _argument_message(call.args[0].value, scope, exprs, at)}  # no arguments: read as written
    passage = Passage(evaluates=evaluates, arguments=arguments)
    positional = [a for a in arguments if a.keyword is None]
    if len(positional) > 1:
        return {"message": unknown("multiple_args", Reason.MULTIPLE_ARGUMENTS), "passage": passage}
    found = positional[0] if positional else next((a for k in _MESSAGE_KEYWORDS for a in arguments if a.keyword == k), None)
    if found is None:
        message = unknown("none", Reason.NO_ARGUMENTS if not arguments else Reason.KEYWORD_ARGUMENTS_ONLY)
        return {"message": message, "passage": passage}
    return {"message": found.message, "passage": passage}


def _argument_message(value: cst.BaseExpression, scope: Scope, exprs: ExprModel, at: CallOrRaise) -> MessageTemplate:
    message = reconstruct_message(value, raw_code, lambda name: _message_target(name, scope, exprs, at))
    if message.parts is None:
        return replace(message, source=raw_code(value))
    return replace(message, parts=tuple(_inline_hole(part, exprs, at) for part in message.parts))


def _message_target(name: cst.Name, scope: Scope, exprs: ExprModel, at: CallOrRaise) -> cst.BaseExpression | Reason | None:
    """What a message variable holds at the raise: its one value; for one assigned several
    times, the value that reaches the raise (``msg = "a"; msg += "b"`` is ``"a" + "b"``)."""
    found = scope.message_target(name)
    if found != Reason.MESSAGE_VARIABLE_REASSIGNED:
        return found
    with exprs.located(at):
        value = exprs.reaching_value(name.value)
    if isinstance(value, cst.IfExp):
        return Reason.MESSAGE_VARIABLE_BRANCHES  # a different text on each branch: no one template
    if value is None:
        return found
    code = raw_code(value)
    plain = exprs.plain_at(code, at, name.value)
    if plain is None:  # it read a local that is bound again before the raise
        return found
    if plain == code:
        return value
    try:
        return cst.parse_expression(plain)
    except cst.ParserSyntaxError:
        return found


def _inline_hole(part: Part, exprs: ExprModel, at: CallOrRaise) -> Part:
    """A placeholder reading locals also carries its value at the raise in terms of inputs."""
    if not isinstance(part, Hole):
        return part
    try:
        node = cst.parse_expression(part.expr)
    except cst.ParserSyntaxError:
        return part
    value = _value_at(node, exprs, at)
    return replace(part, value=value) if value is not None else part


def _value_at(node: cst.BaseExpression, exprs: ExprModel, at: CallOrRaise) -> str | None:
    """``node``'s value at the raise, its locals replaced and named as the guard names them;
    None where that is the code as written."""
    inlined = exprs.inline_at(node, at)
    if inlined is node:
        return None  # (nothing to replace: most arguments, the message text among them)
    code = raw_code(node)
    value = exprs.named_at(raw_code(inlined), at, code)
    return value if value != code else None


def parse_unit(text: str, callees: Callees = NO_CALLEES) -> list[tuple[CallOrRaise, tuple[cst.CSTNode, ...]]]:
    """Parse one unit and return its raises (and call statements of ``callees``: find_raises)
    with their enclosing chains, in source order.

    Raises:
        libcst.ParserSyntaxError: libcst cannot parse the unit.
        RecursionError: the unit nests deeper than the visitor can walk.
    """
    with _parser_output_trusted():
        module = cst.parse_module(text)
    return find_raises(module, callees)


@contextmanager
def _parser_output_trusted() -> Iterator[None]:
    """libcst checks every node it constructs (``CSTNode.__post_init__`` runs the node's
    ``_validate``), also each node its own parser builds from source it has just accepted;
    libcst's source marks that as a known cost. While a unit is parsed the check is off: a
    fifth of the parse time. Nodes built by hand (the validator's) are still checked."""
    base = cst.CSTNode
    check = base.__dict__.get("__post_init__")
    if check is None:  # another libcst layout: parse as it comes
        yield
        return
    # (mypy refuses assigning a method of a class: replacing libcst's check is this function's purpose)
    base.__post_init__ = _trusted  # type: ignore[method-assign]
    try:
        yield
    finally:
        base.__post_init__ = check  # type: ignore[method-assign]


def _trusted(self: cst.CSTNode) -> None:
    return None


_BRACED_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:[.\[][^{}]*)?(?:![rsa])?(?::[^{}]*)?\}")


def lint_message(message: MessageTemplate, scope: Scope) -> tuple[str, ...]:
    """Codes for probable mistakes in a message: ``{name}`` in a plain string where
    ``name`` is bound in the function reads like a forgotten ``f`` prefix."""
    if message.parts is None or not message.form.endswith("plain"):
        return ()
    text = "".join(p.text for p in message.parts if isinstance(p, Text))
    for match in _BRACED_NAME.finditer(text):
        name = match.group(1)
        if name in scope.params or name in scope.bindings or name in ("self", "cls"):
            return ("probable_missing_f_prefix",)
    return ()
