"""Functions of one file that never return: every path through their body ends at a ``raise``,
at a call that ends the program (``sys.exit``, ``os._exit``, under the names the file's
imports give them: ``import sys as _sys``), or at a call of another such function of the file;
or they are declared ``-> NoReturn``/``Never``. collect.callers reads them to say what an
``except`` clause that ends in such a call does (``self.error(str(err))``, where ``error``
prints a usage line and exits, is no fallback).

A call is resolved in the file alone: ``self.name(...)``/``cls.name(...)`` in a method of a
class to that class's own method, ``name(...)`` to a module-level function. A function is not
taken when it is decorated (but for ``staticmethod``/``classmethod``), is a generator or a
coroutine, or ends at ``raise NotImplementedError`` (a stub that subclasses replace).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .declarations import dotted_name
from .helpers import is_annotated_no_return
from .scope import EXIT_CALLS
from .syntax import Function
from .units import COMPOUND, SCOPES, children

EXIT = "exit"  # every path ends the program
RAISE = "raise"  # every path raises, or ends the program (or its declaration says it never returns)
_STUBS = ("NotImplementedError", "NotImplemented")
_EXITS_OF = {"sys": ("exit",), "os": ("_exit", "abort")}


class NoReturns:
    """The file's functions that never return (qualname -> EXIT or RAISE), and its names for the exit calls."""

    def __init__(self, tree: ast.Module, defs: Sequence[tuple[str, Function]], owners: set[str]) -> None:
        self.exits = set(EXIT_CALLS) | _exit_aliases(tree)
        self.owners = owners
        self.found: dict[str, str] = {q: RAISE for q, node in defs if _plain(node) and is_annotated_no_return(node)}
        candidates = [(q, node) for q, node in defs if _plain(node) and q not in self.found]
        generators: set[str] = set()  # (looked for only in a function whose body ends so: a walk of its whole body)
        changed = True
        while changed:  # (a function that calls one found later: again, until nothing changes)
            changed = False
            for qualname, node in candidates:
                if qualname in self.found or qualname in generators or (kind := self.ends(node.body, qualname)) is None:
                    continue
                if _is_generator(node):
                    generators.add(qualname)
                else:
                    self.found[qualname] = kind
                    changed = True

    def of_call(self, call: ast.Call, caller: str | None) -> str | None:
        """EXIT or RAISE where ``call`` (in the definition ``caller``) never returns, else None."""
        name = dotted_name(call.func) or ""
        if name in self.exits:
            return EXIT
        head, _, rest = name.partition(".")
        if head in ("self", "cls") and rest and "." not in rest and caller is not None:
            owner = caller.rpartition(".")[0]
            return self.found.get(f"{owner}.{rest}") if owner in self.owners else None
        return self.found.get(name) if name and not rest else None

    def ends(self, body: Sequence[ast.stmt], caller: str | None) -> str | None:
        """EXIT or RAISE where every path through ``body`` ends so, else None."""
        for stmt in body:
            if isinstance(stmt, ast.Raise):
                return None if stmt.exc is not None and _raised(stmt.exc) in _STUBS else RAISE
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and (kind := self.of_call(stmt.value, caller)):
                return kind
            if isinstance(stmt, ast.If) and stmt.orelse:
                first, other = self.ends(stmt.body, caller), self.ends(stmt.orelse, caller)
                if first is not None and other is not None:
                    return EXIT if first == other == EXIT else RAISE
            if _may_return(stmt):
                return None
        return None


def _plain(node: Function) -> bool:
    return not isinstance(node, ast.AsyncFunctionDef) and all(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in node.decorator_list)


def _is_generator(node: Function) -> bool:
    work: list[ast.AST] = list(node.body)
    while work:
        current = work.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(current, (*SCOPES, ast.Lambda)):
            work.extend(ast.iter_child_nodes(current))
    return False


def _may_return(stmt: ast.stmt) -> bool:
    """Whether a statement holds a ``return`` (not in nested definitions)."""
    work = [stmt]
    while work:
        current = work.pop()
        if isinstance(current, ast.Return):
            return True
        if isinstance(current, COMPOUND) and not isinstance(current, SCOPES):
            work.extend(children(current))
    return False


def _raised(exc: ast.expr) -> str:
    target = exc.func if isinstance(exc, ast.Call) else exc
    return (dotted_name(target) or "").rsplit(".", 1)[-1]


def _exit_aliases(tree: ast.Module) -> set[str]:
    """The file's own names for the exit calls, from its module-level imports (``_sys.exit``, ``_exit``)."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(f"{alias.asname}.{name}" for name in _EXITS_OF.get(alias.name, ()) if alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in _EXITS_OF:
            found.update(alias.asname or alias.name for alias in node.names if alias.name in _EXITS_OF[node.module])
    return found
