"""The guard as the solver reads it: names imported under another name, by the module's own.

``from operator import index as _index`` makes ``_index(start)`` a call of ``operator.index``,
and ``import struct as _struct`` makes ``_struct.error`` the class ``struct.error``. Where the
evaluator models what such a name denotes (a pure function of its allow-list, an exception
class ``__raises__`` tests for), the solver's own copy of the card's guard writes it as the
module names it (link.instances.imported_names). The card's guard keeps the code as written;
its fixes, which quote the parts of the solver's copy, name the function as its module does
(``operator.index(start)``).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..collect.syntax import dotted_name
from ..model import Card, CardContext
from ..model.pytext import own_expression, try_parse_expression
from .evaluate import PURE_FUNCTIONS
from .evaluate.builtins import EXCEPTIONS


def read_imported(card: Card, ctx: CardContext) -> Card:
    """The card with its guard's imported names that the evaluator models written as their modules name them."""
    known = {written: target for written, target in ctx.names.imported if target in PURE_FUNCTIONS or target in EXCEPTIONS}
    if not known:
        return card
    guard = card.statement.guard
    parts = tuple(replace(part, code=_rewritten(part.code, known)) for part in guard.parts)
    read = replace(guard, code=_rewritten(guard.code, known), parts=parts)
    return replace(card, statement=replace(card.statement, guard=read))


class _Imported(ast.NodeTransformer):
    def __init__(self, known: dict[str, str]) -> None:
        self.known = known

    def _chain(self, node: ast.Name | ast.Attribute) -> ast.AST:
        target = self.known.get(dotted_name(node) or "")
        if target is not None and (tree := try_parse_expression(target)) is not None:
            return ast.copy_location(own_expression(target) or tree, node)
        return self.generic_visit(node)

    visit_Name = _chain
    visit_Attribute = _chain


def _rewritten(code: str, known: dict[str, str]) -> str:
    tree = own_expression(code)
    if tree is None or not any(name in code for name in known):
        return code
    return ast.unparse(_Imported(known).visit(tree))
