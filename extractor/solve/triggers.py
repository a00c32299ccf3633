"""Triggers: a linked Card -> what solving adds to it (Solved: domains, trigger, fixes, validator, example).

Everything here is verified in the restricted evaluator before it is published: the
trigger makes the guard true and makes the generated validator raise the card's message;
each fix makes the guard false, trips no other raise of the function, and makes the
validator pass. What cannot be verified says so (``verified: false`` and a reason).

``solve_card`` is a driver over named passes (solve.passes, solve.checks, solve.remedies),
each of which takes a Draft (solve.draft) and returns the next, in a fixed order.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..model import Card, CardContext, Opaque, Solved, Trigger
from ..model.codes import CLAIMED, Detailed, Reason, TriggerStatus
from .checks import check_loops, verify
from .constraints import solve_constraint
from .draft import Draft, Frame
from .entries import at_entry, past_checks
from .evaluate import EvalError
from .messages import shown_message
from .passes import (
    assume_atoms,
    assume_classes,
    assume_objects,
    avoid_internal,
    choose_inputs,
    complete_values,
    construct_fresh,
    construct_past,
    frame_card,
    make_validator,
    pose,
    reproduce,
    search_guard,
    set_loop_elements,
    show_message,
    widen,
)
from .remedies import exemplify, fix
from .state import reached
from .values import to_json_value

log = logging.getLogger("raisedocs")

# The passes, in order (the order is the behaviour: each reads what the ones before it set).
# After the first search: a trigger, what it assumes, and the object it builds.
SEARCH = (widen, assume_classes, assume_objects, assume_atoms, avoid_internal, construct_fresh, construct_past)
# Once a trigger is found: its values, the validator, the loops' inputs, the checks, the fixes and the example.
SHOW = (complete_values, make_validator, show_message, reproduce, set_loop_elements, check_loops, choose_inputs,
        verify, fix, exemplify)


def solve_card(card: Card, ctx: CardContext) -> Solved:
    """The card's domains, trigger, fixes, validator and example, and its state with which values
    reach; stated as a call of its public entry where one passes its inputs through (solve.entries)
    and a verified trigger with an example is found there, else with why not."""
    solved = solve_here(card, ctx)
    if solved.trigger is not None and solved.trigger.reason == Reason.CHECK_ON_THE_WAY and (passing := past_checks(card, ctx)) is not None:
        again = solve_here(passing, ctx)  # (values that the checks of the calls on the way let through)
        if again.trigger is not None and again.trigger.status in CLAIMED and again.trigger.verified:
            solved = again
    if not ctx.entries:
        return replace(solved, entry_reason=ctx.entry_reason) if ctx.entry_reason is not None else solved
    for entry in ctx.entries:
        lifted = solve_here(*at_entry(card, ctx, entry))
        trigger = lifted.trigger
        if trigger is not None and trigger.status in CLAIMED and trigger.verified and lifted.example is not None:
            return replace(lifted, at_entry=entry.entry)
    return replace(solved, entry_reason=Reason.ENTRY_NOT_SOLVED)


def solve_here(card: Card, ctx: CardContext) -> Solved:
    """The card's domains, trigger, fixes, validator and example at its own function."""
    if card.constraint is not None:  # a field constraint pydantic checks: no guard to search (solve.constraints)
        return solve_constraint(card, ctx)
    frame = frame_card(card, ctx)
    if isinstance(card.statement.guard.tree, Opaque):
        return _unsolved(frame, Reason.GUARD_NOT_MODELLED)
    try:
        frame, problem = pose(frame)
    except EvalError:
        return _unsolved(frame, Reason.GUARD_NOT_EXPRESSION)
    draft = search_guard(frame, problem)
    for step in SEARCH:
        draft = step(draft)
    if draft.solution.status != "solved":
        return _not_found(draft)
    for step in SHOW:
        draft = step(draft)
    return _solved(draft)


def _unsolved(frame: Frame, reason: Reason) -> Solved:
    return replace(frame.card.solved, domains=frame.published, trigger=Trigger(status=TriggerStatus.UNSOLVED, inputs={}, reason=reason))


def _not_found(draft: Draft) -> Solved:
    """A guard no trigger was found for: why (unsolved, unreachable)."""
    card, solution = draft.frame.card, draft.solution
    trigger = Trigger(status=TriggerStatus(solution.status), inputs={}, reason=solution.reason, conflicts=solution.conflicts)
    return replace(card.solved, domains=draft.frame.published, trigger=trigger, state=reached(card.solved.state, draft.typed, {}))


def _solved(draft: Draft) -> Solved:
    """The draft's trigger, fixes, validator and example."""
    frame, env = draft.frame, draft.env
    card = frame.card
    trigger = Trigger(
        status=draft.status,
        inputs=draft.inputs,
        # (a join's side its test chose: no value)
        assumes={n: to_json_value(env[n]) for n in sorted(draft.atoms) if n in env and n not in draft.parents},
        changed=tuple(frame.loops.get(n, n) for n in draft.solution.changed if n in draft.atoms or n not in draft.every_atom),
        reason=draft.reason,
        message=shown_message(card, draft.message, env, frame.ctx.place.own_str),
        verified=draft.verified,
        missing=draft.missing,
        outside=tuple(n for n in draft.outside if n in draft.inputs),
        passed_on=draft.passed_on,
        constructed={n: to_json_value(v) for n, v in sorted(draft.constructed.items())},
        steps=draft.steps,
    )
    return Solved(domains=frame.published, trigger=trigger, fixes=tuple(f for f, _, _ in draft.found), validator=draft.validator,
                  validator_reason=draft.validator_reason, example=draft.example, example_reason=draft.example_reason,
                  state=reached(card.solved.state, draft.typed, env))


def solve_one(item: tuple[Card, CardContext, bool]) -> Solved:
    """The per-card boundary: a bug of ours while solving one card leaves it unsolved, with why."""
    card, context, strict = item
    try:
        return solve_card(card, context)
    except Exception as exc:
        if strict:
            raise
        log.debug("solving failed for %s:%s", card.path, card.at.line, exc_info=True)
        reason = Detailed(code=Reason.INTERNAL_ERROR, value=type(exc).__name__)
        return replace(card.solved, trigger=Trigger(status=TriggerStatus.UNSOLVED, inputs={}, reason=reason))
