"""Reaching values: what a local name holds at one statement of its function, path by path.

``Reaching.before(name, S)``: the last binding before S on the path to S, walking back from S
(S's block, nearest first, then the block's owner, and so on up to the function's entry).

- ``x = e`` (and ``x: T = e``) gives ``e``, read at that statement; ``x op= e``, ``x op e``.
- ``a, b = e1, e2`` gives the matching element of a tuple or list display.
- An ``if`` whose branches bind the name gives ``(a if test else b)``, each side read at the
  end of its branch; a branch that always leaves (raise, return) adds nothing. A ``with``
  body runs in order; so does a ``try`` body (then its ``else``) whose handlers all leave.
- ``(n := e)`` in the test of an ``if``, where the test always evaluates it, gives ``e``.
- The name holds its entry value (a parameter's argument) when nothing binds it before S.

Anything else that binds the name on the way makes it ``UNKNOWN`` there: a loop body (its
back edge), a try body seen from a handler or ``finally``, ``with ... as``, ``except ... as``,
unpacking of anything but a display, ``del``, an import, a nested function (or one that
declares it ``nonlocal``), a value that is not pure (a call with effects, a mutable display
later statements may fill). A name UNKNOWN at a read is one opaque name per binding
(``statements.StatementIndex.version``), a parameter's own name kept for its argument."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import libcst as cst

from .attributes import NO_STORES, Stores, target_key
from .scope import dotted, is_pure, raw_code
from .statements import StatementIndex, always_leaves

ENTRY: Final = "entry"  # the name holds what it held when the function was entered
UNKNOWN: Final = "unknown"  # no expression over the entry's values says what it holds
Value = cst.BaseExpression | str  # an expression, ENTRY or UNKNOWN

MAX_VALUE_CHARS = 400  # a longer value (ifs joining many rebindings) is UNKNOWN
MAX_REACH_DEPTH = 16  # nested reads of one value in another


class Reaching(StatementIndex):
    """Reaching values in one function. ``inline(node, at)`` renders ``node`` as read at
    statement ``at`` (the caller's inliner, which comes back here for each local it meets)."""

    def __init__(self, function: cst.FunctionDef, inline: Callable[[cst.BaseExpression, cst.CSTNode], cst.BaseExpression],
                 stores: Stores = NO_STORES, tag: Callable[[str, cst.CSTNode, bool], cst.BaseExpression] | None = None) -> None:
        super().__init__(function, stores)
        self._inline = inline
        self._tag = tag  # the opaque name of the value a binding leaves (True) or a statement reads
        self._memo: dict[tuple[str, int], Value] = {}
        self._origin: dict[tuple[str, int], tuple[cst.BaseExpression, cst.CSTNode]] = {}
        self._depth = 0

    def before(self, name: str, at: cst.CSTNode) -> Value:
        """What ``name`` holds just before statement ``at`` runs."""
        self.indexed()
        key = (name, id(at))
        found = self._memo.get(key)
        if found is None:
            if self._depth >= MAX_REACH_DEPTH:
                return UNKNOWN
            self._depth += 1
            try:
                found = self._memo[key] = self._bounded(self._before(name, at, key))
            finally:
                self._depth -= 1
        return found

    def assignment(self, name: str, at: cst.CSTNode) -> tuple[cst.BaseExpression, cst.CSTNode] | None:
        """The ``name = value`` whose value reaches ``at`` unchanged, and where it stands; else None."""
        self.before(name, at)
        found = self._origin.get((name, id(at)))
        frame = self._frames.get(id(at))
        if found is not None or frame is None or any(name in self.binds(stmt) for stmt in frame[1][:frame[2]]):
            return found  # else nothing before ``at`` in its block binds it: as where the block's owner stands, if it passes through
        through = isinstance(owner := frame[0], (cst.SimpleStatementLine, cst.Try, cst.TryStar)) or isinstance(owner,
            cst.If) and not self.binds_first(owner, name)
        looped = isinstance(owner, (cst.For, cst.While, cst.With)) and name not in self.binds(owner)
        return self.assignment(name, owner) if through or looped else None

    def _before(self, name: str, at: cst.CSTNode, key: tuple[str, int]) -> Value:
        frame = self._frames.get(id(at))
        if frame is None:
            return UNKNOWN  # a statement of a nested class body: not followed
        owner, siblings, index = frame
        for stmt in reversed(siblings[:index]):
            if name in self.binds(stmt):
                return self._after(name, stmt, key)
        return self._entering(name, owner)

    def _entering(self, name: str, owner: cst.CSTNode) -> Value:
        """The value at the start of a block that does not bind ``name`` before the point."""
        if isinstance(owner, cst.FunctionDef):
            return ENTRY
        if isinstance(owner, cst.SimpleStatementLine):
            return self.before(name, owner)
        if isinstance(owner, cst.If):
            return self._tested(name, owner)
        if isinstance(owner, (cst.For, cst.While)):  # the back edge: the body ran before
            return UNKNOWN if name in self.binds(owner) else self.before(name, owner)
        if isinstance(owner, cst.With):
            return UNKNOWN if self.binds_first(owner, name) else self.before(name, owner)
        if isinstance(owner, (cst.Try, cst.TryStar)):  # the try body, in order
            return self.before(name, owner)
        stmt = self._outer[id(owner)]
        if isinstance(owner, cst.Else) and isinstance(stmt, cst.If):
            return self._tested(name, stmt)
        if isinstance(owner, cst.Else) and isinstance(stmt, (cst.Try, cst.TryStar)):  # the body completed
            return self._end(name, stmt.body.body, lambda: self.before(name, stmt))
        return UNKNOWN if name in self.binds(stmt) else self.before(name, stmt)

    def _tested(self, name: str, stmt: cst.If) -> Value:
        """The value inside a branch of ``stmt``: its test may bind the name (``:=``)."""
        if not self.binds_first(stmt, name):
            return self.before(name, stmt)
        value = _first_walrus(stmt.test, name)
        return UNKNOWN if value is None or not is_pure(value) else self._inline(value, stmt)

    def _after(self, name: str, stmt: cst.CSTNode, key: tuple[str, int] | None) -> Value:
        """The value after ``stmt``, which binds ``name``."""
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in reversed(stmt.body):
                if name in self.binds(small):
                    return self._small(name, small, key)
            return UNKNOWN
        if isinstance(stmt, cst.BaseSmallStatement):  # a statement of a one-line suite (``if c: x = 1; ...``)
            return self._small(name, stmt, key)
        if isinstance(stmt, cst.If):
            return self._joined(name, stmt)
        if isinstance(stmt, cst.With) and not self.binds_first(stmt, name):
            return self._end(name, stmt.body.body, lambda: self.before(name, stmt))
        if isinstance(stmt, cst.Try) and stmt.finalbody is None and all(always_leaves(h.body.body) for h in stmt.handlers):
            # Past the try only when its body (and ``else``) completed: no handler falls through.
            body = lambda: self._end(name, stmt.body.body, lambda: self.before(name, stmt))
            return self._end(name, stmt.orelse.body.body, body) if stmt.orelse is not None else body()
        return UNKNOWN

    def _small(self, name: str, small: cst.CSTNode, key: tuple[str, int] | None) -> Value:
        if isinstance(small, cst.Assign):
            value: cst.BaseExpression | None
            if any(target_key(t.target) == name for t in small.targets) and all(target_key(t.target) for t in small.targets):
                value = small.value
            else:
                value = _element(small, name)
            if value is None or not (is_pure(value) or (is_pure(value, fresh=True) and not self.may_change(name))):
                return UNKNOWN
            if value is small.value and key is not None:
                self._origin[key] = (value, small)
            return self._inline(value, small)
        if isinstance(small, cst.AnnAssign) and target_key(small.target) == name and small.value is not None:
            if not is_pure(small.value):
                return UNKNOWN
            if key is not None:
                self._origin[key] = (small.value, small)
            return self._inline(small.value, small)
        if isinstance(small, cst.AugAssign) and target_key(small.target) == name and is_pure(small.value):
            operator = getattr(cst, type(small.operator).__name__.removesuffix("Assign"), None)
            left = self.before(name, small)
            if operator is None or left is UNKNOWN:
                return UNKNOWN
            right = self._inline(small.value, small)
            # ``msg += ": " + str(x)``: a sum that starts with a string is a string, and joins as one
            joins = operator is cst.Add and _starts_with_string(right)
            return cst.BinaryOperation(
                left=_grouped(_read(name, left)), operator=operator(),
                right=right if joins else _grouped(right),
            )
        return UNKNOWN

    def may_change(self, name: str) -> bool:
        """Whether the unit may change the object a local holds in place (purity.first_changes)."""
        return "." in name or name in self.stores.changed

    def _joined(self, name: str, stmt: cst.If) -> Value:
        """The value after an ``if``: each branch's, chosen by the test."""
        entry = lambda: self._tested(name, stmt)  # (a deferred read)
        body = None if always_leaves(stmt.body.body) else self._end(name, stmt.body.body, entry)
        other: Value | None  # None: that branch always leaves
        if isinstance(stmt.orelse, cst.If):
            other = self._joined(name, stmt.orelse)
        elif isinstance(stmt.orelse, cst.Else):
            other = None if always_leaves(stmt.orelse.body.body) else self._end(name, stmt.orelse.body.body, entry)
        else:
            other = entry()
        if body is None or other is None:
            chosen = other if body is None else body
            return UNKNOWN if chosen is None else chosen
        if other is UNKNOWN and isinstance(stmt.orelse, cst.If):
            return UNKNOWN  # (an ``elif`` chain no expression gives, or whose branches all leave)
        if body is UNKNOWN or other is UNKNOWN:  # that side's value under a name of its own
            body = self._opaque_side(name, stmt, stmt.body.body) if body is UNKNOWN else body
            other = self._opaque_side(name, stmt, stmt.orelse.body.body if isinstance(stmt.orelse,
                                                                                      cst.Else) else ()) if other is UNKNOWN else other
            if body is UNKNOWN or other is UNKNOWN:
                return UNKNOWN
        body_node, other_node = _read(name, body), _read(name, other)
        if raw_code(body_node) == raw_code(other_node):
            return body
        test = self._inline(stmt.test, stmt)
        chosen_node = cst.IfExp(
            test=_grouped(test, operand=False), body=_grouped(body_node, operand=False), orelse=_grouped(other_node, operand=False),
        )
        return chosen_node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def _opaque_side(self, name: str, stmt: cst.If, block: Sequence[cst.CSTNode]) -> Value:
        """The tagged name of the value a branch of ``stmt`` leaves (no expression gives it):
        its last binding's, else the value before ``stmt``."""
        if self._tag is None:
            return UNKNOWN
        last = next((s for s in reversed(block) if name in self.binds(s)), None)
        return self._tag(name, last, True) if last is not None else self._tag(name, stmt, False)

    def _end(self, name: str, statements: Sequence[cst.CSTNode], entry: Callable[[], Value]) -> Value:
        """The value at the end of a block, ``entry()`` where the block does not bind it."""
        for stmt in reversed(statements):
            if name in self.binds(stmt):
                return self._after(name, stmt, None)
        return entry()

    @staticmethod
    def _bounded(value: Value) -> Value:
        if isinstance(value, str) or len(raw_code(value)) <= MAX_VALUE_CHARS:
            return value
        return UNKNOWN


def _read(name: str, value: Value) -> cst.BaseExpression:
    """A value other than UNKNOWN as an expression: ENTRY reads ``name`` as entered."""
    return _entry(name) if isinstance(value, str) else value


def _entry(name: str) -> cst.BaseExpression:
    """The expression reading ``name`` (a local, or a stored attribute ``self.x``) as entered."""
    return cst.Name(name) if "." not in name else cst.parse_expression(name)


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString, cst.Tuple, cst.List)


