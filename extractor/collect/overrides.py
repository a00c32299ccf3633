"""Compiled overrides: a module's top level -> the functions and classes a compiled module may
replace when it is imported, so that the Python code the card shows is not what runs.

Three patterns of the standard library and of packages with C accelerators:

- a fallback: ``try: from _locale import * except ImportError: def setlocale(...)``;
- a definition for a build whose compiled module lacks the name: ``if hasattr(_socket,
  "socketpair"): ... else: def socketpair(...)`` (or under ``if not hasattr(...)``);
- a later import over a definition: ``def attrgetter(...)`` then ``from _operator import *``
  (or ``from _heapq import heappush``).

Only modules whose last dotted part starts with ``_`` count as compiled accelerators; the
tool never imports them, so "may replace" is all it can say.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def compiled_overrides(tree: ast.Module) -> tuple[str, ...]:
    """Names of module-level functions and classes a compiled module may replace."""
    defined: set[str] = set()
    replaced: set[str] = set()
    for stmt, in_fallback in _top_level(tree.body, False):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(stmt.name)
            if in_fallback:
                replaced.add(stmt.name)
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module and stmt.module.rsplit(".", 1)[-1].startswith("_"):
            if any(alias.name == "*" for alias in stmt.names):
                replaced.update(defined)
            else:
                replaced.update(alias.asname or alias.name for alias in stmt.names if (alias.asname or alias.name) in defined)
    return tuple(sorted(replaced))


def _top_level(body: list[ast.stmt], in_fallback: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level statements in source order, into ``if`` and ``try`` blocks; whether each
    stands in a handler of ImportError."""
    for stmt in body:
        yield stmt, in_fallback
        if isinstance(stmt, ast.If):  # ``if hasattr(_socket, "socketpair"): ... else: def socketpair``
            probe = _probes_attribute(stmt.test)
            yield from _top_level(stmt.body, in_fallback or probe is False)
            yield from _top_level(stmt.orelse, in_fallback or probe is True)
        elif isinstance(stmt, (ast.Try, ast.TryStar)):
            yield from _top_level(stmt.body, in_fallback)
            for handler in stmt.handlers:
                yield from _top_level(handler.body, in_fallback or _catches_import_error(handler))
            yield from _top_level(stmt.orelse, in_fallback)
            yield from _top_level(stmt.finalbody, in_fallback)


def _probes_attribute(test: ast.expr) -> bool | None:
    """True for ``hasattr(m, "name")`` of a compiled module ``m`` (``_socket``), False for
    its negation: the other branch is the fallback for a build that lacks it; else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, call = True, test.operand
    else:
        negated, call = False, test
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "hasattr" and len(call.args) == 2
            and isinstance(call.args[0], ast.Name) and call.args[0].id.startswith("_")):
        return not negated
    return None


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names)
