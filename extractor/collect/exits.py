"""Exits: how a statement may keep control from the next one (collect.paths reads them)."""

from __future__ import annotations

import libcst as cst

from .reaching import unpacked_length
from .scope import EXIT_CALLS, child_nodes, dotted


def may_exit(stmt: cst.CSTNode, *, loops_absorb: bool) -> bool:
    """Whether ``stmt`` holds a raise/return (or break/continue when loops do not absorb them)."""
    stack: list[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Raise, cst.Return)):
            return True
        if not loops_absorb and isinstance(node, (cst.Break, cst.Continue)):
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
            continue
        stack.extend(child_nodes(node))
    return False


_NOT_ONLY_LEAVING = (cst.Raise, cst.Assert, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match)


def only_leaves(stmt: cst.CSTNode) -> bool:
    """Whether ``stmt`` is an ``if`` that keeps control from the next statement only by
    ``return``, ``break`` or ``continue``: no raise, assert, exit call, unpacking, loop,
    ``with``, ``try`` or ``match`` in it. Making its test take the other branch is then a
    way out before the raise (a fix), not another error."""
    if not isinstance(stmt, cst.If):
        return False
    leaves = False
    stack: list[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Return, cst.Break, cst.Continue)):
            leaves = True
        elif isinstance(node, _NOT_ONLY_LEAVING) or unpacked_length(node) is not None:
            return False
        elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call) and dotted(node.value.func) in EXIT_CALLS:
            return False
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
            stack.extend(child_nodes(node))
    return leaves