def _grouped(node: cst.BaseExpression, *, operand: bool = True) -> cst.BaseExpression:
    """``node`` in parentheses where an operator (``operand``) or a conditional expression
    would otherwise read it differently."""
    if node.lpar or isinstance(node, _ATOMS) or not (operand or isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr))):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _starts_with_string(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and not node.lpar:
        node = node.left
    return isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) and not node.lpar


def _first_walrus(test: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """The value of ``(name := value)`` where the test always evaluates it first: the test
    itself, the left of a comparison or of ``and``/``or``, under ``not``. None elsewhere."""
    node = test
    while True:
        if isinstance(node, cst.NamedExpr):
            return node.value if isinstance(node.target, cst.Name) and node.target.value == name else None
        if isinstance(node, (cst.Comparison, cst.BooleanOperation)):
            node = node.left
        elif isinstance(node, cst.UnaryOperation):
            node = node.expression
        else:
            return None


# Text methods whose result is a sequence of texts: ``head, _, tail = name.partition(".")``.
_SEQUENCE_METHODS = frozenset({"split", "rsplit", "partition", "rpartition", "splitlines"})


def _unpackable(value: cst.BaseExpression) -> bool:
    """A value whose items ``x, y = value`` reads as ``value[0]``, ``value[1]``: a name or
    attribute, or a text method that splits one (evaluated again there, the same texts)."""
    if dotted(value) is not None:
        return True
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _SEQUENCE_METHODS
            and all(isinstance(arg.value, (cst.SimpleString, cst.Integer)) and arg.keyword is None for arg in value.args)
            and is_pure(value, fresh=True))  # (literal arguments: ``os.path.split(path)`` is no text's)


