"""Guards: the libcst path from a function down to a raise -> Guard predicate tree.

The guard conjoins the tests of enclosing ``if``/``elif``/``else`` and ``while``, the
negated conditions of every earlier exit on the way (``raise``, ``return``, ``continue``,
``break``, exiting calls, failing ``assert``), and ``match``/``case`` patterns. Loops,
``except`` handlers and ``finally`` blocks are context. Where a preceding statement may
exit in a way the model cannot phrase (inside a loop or a ``try``), the guard says so in
``approximations``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from ..model import And, Compare, Const, GuardNode, IsInstance, IsNone, Not, Opaque, Or, Reason, Truthy
from .expressions import ExprModel
from .scope import MAX_INLINE_DEPTH, dotted, raw_code, strip_parens

TRUE = Const(value=True)
FALSE = Const(value=False)
# Guards past these sizes are not modelled (``guard_too_large``): one guard of more nodes than
# MAX_GUARD_NODES, or any guard of a function once its guards hold MAX_FUNCTION_GUARD_NODES
# in all. Each raise's guard restates the negated tests of the raises before it, so a function
# of hundreds of checks in a row would give work and a catalog that grow with its square.
# Real code stays far below: vLLM's largest guard has 332 nodes, its largest function 2,696.
MAX_GUARD_NODES = 2_000
MAX_FUNCTION_GUARD_NODES = 10_000
MAX_GUARD_CHARS = 20_000  # characters of the guard's code: a huge literal in a test is not copied
_INVERSE = {"==": "!=", "!=": "==", "in": "not in", "not in": "in", "is": "is not", "is not": "is"}


# --- boolean algebra on the tree -------------------------------------------------------


def conj(items: Sequence[GuardNode]) -> GuardNode:
    flat: list[GuardNode] = []
    for item in items:
        if item == FALSE:
            return FALSE
        if item == TRUE:
            continue
        flat.extend(item.items if isinstance(item, And) else (item,))
    unique = list(dict.fromkeys(flat))
    return TRUE if not unique else unique[0] if len(unique) == 1 else And(items=tuple(unique))


def disj(items: Sequence[GuardNode]) -> GuardNode:
    flat: list[GuardNode] = []
    for item in items:
        if item == TRUE:
            return TRUE
        if item == FALSE:
            continue
        flat.extend(item.items if isinstance(item, Or) else (item,))
    unique = list(dict.fromkeys(flat))
    if _has_complement(unique):
        return TRUE
    return FALSE if not unique else unique[0] if len(unique) == 1 else Or(items=tuple(unique))


def _has_complement(items: list[GuardNode]) -> bool:
    """Whether some item's ``negate`` is among the (flattened, ``Or``-free) items, decided
    without building the negation of compound items: building it recursively made long
    ``if``/``elif`` chains of exits exponential."""
    present = set(items)
    for item in items:
        if isinstance(item, (And, Or)):
            # negate() gives Not(item) exactly when it cannot apply De Morgan; otherwise an
            # Or (of an And), which a flattened disjunction never holds.
            found = _negation_is_not(item) and Not(item=item) in present
        else:
            found = negate(item) in present  # one step for a leaf: nothing recursive
        if found:
            return True
    return False


def _negation_is_not(node: GuardNode) -> bool:
    """Whether ``negate(node)`` is a ``Not`` node (mirrors ``negate`` without building)."""
    if isinstance(node, Const):
        return False
    if isinstance(node, Not):
        return isinstance(node.item, Not)
    if isinstance(node, Compare) and len(node.ops) == 1 and node.ops[0] in _INVERSE:
        return False
    if isinstance(node, (And, Or)):
        return any(_negation_is_not(item) for item in node.items)
    return True


def negate(node: GuardNode) -> GuardNode:
    """Logical negation, simplified only where the result means exactly the same."""
    if isinstance(node, Const):
        return Const(value=not node.value)
    if isinstance(node, Not):
        return node.item
    if isinstance(node, Compare) and len(node.ops) == 1 and node.ops[0] in _INVERSE:
        return Compare(left=node.left, ops=(_INVERSE[node.ops[0]],), comparators=node.comparators)
    if isinstance(node, (And, Or)):
        # De Morgan, but only when every operand has an exact negation of its own.
        negated = [negate(item) for item in node.items]
        if not any(isinstance(item, Not) for item in negated):
            return disj(negated) if isinstance(node, And) else conj(negated)
    return Not(item=node)


# --- rendering the tree as Python ------------------------------------------------------


def render_guard(node: GuardNode, parent: int = 0) -> str:
    """The tree as one Python boolean expression, with the parentheses precedence needs."""
    if isinstance(node, Const):
        return "True" if node.value else "False"
    if isinstance(node, Or):
        return _wrap(" or ".join(render_guard(i, 1) for i in node.items), 1, parent)
    if isinstance(node, And):
        return _wrap(" and ".join(render_guard(i, 2) for i in node.items), 2, parent)
    if isinstance(node, Not):
        inner = node.item
        if isinstance(inner, IsNone):
            return f"{inner.expr} is not None"
        return _wrap("not " + render_guard(inner, 4 if isinstance(inner, (Compare, Truthy)) else 3), 3, parent)
    if isinstance(node, Compare):
        pieces = [node.left]
        for op, right in zip(node.ops, node.comparators):
            pieces.extend((op, right))
        return _wrap(" ".join(pieces), 3, parent) if parent >= 4 else " ".join(pieces)
    if isinstance(node, IsNone):
        return _wrap(f"{node.expr} is None", 3, parent) if parent >= 4 else f"{node.expr} is None"
    if isinstance(node, IsInstance):
        types = node.types[0] if len(node.types) == 1 else "(" + ", ".join(node.types) + ")"
        return f"isinstance({node.expr}, {types})"
    if isinstance(node, Truthy):
        return node.expr
    return f"<{node.reason}: {node.code}>" if isinstance(node, Opaque) else "?"


def _wrap(text: str, level: int, parent: int) -> str:
    return f"({text})" if parent > level else text


# --- conditions -> tree ---------------------------------------------------------------------

_COMPARE_OPS = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.NotIn: "not in",
    cst.Is: "is", cst.IsNot: "is not",
}


class ConditionModel:
    """Turns libcst test expressions into guard nodes over one function's inputs."""

    def __init__(self, exprs: ExprModel) -> None:
        self.exprs = exprs

    def condition(self, node: cst.BaseExpression, depth: int = 0) -> GuardNode:
        node = strip_parens(node)
        if isinstance(node, cst.BooleanOperation):
            items = [self.condition(x, depth) for x in _bool_chain(node)]
            return conj(items) if isinstance(node.operator, cst.And) else disj(items)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return negate(self.condition(node.expression, depth))
        if isinstance(node, cst.Comparison):
            return self._comparison(node)
        if isinstance(node, cst.Call) and dotted(node.func) == "isinstance" and len(node.args) == 2:
            types = strip_parens(node.args[1].value)
            elements = types.elements if isinstance(types, cst.Tuple) else None
            names = tuple(raw_code(e.value) for e in elements) if elements is not None else (raw_code(types),)
            return IsInstance(expr=self.exprs.atom(node.args[0].value), types=names)
        if isinstance(node, (cst.Integer, cst.SimpleString)) and isinstance(value := _literal_truth(node), bool):
            return Const(value=value)  # (``while 1:``: no test of the guard)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return Const(value=node.value == "True")
            found = self.exprs.assignment(node.value)
            if found is not None and depth < MAX_INLINE_DEPTH:
                with self.exprs.located(found[1]):
                    return self.condition(found[0], depth + 1)
        if isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)):
            code = self.exprs.atom(node)
            self.exprs.by_code["(" + code + ")"] = self.exprs.by_code[code]
            return Truthy(expr="(" + code + ")")
        return Truthy(expr=self.exprs.atom(node))

    def _comparison(self, node: cst.Comparison) -> GuardNode:
        ops = tuple(_COMPARE_OPS[type(t.operator)] for t in node.comparisons)
        left = self.exprs.atom(node.left)
        rights = tuple(self.exprs.atom(t.comparator) for t in node.comparisons)
        if len(ops) == 1 and ops[0] in ("is", "is not") and rights[0] == "None":
            test = IsNone(expr=left)
            return test if ops[0] == "is" else Not(item=test)
        return Compare(left=left, ops=ops, comparators=rights)

    def pattern(self, subject: str, pattern: cst.MatchPattern) -> GuardNode:
        """The condition under which ``case pattern`` matches ``subject``."""
        if isinstance(pattern, cst.MatchAs):
            return TRUE if pattern.pattern is None else self.pattern(subject, pattern.pattern)
        if isinstance(pattern, cst.MatchValue):
            return Compare(left=subject, ops=("==",), comparators=(self.exprs.atom(pattern.value),))
        if isinstance(pattern, cst.MatchSingleton):
            value = raw_code(pattern.value)
            return IsNone(expr=subject) if value == "None" else Compare(left=subject, ops=("is",), comparators=(value,))
        if isinstance(pattern, cst.MatchOr):
            return disj([self.pattern(subject, p.pattern) for p in pattern.patterns])
        if isinstance(pattern, cst.MatchClass):
            test = IsInstance(expr=subject, types=(raw_code(pattern.cls),))
            if pattern.patterns or pattern.kwds:
                return conj([test, Opaque(code=raw_code(pattern), reason=Reason.MATCH_CLASS_ARGUMENTS)])
            return test
        return Opaque(code=raw_code(pattern), reason=Reason.MATCH_PATTERN)


