"""Exits: how a statement may keep control from the next one, and which handler of a try
catches what a raise in its body raises (collect.paths reads them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from .reaching import unpacked_length
from .scope import EXIT_CALLS, child_nodes, dotted, raw_code, strip_parens


def _statement_nodes(stmt: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``stmt`` and the nodes inside it, not into nested definitions or expressions."""
    stack: list[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
            stack.extend(child_nodes(node))


def may_exit(stmt: cst.CSTNode, *, loops_absorb: bool) -> bool:
    """Whether ``stmt`` holds a raise/return (or break/continue when loops do not absorb them)."""
    exits = (cst.Raise, cst.Return) if loops_absorb else (cst.Raise, cst.Return, cst.Break, cst.Continue)
    return any(isinstance(node, exits) for node in _statement_nodes(stmt))


_NOT_ONLY_LEAVING = (cst.Raise, cst.Assert, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match)


def only_leaves(stmt: cst.CSTNode, function: str | None = None) -> bool:
    """Whether ``stmt`` is an ``if`` that keeps control from the next statement only by
    ``return``, ``break`` or ``continue``: no raise, assert, exit call, unpacking, loop,
    ``with``, ``try`` or ``match`` in it. Making its test take the other branch is then a
    way out before the raise (a fix), not another error; not where what it returns calls
    ``function`` again (``return [normalize(item) for item in obj]``: the same raise, one level down)."""
    if not isinstance(stmt, cst.If):
        return False
    leaves = False
    for node in _statement_nodes(stmt):
        if isinstance(node, cst.Return) and function is not None and node.value is not None and _calls(node.value, function):
            return False
        if isinstance(node, (cst.Return, cst.Break, cst.Continue)):
            leaves = True
        elif isinstance(node, _NOT_ONLY_LEAVING) or unpacked_length(node) is not None or _is_exit_call(node):
            return False
    return leaves


def _is_exit_call(node: cst.CSTNode) -> bool:
    """Whether ``node`` is an expression statement calling an exit function (``sys.exit(1)``)."""
    return isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and dotted(node.value.func) in EXIT_CALLS


def _calls(node: cst.CSTNode, function: str) -> bool:
    """Whether ``node`` calls ``function`` by its name, or as ``self.function``/``cls.function``."""
    stack = [node]
    while stack:
        current = stack.pop()
        called = (dotted(current.func) or "") if isinstance(current, cst.Call) else ""
        if called.rsplit(".", 1)[-1] == function and called.count(".") <= 1:
            return True
        stack.extend(child_nodes(current))
    return False


def handler_types(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> tuple[str, ...]:
    """The classes an ``except`` clause catches, as written (``BaseException`` for a bare one)."""
    if handler.type is None:
        return ("BaseException",)
    node = strip_parens(handler.type)  # (``except (ImportError):`` catches ImportError)
    if isinstance(node, cst.Tuple):
        return tuple(raw_code(strip_parens(e.value)) for e in node.elements)
    return (raw_code(node),)


_NOT_EXCEPTION = frozenset({"SystemExit", "KeyboardInterrupt", "GeneratorExit", "BaseExceptionGroup"})


def catching(statement: cst.Try | cst.TryStar, chain: Sequence[cst.CSTNode]) -> cst.ExceptHandler | cst.ExceptStarHandler | None:
    """The first handler of ``statement`` that catches what the raise at the end of ``chain``
    (in the statement's body) raises, judged by the written names: the same class,
    ``Exception`` (for any class but the few outside it) or a bare ``except``; a name an
    enclosing handler binds (``except E as e: raise e``) is that handler's classes. None
    where none does (or the raise is bare)."""
    raised = chain[-1]
    exc = raised.exc if isinstance(raised, cst.Raise) else None
    written = dotted(exc.func if isinstance(exc, cst.Call) else exc) if exc is not None else None
    if written is None:
        return None
    names = {written.rsplit(".", 1)[-1]}
    for node in chain:  # the innermost handler binding the name wins
        if isinstance(node, cst.ExceptHandler) and node.name is not None and isinstance(node.name.name, cst.Name) \
                and node.name.name.value == written:
            names = {t.rsplit(".", 1)[-1] for t in handler_types(node)}
    for handler in statement.handlers:
        caught = {t.rsplit(".", 1)[-1] for t in handler_types(handler)}
        if names & caught or "BaseException" in caught or ("Exception" in caught and not names <= _NOT_EXCEPTION):
            return None if _reraises(handler) else handler  # (the first handler that matches is the one that runs)
    return None


def _reraises(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """Whether the handler's block ends by raising what it caught again (``raise``, or
    ``raise e`` of its ``as e``): cleanup that lets the error through."""
    body = handler.body.body if isinstance(handler.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    stmt = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    if not isinstance(stmt, cst.Raise) or stmt.cause is not None:
        return False
    bound = handler.name.name.value if handler.name is not None and isinstance(handler.name.name, cst.Name) else None
    return stmt.exc is None or (isinstance(stmt.exc, cst.Name) and stmt.exc.value == bound)
