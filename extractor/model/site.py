"""Records of one raise site as the per-file pass sees it: the message template and the guard."""

from __future__ import annotations

from dataclasses import field
from typing import Any, ClassVar, TypeAlias

from .base import record
from .codes import ContextKind, PartRole, Reason, ReasonCode
from .serialize import PUBLISHED

# --- message templates -------------------------------------------------------------


@record
class Text:
    """Literal text of a message."""

    TAG: ClassVar[str] = "text"
    text: str


@record
class Hole:
    """An interpolated expression, with its source text as written."""

    TAG: ClassVar[str] = "hole"
    expr: str
    conversion: str | None = None
    format_spec: str | None = None
    value: str | None = None  # ``expr`` with once-assigned locals inlined, where that differs


Part: TypeAlias = Text | Hole


@record
class MessageTemplate:
    """The message argument of a raise: text and holes kept apart.

    ``parts`` is None when the message cannot be reconstructed statically; ``reason``
    then says why, as a snake_case code.
    """

    form: str
    parts: tuple[Part, ...] | None = None
    template: str | None = None
    placeholders: tuple[str, ...] = ()
    reason: ReasonCode | None = None
    source: str | None = None


# --- guards --------------------------------------------------------------------------


@record
class Const:
    TAG: ClassVar[str] = "const"
    value: bool


@record
class And:
    TAG: ClassVar[str] = "and"
    items: tuple[GuardNode, ...]


@record
class Or:
    TAG: ClassVar[str] = "or"
    items: tuple[GuardNode, ...]


@record
class Not:
    TAG: ClassVar[str] = "not"
    item: GuardNode


@record
class Compare:
    """``left op0 comparators[0] op1 comparators[1] ...`` with operators as written."""

    TAG: ClassVar[str] = "compare"
    left: str
    ops: tuple[str, ...]
    comparators: tuple[str, ...]


@record
class IsNone:
    TAG: ClassVar[str] = "is_none"
    expr: str


@record
class IsInstance:
    TAG: ClassVar[str] = "isinstance"
    expr: str
    types: tuple[str, ...]


@record
class Truthy:
    TAG: ClassVar[str] = "truthy"
    expr: str


@record
class Opaque:
    """A condition the model cannot express; ``code`` is the source, ``reason`` a code."""

    TAG: ClassVar[str] = "opaque"
    code: str
    reason: Reason


GuardNode: TypeAlias = Const | And | Or | Not | Compare | IsNone | IsInstance | Truthy | Opaque


@record
class Context:
    """Something that holds around the raise but is not a boolean over inputs."""

    kind: ContextKind
    code: str


@record
class GuardPart:
    """One conjunct of a guard: ``own`` (the raise's own test), ``outer`` (an enclosing
    test), ``leave`` (an earlier ``if`` whose other branch only returns, breaks or
    continues, negated) or ``exit`` (any other earlier exit on the path, negated)."""

    role: PartRole
    code: str


def _is_opaque(data: Any) -> bool:
    return isinstance(data, dict) and data.get("type") == Opaque.TAG


# ``__raises__(expr, (classes))`` in a guard's code: evaluating ``expr`` raises one of the
# classes. Collect writes it for a try body (collect.paths); the evaluator decides it.
RAISES = "__raises__"


@record
class Guard:
    """The condition under which control reaches a raise."""

    code: str
    # The condition as the model reads it. Published only where it is not modelled (an
    # ``Opaque``, with its reason): elsewhere ``code`` holds it (``ast.parse(code)``).
    tree: GuardNode | None = field(default=None, metadata={PUBLISHED: _is_opaque})
    parts: tuple[GuardPart, ...] = ()
    inputs: tuple[str, ...] = ()
    opaque: tuple[str, ...] = ()
    # Names of the values of a name bound again on the path, one per binding, as (the name the
    # guard gives it, the name, kind): "earlier", a value a local held before the one the raise
    # sees (which keeps the local's name); "rebound", a value a parameter holds once rebound
    # (the parameter's own name always means its argument); "stored", a value of an attribute
    # the function stores (``self.x``: its own name always means the caller's object's).
    versions: tuple[tuple[str, str, str], ...] = ()
    # Opaque names whose binding gives a bool by its form (``t = x.stride()[-1] != 1``: a
    # comparison, ``not``, ``isinstance``...), whatever the value it reads: True or False.
    booleans: tuple[str, ...] = ()
    # Names and attribute chains that a loop on the way to the raise reads (``for attr in
    # ATTRS: if attr in attrs``): the evaluator does not run loops, so a trigger that sets one
    # is not verified (the loop may fail first on its value, or change it).
    looped: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    constants: tuple[tuple[str, str], ...] = ()
    context: tuple[Context, ...] = ()
    approximations: tuple[str, ...] = ()
    # Names no caller sets, as (dotted name, kind): module variables of unknown value, imported
    # names, classes and their attributes ("unknown"), sentinels such as ``MISSING = object()``
    # ("sentinel"), builtins ("builtin"). The solver keeps them as named constants.
    named: tuple[tuple[str, str], ...] = ()
    # ``for x in xs`` loops the raise stands in that are reached on ``xs = [x]``: (x, xs).
    # The guard reads ``x`` as the element; the trigger sets ``xs``.
    loops: tuple[tuple[str, str], ...] = ()
