"""Data model: frozen records for every stage, and the one generic JSON serializer.

Every record is a ``@dataclass(frozen=True, slots=True, kw_only=True)``. Records that
appear in a union (message parts, guard nodes) carry a ``TAG`` class variable, written
as ``"type"`` in JSON so that ``from_json`` can rebuild them. ``to_json``/``from_json``
are the only (de)serializers: there are no per-class ``as_dict`` methods.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Union

SCHEMA_ID = "raisedocs/catalog/1"

record = dataclass(frozen=True, slots=True, kw_only=True)


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


Part = Union[Text, Hole]


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
    reason: str | None = None
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
    reason: str


GuardNode = Union[Const, And, Or, Not, Compare, IsNone, IsInstance, Truthy, Opaque]


@record
class Context:
    """Something that holds around the raise but is not a boolean over inputs."""

    kind: str  # "loop" | "loop_else" | "except" | "finally"
    code: str


@record
class GuardPart:
    """One conjunct of a guard: ``own`` (the raise's own test), ``outer`` (an enclosing
    test) or ``exit`` (an earlier exit on the path, negated)."""

    role: str
    code: str


@record
class Guard:
    """The condition under which control reaches a raise."""

    code: str
    tree: GuardNode
    parts: tuple[GuardPart, ...] = ()
    inputs: tuple[str, ...] = ()
    opaque: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    constants: tuple[tuple[str, str], ...] = ()
    context: tuple[Context, ...] = ()
    approximations: tuple[str, ...] = ()


# --- exceptions, docs, sites ---------------------------------------------------------


@record
class ExceptionRef:
    """The raised exception: as written, and resolved where the tree allows."""

    display: str
    written: str | None = None
    classes: tuple[str, ...] = ()
    ancestors: tuple[str, ...] = ()
    factory: str | None = None
    reason: str | None = None


@record
class Constraint:
    name: str
    value: str


@record
class FieldDoc:
    """A declared class field that a guard input refers to."""

    input: str
    owner: str
    name: str
    path: str
    line: int
    annotation: str | None = None
    default: str | None = None
    default_factory: str | None = None
    constraints: tuple[Constraint, ...] = ()
    literal_values: tuple[str, ...] | None = None
    doc: str | None = None


@record
class Docs:
    function_doc: str | None = None
    owner: str | None = None
    owner_doc: str | None = None
    fields: tuple[FieldDoc, ...] = ()


@record
class Excerpt:
    start_line: int
    text: str


@record
class Param:
    """A parameter of the function that holds a raise, as declared."""

    name: str
    annotation: str | None = None
    default: str | None = None


@record
class Domain:
    """What an input may be, from its declaration; values are source text as written."""

    input: str
    source: str  # "field" | "parameter" | "opaque" | "unknown"
    types: tuple[str, ...] = ()
    choices: tuple[str, ...] | None = None
    constraints: tuple[Constraint, ...] = ()
    default: str | None = None
    has_default: bool = False


@record
class Trigger:
    """Input values that make the whole guard true, changing as few defaults as possible."""

    status: str  # "solved" | "unsolved" | "unreachable"
    inputs: dict[str, Any]
    changed: tuple[str, ...] = ()
    assumes: dict[str, Any] = dataclasses.field(default_factory=dict)
    reason: str | None = None
    conflicts: tuple[str, ...] = ()
    message: str | None = None
    verified: bool = False


@record
class Fix:
    """A minimal change to the trigger that makes the guard false."""

    inputs: dict[str, Any]
    changed: tuple[str, ...]
    description: str
    target: str  # "own_test" | "outer"
    verified: bool = False


@record
class Validator:
    name: str
    code: str
    params: dict[str, str]
    verified: bool = False


@record
class Example:
    style: str  # "cli" | "python"
    before: str
    after: str


@record
class Solved:
    """What solving adds to a card: cached on its own, joined to a freshly linked card."""

    domains: tuple[Domain, ...] = ()
    trigger: Trigger | None = None
    fixes: tuple[Fix, ...] = ()
    validator: Validator | None = None
    example: Example | None = None


@record
class Card:
    """One raise site, as the catalog publishes it."""

    id: str
    path: str
    line: int
    end_line: int
    function: str | None
    decorators: tuple[str, ...]
    entry: tuple[str, ...]  # how callers reach the function: codes such as "constructor"
    kind: str  # "call" | "name" | "reraise"
    exception: ExceptionRef
    cause: str | None
    message: MessageTemplate
    guard: Guard
    excerpt: Excerpt
    docs: Docs
    related: tuple[str, ...] = ()
    permalink: str | None = None
    domains: tuple[Domain, ...] = ()
    trigger: Trigger | None = None
    fixes: tuple[Fix, ...] = ()
    validator: Validator | None = None
    example: Example | None = None
    lints: tuple[str, ...] = ()


@record
class FileFailure:
    """A file the run could not analyse, with a one-line reason."""

    path: str
    stage: str  # "read" | "decode" | "parse" | "analyse"
    error: str


@record
class Generator:
    name: str
    version: str


@record
class SourceInfo:
    root: str
    repo_url: str | None = None
    rev: str | None = None


@record
class Stats:
    files: int
    files_failed: int
    raise_sites: int
    cards: int
    templates: int = 0
    solved: int = 0
    verified: int = 0
    unreachable: int = 0
    unsolved: dict[str, int] = dataclasses.field(default_factory=dict)


@record
class Catalog:
    schema: str
    generator: Generator
    source: SourceInfo
    stats: Stats
    failures: tuple[FileFailure, ...]
    errors: tuple[Card, ...]


# --- the one serializer --------------------------------------------------------------


_SCALARS = (str, int, float, bool, type(None))


def to_data(value: Any) -> Any:
    """Turn records, tuples and primitives into JSON-ready data."""
    encode = _ENCODERS.get(type(value))
    return encode(value) if encode is not None else _encoder(type(value))(value)


def _identity(data: Any) -> Any:
    return data


def _sequence(value: tuple[Any, ...] | list[Any]) -> list[Any]:
    return [to_data(v) for v in value]


def _mapping(value: dict[Any, Any]) -> dict[str, Any]:
    return {str(k): to_data(v) for k, v in value.items()}


def _encoder(cls: type) -> Any:
    """The encoding function for values of exactly ``cls``, built once per class (the
    run encodes a few million records: facts for the cache, cards for the catalog)."""
    if issubclass(cls, _SCALARS):
        encode = _identity
    elif issubclass(cls, (tuple, list)):
        encode = _sequence
    elif issubclass(cls, dict):
        encode = _mapping
    elif dataclasses.is_dataclass(cls):
        names = _field_names(cls)
        tag = getattr(cls, "TAG", None)

        def encode(value: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"type": tag} if tag is not None else {}
            for name in names:
                out[name] = to_data(getattr(value, name))
            return out
    else:
        encode = _identity
    _ENCODERS[cls] = encode
    return encode


_ENCODERS: dict[type, Any] = {}


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any) -> str:
    """Serialize deterministically: sorted keys, indent 2, trailing newline.

    Lone surrogates (legal in Python strings, not in UTF-8) are written as JSON escapes.
    """
    return dumps_data(to_data(value))


def dumps_data(data: Any) -> str:
    """``dumps`` for what already is JSON data (``to_data`` output, a loaded catalog)."""
    text = json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def to_json(value: Any) -> str:
    return dumps(value)


_TAGGED: dict[str, type] = {
    cls.TAG: cls
    for cls in (Text, Hole, Const, And, Or, Not, Compare, IsNone, IsInstance, Truthy, Opaque)
}


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, globalns=globals())


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def from_data(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from JSON data (inverse of ``to_data``)."""
    return _decoder(tp)(data)


