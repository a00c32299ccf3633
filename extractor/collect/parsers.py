"""Parser functions: a module's functions -> which CLI flags each declares, which subcommands it
creates and which functions it hands a parser to, so that linking can tell the flags of one
command (``vllm serve``) from those of every other parser in the tree.

For each function (by qualname) that declares a flag, creates a subcommand
(``subparsers.add_parser("serve")``, or ``add_parser(self.name)`` with ``name = "serve"`` in
its class) or passes a name to another function (``make_arg_parser(serve_parser)``):
``(qualname, subcommands, callees, destinations)``. A callee is written as in the source
(``make_arg_parser``, ``EngineArgs.add_cli_args``, ``self.add``, ``super().add_cli_args``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from . import declarations as decl
from .flags import cli_flags, loop_flags
from .syntax import walk

Parser = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def parser_functions(tree: ast.Module) -> tuple[Parser, ...]:
    found: list[Parser] = []
    for function, qualname, owner in _functions(tree.body, "", None):
        subcommands: list[str] = []
        callees: list[str] = []
        dests: list[str] = []
        for stmt in _statements(function.body):
            if isinstance(stmt, ast.Expr):
                dests.extend(dest for dest, _ in cli_flags(stmt))
            elif isinstance(stmt, ast.For):
                dests.extend(dest for dest, _ in loop_flags(stmt))
        dests.extend(dest for dest, _ in cli_flags(function))  # click/typer options on the function itself
        for node in _expressions(function.body):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser" and node.args:
                name = _subcommand(node.args[0], owner)
                if name is not None:
                    subcommands.append(name)
            elif any(isinstance(arg, ast.Name) for arg in node.args) and (callee := _callee(node.func)) is not None:
                callees.append(callee)
        if subcommands or dests or callees:
            found.append((qualname, tuple(dict.fromkeys(subcommands)), tuple(dict.fromkeys(callees)), tuple(dict.fromkeys(dests))))
    return tuple(found)


def _functions(body: list[ast.stmt], prefix: str, owner: ast.ClassDef | None) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef,
                                                                                                str, ast.ClassDef | None]]:
    for stmt in body:
        if isinstance(stmt, _DEFS):
            yield stmt, prefix + stmt.name, owner
        elif isinstance(stmt, ast.ClassDef):
            yield from _functions(stmt.body, f"{prefix}{stmt.name}.", stmt)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a function body, into compound statements, not into nested definitions."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (*_DEFS, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            stack.extend(reversed(getattr(stmt, name, []) or []))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(reversed(handler.body))
        for case in getattr(stmt, "cases", ()):
            stack.extend(reversed(case.body))


def _expressions(body: list[ast.stmt]) -> Iterator[ast.AST]:
    for stmt in _statements(body):
        if isinstance(stmt, (*_DEFS, ast.ClassDef)):
            continue
        for field in ("value", "test", "iter", "targets", "items"):
            node = getattr(stmt, field, None)
            for part in node if isinstance(node, list) else [node]:
                if isinstance(part, ast.AST):
                    yield from walk(part)


def _subcommand(node: ast.expr, owner: ast.ClassDef | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") and owner is not None:
        for stmt in owner.body:  # ``name = "serve"`` in the class body
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
            value = getattr(stmt, "value", None)
            if any(isinstance(t, ast.Name) and t.id == node.attr for t in targets) and isinstance(value,
                ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) \
            and func.value.func.id == "super":
        return f"super().{func.attr}"
    return decl.dotted_name(func)
