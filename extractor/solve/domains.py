"""Domains: declared annotations, constraints and defaults -> the values an input may take.

Works on declarations as written (source strings from fields and parameters); values are
read with ``ast.literal_eval`` only, so nothing from the tree is evaluated.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from functools import lru_cache
from typing import Any

from ..collect.annotations import read_annotation
from ..model import Card, Constraint, Domain, DomainSource, FieldDoc, Param
from ..model.pytext import compares_with_none
from .arrays import library_value
from .declared import fits
from .values import Modelled, Named, Present, plain_type, stable

_FACTORIES = {
    "list": "[]", "dict": "{}", "set": "set()", "tuple": "()", "frozenset": "frozenset()", "str": "''", "int": "0", "float": "0.0",
}
NO_VALUE = object()


def _literal(code: str) -> Any:
    """The value of a literal's source, or NO_VALUE. Immutable values are parsed once per
    text (the search checks every candidate against every declared choice); a list, dict or
    set is made fresh each time, so no caller can change another's."""
    value = _immutable_literal(code)
    return _parse_literal(code) if value is _MUTABLE else value


_MUTABLE = object()


@lru_cache(maxsize=16384)
def _immutable_literal(code: str) -> Any:
    value = _parse_literal(code)
    return value if _is_immutable(value) else _MUTABLE


def _parse_literal(code: str) -> Any:
    try:
        return stable(ast.literal_eval(code))  # sets in a run-independent order
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return NO_VALUE


def _is_immutable(value: Any) -> bool:
    if value is NO_VALUE or value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return True
    return isinstance(value, tuple) and all(_is_immutable(item) for item in value)


_ATTRS_FACTORY = re.compile(r"^(?:attrs?\.)?Factory\(\s*([A-Za-z_][A-Za-z0-9_.]*|lambda:.*)\s*\)$")


def default_source(default: str | None, factory: str | None) -> str | None:
    """The default as a literal source, through simple default factories (``list`` -> ``[]``,
    ``attrs.Factory(dict)`` -> ``{}``, ``lambda: 3`` -> ``3``)."""
    if default is not None and (match := _ATTRS_FACTORY.match(default.strip())):
        return default_source(None, match.group(1))
    if default is not None:
        return default if _literal(default) is not NO_VALUE else None
    if factory is not None:
        name = factory.strip()
        if name.startswith("lambda:"):
            body = name[len("lambda:"):].strip()
            return body if _literal(body) is not NO_VALUE else None
        return _FACTORIES.get(name)
    return None


def field_domain(doc: FieldDoc) -> Domain:
    declared = doc.declared
    annotation = read_annotation(declared.annotation)
    types, choices, implied = annotation.types, annotation.choices, annotation.implied
    if doc.literal_values is not None:
        # The annotation names an alias; the values say what the type really is.
        choices, types = doc.literal_values, _literal_types(doc.literal_values, types)
    default = declared.default if choices and declared.default in choices else default_source(declared.default, declared.default_factory)
    return Domain(
        input=doc.input, source=DomainSource.FIELD, types=types, choices=choices,
        constraints=tuple(implied) + declared.constraints, default=default,
        has_default=declared.default is not None or declared.default_factory is not None, elements=doc.element_values,
        annotation=declared.annotation,
    )


_DOTTED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


def param_domain(name: str, param: Param) -> Domain:
    annotation = read_annotation(param.annotation)
    types, choices, implied = annotation.types, annotation.choices, annotation.implied
    default = default_source(param.default, None)
    if default is None and param.default is not None and _DOTTED_NAME.match(param.default.strip()):
        default = param.default.strip()  # ``default=MISSING``: the solver reads it as that named constant
    literal_elements = [text for kind, text in annotation.elements if kind == "value"]
    elements = tuple(literal_elements) if literal_elements and len(literal_elements) == len(annotation.elements) else None
    return Domain(
        input=name, source=DomainSource.PARAMETER, types=types, choices=choices, constraints=implied,
        default=default, has_default=param.default is not None, elements=elements, annotation=param.annotation,
    )


def unknown_domain(name: str, source: DomainSource) -> Domain:
    return Domain(input=name, source=source)


_ENUM_MEMBER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")


def literal_value(code: str | None) -> Any:
    """The value of a literal source string, or ``NO_VALUE``."""
    return NO_VALUE if code is None else _literal(code)


def choice_value(code: str) -> Any:
    """A declared choice: a literal, or ``Enum.MEMBER`` of an Enum defined in the tree."""
    value = _literal(code)
    if value is NO_VALUE and _ENUM_MEMBER.match(code):
        return Named(code, "enum")
    return value


def default_value(domain: Domain) -> Any:
    """The declared default; a dotted name counts only when it is one of the choices."""
    if domain.default is not None and domain.choices is not None and domain.default in domain.choices:
        return choice_value(domain.default)
    return literal_value(domain.default)


