"""Modules of another platform that a module or a function imports unconditionally, and the
packages a module's own top-level statements import (``required_packages``: importing the
module needs them installed).

``import winreg`` at the top of a module (or first thing in a function) makes the code below
it run only where that module exists: on Windows. A raise there is reached on another
platform only, whatever its guard says (solve.checks.OTHER_PLATFORM). An import inside a
``try`` or an ``if`` is a choice the code makes, not a requirement: it is left out.
"""

from __future__ import annotations

import ast

# Modules that exist on one platform only, and never on Linux (CPython's own Windows
# modules, pywin32's, and macOS's).
OTHER_PLATFORM_MODULES = frozenset({
    "winreg", "_winreg", "msvcrt", "_winapi", "_overlapped", "winsound", "nt", "_wmi", "_msi", "msilib",
    "win32api", "win32con", "win32file", "win32event", "win32process", "win32pipe", "win32service", "win32com",
    "pywintypes", "pythoncom", "wmi", "_scproxy", "objc", "Foundation", "AppKit", "CoreFoundation",
})


def platform_imports(tree: ast.Module) -> tuple[tuple[str, int, str], ...]:
    """(scope, line, module) for each module of another platform imported unconditionally:
    scope "" for the module's own statements, else the qualname of the function (or method)
    whose body imports it."""
    found: list[tuple[str, int, str]] = [("", line, m) for line, m in _imported(tree.body)]
    work: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while work:
        prefix, body = work.pop()
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                work.append((prefix + stmt.name + ".", stmt.body))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.extend((prefix + stmt.name, line, m) for line, m in _imported(stmt.body))
    return tuple(sorted(set(found)))


def _imported(body: list[ast.stmt]) -> list[tuple[int, str]]:
    modules: list[tuple[int, str]] = []
    for stmt in body:
        if isinstance(stmt, ast.Import):
            modules.extend((stmt.lineno, alias.name.split(".", 1)[0]) for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
            modules.append((stmt.lineno, stmt.module.split(".", 1)[0]))
    return [(line, m) for line, m in modules if m in OTHER_PLATFORM_MODULES]


def required_packages(tree: ast.Module) -> tuple[str, ...]:
    """The top-level packages the module's own top-level statements import (absolute imports
    outside any ``if``, ``try`` or definition): ``import cutlass``, ``from torch import nn``
    -> ``cutlass``, ``torch``. Which of them lie outside the tree and the standard library is
    the link stage's question."""
    found: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            found.update(alias.name.split(".", 1)[0] for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module and stmt.module != "__future__":
            found.add(stmt.module.split(".", 1)[0])
    return tuple(sorted(found))
