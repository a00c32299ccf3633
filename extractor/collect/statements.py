"""Statements of one function: where each stands, what it may bind, and which binding of a
local a statement sees (``StatementIndex``; ``reaching.Reaching`` adds the values).

Every statement (and each small statement of a line) is indexed with the block it is in:
the node that owns the block (the function, a compound statement, an ``else``, a handler,
a ``finally`` or a case), the block's statements and its index there. The walks go back
from a statement through its block, then up to the block's owner, as control came.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from .attributes import NO_STORES, Stores
from .bindings import bound_by, head_binds, target_stores, with_names
from .scope import EXIT_CALLS, dotted, target_names, walrus_names

Frame = tuple[cst.CSTNode, Sequence[cst.CSTNode], int]  # (owner, siblings, index)
_ENDS = (cst.Raise, cst.Return, cst.Continue, cst.Break)


class StatementIndex:
    """The statements of one function, indexed on the first query."""

    def __init__(self, function: cst.FunctionDef, stores: Stores = NO_STORES) -> None:
        self.stores = stores  # stored attributes followed as names, and what may store them
        self._frames: dict[int, Frame] = {}
        self._outer: dict[int, cst.CSTNode] = {}  # Else / handler / Finally / case -> its statement
        self._binds: dict[int, frozenset[str]] = {}
        self._function: cst.FunctionDef | None = function

    def indexed(self) -> None:
        if self._function is not None:
            self._index(self._function)
            self._function = None

    def _index(self, function: cst.FunctionDef) -> None:
        stack: list[tuple[cst.BaseSuite, cst.CSTNode]] = [(function.body, function)]
        while stack:
            suite, owner = stack.pop()
            statements = suite.body
            for index, stmt in enumerate(statements):
                self._frames[id(stmt)] = (owner, statements, index)
                stack.extend(self._blocks(stmt))

    def _blocks(self, stmt: cst.CSTNode) -> list[tuple[cst.BaseSuite, cst.CSTNode]]:
        """The blocks directly inside ``stmt``, each with the node that owns it."""
        if isinstance(stmt, cst.SimpleStatementLine):
            for index, small in enumerate(stmt.body):
                self._frames[id(small)] = (stmt, stmt.body, index)
            return []
        blocks: list[tuple[cst.BaseSuite, cst.CSTNode]] = []
        if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With)):
            blocks.append((stmt.body, stmt))
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            blocks.append((stmt.body, stmt))
            for handler in stmt.handlers:
                self._outer[id(handler)] = stmt
                blocks.append((handler.body, handler))
            if stmt.finalbody is not None:
                self._outer[id(stmt.finalbody)] = stmt
                blocks.append((stmt.finalbody.body, stmt.finalbody))
        if isinstance(stmt, cst.Match):
            for case in stmt.cases:
                self._outer[id(case)] = stmt
                blocks.append((case.body, case))
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.If):  # ``elif``: read where the whole ``if`` stands
            self._frames[id(orelse)] = self._frames[id(stmt)]
            blocks.extend(self._blocks(orelse))
        elif isinstance(orelse, cst.Else):
            self._outer[id(orelse)] = stmt
            blocks.append((orelse.body, orelse))
        return blocks

    def binds(self, node: cst.CSTNode) -> frozenset[str]:
        """Names a statement (or block) may bind, nested statements included."""
        found = self._binds.get(id(node))
        if found is None:
            found = self._binds[id(node)] = frozenset(bound_by(node, self.binds, self.stores))
        return found

    def binds_first(self, stmt: cst.CSTNode, name: str) -> bool:
        """Whether ``stmt`` binds ``name`` before the statements inside it run (all of a simple
        statement; a test's ``:=``, a loop's target, ``with ... as``, and a call in those
        expressions for a stored attribute; a match, to be safe)."""
        if isinstance(stmt, (cst.BaseSmallStatement, cst.SimpleStatementLine)):
            return name in self.binds(stmt)
        if isinstance(stmt, (cst.If, cst.While)):
            found = name in walrus_names(stmt.test)
        elif isinstance(stmt, cst.For):
            found = name in target_names(stmt.target) or name in walrus_names(stmt.iter) or name in target_stores(stmt, self.stores)
        elif isinstance(stmt, cst.With):
            found = name in with_names(stmt) or name in target_stores(stmt, self.stores)
        else:
            return isinstance(stmt, cst.Match) and name in self.binds(stmt)
        return found or "." in name and name in head_binds(stmt, self.stores)

    def statement(self, ident: int) -> cst.CSTNode | None:
        """The statement whose ``id`` is ``ident`` (a version's ``where``), if it is indexed."""
        self.indexed()
        frame = self._frames.get(ident)
        return frame[1][frame[2]] if frame is not None else None

    def version(self, name: str, at: cst.CSTNode) -> tuple[str, int]:
        """Which binding of ``name`` it holds just before statement ``at``: two statements
        with the same version read the same value (on one pass through the loops around
        them). The version is where the walk of ``Reaching.before`` stops: the nearest
        earlier statement that binds the name, the head of a loop, ``with`` or test that
        binds it, the block of a handler, ``finally``, ``else`` or case that may, or the entry."""
        self.indexed()
        frame = self._frames.get(id(at))
        if frame is None:
            return ("statement", id(at))  # a statement of a nested class body: not followed
        owner, siblings, index = frame
        for stmt in reversed(siblings[:index]):
            if self._binding_passes(stmt, name) and not _deletes(stmt, name):  # (after ``del x`` no read of x runs)
                return ("after", id(stmt))
        if isinstance(owner, cst.FunctionDef):
            return ("entry", 0)
        if isinstance(owner, (cst.SimpleStatementLine, cst.Try, cst.TryStar)):
            return self.version(name, owner)
        if isinstance(owner, cst.If):
            return ("test", id(owner)) if self.binds_first(owner, name) else self.version(name, owner)
        if isinstance(owner, (cst.For, cst.While)) or isinstance(owner, cst.With) and self.binds_first(owner, name):
            return ("head", id(owner)) if name in self.binds(owner) else self.version(name, owner)
        if isinstance(owner, cst.With):
            return self.version(name, owner)
        stmt = self._outer[id(owner)]
        if isinstance(owner, cst.Else) and isinstance(stmt, cst.If):
            return ("test", id(stmt)) if self.binds_first(stmt, name) else self.version(name, stmt)
        return ("block", id(owner)) if name in self.binds(stmt) else self.version(name, stmt)

    def rebound_between(self, name: str, start: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Whether ``name`` read at statement ``start`` (before it runs) may hold another
        value at ``at``, later on the path: ``start`` binds it first (an assignment, a loop
        target), or a statement binding it may run in between. True if unsure."""
        self.indexed()
        return self.binds_first(start, name) or self.rebound_since(name, start, at)

    def rebound_since(self, name: str, start: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Whether a statement binding ``name`` may run after ``start`` (a statement before
        ``at``, or the compound statement ``at`` is in) and before ``at`` (``n0 = n; n += 1``);
        True if unsure."""
        holders, node = set(), start  # start and the statements holding it
        while (frame := self._frames.get(id(node))) is not None:
            holders.add(id(node))
            node = self._outer.get(id(frame[0]), frame[0])
        node = at
        while (frame := self._frames.get(id(node))) is not None:
            owner, siblings, index = frame
            for stmt in reversed(siblings[:index]):
                if id(stmt) in holders:  # start (``x = f(x)`` rebinds only what it reads), or holds it
                    return stmt is not start and self._binds_after(name, start, stmt)
                if self._binding_passes(stmt, name):
                    return True
            stmt = self._outer.get(id(owner), owner)
            if isinstance(owner, cst.FunctionDef) or isinstance(stmt, cst.If) and self.binds_first(stmt, name):
                return True
            # Reached from a handler or a try's ``else``: of the try, only its body ran before.
            from_body = isinstance(stmt, (cst.Try, cst.TryStar)) and owner is not stmt and owner is not stmt.finalbody
            if id(stmt) in holders and stmt is not start and from_body:
                return self._binds_after(name, start, stmt, exits=False)  # start in the body
            looped = isinstance(owner, (cst.For, cst.While)) or (isinstance(owner, cst.With) and self.binds_first(owner, name))
            if (looped or stmt is not owner and not isinstance(stmt, cst.If)) and self._ran_before(stmt, owner, name, from_body):
                return True  # the back edge, ``with ... as``, or a handler, finally, case or else after the body
            if stmt is start:
                return False  # ``at`` is inside ``start``, and nothing on the way in binds the name
            node = stmt
        return True

    def _ran_before(self, stmt: cst.CSTNode, owner: cst.CSTNode, name: str, from_body: bool) -> bool:
        """Whether a binding of ``name`` in ``stmt`` may have run before its block ``owner``
        is entered: a try's body before a handler or ``else``; a loop's target and the body
        statements that go on, before its ``else``; else anything ``stmt`` binds."""
        if from_body and isinstance(stmt, (cst.Try, cst.TryStar)):  # (from_body: ``stmt`` is a try)
            return any(self._binding_passes(s, name) for s in stmt.body.body)
        if isinstance(owner, cst.Else) and isinstance(stmt, (cst.For, cst.While)):
            return self.binds_first(stmt, name) or any(self._binding_passes(s, name) for s in stmt.body.body)
        return name in self.binds(stmt)

    def _binding_passes(self, stmt: cst.CSTNode, name: str) -> bool:
        """Whether ``stmt`` may bind ``name`` and then let control go on past it: an ``if``
        whose branches that bind it all end in raise, return, continue or break does not."""
        if name not in self.binds(stmt):
            return False
        if not isinstance(stmt, cst.If) or self.binds_first(stmt, name):
            return True
        branches: list[Sequence[cst.CSTNode]] = []
        node: cst.CSTNode | None = stmt
        while isinstance(node, cst.If):
            branches.append(node.body.body)
            node = node.orelse
        if isinstance(node, cst.Else):
            branches.append(node.body.body)
        return any(name in self.binds(s) for block in branches if not always_leaves(block) for s in block)

    def _binds_after(self, name: str, start: cst.CSTNode, holder: cst.CSTNode, exits: bool = True) -> bool:
        """Whether a statement binding ``name`` may run after ``start`` and still inside
        ``holder`` (a statement holding it): the rest of each block on the way out, a loop's
        next rounds, what a ``try`` runs after its body or a handler (not with ``exits``
        False, for the ``holder`` try itself: the point is in its handler or ``else``)."""
        node = start
        while node is not holder:
            frame = self._frames.get(id(node))
            if frame is None:
                return True
            owner, siblings, index = frame
            if any(self._binding_passes(stmt, name) for stmt in siblings[index + 1:]):
                return True
            stmt = self._outer.get(id(owner), owner)
            if isinstance(owner, (cst.For, cst.While)) and name in self.binds(owner):
                return True
            if isinstance(stmt, (cst.Try, cst.TryStar)) and owner is not stmt.finalbody and (exits or stmt is not holder):
                after = [*stmt.handlers, stmt.orelse, stmt.finalbody] if owner is stmt else [stmt.finalbody]
                if any(block is not None and name in self.binds(block.body) for block in after):
                    return True
            node = stmt
        return False


def _deletes(stmt: cst.CSTNode, name: str) -> bool:
    """Whether the only binding of ``name`` in a simple statement is ``del`` (``del err``)."""
    smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]
    binding = [small for small in smalls if isinstance(small, cst.BaseSmallStatement) and name in bound_by(small, lambda node: frozenset())]
    return bool(binding) and all(isinstance(small, cst.Del) for small in binding)


def always_leaves(statements: Sequence[cst.CSTNode]) -> bool:
    """Whether a block ends in raise/return/continue/break or an exit call on every path."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, (cst.SimpleStatementLine, _ENDS)):
        smalls = last.body if isinstance(last, cst.SimpleStatementLine) else [last]
        return any(isinstance(s, _ENDS) or (isinstance(s, cst.Expr) and isinstance(s.value,
            cst.Call) and dotted(s.value.func) in EXIT_CALLS) for s in smalls)
    return False
