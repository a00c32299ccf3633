"""The card at its public entry: a raise in a private function, solved as a call of the public
function that passes the user's values straight through to it (link.callgraph.entry_calls).

``def decode(text): return _decode(text)`` and ``def decode_strict(text): return _decode(text,
_STRICT)`` reach ``_decode(text, strict=False)``'s raise: at ``decode_strict`` the guard is the
same over ``text``, with ``strict`` fixed to ``_STRICT``'s value. The card is posed again with
the entry's signature (its parameters, their declared defaults and types), the values the path
fixes as the guard's constants (never inputs a trigger may set), and the entry's place (module,
decorators, constructor): the solver's passes then search, verify in the restricted evaluator,
fix and write the example as they do for any card, and the example calls the entry.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..collect.calls import read_chains
from ..collect.purity import PURE_BUILTINS
from ..model import Card, CardContext, CommandLine, EntryCall, ObjectState, Owner, Signature
from ..model.codes import EntryKind, PartRole
from ..model.libraries import LIBRARIES
from ..model.pytext import try_parse_expression
from ..model.site import GuardPart

_SELF = {"self", "cls"}


# (not the orderings: ``not x < y`` holds for a NaN where ``x >= y`` does not)
_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}


def negated(code: str) -> str:
    """The test under which control goes on past an exit taken where ``code`` holds, as a
    reader writes it: ``not text`` -> ``text``, ``x is None`` -> ``x is not None``, else ``not (code)``."""
    tree = try_parse_expression(code)
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        return ast.unparse(tree.operand)
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and type(tree.ops[0]) in _FLIPPED:
        return ast.unparse(ast.Compare(left=tree.left, ops=[_FLIPPED[type(tree.ops[0])]()], comparators=tree.comparators))
    return f"not ({code})"


def _conjunct(code: str) -> str:
    """``code`` as one operand of ``and``: in parentheses where it is an ``or``, ``and``, ``if``-expression or ``:=``."""
    tree = try_parse_expression(code)
    return f"({code})" if isinstance(tree, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)) else code


def past_checks(card: Card, ctx: CardContext) -> Card | None:
    """The card with the checks of the calls on the way (Placement.earlier_checks) in its guard,
    each false where the raise is reached (an exit's part), so that a search finds values that
    pass them (``q.ndim == 3`` for ``_validate(q)``); None where one is not written over the
    card's values, or reads what the card's function does not name."""
    checks = ctx.place.earlier_checks
    params = {p.name for p in ctx.signature.params}
    trees = [try_parse_expression(code) if code else None for code in checks]
    if not checks or any(tree is None for tree in trees):
        return None
    reads = [chain for tree in trees if tree is not None for chain in read_chains(tree)]
    if any(chain is None or (chain.split(".", 1)[0] not in params | _MODULES_READ and chain not in PURE_BUILTINS) for chain in reads):
        return None
    guard = card.statement.guard
    parts = tuple(GuardPart(role=PartRole.EXIT, code=negated(code)) for code in checks)
    inputs = [chain for chain in reads if chain is not None and chain.split(".", 1)[0] in params]
    guard = replace(guard, code=" and ".join([*(p.code for p in parts), f"({guard.code})"]), parts=(*parts, *guard.parts),
                    inputs=tuple(dict.fromkeys([*guard.inputs, *inputs])))
    return replace(card, statement=replace(card.statement, guard=guard))


_MODULES_READ = frozenset({*LIBRARIES, "math"})  # (``torch.Tensor`` in an isinstance, ``torch.float16``: modelled)


def at_entry(card: Card, ctx: CardContext, entry: EntryCall) -> tuple[Card, CardContext]:
    """The card and its context as the entry's call poses them."""
    fixed = dict(entry.fixed)
    guard = card.statement.guard
    guard = replace(guard, inputs=tuple(i for i in guard.inputs if i not in fixed),
                    constants=(*((n, c) for n, c in guard.constants if n not in fixed), *entry.fixed))
    if entry.exits:  # (the tests on the entry's way to its call come first: each false where the call is reached, a branch's true)
        parts = tuple(GuardPart(role=PartRole.OUTER, code=_conjunct(code)) if kind == "branch" else
                      GuardPart(role=PartRole.EXIT if kind == "raise" else PartRole.LEAVE, code=negated(code))
                      for code, kind, _ in entry.exits)
        guard = replace(guard, code=" and ".join([*(p.code for p in parts), f"({guard.code})"]), parts=(*parts, *guard.parts),
                        inputs=tuple(dict.fromkeys([*guard.inputs, *(r for _, _, reads in entry.exits for r in reads)])))
    name = entry.function.rpartition(".")[2]
    at = replace(card.at, function=entry.function, decorators=entry.decorators)
    kinds = (EntryKind.CONSTRUCTOR,) if name == "__init__" else (EntryKind.POST_INIT,) if name == "__post_init__" else ()
    lifted = replace(card, path=entry.path, at=at, entry=kinds, statement=replace(card.statement, guard=guard))
    names = {p.name for p in entry.params}
    signature = Signature(params=entry.params, call_style=entry.call_style, unread=entry.unread)
    place = replace(ctx.place, module=entry.module, public_module=entry.public_module,
                    param_choices={k: v for k, v in ctx.place.param_choices.items() if k not in fixed},
                    param_literals={k: v for k, v in ctx.place.param_literals.items() if k not in fixed})
    if entry.keeps_object:  # (the card's object: its constructor, settable fields and state hold)
        return lifted, replace(ctx, signature=signature, place=place, cli=CommandLine(), entries=(), entry_reason=None)
    # A parameter passed on unchanged is the same object: how its constructor sets ``p.a.b`` still holds.
    settable = {k: v for k, v in ctx.owner.settable.items() if k.split(".", 1)[0] in names - _SELF}
    classes = {k: v for k, v in ctx.owner.classes.items() if k.split(".", 1)[0] in names - _SELF}
    owner = Owner(constructor=entry.constructor, settable=settable, classes=classes)
    return lifted, replace(ctx, signature=signature, place=place, owner=owner, state=ObjectState(), cli=CommandLine(), entries=(),
                           entry_reason=None)
