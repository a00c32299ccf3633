"""The loops on the way to a raise: what they read, which the evaluator does not run (Guard.looped)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from itertools import pairwise

from .declarations import dotted_name

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def loops_read(stack: Sequence[ast.AST], node: ast.AST) -> tuple[str, ...]:
    """The names and attribute chains read by the loops that run before ``node`` on its
    path, in its function (``stack``: its ancestors, outermost first): each statement before
    the next step down, in each block on the way. A bare ``self`` or ``cls`` is left out (a
    method called on the object reads no attribute of it there)."""
    start = max((i for i, n in enumerate(stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), default=0)
    path = [*stack[start:], node]
    found: set[str] = set()
    for parent, child in pairwise(path):
        for block in _blocks(parent):
            if child in block:
                for stmt in block[: block.index(child)]:
                    if isinstance(stmt, _LOOPS):
                        found.update(_chains(stmt))
                break
    return tuple(sorted(found - {"self", "cls"}))


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    blocks = [getattr(node, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(node, name, None), list)]
    return blocks + [h.body for h in getattr(node, "handlers", ())] + [c.body for c in getattr(node, "cases", ())]


def _chains(loop: ast.AST) -> set[str]:
    found: set[str] = set()
    stack: list[ast.AST] = [loop]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Name, ast.Attribute)) and (chain := dotted_name(current)) is not None:
            found.add(chain)
            if isinstance(current, ast.Name):
                continue
        if not isinstance(current, _FUNCTIONS):
            stack.extend(ast.iter_child_nodes(current))
    return found
