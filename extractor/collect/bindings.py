"""Bindings: the names a libcst statement may bind (``reaching.Reaching.binds`` caches them).

Assignment, augmented and annotated assignment targets, ``del``, imports, nested
definitions, loop and ``with`` targets, ``except ... as``, ``:=`` in a test, and the
captures of ``match`` patterns; a compound statement binds what its blocks bind.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from .scope import dotted, target_names, walrus_names


def with_names(stmt: cst.With) -> set[str]:
    return {name for item in stmt.items if item.asname is not None for name in target_names(item.asname.name)}


def bound_by(node: cst.CSTNode, binds: Callable[[cst.CSTNode], frozenset[str]]) -> set[str]:
    """Names ``node`` binds; nested statements through ``binds`` (cached)."""
    names: set[str] = set()
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
        for child in node.body:
            names |= binds(child)
    elif isinstance(node, cst.Assign):
        for target in node.targets:
            names.update(target_names(target.target))
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        if not (isinstance(node, cst.AnnAssign) and node.value is None):
            names.update(target_names(node.target))
    elif isinstance(node, cst.Del):
        names.update(target_names(node.target))
    elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            bound = dotted(alias.asname.name if alias.asname is not None else alias.name)
            names.add(bound.split(".")[0] if bound else "")
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        names.add(node.name.value)
    elif isinstance(node, cst.BaseCompoundStatement):
        names |= _compound_binds(node, binds)
    return names


def _compound_binds(node: cst.BaseCompoundStatement, binds: Callable[[cst.CSTNode], frozenset[str]]) -> set[str]:
    names: set[str] = set() if isinstance(node, cst.Match) else set(binds(node.body))
    if isinstance(node, (cst.If, cst.While)):
        names |= walrus_names(node.test)
    elif isinstance(node, cst.For):
        names.update(target_names(node.target))
    elif isinstance(node, cst.With):
        names |= with_names(node)
    elif isinstance(node, (cst.Try, cst.TryStar)):
        for handler in node.handlers:
            names |= binds(handler.body)
            if handler.name is not None:
                names.update(target_names(handler.name.name))
        if node.finalbody is not None:
            names |= binds(node.finalbody.body)
    elif isinstance(node, cst.Match):
        for case in node.cases:
            names |= binds(case.body) | walrus_names(case.pattern)
            names |= {n.value for n in _pattern_names(case.pattern)}
    orelse = getattr(node, "orelse", None)
    if isinstance(orelse, cst.If):
        names |= binds(orelse)
    elif isinstance(orelse, cst.Else):
        names |= binds(orelse.body)
    return names


def _pattern_names(pattern: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
            found.append(node.name)
        stack.extend(node.children)
    return found
