"""``ast`` traversal at about twice the speed of the standard library's, same nodes, same order.

``ast.walk`` and ``ast.iter_child_nodes`` go through two generators per node
(``iter_child_nodes`` over ``iter_fields``); the passes walk millions of nodes a run, and
these loops do the same walk without them. ``walk`` yields exactly what ``ast.walk``
yields, in its order (breadth first), so any caller may switch.
"""

from __future__ import annotations

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