def admits(domain: Domain, value: Any) -> bool:
    """Whether ``value`` is inside the declared domain (type, choices, constraints). A named
    constant is admitted where no choices exclude it: the tree does not say its type."""
    if isinstance(value, Named):
        return domain.choices is None or value.name in domain.choices
    if domain.choices is not None:
        allowed = [choice_value(c) for c in domain.choices]
        if not any(type(value) is type(a) and value == a for a in allowed if a is not NO_VALUE):
            return False
    if domain.types and not _type_ok(domain.types, value):
        return False
    if domain.elements is not None and isinstance(value, (list, tuple, set, frozenset)):
        allowed = [choice_value(c) for c in domain.elements]
        if not all(any(type(v) is type(a) and v == a for a in allowed) for v in value):
            return False  # (pydantic refuses ``[0]`` for ``list[Literal["all", "model"]]``)
    if domain.annotation is not None and not fits(domain.annotation, value):
        return False  # (``{'x': 0}`` for ``dict[str, list[str]]``: pydantic refuses it before any validator)
    return all(_constraint_ok(c, value) for c in domain.constraints)


# The protocols of ``typing`` and ``collections.abc`` a plain value may meet, by the plain types that do
_CONTAINERS = ("str", "bytes", "list", "tuple", "dict", "set", "frozenset")
_PROTOCOLS = {"Sized": _CONTAINERS, "Iterable": _CONTAINERS, "Collection": _CONTAINERS, "Container": _CONTAINERS,
              "Reversible": ("str", "bytes", "list", "tuple", "dict"),
              "Hashable": ("int", "float", "complex", "bool", "str", "bytes", "tuple", "frozenset", "NoneType"),
              "SupportsInt": ("int", "float", "bool"), "SupportsFloat": ("int", "float", "bool"), "SupportsIndex": ("int", "bool"),
              "SupportsAbs": ("int", "float", "bool")}


def takes_anything(types: tuple[str, ...]) -> bool:
    """Annotated ``object`` or ``Any``: any value is one."""
    return "object:object" in types or "object:Any" in types


def plain_types(types: tuple[str, ...]) -> tuple[str, ...]:
    """The plain types among ``types``, with those that meet a protocol among them (``Sized``: ``str``, ``list``, ...)."""
    plain = [t for t in types if not t.startswith("object:")]
    plain += [p for t in types if t.startswith("object:") for p in _PROTOCOLS.get(t[7:], ()) if p not in plain]
    return tuple(plain)


def _type_ok(types: tuple[str, ...], value: Any) -> bool:
    """Plain types only: a value of a class the tree defines cannot be built statically;
    ``object`` and ``Any`` take any value, a protocol (``Sized``) the plain types that meet it."""
    if takes_anything(types):
        return True
    if isinstance(value, (Modelled, Present)):
        return f"object:{value.kind}" in types
    plain = plain_types(types)
    name = plain_type(value).__name__  # (the set a seed is)
    if name in plain:
        return True
    if name == "int" and "float" in plain:
        return True
    return name == "tuple" and "list" in plain


def _constraint_ok(constraint: Constraint, value: Any) -> bool:
    bound = _literal(constraint.value)
    if bound is NO_VALUE or value is None:
        return True
    try:
        if constraint.name == "ge":
            return value >= bound
        if constraint.name == "gt":
            return value > bound
        if constraint.name == "le":
            return value <= bound
        if constraint.name == "lt":
            return value < bound
        if constraint.name == "multiple_of":
            return value % bound == 0
        if constraint.name == "min_length":
            return len(value) >= bound
        if constraint.name == "max_length":
            return len(value) <= bound
    except TypeError:
        return False
    return True


_ANY = {**_FACTORIES, "bytes": "b''", "bool": "False", "NoneType": "None",  # type name -> the source of a value of it
        # (abstract containers: a list or dict is one)
        "object:Iterable": "[]", "object:Collection": "[]", "object:MutableSequence": "[]", "object:MutableMapping": "{}"}
# A bound a constrained type implies (``PositiveInt``: gt 0) -> the value nearest the plain one that keeps it
_NEAR = {"gt": 1, "ge": 0, "lt": -1, "le": 0}


def any_value(annotation: str | None) -> Any:
    """A value of the annotation's type, for a parameter whose value does not matter on the way
    to the raise (None without an annotation): the first ``Literal`` choice; else the first type
    of a union (through ``Optional``, ``Union`` and ``Annotated``) the tool has a value of, a
    plain one (``0``, ``''``, ``[]``; ``1`` for a ``PositiveInt``), a library type's model (a
    tensor, a path: solve.arrays); NO_VALUE where it has none (a class it cannot build). Parsed
    as the default factories' values are, so a fresh copy each call."""
    if annotation is None:
        return None
    read = read_annotation(annotation)
    if read.choices:
        return _literal(read.choices[0])
    for kind in read.types:
        source = _ANY.get(kind)
        if source is not None:
            value = _literal(source)
            bound = next((c for c in read.implied if c.name in _NEAR), None) if kind in ("int", "float") else None
            return value if bound is None else type(value)(_NEAR[bound.name])
        if kind.startswith("object:") and (modelled := library_value(annotation)) is not None:
            return modelled  # (a tensor, an array, a dtype, a device, a path: solve.arrays)
    return NO_VALUE


