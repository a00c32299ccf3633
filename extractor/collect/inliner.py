"""Inlining: a guard expression with each local replaced by the value that reaches it
(``ExprModel.reaching_value``), each stored attribute by what the function stored, and each
value that cannot be shown where it stands kept as the opaque name of its binding."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .scope import child_nodes, dotted, raw_code, target_names

if TYPE_CHECKING:
    from .expressions import ExprModel

ATOMIC = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Integer, cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap ``node`` in parentheses unless it is atomic or already wrapped."""
    if isinstance(node, ATOMIC) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def bound_inside(node: cst.CSTNode) -> set[str]:
    """Names bound by lambdas and comprehensions inside ``node``: never inlined or classified."""
    bound: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Lambda):
            params = current.params
            bound.update(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
        elif isinstance(current, cst.CompFor):
            bound.update(target_names(current.target))
        stack.extend(child_nodes(current))
    return bound


class Inliner(cst.CSTTransformer):
    def __init__(self, model: ExprModel, bound: set[str]) -> None:
        super().__init__()
        self.model = model
        self.bound = bound
        self.skip: set[int] = set()
        self.quotes: list[str] = []  # the quote of each f-string the node stands in, outermost first

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.quotes.append(node.start.lstrip("rRfFbBuU")[:1])
        return True

    def leave_FormattedString(self, original_node: cst.FormattedString, updated_node: cst.FormattedString) -> cst.BaseExpression:
        self.quotes.pop()
        return updated_node

    def fits(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` can stand in the f-strings around the node: before Python 3.12 a
        replacement field holds neither their quote nor a backslash."""
        if not self.quotes:
            return True
        code = raw_code(value)
        return "\\" not in code and not any(q in code for q in self.quotes)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        return True

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        chain = dotted(original_node) if original_node.attr.value in self.model.attribute_names else None
        if chain is None or chain not in self.model.attributes or dotted(updated_node) != chain or chain.split(".", 1)[0] in self.bound:
            return updated_node  # (an inner part already replaced: ``self.a.b`` after ``self.a = v`` reads ``v.b``)
        value = self.model.attribute_value(chain)
        if value is not None and not self.fits(value):
            return cst.parse_expression(self.model.opaque(chain))
        return updated_node if value is None else parenthesize(value)

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        members = self.model.alias_args(original_node, self.bound)
        return updated_node if members is None else cst.parse_expression(members)

    def leave_NamedExpr(self, original_node: cst.NamedExpr, updated_node: cst.NamedExpr) -> cst.BaseExpression:
        return parenthesize(updated_node.value)  # ``(n := len(s)) > 8`` compares ``len(s)``

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        name = original_node.value
        if id(original_node) in self.skip or name in self.bound:
            return updated_node
        value = self.model.reaching_value(name)
        if value is not None and not self.fits(value):
            return updated_node.with_changes(value=self.model.opaque(name))  # (one opaque name per binding)
        if value is None:
            tagged = self.model.versioned(name)
            return updated_node if tagged is None else updated_node.with_changes(value=tagged)
        return parenthesize(value)
