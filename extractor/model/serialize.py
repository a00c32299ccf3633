"""The one serializer: records, tuples and primitives <-> JSON data, deterministically.

Records that appear in a union (message parts, guard nodes) carry a ``TAG`` class variable,
written as ``"type"`` in JSON so that ``from_data`` can rebuild them. A code (``model.codes``)
is written as its value, and a record that defines ``from_text`` (``codes.Detailed``) as
``str(record)``. A record field marked ``FLAT`` holds a record whose fields are written into
the holder's own JSON object (``Card.solved``). ``to_data``/``from_data`` are the only
(de)serializers: no ``as_dict`` methods.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import json
import math
import operator
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Protocol, TypeGuard, Union

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


def is_code(tp: Any) -> TypeGuard[type[enum.Enum]]:
    """Whether ``tp`` is an enum of codes: written as its members' values."""
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


class _TextRecord(Protocol):
    """A record written as one string: ``str(record)``, read back by ``from_text``."""

    @classmethod
    def from_text(cls, text: str) -> Any: ...


def is_text_record(tp: Any) -> TypeGuard[type[_TextRecord]]:
    """Whether ``tp`` is a record written as one string (it defines ``from_text``)."""
    return dataclasses.is_dataclass(tp) and hasattr(tp, "from_text")


def _encoder(cls: type) -> Callable[[Any], Any]:
    """The encoding function for values of exactly ``cls``, built once per class (the
    run encodes a few million records: facts for the cache, cards for the catalog)."""
    encode: Callable[[Any], Any]
    if is_code(cls):
        encode = _CODE_VALUE
    elif is_text_record(cls):
        encode = str
    elif issubclass(cls, _SCALARS):
        encode = _identity
    elif issubclass(cls, (tuple, list)):
        encode = _sequence
    elif issubclass(cls, dict):
        encode = _mapping
    elif dataclasses.is_dataclass(cls):
        names, flat = _layout(cls)
        tag = getattr(cls, "TAG", None)

        def encode_record(value: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"type": tag} if tag is not None else {}
            for name in names:
                out[name] = to_data(getattr(value, name))
            for name in flat:
                out.update(to_data(getattr(value, name)))
            return out
        encode = encode_record
    else:
        encode = _identity
    _ENCODERS[cls] = encode
    return encode


_ENCODERS: dict[type, Callable[[Any], Any]] = {}
_CODE_VALUE = operator.attrgetter("_value_")


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any) -> str:
    """Serialize deterministically: sorted keys, indent 2, trailing newline.

    Lone surrogates (legal in Python strings, not in UTF-8) are written as JSON escapes.
    """
    return dumps_data(to_data(value))


def dumps_data(data: Any) -> str:
    """``dumps`` for what already is JSON data (``to_data`` output, a loaded catalog).

    The same text as ``json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)``,
    built directly: with ``indent``, the json module encodes in Python through generators,
    and every card of a run is encoded this way (a fifth of solving a file).
    """
    out: list[str] = []
    try:
        _indented(data, "\n", out)
    except _NotPlain:
        out = [json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)]
    text = "".join(out) + "\n"
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _SURROGATE.search(text) else text