def _literal_types(choices: tuple[str, ...], declared: tuple[str, ...]) -> tuple[str, ...]:
    """The types of a Literal alias's values (and None, where the annotation allows it)."""
    kinds = ["EnumMember" if isinstance(v := choice_value(c), Named) else type(v).__name__ for c in choices]
    return tuple(dict.fromkeys([*kinds, *(t for t in declared if t == "NoneType")]))


def card_domains(card: Card, params: tuple[Param, ...], names: list[str], param_choices: dict[str, tuple[str, ...]],
                 stored: dict[str, Param] | None = None, literals: dict[str, tuple[str, ...]] | None = None) -> dict[str, Domain]:
    """The domain of each input a card's trigger may set: a documented field's, a parameter's
    (its choices where callers pass only those; the values of the ``Literal`` alias it is
    annotated with, ``literals``), an attribute's that the constructor stores
    straight from its parameter (``stored``: ``self.http2 = http2`` of ``http2: bool = False``
    is a bool that defaults to False), else an opaque or unknown name's."""
    by_param = {p.name: p for p in params}
    stored = stored or {}
    fields = {f.input: f for f in card.docs.fields}
    domains: dict[str, Domain] = {}
    for name in names:
        if name in fields:
            domains[name] = field_domain(fields[name])
        elif name in by_param and name in param_choices:
            param = by_param[name]
            default = param.default if param.default in param_choices[name] else None
            domains[name] = dataclasses.replace(param_domain(name, param), choices=param_choices[name], types=("EnumMember",),
                                                default=default)
        elif name in by_param and name in (literals or {}):
            domain = param_domain(name, by_param[name])
            choices = (literals or {})[name]
            default = domain.default if domain.default in choices else None
            domains[name] = dataclasses.replace(domain, choices=choices, types=_literal_types(choices, domain.types), default=default)
        elif name in by_param:
            domains[name] = param_domain(name, by_param[name])
        elif name in stored:
            domains[name] = param_domain(name, stored[name])
        else:
            domains[name] = Domain(input=name, source=DomainSource.OPAQUE if name in card.statement.guard.opaque else DomainSource.UNKNOWN)
    return domains


_BUILTIN_TYPES = {"int": int, "float": float, "complex": complex, "str": str, "bytes": bytes, "bool": bool, "list": list,
                  "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset, "NoneType": type(None)}


def type_tested(domains: dict[str, Domain], code: str) -> dict[str, Domain]:
    """The inputs with a declared type that the guard tests with ``isinstance``, each with its
    domain widened to any type (its default kept): a runtime type check is there for the
    values an annotation does not keep out."""
    return {name: dataclasses.replace(domain, types=(), choices=None, elements=None, annotation=None) for name, domain in domains.items()
            if domain.types and re.search(rf"\bisinstance\(\s*{re.escape(name)}\s*,", code)}


def none_tested(domains: dict[str, Domain], code: str) -> dict[str, Domain]:
    """The parameters declared without None that the guard compares with None (``prompt is
    None`` of ``prompt: str``), each with None added to its domain: Python does not keep a
    None out of a parameter, and the test is there for the callers that pass one."""
    return {name: dataclasses.replace(domain, types=(*domain.types, "NoneType"), annotation=_or_none(domain.annotation))
            for name, domain in domains.items()
            if domain.source is DomainSource.PARAMETER and domain.types and "NoneType" not in domain.types
            and compares_with_none(name, code)}


def literal_tested(domains: dict[str, Domain], code: str) -> dict[str, Domain]:
    """The parameters annotated with a ``Literal`` (or an alias of one) that the guard reads,
    each without its choices: Python does not keep another value out of a parameter, and a
    test that no listed value passes (``if kind != "a" and kind != "b": raise``) is there for
    the callers that pass one. Not an Enum's members, nor a field's (pydantic checks those)."""
    # (its annotation as the values' types: ``Literal["a", "b"]`` itself refuses "c": solve.declared)
    return {name: dataclasses.replace(domain, choices=None, annotation=" | ".join("None" if t == "NoneType" else t for t in domain.types))
            for name, domain in domains.items()
            if domain.source is DomainSource.PARAMETER and domain.choices is not None and domain.types
            and "EnumMember" not in domain.types and re.search(rf"\b{re.escape(name)}\b", code)}


def _or_none(annotation: str | None) -> str | None:
    return None if annotation is None else f"{annotation.strip().strip(QUOTES)} | None"


QUOTES = "'\""


def of_declared_type(value: Any, domain: Domain) -> bool:
    """Whether ``value`` is of one of the domain's declared types (True where one of them is a
    class the tool does not know the instances of: no claim is made)."""
    if any(t not in _BUILTIN_TYPES for t in domain.types):
        return True
    if domain.choices is not None and not any(type(value) is type(v := choice_value(c)) and value == v for c in domain.choices):
        return False  # (a Literal's other values)
    return any(type(value) is _BUILTIN_TYPES[t] or (t == "float" and type(value) is int) for t in domain.types)
