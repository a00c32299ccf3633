"""Rules: what pydantic accepts under a field's declared rules, and stand-in values that pass them.

``satisfies`` answers whether one value meets one rule (a bound, a length, a pattern, a choice,
a strict type) in plain Python over our own values: solve.constraints draws a constraint card's
trigger and fix from it. ``stand_in`` gives a required field that a trigger does not set a value
of its declared type that each of its own declared rules accepts (``Owner.required``): an
example passes it so that the call gets to the raise it shows, and lists it as a placeholder.
``kept`` says whether pydantic's check of a field's declared type passes a value on as it is
(a field validator of the default mode sees nothing else), and ``own_checks_pass`` whether a
check of the field alone (a validator that may run before pydantic's own) lets a value through.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..collect.annotations import read_annotation
from ..model import RAW_KEYWORDS, CardContext, FieldConstraint, FieldDoc
from ..model.pytext import literal_or, try_parse_expression
from .construction import constructs, refuses, unpassed_checks
from .declared import fits
from .domains import NO_VALUE, any_value
from .problem import Problem
from .values import Present

_ELEMENTS = {"int": 0, "str": "x", "float": 0.0, "bool": False}  # an element of a container's element type


def number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def length(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, list, dict, tuple)) else None


def satisfies(constraint: FieldConstraint | Rule, value: Any) -> bool | None:
    """Whether pydantic accepts ``value`` under one constraint (None: not known)."""
    rule, bound = constraint.rule, literal_or(constraint.value)
    checks: dict[str, Callable[[], bool | None]] = {
        "gt": lambda: value > bound, "ge": lambda: value >= bound, "lt": lambda: value < bound, "le": lambda: value <= bound,
        "multiple_of": lambda: bound != 0 and math.isclose(value / bound, round(value / bound)),
        "min_length": lambda: (n := length(value)) is not None and n >= bound,
        "max_length": lambda: (n := length(value)) is not None and n <= bound,
        "pattern": lambda: isinstance(value, str) and re.search(bound, value) is not None,
        "literal": lambda: any(type(value) is type(c) and value == c for c in map(literal_or, constraint.choices)),
        "enum": lambda: any(type(value) is type(c) and value == c for c in map(literal_or, constraint.choices)),
    }
    if rule in ("gt", "ge", "lt", "le", "multiple_of") and not (number(value) and number(bound)):
        return None
    if rule in ("min_length", "max_length") and not isinstance(bound, int):
        return None
    try:
        check = checks.get(rule)
        return bool(check()) if check is not None else _strict_ok(constraint.value, value)
    except (TypeError, ValueError, re.error, ZeroDivisionError, OverflowError):
        return None


def _strict_ok(plain: str | None, value: Any) -> bool | None:
    """Whether a strict type accepts ``value`` (strict float takes an int, strict int no bool)."""
    kinds = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "bytes": (bytes,)}
    if plain not in kinds:
        return None
    if isinstance(value, bool):
        return plain == "bool"
    return isinstance(value, kinds[plain])


def container(annotation: str | None) -> tuple[str | None, Any]:
    """The field's one type (without None) and an element of its container's element type."""
    read = read_annotation(annotation)
    types = [t for t in read.types if t != "NoneType"]
    base = types[0] if len(types) == 1 else None
    text = (annotation or "").replace(" ", "")
    inner = re.search(r"\[(\w+)(?:,\.\.\.)?\]", text)
    return base, _ELEMENTS.get(inner.group(1)) if inner else None


def sized(base: str | None, size: int, element: Any) -> Any:
    if base == "str":
        return "x" * size
    if size == 0:
        return {} if base == "dict" else []
    if element is None or base not in ("list", "set", "tuple", "dict"):
        return None
    items = [element if base in ("list", "tuple") else _distinct(element, i) for i in range(size)]
    return {f"k{i}": item for i, item in enumerate(items)} if base == "dict" else items


def _distinct(element: Any, index: int) -> Any:
    return f"x{index}" if isinstance(element, str) else index if isinstance(element, int) and not isinstance(element, bool) else None


def stand_ins(ctx: CardContext, fixed: dict[str, Any] | None) -> dict[str, Any] | None:
    """A value for each other required field of the class (``self.f`` -> value: Owner.required)
    that the field's own declared rules accept, and under which constructing the class with the
    fix (``fixed``) passes every check its construction runs that the tree shows (validators,
    ``__post_init__``; solve.construction): ``{}`` where it has none, None where one has no such value."""
    if not ctx.owner.required:
        return {}
    if fixed is None:
        return None  # (no value of the field itself is known to pass)
    options = {doc.input: _owner_stand_ins(ctx, doc) for doc in ctx.owner.required}
    if not all(options.values()):
        return None
    found = _refitted(ctx, options, {name: values[0] for name, values in options.items()}, fixed)
    return found if constructs(_NO_GUARD, ctx, {**found, **fixed}) else None


def unchecked_stand_ins(ctx: CardContext) -> dict[str, Any] | None:
    """A stand-in for each other required field, where the checks construction runs after the
    fields' own cannot be shown to pass with any (``stand_ins`` found none, or the class's
    ``__post_init__`` reads them unseen: Owner.required_unseen): pydantic checks
    each field, with its own validators, before any model validator or ``__post_init__`` runs,
    so a value it refuses shows its error alone; an example then shows that error only. Each
    field's first stand-in its own field validators surely accept (``model='x'`` where one
    refuses ``''``); None where a field has none."""
    found: dict[str, Any] = {}
    for doc in ctx.owner.required:
        value = next((v for v in _owner_stand_ins(ctx, doc) if own_checks_pass(ctx, doc.input, v, fields_only=True)), NO_VALUE)
        if value is NO_VALUE:
            return None
        found[doc.input] = value
    return found


def _refitted(ctx: CardContext, options: dict[str, list[Any]], found: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any]:
    """``found`` (each field's first stand-in) where construction passes it with ``fixed``; else
    the first choice of stand-ins, in their order, that leaves the fewest of construction's checks
    not surely passed: ``model='x', max_tokens=1`` where ``if not self.model`` refuses ``''`` and
    ``if self.max_tokens <= 0`` refuses ``0``. Every choice where there are at most
    MAX_STAND_IN_CHOICES; else each field in turn, the earlier fields' choices kept."""
    def unpassed(values: dict[str, Any]) -> int:
        return unpassed_checks(_NO_GUARD, ctx, {**values, **fixed})

    if not any(len(values) > 1 for values in options.values()) or not unpassed(found):
        return found
    if math.prod(len(values) for values in options.values()) <= MAX_STAND_IN_CHOICES:
        return min((dict(zip(options, choice)) for choice in itertools.product(*options.values())), key=unpassed)
    found = dict(found)
    for name, values in options.items():
        found[name] = min(values, key=lambda value: unpassed({**found, name: value}))
    return found


def owner_stand_in(ctx: CardContext, doc: FieldDoc) -> Any:
    """``stand_in``; for a field of an in-tree record class an example builds from its own
    required fields' stand-ins (link.constructors.with_records), an object of it (``Usage()``)."""
    values = _owner_stand_ins(ctx, doc)
    return values[0] if values else NO_VALUE


def _owner_stand_ins(ctx: CardContext, doc: FieldDoc) -> list[Any]:
    """``stand_ins_of`` the field; else, for a field of an in-tree record class (owner_stand_in), an object of it."""
    values = stand_ins_of(doc)
    if not values and doc.input in ctx.owner.classes and doc.input in ctx.owner.settable:
        return [Present(ctx.owner.classes[doc.input].rsplit(":", 1)[-1])]
    return values


def refused_with(ctx: CardContext, name: str, value: Any) -> bool:
    """Whether constructing the class with ``name`` at ``value`` (and a stand-in for each other
    required field that has one) surely fires a raise its construction runs (solve.construction.refuses)."""
    options = {doc.input: values for doc in ctx.owner.required if doc.input != name and (values := _owner_stand_ins(ctx, doc))}
    fitted = _refitted(ctx, options, {n: values[0] for n, values in options.items()}, {name: value})
    return refuses(_NO_GUARD, ctx, {**fitted, name: value})


def own_checks_pass(ctx: CardContext, name: str, value: Any, fields_only: bool = False) -> bool:
    """Whether each check construction runs that reads the field ``name`` alone (a field
    validator's, which may run before pydantic's own check of the field) is false for
    ``value``: else the example's error may be the validator's, not the constraint's.
    ``fields_only``: only the checks a field validator surely makes (Owner.field_checks)."""
    own = tuple((code, inputs) for code, inputs in ctx.owner.checks
                if [n for n, _, _ in inputs] == [name] and (not fields_only or code in ctx.owner.field_checks))
    return not own or constructs(_NO_GUARD, replace(ctx, owner=replace(ctx.owner, checks=own, settable={})), {name: value})


def raw_refused(ctx: CardContext, keywords: dict[str, Any]) -> bool:
    """Whether a "before" model validator of the class (its check reading the constructor's
    keywords as its raw input dict: Owner.before) surely refuses ``keywords``: its guard true
    over them. Pydantic runs those before it checks any field, so their error would come first.
    A check the evaluator cannot decide (it reads a loop's element) refuses nothing here."""
    raw = [(code, inputs) for code, inputs in (*ctx.owner.checks, *ctx.owner.before)
           if inputs and all(default == RAW_KEYWORDS for _, default, _ in inputs)]
    return any(_NO_GUARD.holds({name: dict(keywords) for name, _, _ in inputs}, code) is True for code, inputs in raw)


_NO_GUARD = Problem(code="False", tree=ast.Constant(value=False), variables={}, constants={})


def required_stand_ins(ctx: CardContext, missing: Iterable[str]) -> dict[str, Any]:
    """A stand-in for each of ``missing`` (required arguments a trigger gives no value for)
    that is a required field of the object's class (Owner.required) with one: ``self.f`` -> value."""
    docs = {doc.input: doc for doc in ctx.owner.required}
    found = {}
    for name in missing:
        if name in docs and name in ctx.owner.settable and (value := owner_stand_in(ctx, docs[name])) is not NO_VALUE:
            found[name] = value
    return found


_KEPT = {"int": (int,), "float": (float,), "str": (str,), "bool": (bool,), "bytes": (bytes,), "list": (list,), "dict": (dict,),
         "tuple": (tuple,), "set": (set,), "NoneType": (type(None),)}


def kept(doc: FieldDoc, value: Any) -> bool:
    """Whether pydantic's check of the field's declared type surely passes ``value`` on as it
    is: its type is one the annotation names (``int | None``; ``Any`` takes anything), and
    its declared rules accept it. Anything else (a class, a coercion) counts as not."""
    return surely_fits(doc.declared.annotation, value) and accepts(doc, value)


def validated_field(ctx: CardContext, name: str) -> FieldDoc | None:
    """The field whose value ``name`` is, where it is a field validator's parameter
    (Owner.validated: pydantic checks the field's declared type before the validator runs)."""
    validated = ctx.owner.validated
    return validated if validated is not None and name in ctx.owner.settable and any(p.name == name for p in ctx.signature.params) \
        else None


def may_refuse(doc: FieldDoc, value: Any) -> bool:
    """Whether pydantic's check of the field's declared type may refuse ``value`` (a class the
    tool does not read refuses a plain value: ``[0]`` for ``list[Message]``); False without an annotation."""
    annotation = doc.declared.annotation
    return annotation is not None and not fits(unwrapped(annotation), value, strict=True)


def surely_fits(annotation: str | None, value: Any) -> bool:
    """Whether ``value``'s type is one the annotation names (``Any`` takes anything); never
    without an annotation, nor for a class or a coercion (declared.fits, which reads the whole
    type, says True where it cannot tell)."""
    if annotation is None:
        return False
    inner = unwrapped(annotation)
    types = read_annotation(inner).types
    return bool(types) and ("object:Any" in types or any(type(value) in _KEPT.get(name, ()) for name in types)
                            and fits(inner, value, strict=True))  # (and its elements: not ``[0]`` for ``list[Message]``)


def accepts(doc: FieldDoc, value: Any) -> bool:
    """Whether each of the field's declared rules (bounds, lengths, choices) surely accepts ``value``."""
    return all(satisfies(rule, value) is True for rule in declared_rules(doc))


def declared_rules(doc: FieldDoc) -> list[Rule]:
    """The field's declared constraints, and its choices where its type allows only some literals."""
    rules = [Rule(rule=c.name, value=c.value) for c in doc.declared.constraints]
    choices = tuple(v for v in doc.literal_values or () if literal_or(v) is not None)
    if choices:
        rules.append(Rule(rule="literal", choices=choices))
    return rules


def stand_in(doc: FieldDoc) -> Any:
    """A value of the field's declared type that each of its declared rules (bounds, lengths,
    choices) accepts, else NO_VALUE: a choice, a bound, a container of the least length, then
    the type's plain value (``0``, ``''``, ``[]``)."""
    values = stand_ins_of(doc)
    return values[0] if values else NO_VALUE


MAX_STAND_IN_CHOICES = 64  # combinations of the required fields' stand-ins tried together
# A plain value's next stand-in, where construction refuses the first (``if not self.model``)
_NEXT_PLAIN: dict[type, Any] = {str: "x", int: 1, float: 1.0, bool: True}


def stand_ins_of(doc: FieldDoc) -> list[Any]:
    """The values ``stand_in`` would try that the field's rules accept, in its order, the
    first its choice; then the plain value's next one (``'x'`` after ``''``, ``1`` after ``0``)."""
    declared = doc.declared
    rules = declared_rules(doc)
    choices = next((rule.choices for rule in rules if rule.rule == "literal"), ())
    annotation = unwrapped(declared.annotation) if declared.annotation is not None else None
    base, element = container(annotation)
    tries: list[Any] = [literal_or(c) for c in choices]
    for rule in rules:
        bound = literal_or(rule.value)
        if rule.rule in ("ge", "le") and number(bound):
            tries.append(bound)
        elif rule.rule in ("gt", "lt") and number(bound):
            tries.append(bound + (1 if rule.rule == "gt" else -1))
        elif rule.rule == "min_length" and isinstance(bound, int):
            tries.append(sized(base, bound, element))
    if annotation is not None:
        tries.append(plain := any_value(annotation))  # (None where the type takes it: ``Config | None``)
        if type(plain) in _NEXT_PLAIN:
            tries.append(_NEXT_PLAIN[type(plain)])
    found: list[Any] = []
    for value in tries:
        if value is not NO_VALUE and all(satisfies(r, value) is True for r in rules) and not any(_same(value, f) for f in found):
            found.append(value)
    return found


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def unwrapped(annotation: str) -> str:
    """The type inside ``InitVar[...]`` (a dataclass's init-only field) and ``Annotated[..., ...]``."""
    node = try_parse_expression(annotation.strip().strip("'\""))
    if node is None:
        return annotation
    while isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] in ("InitVar", "Annotated"):
        node = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
    return ast.unparse(node)


@dataclass(frozen=True, slots=True)
class Rule:
    """A declared rule of a field that is no card's own (Owner.required): what ``satisfies`` reads."""

    rule: str
    value: str | None = None
    choices: tuple[str, ...] = ()
