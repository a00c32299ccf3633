"""Constraints: a field constraint's card -> its trigger (a value pydantic refuses), fix, example and shown error.

A card of kind ``field_constraint`` (link.constraints) is not solved by the search: what
violates a declared bound, length, pattern, choice or strict type is written down directly.
The trigger's value violates the card's constraint and keeps every other constraint of the
field (so pydantic reports this one error); the fix is the field's declared default where it
keeps them all, else the nearest value that does. Each is checked here against every rule
of the field, in plain Python over our own values (nothing of the analysed tree runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..collect.annotations import read_annotation
from ..model import (
    Card,
    CardContext,
    Example,
    FieldConstraint,
    FieldDoc,
    Fix,
    FixTarget,
    Hole,
    NoFix,
    Reason,
    Solved,
    Trigger,
    TriggerStatus,
)
from ..model.pytext import literal_or
from .construction import keywords_through
from .examples import constraint_example
from .rules import (
    container,
    length,
    number,
    own_checks_pass,
    raw_refused,
    refused_with,
    satisfies,
    sized,
    stand_ins,
    unchecked_stand_ins,
)
from .values import to_json_value

_PATTERN_TRIES = ("", "x", "0", "-", " ", "X", "_", "!", "0x", "a b", "/", ".")


def candidates(constraint: FieldConstraint, annotation: str | None) -> list[Any]:
    """Values that may violate the constraint, best first."""
    rule, bound = constraint.rule, literal_or(constraint.value)
    base, element = container(annotation)
    if rule in ("gt", "ge", "lt", "le", "multiple_of"):
        if not number(bound):
            return []
        step = {"gt": 0, "ge": -1, "lt": 0, "le": 1}.get(rule)
        found = [bound + step] if step is not None else [bound + 1, 1, bound / 2]
        return [math.floor(v) if base == "int" and isinstance(v, float) and v.is_integer() else v for v in found]
    if rule in ("min_length", "max_length"):
        size = bound - 1 if rule == "min_length" else bound + 1 if isinstance(bound, int) else -1
        return [v for v in (sized(base, size, element),) if v is not None] if isinstance(size, int) and size >= 0 else []
    if rule == "pattern":
        return list(_PATTERN_TRIES) if isinstance(bound, str) else []
    if rule in ("literal", "enum"):
        values = [literal_or(c) for c in constraint.choices]
        numbers = [v for v in values if number(v)]
        return ["invalid", "other", *([max(numbers) + 1] if numbers else []), 0, False]
    strict: dict[str, list[Any]] = {"int": ["1"], "float": ["1.0"], "str": [1], "bool": [1], "bytes": ["x"]}
    return strict.get(constraint.value or "", [])


def _others(card: Card, field: FieldDoc | None) -> list[FieldConstraint]:
    """The field's other declared constraints that bear on a value (the card's own left out)."""
    if field is None or card.constraint is None:
        return []
    own = card.constraint
    found = [FieldConstraint(owner=own.owner, field=own.field, rule=c.name, declared=f"{c.name}={c.value}", error_type=own.error_type,
                             value=c.value) for c in field.declared.constraints if c.name != own.rule]
    if own.rule not in ("literal", "enum") and field.literal_values and all(literal_or(v) is not None for v in field.literal_values):
        found.append(FieldConstraint(owner=own.owner, field=own.field, rule="literal", declared="", error_type=own.error_type,
                                     choices=field.literal_values))
    return found


def _good(constraint: FieldConstraint, others: list[FieldConstraint], field: FieldDoc | None, kept: Callable[[Any], bool]) -> Any:
    """A value every constraint of the field accepts and that the object ``kept`` (no raise of
    its ``__post_init__`` or validators surely fires for it: ``ProfilerConfig(profiler='torch')``
    needs a ``torch_profiler_dir``): its default, else one near the bound, else the next choice;
    ``NO_GOOD`` where none is. A choice field whose default is None keeps it."""
    rules = [constraint, *others]
    default = literal_or(field.declared.default) if field is not None else None
    if constraint.rule in ("literal", "enum") and field is not None and field.declared.default == "None" \
            and _takes_none(field.declared.annotation) and kept(None):
        # (its default, which pydantic passes through unchecked: another choice selects another
        # behaviour, which a check of the class the tool cannot decide may refuse)
        return None
    tries = [default] if default is not None else []
    bound = literal_or(constraint.value)
    if constraint.rule in ("gt", "ge", "lt", "le", "multiple_of") and number(bound):
        tries.extend({"gt": [bound + 1], "ge": [bound], "lt": [bound - 1], "le": [bound]}.get(constraint.rule, [bound]))
    elif constraint.rule in ("literal", "enum"):
        tries.extend(literal_or(c) for c in constraint.choices)
    elif constraint.rule in ("min_length", "max_length") and isinstance(bound, int):
        base, element = container(field.declared.annotation if field is not None else None)
        tries.append(sized(base, bound, element))
    elif constraint.error_type.endswith("_type"):  # a strict type
        tries.append({"int": 1, "float": 1.0, "str": "x", "bool": True}.get(constraint.value or ""))
    return next((v for v in tries if v is not None and all(satisfies(r, v) is True for r in rules) and kept(v)), NO_GOOD)


NO_GOOD: Any = object()  # (``_good`` found no value: None is one)


def _takes_none(annotation: str | None) -> bool:
    """Whether the declared type takes None (``X | None``, ``Optional[X]``)."""
    return annotation is not None and "NoneType" in read_annotation(annotation).types


def _shown(card: Card, value: Any) -> str:
    """The card's message for ``value`` (a length hole filled)."""
    parts = card.message.parts or ()
    return "".join(str(len(value)) if isinstance(p, Hole) and length(value) is not None else getattr(p, "text", "") for p in parts)


