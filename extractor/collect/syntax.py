"""``ast`` traversal at about twice the speed of the standard library's, same nodes, same order.

``ast.walk`` and ``ast.iter_child_nodes`` go through two generators per node
(``iter_child_nodes`` over ``iter_fields``); the passes walk millions of nodes a run, and
these loops do the same walk without them. ``walk`` yields exactly what ``ast.walk``
yields, in its order (breadth first), so any caller may switch.
"""

from __future__ import annotations

import ast
from ast import AST, AsyncFunctionDef, FunctionDef
from collections import deque
from collections.abc import Iterator

Function = FunctionDef | AsyncFunctionDef  # a ``def`` or ``async def`` statement


def child_nodes(node: AST) -> list[AST]:
    """``list(ast.iter_child_nodes(node))``: the direct children, in field order."""
    found: list[AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend(item for item in value if isinstance(item, AST))
    return found


def walk(node: AST) -> Iterator[AST]:
    """``ast.walk(node)``: ``node`` and every node under it, breadth first."""
    todo = deque([node])
    take, put = todo.popleft, todo.append
    while todo:
        node = take()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                put(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        put(item)
        yield node


_WALKED: list[tuple[AST, list[AST]]] = []  # the last few nodes walked whole by ``nodes_of``, most recent last
_WALKED_KEPT = 4


def nodes_of(node: AST) -> list[AST]:
    """``list(walk(node))``, kept for the last few nodes asked about (by identity, each held
    while kept): the readers that look at one function once per raise in it walk it once. The
    list is shared: a caller must not change it, nor the tree."""
    for kept, nodes in _WALKED:
        if kept is node:
            return nodes
    nodes = list(walk(node))
    _WALKED.append((node, nodes))
    if len(_WALKED) > _WALKED_KEPT:
        del _WALKED[0]
    return nodes


def tail_name(node: ast.expr) -> str | None:
    """The last name of ``a.b.c`` or ``c``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dotted_name(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def call_name(node: ast.expr) -> str | None:
    return tail_name(node.func) if isinstance(node, ast.Call) else None


def receiver_name(function: Function) -> str | None:
    """The first parameter of a method (``self``, or ``cls`` of a classmethod), None for a
    staticmethod or a function without one."""
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list):
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def on_receiver(node: ast.expr, receiver: str) -> bool:
    """Whether ``node`` is the receiver itself or ``super()``: what a method call on it (``self.m()``,
    ``super().m()``) runs a method of the object's class on."""
    return (isinstance(node, ast.Name) and node.id == receiver) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super")
