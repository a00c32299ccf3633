"""Triggers: the records the passes over one card share (solve.passes, solve.checks, solve.remedies).

A ``Frame`` is what the card asks, set before the search: the names a trigger may set, their
domains, and the loops it runs once. A ``Draft`` is the answer being built: each pass takes
one and returns the next (``dataclasses.replace``), so a pass can be run and tested alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Card, CardContext, Domain, Example, Fix, Validator
from ..model.codes import Reason, ReasonCode, TriggerStatus
from .domains import NO_VALUE, literal_value
from .problem import Problem
from .search import Solution

Form = tuple[str, tuple[str, ...]]  # a loop: its iterable's code and its targets (``d.items()``, ``("k", "v")``)


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """What the card asks, before the search (solve.passes.frame_card, solve.passes.pose)."""

    card: Card
    ctx: CardContext
    params: set[str]  # the entry's parameters' names
    refs: tuple[str, ...]  # the names the message reads
    raised_with: tuple[str, ...]  # parameters only the raise's arguments read (``raise self.error(msg, len(name) + offset)``)
    names: tuple[str, ...]  # the names the card publishes domains for
    domains: dict[str, Domain]
    published: tuple[Domain, ...]  # the card's domains, as they were before the loops typed their targets
    state: frozenset[str] = frozenset()  # the guard's inputs no caller sets
    forms: dict[str, Form] = field(default_factory=dict)  # each loop target the trigger sets -> its loop
    turns: frozenset[str] = frozenset()  # targets that count a loop's turns: 0 on the one turn the trigger gives it
    loops: dict[str, str] = field(default_factory=dict)  # each loop target -> the input set through it
    preferred: dict[str, str] = field(default_factory=dict)  # the type each untyped name's values are tried in first


@dataclass(frozen=True, slots=True, kw_only=True)
class Draft:
    """A trigger being built: the search's result, then the values, checks, fixes and example."""

    frame: Frame
    problem: Problem
    solution: Solution
    typed: Problem  # the problem with its isinstance classes known (what solve.state reads a class's values with)
    names: tuple[str, ...]  # the frame's, and those a trigger past construction sets too
    outside: tuple[str, ...] = ()  # inputs given a value outside their declared type
    every_atom: set[str] = field(default_factory=set)  # the problem's atoms (calls, opaque names)
    atoms: set[str] = field(default_factory=set)  # those the trigger assumes a value for
    status: TriggerStatus = TriggerStatus.UNSOLVED
    reason: ReasonCode | None = None
    constructed: dict[str, Any] = field(default_factory=dict)  # attributes read as a new object has them
    steps: tuple[str, ...] = ()  # the methods called on the new object first (solve.steps): ``constructed`` is what they leave
    env: dict[str, Any] = field(default_factory=dict)  # the trigger's values
    inputs: dict[str, Any] = field(default_factory=dict)  # those a caller passes, as JSON values
    validator: Validator | None = None
    validator_reason: Reason | None = None
    message: str | None = None  # the card's message under the trigger
    raised: Any = None  # what the validator raised under the trigger (evaluate.Raised), or EvalError
    unset_loop: bool = False  # a loop of the guard that no argument runs on the element the trigger needs
    missing: tuple[str, ...] = ()  # required arguments the trigger gives no value for
    stand_ins: tuple[str, ...] = ()  # the object's required fields the trigger gives a stand-in (solve.rules.required_stand_ins)
    placeholders: tuple[str, ...] = ()  # required arguments only pure statements read before the raise, given None (solve.required)
    passed_on: tuple[str, ...] = ()  # required arguments a statement on the way reads, given a value of their type (solve.required)
    verified: bool = False
    parents: set[str] = field(default_factory=set)  # values given beside an attribute of theirs (solve.checks.value_parents)
    found: tuple[tuple[Fix, Any, bool], ...] = ()  # each fix, the value it sets, and whether no other raise may fire under it
    example: Example | None = None
    example_reason: ReasonCode | None = None  # a verified trigger without an example: why


def param_defaults(ctx: CardContext) -> dict[str, Any]:
    """The parameters' defaults that are literals: what a call that leaves them out passes."""
    return {p.name: value for p in ctx.signature.params if p.default is not None and (value := literal_value(p.default)) is not NO_VALUE}