def dumps_compact(data: Any) -> str:
    """JSON data on one line (sorted keys, no spaces), a lone surrogate escaped as in ``dumps_data``:
    for machine files read whole (the search index)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _SURROGATE.search(text) else text


class _NotPlain(Exception):
    """A value ``_indented`` leaves to the json module (a key that is not a string, say)."""


_string = json.encoder.encode_basestring  # the C function where CPython has it


def _indented(value: Any, newline: str, out: list[str]) -> None:
    """Append ``value``'s JSON text, at the indentation ``newline`` starts a line with."""
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(float.__repr__(value) if math.isfinite(value) else json.dumps(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key in sorted(value):
            if not isinstance(key, str):
                raise _NotPlain
            out.append(separator)
            out.append(_string(key))
            out.append(": ")
            _indented(value[key], inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _indented(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise _NotPlain


def to_json(value: Any) -> str:
    return dumps(value)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)  # each record module imports the names its hints use


# A record field whose metadata holds ``FLAT`` (``field(metadata={FLAT: True})``) holds a
# record that is written flat: its fields sit in the holder's JSON object beside the holder's
# own, and are read back from there. Its type is one untagged record class, with no default or
# that class's own defaults (``default_factory=Solved``), and no two names of the object clash.
FLAT = "flat"
# A record field whose metadata holds ``DESCRIPTION`` has that text as its description in the
# JSON Schema (model.schema): the contract a field's value keeps, where its type cannot say it.
DESCRIPTION = "description"


@functools.cache
def flat_fields(cls: type) -> tuple[tuple[dataclasses.Field[Any], Any], ...]:
    """The fields of record ``cls`` as its JSON object holds them, each with its type: a
    ``FLAT`` field's record's fields in its place (recursively).

    Raises:
        TypeError: a FLAT field is no untagged record with its own defaults, or two names clash.
    """
    hints = _hints(cls)
    out: list[tuple[dataclasses.Field[Any], Any]] = []
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if not f.metadata.get(FLAT):
            out.append((f, tp))
            continue
        if not (isinstance(tp, type) and dataclasses.is_dataclass(tp)) or hasattr(tp, "TAG") or is_text_record(tp):
            raise TypeError(f"{cls.__name__}.{f.name}: a flat field holds one untagged record class, not {tp!r}")
        if f.default is not dataclasses.MISSING or f.default_factory not in (dataclasses.MISSING, tp):
            raise TypeError(f"{cls.__name__}.{f.name}: a flat field's default is its record's own ({tp.__name__}), or none")
        out.extend(flat_fields(tp))
    names = [f.name for f, _ in out] + (["type"] if hasattr(cls, "TAG") else [])
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise TypeError(f"{cls.__name__}: flat fields repeat the names {', '.join(clashes)}")
    return tuple(out)


@functools.cache
def _layout(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A record's fields written under their names, and its FLAT fields (checked: ``flat_fields``)."""
    flat_fields(cls)
    own = dataclasses.fields(cls)
    return tuple(f.name for f in own if not f.metadata.get(FLAT)), tuple(f.name for f in own if f.metadata.get(FLAT))


def from_data(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from JSON data (inverse of ``to_data``)."""
    return _decoder(tp)(data)


_PRIMITIVE = (str, int, float, bool, type(None), Any)


@functools.cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    """A decoding function for ``tp``, built once per type (decoding is on the warm path)."""
    origin = typing.get_origin(tp)
    if tp in _PRIMITIVE:
        return _identity
    if is_code(tp):
        return tp  # (the enum's lookup: a value that is no member raises ValueError)
    if is_text_record(tp):
        return tp.from_text
    if origin in (Union, types.UnionType):
        return _union_decoder(typing.get_args(tp))
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
        return _record_decoder(tp)
    return _identity


def _union_decoder(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    """Records told apart by their ``TAG``; a string, by the alternative written as text."""
    if all(a in _PRIMITIVE for a in args):
        return _identity
    tagged = {a.TAG: _decoder(a) for a in args if hasattr(a, "TAG")}
    others = [_decoder(a) for a in args if a is not type(None) and not hasattr(a, "TAG")]
    text = next((_decoder(a) for a in args if is_text_record(a)), None)

    def union(data: Any) -> Any:
        if data is None:
            return None
        if isinstance(data, dict) and data.get("type") in tagged:
            return tagged[data["type"]](data)
        if text is not None and isinstance(data, str):
            return text(data)
        return others[0](data) if others else data

    return union


def _record_decoder(tp: Any) -> Callable[[Any], Any]:
    # Field decoders are resolved on first use: guard trees are recursive types.
    fields: list[tuple[str, Any]] = []
    flat: list[tuple[str, Any]] = []  # FLAT fields: each decodes its record from the same object

    def record_of(data: Any) -> Any:
        if not fields and not flat:
            hints = _hints(tp)
            names, flat_names = _layout(tp)
            fields.extend((name, _decoder(hints[name])) for name in names)
            flat.extend((name, _decoder(hints[name])) for name in flat_names)
        values = {name: decode(data[name]) for name, decode in fields if name in data}
        for name, decode in flat:
            values[name] = decode(data)
        return tp(**values)

    return record_of


def from_json(tp: type, text: str) -> Any:
    return from_data(tp, json.loads(text))


def fingerprint(value: Any) -> str:
    """Compact, key-sorted JSON of a record: cheap material for content hashes."""
    return json.dumps(to_data(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# Published records leave out every field that holds its default: an absent field means the
# default (catalog.schema.json says which fields may be absent and what their defaults are).
# On vLLM that is a fifth of catalog.json. A field may also carry ``PUBLISHED``: a predicate
# over its data, false where the field is left out of the published record (it then reads as
# its default). ``compact`` makes a published record; ``complete`` gives every field back.
PUBLISHED = "published"
REQUIRED = object()


def compact(tp: Any, data: Any) -> Any:
    """``data`` (``to_data`` of a ``tp``) without the fields that hold their defaults."""
    shape = _shaper(tp, False)
    return data if shape is None else shape(data)


def complete(tp: Any, data: Any) -> Any:
    """``compact``'s inverse: ``data`` with each absent field set to its default, in place."""
    shape = _shaper(tp, True)
    return data if shape is None else shape(data)


def field_default(f: dataclasses.Field[Any]) -> Any:
    """A record field's default as JSON data (``REQUIRED`` for a field without one)."""
    if f.default is not dataclasses.MISSING:
        return to_data(f.default)
    if f.default_factory is not dataclasses.MISSING:
        return to_data(f.default_factory())
    return REQUIRED


def _same(value: Any, default: Any) -> bool:
    return type(value) is type(default) and value == default  # (False is no 0, nor [] None)


def _is_plain(tp: Any) -> bool:
    """Whether data of type ``tp`` is one JSON value with no record inside (nothing to compact)."""
    return tp in _PRIMITIVE or is_code(tp) or is_text_record(tp)


@functools.cache
def _shaper(tp: Any, fill: bool) -> Any:
    """The function that compacts (``fill``: completes) data of type ``tp``; None where the
    type holds no record."""
    if _is_plain(tp):
        return None
    of_origin = _SHAPERS.get(typing.get_origin(tp))
    if of_origin is not None:
        return of_origin(tp, fill)
    if not isinstance(tp, type) or not dataclasses.is_dataclass(tp):
        return None
    return _record_shaper(tp, fill)


_Shape = Callable[[Any], Any]


def _union_shaper(tp: Any, fill: bool) -> _Shape | None:
    """A union's: a record told apart by its ``TAG``, any other data by the first untagged alternative."""
    kept = [a for a in typing.get_args(tp) if not _is_plain(a)]
    tagged = {a.TAG: a for a in kept if hasattr(a, "TAG")}
    others = [a for a in kept if not hasattr(a, "TAG")]
    if not tagged and not others:
        return None

    def union(data: Any) -> Any:
        if isinstance(data, dict) and data.get("type") in tagged:
            shape = _shaper(tagged[data["type"]], fill)
        elif data is not None and others:
            shape = _shaper(others[0], fill)
        else:
            return data
        return data if shape is None else shape(data)

    return union


def _tuple_shaper(tp: Any, fill: bool) -> _Shape | None:
    args = typing.get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        item = _shaper(args[0], fill)
        return None if item is None else (lambda data: [item(v) for v in data] if isinstance(data, list) else data)
    items = [_shaper(a, fill) for a in args]
    if not any(items):
        return None
    return lambda data: [v if s is None else s(v) for s, v in zip(items, data)] if isinstance(data, list) else data


def _dict_shaper(tp: Any, fill: bool) -> _Shape | None:
    value = _shaper(typing.get_args(tp)[1], fill)
    return None if value is None else (lambda data: {k: value(v) for k, v in data.items()} if isinstance(data, dict) else data)


_SHAPERS: dict[Any, Callable[[Any, bool], _Shape | None]] = {
    Union: _union_shaper, types.UnionType: _union_shaper, tuple: _tuple_shaper, dict: _dict_shaper,
}

# A record's plan: field -> (its default as data, its shaper, its PUBLISHED predicate).
_Plan = dict[str, tuple[Any, Any, Any]]


def _record_shaper(tp: type, fill: bool) -> _Shape:
    """A record's function, with its field plan resolved on first use: guard trees are recursive."""
    plan: _Plan = {}

    def known() -> _Plan:
        if not plan:
            for f, hint in flat_fields(tp):  # (a FLAT field's record's fields sit in the same object)
                plan[f.name] = (field_default(f), _shaper(hint, fill), f.metadata.get(PUBLISHED))
        return plan

    return _completer(plan, known) if fill else _compactor(known)


def _completer(plan: _Plan, known: Callable[[], _Plan]) -> _Shape:
    """Completing a record: the fields whose default is a constant (None, False, 0, ""), those
    whose default is a container (a fresh one each time), and those that hold records."""
    constants: list[tuple[str, Any]] = []
    containers: list[tuple[str, Any]] = []
    nested: list[tuple[str, Any]] = []

    def completed(data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if not plan:  # (this closure's own plan: compacting has another)
            _sort_fields(known(), constants, containers, nested)
        for name, default in constants:
            if name not in data:
                data[name] = default
        for name, default in containers:
            if name not in data:
                data[name] = copy.deepcopy(default) if default else type(default)()
        for name, shape in nested:
            value = data.get(name)
            if value is not None:
                data[name] = shape(value)
        return data

    return completed


def _sort_fields(plan: _Plan, constants: list[tuple[str, Any]], containers: list[tuple[str, Any]], nested: list[tuple[str, Any]]) -> None:
    for name, (default, shape, _) in plan.items():
        if isinstance(default, (list, dict)):
            containers.append((name, default))
        elif default is not REQUIRED:
            constants.append((name, default))
        if shape is not None:
            nested.append((name, shape))


def _compactor(known: Callable[[], _Plan]) -> _Shape:
    """Compacting a record: a field that holds its default, or that its PUBLISHED predicate
    refuses, is left out."""

    def compacted(data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields_ = known()
        out = {}
        for name, value in data.items():
            found = fields_.get(name)
            if found is None:
                out[name] = value
                continue
            default, shape, published = found
            if (default is not REQUIRED and _same(value, default)) or (published is not None and not published(value)):
                continue
            out[name] = value if shape is None or value is None else shape(value)
        return out

    return compacted
