"""Optional imports: a module-level ``try`` that imports a module and binds a fallback where it
is missing -> what a guard that reads the bound name tests about the machine.

    try:
        import zlib
    except ImportError:
        zlib = None

``zlib`` is None exactly where ``importlib.util.find_spec("zlib")`` is None, and a module (true,
not None) where the spec is found: a guard's ``not zlib`` reads ``not
importlib.util.find_spec('zlib')``, an environment atom (solve.status) that cards state as "on a
machine where the module zlib is not installed". A flag the ``try`` body sets after the import
and the handler sets again (``HAS_DOCUTILS = True`` / ``False``) reads
``importlib.util.find_spec('docutils') is not None``.

Kept only where the name's value is that certain:

- the ``try`` stands at the module's top level, without ``else`` or ``finally``, and its one
  handler catches ``ImportError`` or ``ModuleNotFoundError`` only;
- its body is one absolute import, then assignments that call nothing (nothing else in it may
  raise what the handler catches);
- the handler binds the name to a literal at its top level; the body binds it by the import, or
  to a literal after it;
- nothing else in the module binds the name: no other top-level binding, no ``global`` of it.

A missing module is a sufficient condition for the handler to run (an installed one may fail
to import, or lack the name a ``from`` import takes): the trigger holds as stated, and so does
its fix where the module imports cleanly.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

_CATCHES = frozenset({"ImportError", "ModuleNotFoundError"})
SPEC = "importlib.util.find_spec({module!r})"


def optional_names(body: list[ast.stmt], text: str) -> dict[str, str]:
    """Each module-level name an optional import binds -> the expression over
    ``importlib.util.find_spec`` that gives its value (as source)."""
    found: dict[str, str] = {}
    counts = _binding_counts(body)
    for stmt in body:
        if isinstance(stmt, ast.Try) and not stmt.orelse and not stmt.finalbody and len(stmt.handlers) == 1:
            for name, code in _fallbacks(stmt):
                if counts.get(name, 0) == 2 and not re.search(rf"\bglobal\b[^\n]*\b{re.escape(name)}\b", text):
                    found[name] = code
    return found


def _fallbacks(stmt: ast.Try) -> Iterator[tuple[str, str]]:
    """(name, its value's code) for each name the handler gives a literal and the body binds
    (two bindings: the module binds it nowhere else where its count is two)."""
    handler = stmt.handlers[0]
    if not _catches_import_error(handler.type) or not stmt.body or any(_calls(s) for s in stmt.body[1:]):
        return
    module, imported = _import(stmt.body[0])
    if module is None or not all(isinstance(s, ast.Assign) for s in stmt.body[1:]):
        return
    present = {**dict.fromkeys(imported), **_literals(stmt.body[1:])}
    spec = SPEC.format(module=module)
    for name, missing in _literals(handler.body).items():
        if name in present:
            yield name, _value(spec, present[name], missing)


def _value(spec: str, present: str | None, missing: str) -> str:
    """The code of a name's value: the module (or name) it imports where ``present`` is None."""
    if present is None:
        return spec if missing == "None" else f"({spec} or {missing})"
    if (present, missing) == ("True", "False"):
        return f"{spec} is not None"
    if (present, missing) == ("False", "True"):
        return f"{spec} is None"
    return f"({present} if {spec} is not None else {missing})"


def _catches_import_error(node: ast.expr | None) -> bool:
    names = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
    return bool(names) and all(isinstance(n, ast.Name) and n.id in _CATCHES for n in names)


def _import(stmt: ast.stmt) -> tuple[str | None, list[str]]:
    """The module an absolute import statement needs, and the names it binds."""
    if isinstance(stmt, ast.Import) and len(stmt.names) == 1:
        alias = stmt.names[0]
        return alias.name, [alias.asname or alias.name.split(".", 1)[0]] if alias.asname or "." not in alias.name else []
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module and all(a.name != "*" for a in stmt.names):
        return stmt.module, [a.asname or a.name for a in stmt.names]
    return None, []


def _literals(body: list[ast.stmt]) -> dict[str, str]:
    """The names a block binds to a literal at its top level (the last binding of each)."""
    found: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and not isinstance(stmt.value.value, bytes):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = repr(stmt.value.value)
    return found


def _calls(stmt: ast.stmt) -> bool:
    return any(isinstance(node, ast.Call) for node in ast.walk(stmt))


def _binding_counts(body: list[ast.stmt]) -> dict[str, int]:
    """How many statements bind each name anywhere in the module's top-level statements
    (inside ``if``/``try``/loops too; definitions, imports and assignments)."""
    counts: dict[str, int] = {}
    for node in _top_level(body):
        for name in _bound(node):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _top_level(body: list[ast.stmt]) -> Iterator[ast.AST]:
    work: list[ast.AST] = list(body)
    while work:
        stmt = work.pop()
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                work.extend(getattr(stmt, field, ()))


def _bound(stmt: ast.AST) -> Iterator[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        yield from (a.asname or a.name.split(".", 1)[0] for a in stmt.names)
    elif isinstance(stmt, ast.ExceptHandler) and stmt.name:
        yield stmt.name
    else:
        for target in _targets(stmt):
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _targets(stmt: ast.AST) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [stmt.target]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    return []