_SHOWN_INPUT = 50  # pydantic shows a longer input's repr cut: its first 25 characters, "...", its last 24


def _validation_error(constraint: FieldConstraint, message: str, value: Any) -> str | None:
    """``str(ValidationError)`` as pydantic prints it for one error, without its URL line; None
    where pydantic cuts the input's repr in a way not followed here (a long container)."""
    shown = repr(value)
    if len(shown) > _SHOWN_INPUT:
        if not isinstance(value, str):
            return None
        shown = f"{shown[:25]}...{shown[-24:]}"
    title = constraint.owner.rsplit(".", 1)[-1]
    return (f"1 validation error for {title}\n{constraint.field}\n  {message} "
            f"[type={constraint.error_type}, input_value={shown}, input_type={type(value).__name__}]")


def solve_constraint(card: Card, ctx: CardContext) -> Solved:
    """The trigger, fix, example and shown error of a field constraint's card."""
    constraint = card.constraint
    if constraint is None or card.message.parts is None or any(isinstance(p, Hole) and not p.expr.startswith("len(")
                                                                for p in card.message.parts):
        return _unsolved(Reason.NO_VIOLATING_VALUE)
    field = card.docs.fields[0] if card.docs.fields else None
    others = _others(card, field)
    annotation = field.declared.annotation if field is not None else None
    bad = next((v for v in candidates(constraint, annotation)
                if satisfies(constraint, v) is False and all(satisfies(o, v) is not False for o in others)), None)
    if bad is None:
        return _unsolved(Reason.NO_VIOLATING_VALUE)
    name = card.statement.guard.inputs[0]
    good = _good(constraint, others, field, lambda value: not refused_with(ctx, name, value))
    message = _shown(card, bad)
    fixes: tuple[Fix, ...] = ()
    if good is not NO_GOOD:
        fixes = (Fix(inputs={name: to_json_value(good)}, changed=(name,), target=FixTarget.OWN_TEST, verified=True,
                     description=f"leave `{constraint.field}` at its default, `None` (the trigger has `{bad!r}`)" if good is None else
                     f"set `{constraint.field}` to `{good!r}` (the trigger has `{bad!r}`), so that pydantic accepts it "
                     f"under `{constraint.declared}`"),)
    fixed = {name: good} if good is not NO_GOOD else None
    passed, unshown = _stand_ins(ctx, fixed)
    written, line = constraint_example(card, ctx, {name: bad}, fixed, passed, unshown)
    # (a validator that calls what the tool does not read, or a "before" model validator, may
    # refuse the value, or a stand-in, before pydantic's own check)
    keywords = {constraint.field: bad, **keywords_through(ctx, passed or {})}
    unread = ctx.owner.refuses_first(list(keywords)) or raw_refused(ctx, keywords)
    if isinstance(written, Example) and (not own_checks_pass(ctx, name, bad) or unread):
        written = Reason.CONSTRUCTION_NOT_SHOWN  # (a validator of the field itself, ``mode="before"``, may refuse it first)
    example, example_reason = (written, None) if isinstance(written, Example) else (None, written)
    trigger = Trigger(status=TriggerStatus.CONCRETE, inputs={name: to_json_value(bad)}, changed=(name,), message=message,
                      verified=not unread, reason=Reason.CONSTRUCTION_NOT_SHOWN if unread else None)
    also = _required_also(ctx, constraint.field)
    # The one-error text where a call passes the required fields: the example's, with its stand-ins.
    shown = _validation_error(constraint, message, bad) if not also or (example is not None and example.placeholders) else None
    return Solved(trigger=trigger, fixes=fixes, validator_reason=Reason.CHECKED_BY_PYDANTIC, example=example, example_reason=example_reason,
                  validation_error=shown, command_line=line[0], command_line_fix=line[1], required_also=also)


def _stand_ins(ctx: CardContext, fixed: dict[str, Any] | None) -> tuple[dict[str, Any] | None, NoFix | None]:
    """The other required fields' stand-ins an example passes, and why its "after" cannot be
    shown with them (None: it can): where ``__post_init__`` reads them unseen (Owner.required_unseen,
    link.cards), or where the checks construction runs cannot be shown to pass them with the fix.
    None where a validator the tool does not read may refuse one of those error-only stand-ins
    (Owner.refuses_first): the trigger is then shown without them."""
    unshown: NoFix | None
    if ctx.owner.required_unseen:
        passed, unshown = unchecked_stand_ins(ctx), NoFix.STAND_INS_UNSEEN
    elif (checked := stand_ins(ctx, fixed)) is not None:
        return checked, None
    else:
        passed, unshown = unchecked_stand_ins(ctx), NoFix.STAND_INS_UNCHECKED if fixed is not None else None
    if passed is not None and ctx.owner.refuses_first(keywords_through(ctx, passed)):
        return None, None
    return passed, unshown


def _required_also(ctx: CardContext, field: str) -> tuple[str, ...]:
    """The constructor's other arguments without a default (a required field, an InitVar):
    constructing the class without them, pydantic reports each as missing besides this error."""
    params = ctx.owner.constructor or ()
    return tuple(p.name for p in params if p.default is None and p.kind in ("normal", "keyword", "positional") and p.name != field)


def _unsolved(reason: Reason) -> Solved:
    return Solved(trigger=Trigger(status=TriggerStatus.UNSOLVED, inputs={}, reason=reason), validator_reason=Reason.CHECKED_BY_PYDANTIC)