def _bool_chain(node: cst.BooleanOperation) -> list[cst.BaseExpression]:
    """Operands of a chain of the same boolean operator, left to right, without recursion."""
    operator = type(node.operator)
    items: list[cst.BaseExpression] = []
    stack: list[cst.BaseExpression] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BooleanOperation) and type(current.operator) is operator and not current.lpar:
            stack.append(current.right)
            stack.append(current.left)
        else:
            items.append(current)
    return items


def atoms_of(node: GuardNode) -> list[str]:
    """The expression codes a guard tree reads, in order."""
    out: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (And, Or)):
            stack.extend(reversed(current.items))
        elif isinstance(current, Not):
            stack.append(current.item)
        elif isinstance(current, Compare):
            out.extend((current.left, *current.comparators))
        elif isinstance(current, (IsNone, IsInstance, Truthy)):
            out.append(current.expr)
    return out


def map_atoms(node: GuardNode, rename: Callable[[str], str]) -> GuardNode:
    """The tree with ``rename`` applied to every expression code it holds."""
    if isinstance(node, (And, Or)):
        return type(node)(items=tuple(map_atoms(item, rename) for item in node.items))
    if isinstance(node, Not):
        return Not(item=map_atoms(node.item, rename))
    if isinstance(node, Compare):
        return Compare(left=rename(node.left), ops=node.ops, comparators=tuple(map(rename, node.comparators)))
    if isinstance(node, (IsNone, Truthy)):
        return type(node)(expr=rename(node.expr))
    if isinstance(node, IsInstance):
        return IsInstance(expr=rename(node.expr), types=node.types)
    if isinstance(node, Opaque):
        return Opaque(code=rename(node.code), reason=node.reason)
    return node


def guard_size(node: GuardNode) -> int:
    """The number of nodes of a guard tree (each comparison operand counted)."""
    size = 0
    stack = [node]
    while stack:
        current = stack.pop()
        size += 1
        if isinstance(current, (And, Or)):
            stack.extend(current.items)
        elif isinstance(current, Not):
            stack.append(current.item)
        elif isinstance(current, Compare):
            size += len(current.ops)
        elif isinstance(current, IsInstance):
            size += len(current.types)
    return size


def _literal_truth(node: cst.Integer | cst.SimpleString) -> bool | None:
    """The truth of an int or str literal (``1``, ``0x0``, ``''``); None where it cannot say."""
    try:
        return bool(node.evaluated_value)
    except (ValueError, SyntaxError):
        return None
