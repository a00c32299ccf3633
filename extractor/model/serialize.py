"""The one serializer: records, tuples and primitives <-> JSON data, deterministically.

Records that appear in a union (message parts, guard nodes) carry a ``TAG`` class variable,
written as ``"type"`` in JSON so that ``from_data`` can rebuild them. ``to_data``/``from_data``
are the only (de)serializers: there are no per-class ``as_dict`` methods.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import types
import typing
from typing import Any, Union

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
        out.append(float.__repr__(value) if value == value and value not in (float("inf"), float("-inf")) else json.dumps(value))
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


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)  # each record module imports the names its hints use


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


def fingerprint(value: Any) -> str:
    """Compact, key-sorted JSON of a record: cheap material for content hashes."""
    return json.dumps(to_data(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
