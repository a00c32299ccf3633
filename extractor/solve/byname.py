"""The guard as the solver reads it: ``getattr(x, "a", d)`` as ``x.a`` (collect.byname).

The solver's own copy of the card's guard is rewritten (its code and its parts), so that the
trigger sets the attribute (``args.grpc_port = 0``), a caller's value, where it would otherwise
assume what the call returns; the guard's inputs already list the chain (collect.paths). The
card keeps the code as written.
"""

from __future__ import annotations

from dataclasses import replace

from ..collect.byname import by_name
from ..model import Card


def read_by_name(card: Card) -> Card:
    """The card with its guard's ``getattr`` reads of a literal name as attribute reads."""
    guard = card.statement.guard
    roots = {name.split(".", 1)[0] for name in guard.inputs}
    code, chains = by_name(guard.code, roots)
    if not chains:
        return card
    parts = tuple(replace(part, code=by_name(part.code, roots)[0]) for part in guard.parts)
    inputs = tuple(dict.fromkeys([*guard.inputs, *chains]))
    read = replace(guard, code=code, parts=parts, inputs=inputs)
    return replace(card, statement=replace(card.statement, guard=read))
