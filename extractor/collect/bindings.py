"""Bindings: the names a libcst statement may bind (``reaching.Reaching.binds`` caches them).

Assignment, augmented and annotated assignment targets, ``del``, imports, nested
definitions, loop and ``with`` targets, ``except ... as``, ``:=`` in a test, and the
captures of ``match`` patterns; a compound statement binds what its blocks bind. With the
function's stored attributes (``attributes.Stores``): a store to one binds its dotted name,
and so does a call that may store it (in a simple statement, or a compound statement's own
expressions).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from .attributes import NO_STORES, Stores, attribute_targets
from .scope import dotted, target_names, walrus_names


def with_names(stmt: cst.With) -> set[str]:
    return {name for item in stmt.items if item.asname is not None for name in target_names(item.asname.name)}


_HEADS = {cst.If: "test", cst.While: "test", cst.For: "iter", cst.With: "items", cst.Match: "subject"}


def target_stores(node: cst.For | cst.With, stores: Stores) -> set[str]:
    """The stored attributes a loop's target or ``with ... as`` assigns (``for self.x in ...``)."""
    targets = [node.target] if isinstance(node, cst.For) else [i.asname.name for i in node.items if i.asname is not None]
    return stores.assigned(a for target in targets for a in attribute_targets(target))


def head_binds(node: cst.BaseCompoundStatement, stores: Stores) -> set[str]:
    """The stored attributes the calls in a compound statement's own expressions (a test, a
    loop's iterable, ``with`` items, a match subject) may change."""
    field = _HEADS.get(type(node)) if stores.attributes else None
    if field is None:
        return set()
    value = getattr(node, field)
    return {a for v in (value if isinstance(value, (list, tuple)) else [value]) for a in stores.called(v)}


def bound_by(node: cst.CSTNode, binds: Callable[[cst.CSTNode], frozenset[str]], stores: Stores = NO_STORES) -> set[str]:
    """Names ``node`` binds (and the stored attributes it may change); nested statements
    through ``binds`` (cached)."""
    names: set[str] = set()
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
        for child in node.body:
            names |= binds(child)
        return names
    if stores.attributes and isinstance(node, cst.BaseSmallStatement):
        names |= stores.called(node)
    if isinstance(node, cst.Assign):
        for target in node.targets:
            names.update(target_names(target.target))
            names |= stores.assigned(attribute_targets(target.target))
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        if not (isinstance(node, cst.AnnAssign) and node.value is None):
            names.update(target_names(node.target))
            names |= stores.assigned(attribute_targets(node.target))
    elif isinstance(node, cst.Del):
        names.update(target_names(node.target))
        names |= stores.assigned(attribute_targets(node.target))
    elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            bound = dotted(alias.asname.name if alias.asname is not None else alias.name)
            names.add(bound.split(".")[0] if bound else "")
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        names.add(node.name.value)
    elif isinstance(node, cst.BaseCompoundStatement):
        names |= _compound_binds(node, binds, stores)
    return names


def _compound_binds(node: cst.BaseCompoundStatement, binds: Callable[[cst.CSTNode], frozenset[str]], stores: Stores) -> set[str]:
    names: set[str] = set() if isinstance(node, cst.Match) else set(binds(node.body))
    names |= head_binds(node, stores)
    if isinstance(node, (cst.If, cst.While)):
        names |= walrus_names(node.test)
    elif isinstance(node, cst.For):
        names.update(target_names(node.target))
        names |= target_stores(node, stores)
    elif isinstance(node, cst.With):
        names |= with_names(node) | target_stores(node, stores)
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