def _element(assign: cst.Assign, name: str) -> cst.BaseExpression | None:
    """``a`` for ``x`` in ``x, y = a, b`` (one target, displays of the same length, no stars);
    ``v[0]`` for ``x`` in ``x, y = v`` of a name or attribute, or of a text method that splits
    (``paths`` adds ``len(v) == 2``: the unpacking raises otherwise)."""
    value = assign.value
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    if not isinstance(target, (cst.Tuple, cst.List)) or not all(isinstance(e, cst.Element) for e in target.elements):
        return None
    if not isinstance(value, (cst.Tuple, cst.List)):
        if not _unpackable(value):
            return None  # (``build[obj]``'s items are no value a solver builds)
        index = next((i for i, bound in enumerate(target.elements) if target_key(bound.value) == name), None)
        return None if index is None else cst.Subscript(value=_grouped(value),
                                                        slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer(str(index))))])
    if len(target.elements) != len(value.elements):
        return None
    for bound, element in zip(target.elements, value.elements):
        if not isinstance(element, cst.Element):
            return None
        if target_key(bound.value) == name:
            return element.value
    return None


def unpacked_length(stmt: cst.CSTNode) -> int | None:
    """``n`` for ``x1, ..., xn = v`` of a name, an attribute or a splitting text method ``v``
    (no stars): the statement raises unless ``v`` holds ``n`` items."""
    if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1 or not _unpackable(stmt.value):
        return None
    target = stmt.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or not all(isinstance(e, cst.Element) for e in target.elements):
        return None
    return len(target.elements)