_PRIMITIVE = (str, int, float, bool, type(None), Any)


@functools.lru_cache(maxsize=None)
def _decoder(tp: Any) -> Any:
    """A decoding function for ``tp``, built once per type (decoding is on the warm path)."""
    origin = typing.get_origin(tp)
    if tp in _PRIMITIVE:
        return _identity
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if all(a in _PRIMITIVE for a in args):
            return _identity
        tagged = {getattr(a, "TAG"): _decoder(a) for a in args if hasattr(a, "TAG")}
        others = [_decoder(a) for a in args if a is not type(None) and not hasattr(a, "TAG")]

        def union(data: Any) -> Any:
            if data is None:
                return None
            if isinstance(data, dict) and data.get("type") in tagged:
                return tagged[data["type"]](data)
            return others[0](data) if others else data

        return union
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return (lambda data: tuple(data)) if item is _identity else (lambda data: tuple(item(v) for v in data))
        items = [_decoder(a) for a in args]
        return lambda data: tuple(d(v) for d, v in zip(items, data))
    if origin is dict:
        value = _decoder(typing.get_args(tp)[1])
        return (lambda data: dict(data)) if value is _identity else (lambda data: {k: value(v) for k, v in data.items()})
    if dataclasses.is_dataclass(tp):
        # Field decoders are resolved on first use: guard trees are recursive types.
        fields: list[tuple[str, Any]] = []

        def record_of(data: Any) -> Any:
            if not fields:
                hints = _hints(tp)
                fields.extend((name, _decoder(hints[name])) for name in _field_names(tp))
            return tp(**{name: decode(data[name]) for name, decode in fields if name in data})

        return record_of
    return _identity


def from_json(tp: type, text: str) -> Any:
    return from_data(tp, json.loads(text))



# --- per-file facts: the pure, cacheable result of one file's pass -----------------


@record
class FieldFact:
    """A class-body assignment: ``name: annotation = value`` and the string right after it."""

    name: str
    line: int
    annotation: str | None = None
    default: str | None = None
    default_factory: str | None = None
    constraints: tuple[Constraint, ...] = ()
    doc: str | None = None


@record
class ClassFact:
    qualname: str
    line: int
    bases: tuple[str, ...] = ()
    doc: str | None = None
    fields: tuple[FieldFact, ...] = ()
    methods: tuple[tuple[str, str | None], ...] = ()  # (name, return annotation)


@record
class SiteFact:
    """One raise statement before project-wide linking (names as written)."""

    line: int
    end_line: int
    function: str | None
    owner: str | None  # qualname of the class whose method holds the raise
    decorators: tuple[str, ...]
    kind: str
    written: str | None
    is_call: bool
    caught: tuple[str, ...]
    cause: str | None
    message: MessageTemplate
    guard: Guard
    excerpt: Excerpt
    function_doc: str | None = None
    reason: str | None = None
    params: tuple[Param, ...] = ()
    lints: tuple[str, ...] = ()


@record
class FileFacts:
    path: str
    module: str
    imports: tuple[tuple[str, str], ...] = ()  # (local name, dotted target)
    classes: tuple[ClassFact, ...] = ()
    functions: tuple[tuple[str, str | None], ...] = ()  # (qualname, return annotation)
    assignments: tuple[tuple[str, str], ...] = ()  # module-level name bound once -> value source
    module_names: tuple[str, ...] = ()  # every name bound at module level
    flags: tuple[tuple[str, str], ...] = ()  # (destination, --flag) declared for a CLI
    sites: tuple[SiteFact, ...] = ()


# --- diffs ----------------------------------------------------------------------------------


@record
class CardRef:
    """Enough of a card to name it in a diff."""

    id: str
    path: str
    line: int
    function: str | None
    exception: str
    template: str | None


@record
class Change:
    kind: str  # added | removed | message_changed | guard_changed | exception_changed | moved | now_fails | fixed_failure
    old: CardRef | None = None
    new: CardRef | None = None
    detail: str | None = None
    failure: FileFailure | None = None


@record
class CatalogDiff:
    old: str
    new: str
    changes: tuple[Change, ...] = ()


def fingerprint(value: Any) -> str:
    """Compact, key-sorted JSON of a record: cheap material for content hashes."""
    return json.dumps(to_data(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
