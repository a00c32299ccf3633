"""Constructors: which attribute of an object a caller sets, and through which keyword.

A guard that reads ``self.size`` is in the caller's terms only when constructing the object
sets ``size`` from an argument:

- a field of a record class: a dataclass, attrs or pydantic class, a ``NamedTuple``, or a
  class made by a decorator or base that is itself marked ``dataclass_transform`` (PEP 681,
  as vLLM's ``@config`` is), public, annotated, not a ``ClassVar`` and not ``init=False``;
- or an attribute the class's explicit ``__init__`` sets straight from one of its
  parameters (``self.size = size``, at the top of its body, the parameter never rebound).

Where the raise runs once the object is built (a method, a pydantic ``mode="after"``
validator), a field that the record's ``__post_init__`` (its own or an in-tree base's)
assigns holds what that computed, not the caller's value: vLLM's ``ModelConfig`` fills
``max_model_len`` from the model there, so ``max_model_len=None`` never reaches its after
validator. Such a field is not set by a keyword there (nested records are always built),
unless each assignment sits under one ``if`` (``if self.logprobs is True: ...``): the
caller's value holds where that test is false, a check the trigger must pass
(link_owner adds it to the construction checks).

Anything else a method reads on ``self`` (``self._state``, a class attribute, an attribute
some other method sets) is the object's internal state: no trigger sets it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..collect.annotations import read_annotation
from ..collect.declarations import dotted_name
from ..collect.validators import validator_mode
from ..model import RAW_KEYWORDS, BuiltArgument, Card, ClassFact, FieldDoc, FileFacts, Owner, Param, PostInitSet, Signature, SiteFact
from ..model.codes import BUILDING, CONSTRUCTING, EntryKind
from ..model.pytext import compares_with_none, one_class, try_parse_expression
from .placeholders import abstract_methods, constructed_plainly, undefined_attributes
from .project import Project, field_doc

_RECORD_DECORATORS = frozenset({
    "dataclasses.dataclass", "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attr.dataclass",
    "attrs.define", "attrs.frozen", "attrs.mutable", "pydantic.dataclasses.dataclass",
})
_RECORD_BASES = frozenset({
    "pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic_settings.BaseSettings", "typing.NamedTuple",
    "typing_extensions.NamedTuple", "msgspec.Struct",
})
_MAX_DEPTH = 12
# Builtin bases whose ``__init__`` is object's: with a ``__new__`` of the class's own, the
# call's arguments go to that ``__new__`` alone.
_OBJECT_INIT = frozenset({"object", "int", "float", "complex", "str", "bytes", "tuple", "frozenset"})
_PLAIN_OUTSIDE = frozenset({"abc.ABC", "builtins.object"})  # bases outside the tree with object's __init__
_PLAIN_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta", "type"})  # they call __new__ then __init__ as type does


@dataclass(frozen=True, slots=True)
class Keyword:
    """The constructor keyword that sets an attribute, and its annotation where written."""

    name: str
    facts: FileFacts
    annotation: str | None


class Constructors:
    """Answers about the constructors of the tree's classes (memoized per run of a file)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._records: dict[str, bool] = {}

    def is_record(self, qualname: str, depth: int = 0) -> bool:
        if qualname not in self._records:
            self._records[qualname] = False  # a cycle of bases is not a record
            self._records[qualname] = self._is_record(qualname, depth)
        return self._records[qualname]

    def _is_record(self, qualname: str, depth: int) -> bool:
        found = self.project.class_fact(qualname)
        if found is None or depth > _MAX_DEPTH:
            return False
        facts, cls = found
        for decorator in cls.decorators:
            if self._marks_record(facts, decorator.split("(", 1)[0].strip(), _RECORD_DECORATORS):
                return True
        for base in cls.bases:
            if self._marks_record(facts, base.split("[", 1)[0].strip(), _RECORD_BASES):
                return True
            symbol = self.project.resolve(facts, base)
            if symbol is not None and symbol.kind == "class" and self.is_record(symbol.qualname, depth + 1):
                return True
        return False

    def _marks_record(self, facts: FileFacts, written: str, outside: frozenset[str]) -> bool:
        symbol = self.project.resolve(facts, written)
        if symbol is None:
            return False
        if symbol.kind == "outside":
            return symbol.qualname in outside
        if symbol.facts is not None:
            inner = symbol.qualname[len(symbol.facts.module) + 1:]
            return inner in symbol.facts.transforms
        return False

    def _base_classes(self, facts: FileFacts, bases: tuple[str, ...]) -> list[str]:
        found = []
        for base in bases:
            symbol = self.project.resolve(facts, base)
            if symbol is not None and symbol.kind == "class":
                found.append(symbol.qualname)
        return found

    def keyword(self, qualname: str, attribute: str, depth: int = 0, built: bool = False) -> Keyword | None:
        """How a caller sets ``attribute`` when constructing class ``qualname``, or None;
        ``built``: as read once the object is built (after its ``__post_init__``)."""
        found = self.project.class_fact(qualname)
        if found is None or depth > _MAX_DEPTH:
            return None
        if built and any(s.test is None for s in self.post_init_sets(qualname, attribute)):
            return None
        facts, cls = found
        if cls.init is not None:  # an explicit __init__ wins over a generated one
            param = dict(cls.init_sets).get(attribute)
            if built and param is not None and _stored_again(cls, attribute):
                return None  # (once built: maybe what ``if start is None: self._count = 0`` made of it)
            if param is None and cls.super_init and not _stored_in_init(cls, attribute):
                param = self._passed_on(facts, cls, attribute, depth, built)
            declared = next((p for p in cls.init if p.name == param), None)
            if declared is None or declared.kind not in ("normal", "keyword") or declared.name.startswith("_"):
                return None
            return Keyword(declared.name, facts, declared.annotation)
        if attribute.startswith("_"):
            return None  # (a record's private field: no keyword a user is meant to pass)
        if self.is_record(qualname):
            field = self.project.field(qualname, attribute)
            if field is None:
                return None
            where, holder, fact = field
            if fact.annotation is None or fact.name in holder.no_init or fact.annotation.split("[", 1)[0].endswith("ClassVar"):
                return None
            return Keyword(attribute, where, fact.annotation)
        for base in self._base_classes(facts, cls.bases):  # the inherited constructor
            return self.keyword(base, attribute, depth + 1, built)
        return None

    def _passed_on(self, facts: FileFacts, cls: ClassFact, attribute: str, depth: int, built: bool) -> str | None:
        """The parameter of ``cls.__init__`` that it passes on to the base constructor which
        sets ``attribute`` from it (vLLM's routers: ``super().__init__(eplb_state=eplb_state)``;
        ``Semaphore.__init__(self, value)``)."""
        bases = self._base_classes(facts, cls.bases)
        if len(bases) != len(cls.bases) or not bases:
            return None  # (``super()`` is the first base where the tree shows them all)
        base = bases[cls.super_base]  # (``Base.__init__(self, ...)``: the one it names)
        inherited = self.keyword(base, attribute, depth + 1, built)
        if inherited is None:
            return None
        passed = dict(cls.super_init)
        if inherited.name in passed:
            return passed[inherited.name]
        signature = self.signature(base, depth + 1) or ()
        index = next((i for i, p in enumerate(signature) if p.name == inherited.name and p.kind == "normal"), None)
        return passed.get(f"#{index}") if index is not None else None

    def signature(self, qualname: str, depth: int = 0) -> tuple[Param, ...] | None:
        """The constructor's parameters (after self), where the tree shows them all."""
        found = self.project.class_fact(qualname)
        if found is None or depth > _MAX_DEPTH:
            return None
        facts, cls = found
        if cls.init is not None:
            return cls.init
        if cls.new is not None:  # ``__new__`` takes the call's arguments where no ``__init__`` also does
            return cls.new if cls.metaclass in (None, *_PLAIN_METACLASSES) and self._object_init(facts, cls.bases, depth) else None
        bases = self._base_classes(facts, cls.bases)
        if self.is_record(qualname):
            if any(fact.alias is not None and fact.default is None and fact.default_factory is None for fact in cls.fields):
                return None  # (a required field pydantic takes by its alias, which may not even be a keyword: ``in``)
            params: dict[str, Param] = {}
            for base in reversed(bases):  # dataclass order: the bases' fields first
                inherited = self.signature(base, depth + 1) if self.is_record(base) else ()
                if inherited is None:
                    return None  # (a record base whose constructor is not known: nor is this one)
                params.update({p.name: p for p in inherited})
            for fact in cls.fields:
                if fact.annotation is None or fact.name in cls.no_init or fact.annotation.split("[", 1)[0].endswith("ClassVar") \
                        or fact.alias is not None:  # (an aliased field with a default: not passed by its name; its default holds)
                    continue
                has_default = fact.default is not None or fact.default_factory is not None
                default = (fact.default or "...") if has_default else None
                params[fact.name] = Param(name=fact.name, annotation=fact.annotation, default=default)
            return tuple(params.values())
        if not cls.bases:
            return ()  # object's constructor
        return self.signature(bases[0], depth + 1) if len(bases) == len(cls.bases) else None

    def _object_init(self, facts: FileFacts, bases: tuple[str, ...], depth: int) -> bool:
        """Every base (and theirs) leaves ``__init__`` to object: none writes one, none is a record."""
        for base in bases:
            symbol = self.project.resolve(facts, base)
            if (symbol is None and base in _OBJECT_INIT) \
                    or (symbol is not None and symbol.kind == "outside" and symbol.qualname in _PLAIN_OUTSIDE):
                continue
            found = self.project.class_fact(symbol.qualname) if symbol is not None and symbol.kind == "class" else None
            if found is None or symbol is None or depth > _MAX_DEPTH:
                return False
            if found[1].init is not None or found[1].metaclass not in (None, *_PLAIN_METACLASSES):
                return False
            if self.is_record(symbol.qualname) or not self._object_init(found[0], found[1].bases, depth + 1):
                return False
        return True

    def post_init_sets(self, qualname: str, attribute: str) -> list[PostInitSet]:
        """How the ``__post_init__`` of the class and of its in-tree bases assign ``attribute``."""
        return [s for q in (qualname, *self.project.ancestors(qualname)) if (c := self.project.class_fact(q))
                for s in c[1].post_init_sets if s.attribute == attribute]

    def along(self, qualname: str, attributes: list[str], built: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """For ``self.a.b.c`` on class ``qualname`` (``attributes`` = a, b, c): the keyword at
        each step and the class each step before the last constructs; None where it breaks.
        ``built``: read once the object is built (``keyword``); the nested objects always are."""
        keywords: list[str] = []
        classes: list[str] = []
        current = qualname
        for index, attribute in enumerate(attributes):
            found = self.keyword(current, attribute, built=built or index > 0)
            if found is None:
                return None
            keywords.append(found.name)
            if index < len(attributes) - 1:
                nested = self.project.class_of_annotation(found.facts, found.annotation)
                if nested is None:
                    return None
                classes.append(nested)
                current = nested
        return tuple(keywords), tuple(classes)


def _stored_again(cls: ClassFact, attribute: str) -> bool:
    """Whether ``cls.__init__`` stores ``attribute`` more than once (ClassFact.stores): besides
    the plain ``self.x = x``, under a test, in a loop, or by an augmented assignment."""
    return _init_stores(cls, attribute) > 1


def _stored_in_init(cls: ClassFact, attribute: str) -> bool:
    """Whether ``cls.__init__`` stores ``attribute`` itself (then not what its base constructor made of it)."""
    return _init_stores(cls, attribute) > 0


def _init_stores(cls: ClassFact, attribute: str) -> int:
    return sum(1 for name, store in cls.stores if name == attribute and store.method == "__init__")


def post_init_checks(project: Project, constructors: Constructors, owner: str,
                      settable: dict[str, tuple[str, ...]]) -> tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...]:
    """For each settable ``self.x`` that ``__post_init__`` assigns under one ``if``: that test,
    which must be false for the caller's value to reach the raise (as a construction check,
    its inputs at their declared defaults)."""
    checks = []
    for name in sorted(settable):
        parts = name.split(".")
        if len(parts) != 2:
            continue
        for rule in constructors.post_init_sets(owner, parts[1]):
            if rule.test is None:
                continue
            inputs = []
            for read in rule.reads:
                found = project.field(owner, read.split(".", 1)[1])
                inputs.append((read, found[2].default, found[2].default_factory) if found else (read, None, None))
            checks.append((rule.test, tuple(inputs)))
    return tuple(dict.fromkeys(checks))


def construction_checks(cards: list[Card],
                        signature: tuple[Param, ...] | None) -> tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...]:
    """The guard of each raise construction runs, with the default each of its inputs has
    where the caller leaves it out: a field's declared default, or the constructor
    parameter's (``__init__``'s, ``__new__``'s)."""
    params = {p.name: p.default for p in signature or () if p.default not in (None, "...")}
    checks: list[tuple[str, tuple[tuple[str, str | None, str | None], ...]]] = []
    for card in cards:
        docs = {f.input: f for f in card.docs.fields}
        for code, inputs in validated_fields(card):
            checks.append((code, tuple((name, params.get(name.removeprefix("self.")), None) for name in inputs)))
        if validated_fields(card):
            continue
        raw = _raw_input(card)
        checks.append((card.statement.guard.code, tuple(
            (name, RAW_KEYWORDS, None) if name == raw else
            (name, docs[name].declared.default, docs[name].declared.default_factory) if name in docs else (name, params.get(name), None)
            for name in card.statement.guard.inputs
        )))
    return tuple(checks)


def field_validator_checks(cards: list[Card]) -> tuple[str, ...]:
    """The codes of the checks field validators among ``cards`` make (Owner.field_checks):
    pydantic runs them as it checks each field, before any model validator."""
    return tuple(code for card in cards for code, _ in validated_fields(card))


def _raw_input(card: Card) -> str | None:
    """The parameter of a pydantic ``model_validator(mode="before")`` that takes the raw input,
    where the check reads it only (``data.get("background")``): called with keywords, the model
    hands it the dict of those keywords."""
    if not any("model_validator" in d and validator_mode(d) == "before" for d in card.at.decorators):
        return None
    bare = [name for name in card.statement.guard.inputs if "." not in name and name not in ("cls", "self")]
    return bare[0] if len(bare) == 1 and card.statement.guard.inputs == (bare[0],) else None


_FIELD_VALIDATORS = ("field_validator", "validator")  # (pydantic's: each runs on the fields it names, before __post_init__)
_VALIDATOR_EXTRAS = frozenset({"cls", "self", "info", "values", "field", "config"})


def validated_fields(card: Card) -> list[tuple[str, tuple[str, ...]]]:
    """A field validator's raise (``@field_validator("block_size")`` over ``def
    check(cls, value)``) as the test it makes of each field it names: its guard with the value
    it takes read as ``self.block_size``, and its inputs; empty for any other card."""
    fields = [name for decorator in card.at.decorators for name in _validated(decorator)]
    values = [name for name in card.statement.guard.inputs if "." not in name and name not in _VALIDATOR_EXTRAS]
    if not fields or len(values) != 1 or any("." in name for name in card.statement.guard.inputs):
        return []
    tree = try_parse_expression(card.statement.guard.code)
    if tree is None:
        return []
    found = []
    for field in fields:
        renamed = _Rename(values[0], f"self.{field}").visit(copy.deepcopy(tree))
        found.append((ast.unparse(renamed), tuple(f"self.{field}" if n == values[0] else n for n in card.statement.guard.inputs)))
    return found


def _validated(decorator: str) -> list[str]:
    """The fields a ``field_validator("a", "b")`` decorator (as written) names; [] for another."""
    tree = try_parse_expression(decorator)
    if not (isinstance(tree, ast.Call) and (dotted_name(tree.func) or "").rsplit(".", 1)[-1] in _FIELD_VALIDATORS):
        return []
    names = [a.value for a in tree.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names if len(names) == len(tree.args) and "*" not in names and all(n.isidentifier() for n in names) else []


class _Rename(ast.NodeTransformer):
    def __init__(self, name: str, chain: str) -> None:
        self.name, self.chain = name, chain

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id != self.name:
            return node
        head, *attributes = self.chain.split(".")
        chain: ast.expr = ast.Name(id=head, ctx=ast.Load())
        for attribute in attributes:
            chain = ast.Attribute(value=chain, attr=attribute, ctx=ast.Load())
        return ast.copy_location(chain, node)


def field_defaults(project: Project, constructors: Constructors, facts: FileFacts, site: SiteFact,
                   others: list[Card]) -> tuple[tuple[str, str | None, str | None], ...]:
    """The declared default of each field of a record the other raises of the function read
    (``others``: their cards): a fix that leaves the field alone meets that value there. Not
    where a ``__post_init__`` assigns the field, whose value is then not the declared one."""
    found: dict[str, tuple[str, str | None, str | None]] = {}
    for name in sorted({name for card in others for name in card.statement.guard.inputs}):
        doc = field_doc(project, facts, site.owner, name, site.signature.params)
        if doc is None or (doc.declared.default is None and doc.declared.default_factory is None) or not constructors.is_record(doc.owner):
            continue
        holders = {doc.owner, *([f"{facts.module}.{site.owner}"] if name.startswith("self.") and site.owner else [])}
        if not any(constructors.post_init_sets(holder, doc.declared.name) for holder in holders):
            found[name] = (name, doc.declared.default, doc.declared.default_factory)
    return tuple(found.values())


def link_owner(constructors: Constructors, facts: FileFacts, card: Card, site: SiteFact,
               others: list[Card], constructing: list[Card]) -> Owner:
    """How a caller constructs the objects the card's guard reads: ``others``, the other raises
    of the card's function (whose fields' defaults a fix meets); ``constructing``, the raises
    that constructing the card's owner class runs (checks a trigger that builds it must pass)."""
    project = constructors.project
    owner = f"{facts.module}.{site.owner}" if site.owner else None
    # (and the attributes only the message reads: ``self.name``'s default is what it shows)
    shown = [name for name in card.message.placeholders if name.startswith("self.") and name not in card.statement.guard.inputs]
    settable, classes = settable_inputs(constructors, owner, [*card.statement.guard.inputs, *shown], built=not set(card.entry) & BUILDING)
    derived = derived_inputs(project, facts, owner, site.signature.params, card.statement.guard.inputs)
    signature = constructors.signature(owner) if owner else None
    abstract = abstract_methods(project, owner) if owner else ()
    undefined = undefined_attributes(project, owner) if owner else ()
    defaults = field_defaults(project, constructors, facts, site, others)
    checks: tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...] = ()
    after: tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...] = ()
    if card.docs.owner is not None and not set(card.entry) & CONSTRUCTING:
        checks = construction_checks(constructing, signature)
        # The attributes the checks read are set through the constructor too: a trigger
        # may need them (an object that builds), so they are inputs of the card as well.
        more, nested = settable_inputs(constructors, owner, [n for _, inputs in checks for n, _, _ in inputs])
        settable, classes = {**more, **settable}, {**nested, **classes}
    elif card.docs.owner is not None:
        # A raise construction runs (``__post_init__``): the field validators run before it (pydantic);
        # the others (model validators, ``__post_init__``; not the raises of its own function, which
        # a fix's own search weighs) only where the fields pass, as with a fix
        checks = construction_checks([c for c in constructing if c.id != card.id and validated_fields(c)], signature)
        after = construction_checks([c for c in constructing if c.at.function != card.at.function and not validated_fields(c)
                                     and not _raw_input(c)], signature)
        more, nested = settable_inputs(constructors, owner, [n for _, inputs in checks for n, _, _ in inputs])
        settable, classes = {**more, **settable}, {**nested, **classes}
    if site.owner is not None and not set(card.entry) & BUILDING:
        checks = (*checks, *post_init_checks(project, constructors, f"{facts.module}.{site.owner}", settable))
    validated, field = _validated_value(constructors, facts, site.owner, card)
    settable.update(validated)
    in_post_init = (card.at.function or "").endswith(".__post_init__")
    required = required_fields(constructors, facts, site.owner, signature, in_post_init=in_post_init) if site.owner is not None else ()
    if required and owner is not None:  # (the stand-ins a trigger may give them are set through the constructor too)
        required, records = with_records(constructors, owner, required)
        more, nested = settable_inputs(constructors, owner, [doc.input for doc in required])
        settable, classes = {**more, **settable}, {**nested, **records, **classes}
    arguments = built_arguments(constructors, facts, site.signature, card.statement.guard.inputs, card.statement.guard.code)
    classes, unfilled = nested_records(constructors, classes, {*card.statement.guard.inputs, *settable})
    before = construction_checks([c for c in constructing if c.id != card.id and _raw_input(c)], signature) if card.docs.owner else ()
    field_checks = field_validator_checks([c for c in constructing if c.id != card.id]) if card.docs.owner else ()
    return Owner(constructor=signature, settable=settable, classes=classes, unfilled=unfilled, checks=checks, before=before,
                 field_checks=field_checks, after_checks=after,
                 field_defaults=defaults,
                 derived=derived, abstract=abstract, undefined=undefined, required=required, arguments=arguments, validated=field,
                 unread_validators=unread_validators(project, owner) if owner else (),
                 plain_construction=owner is not None and constructed_plainly(project, owner))


def unread_validators(project: Project, owner: str) -> tuple[str, ...]:
    """The validators of ``owner`` and of the classes it derives from that call what the tool
    does not read (ClassFact.validators_calling), as ``Class.method``, or ``Class.method:a,b``
    where it runs on what an example passes only where field or key a or b is passed: a field
    validator's fields, or the keys of a model validator whose every such call is kept from
    refusing a value the keywords lack (ValidatorCalls.keyed, ``_kept_key``). A validator whose
    calls all refuse nothing is left out."""
    found: list[str] = []
    for qualname in (owner, *project.ancestors(owner)):
        fact = project.class_fact(qualname)
        if fact is None:
            continue
        facts, cls = fact
        for calls in cls.validators_calling:
            kept = [_kept_key(project, facts, key, helper) for key, helper in calls.keyed]
            keys: tuple[str, ...] = ()  # (none: it runs on every construction)
            if calls.fields:
                keys = calls.fields
            elif kept and None not in kept:
                keys = tuple(sorted({key for key in kept if key}))
                if not keys:
                    continue  # (every call refuses nothing)
            found.append(f"{cls.qualname}.{calls.method}" + (f":{','.join(keys)}" if keys else ""))
    return tuple(found)


def _kept_key(project: Project, facts: FileFacts, key: str, helper: str) -> str | None:
    """The key without which a validator's call does not run or refuses nothing ("" where it
    refuses nothing at all); None where the tree does not show that it is kept (ValidatorCalls.keyed)."""
    if not helper:
        return key  # (after ``if <key absent>: return``)
    symbol = project.resolve(facts, helper)
    if symbol is None or symbol.kind != "function" or symbol.facts is None:
        return None
    local = symbol.qualname.removeprefix(symbol.facts.module + ".")
    if key:
        return key if local in symbol.facts.none_first else None
    return "" if local in symbol.facts.refuses_nothing else None


def built_arguments(constructors: Constructors, facts: FileFacts, signature: Signature,
                    inputs: Iterable[str], code: str = "") -> tuple[BuiltArgument, ...]:
    """The parameters whose attributes the guard reads (``p.a.b``), or that it compares with
    None (``cache is not None``), that an example can build: annotated with an in-tree class
    that is plainly built (``plainly_built``), whose constructor sets each of those attributes
    straight from a keyword (nested records too); or annotated ``argparse.Namespace``, parsed
    arguments, built with those attributes (``_namespace``)."""
    read: dict[str, list[str]] = {}
    for name in inputs:
        root, dot, rest = name.partition(".")
        if dot and root not in ("self", "cls"):
            read.setdefault(root, []).append(rest)
        elif not dot and root not in ("self", "cls") and compares_with_none(root, code):
            read.setdefault(root, [])
    found = []
    only = dict(signature.attribute_reads)
    for param in signature.params:
        if param.name not in read or param.kind in ("star", "starstar") or param.annotation is None:
            continue
        if not read[param.name] and one_class(param.annotation) is None:
            continue  # (compared with None only: an object of its one class, not ``list[Choice] | None``)
        if _names_namespace(facts, param.annotation):
            if read[param.name] and (namespace := _namespace(param, read[param.name], only.get(param.name))) is not None:
                found.append(namespace)
            continue
        cls = constructors.project.class_of_annotation(facts, param.annotation)
        built = _built_argument(constructors, facts, param, cls, read[param.name]) if cls is not None else None
        if built is not None:
            found.append(built)
    return tuple(found)


def _names_namespace(facts: FileFacts, annotation: str) -> bool:
    """Whether the annotation is ``argparse.Namespace`` (``Namespace`` imported from argparse; ``X | None`` too)."""
    imports = dict(facts.imports)
    for name in read_annotation(annotation).names:
        head, _, rest = name.partition(".")
        target = imports.get(head)
        if target is not None and (f"{target}.{rest}" if rest else target) == "argparse.Namespace":
            return True
    return False


def _namespace(param: Param, attributes: list[str], read: tuple[str, ...] | None) -> BuiltArgument | None:
    """Parsed arguments as an example builds them, ``argparse.Namespace(a=..., b=...)``: each
    attribute the guard reads a keyword without a default (the example gives it a value, or
    there is none), none of them one of an attribute (``args.model.name``: no keyword spells it);
    where the function reads the parameter on the way only as those attributes (``read``:
    Signature.attribute_reads; another, ``args.serve_cmd``, would be missing from the object)."""
    names = sorted(set(attributes))
    if any("." in name or not name.isidentifier() for name in names) or read is None or not set(read) <= set(names):
        return None
    constructor = tuple(Param(name=name, kind="keyword") for name in names)
    return BuiltArgument(param=param.name, cls="argparse:Namespace", constructor=constructor,
                         settable={f"{param.name}.{name}": (name,) for name in names})


def _built_argument(constructors: Constructors, facts: FileFacts, param: Param, cls: str, attributes: list[str]) -> BuiltArgument | None:
    project = constructors.project
    where = project.class_fact(cls)
    signature = constructors.signature(cls)
    if where is None or signature is None or not plainly_built(constructors, cls):
        return None
    required = tuple(replace(doc, input=f"{param.name}.{doc.input.removeprefix('self.')}")
                     for doc in required_fields(constructors, where[0], where[1].qualname, signature))
    settable: dict[str, tuple[str, ...]] = {}
    classes: dict[str, str] = {}
    for rest in [*attributes, *(doc.input.split(".", 1)[1] for doc in required)]:
        parts = rest.split(".")
        along = constructors.along(cls, parts, built=True)
        if along is None or not all(plainly_built(constructors, nested) for nested in along[1]):
            return None
        settable[f"{param.name}.{rest}"] = along[0]
        for n, nested in enumerate(along[1]):
            if (place := project.class_fact(nested)) is not None:
                classes[".".join([param.name, *parts[:n + 1]])] = f"{place[0].module}:{place[1].qualname}"
    rules = tuple(doc for rest in attributes if (doc := field_doc(project, facts, None, f"{param.name}.{rest}", (param,))) is not None)
    classes, unfilled = nested_records(constructors, classes, set(settable))
    return BuiltArgument(param=param.name, cls=f"{where[0].module}:{where[1].qualname}", constructor=signature, settable=settable,
                         classes=classes, unfilled=unfilled, required=required, rules=rules)


def nested_records(constructors: Constructors, classes: dict[str, str], names: set[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The nested records among ``classes`` ("p.a" -> "module:Qualname") whose constructor is
    known, and of those the ones with a required keyword none of the inputs under their path
    (``names``) gives: an example writes neither kind (``Spec(num_tokens=4)`` fails on the
    call where ``Spec`` also requires ``method``, which nothing gives)."""
    known, unfilled = {}, []
    for path, where in classes.items():
        signature = constructors.signature(where.replace(":", ".", 1))
        if signature is None:
            continue
        known[path] = where
        given = {name[len(path) + 1:].split(".", 1)[0] for name in names if name.startswith(path + ".")}
        if any(p.name not in given for p in signature if p.default is None and p.kind in ("normal", "keyword", "positional")):
            unfilled.append(path)
    return known, tuple(sorted(unfilled))


# (msgspec's ``Struct``: its ``__init__`` stores the keywords)
_PLAIN_BASES = frozenset({"object", "BaseModel", "NamedTuple", "Struct", "Generic", "ABC", "Protocol"})


def plainly_built(constructors: Constructors, cls: str) -> bool:
    """Whether constructing the record class runs nothing the tree shows beyond storing its
    keywords (and pydantic's own checks of their declared types and rules): no ``__init__``,
    ``__new__``, ``__post_init__`` or validator of its own or an in-tree ancestor's, no custom
    metaclass, no abstract method; and no base outside the tree but those whose construction
    only stores (or, for pydantic, validates) the keywords (``_PLAIN_BASES``)."""
    if not constructors.is_record(cls):
        return False
    for qualname in (cls, *constructors.project.ancestors(cls)):
        found = constructors.project.class_fact(qualname)
        if found is None:
            if qualname.rsplit(".", 1)[-1].split("[", 1)[0] not in _PLAIN_BASES:
                return False  # (a base of another package may run its own ``__init__`` or ``__post_init__``)
            continue
        fact = found[1]
        if fact.init is not None or fact.new is not None or fact.validators or fact.abstract or fact.metaclass is not None \
                or any(name == "__post_init__" for name, _ in fact.methods) or any(f.validators for f in fact.fields):
            return False
    return True


def _validated_value(constructors: Constructors, facts: FileFacts, owner: str | None,
                     card: Card) -> tuple[dict[str, tuple[str, ...]], FieldDoc | None]:
    """A field validator's value (``value`` of ``@field_validator("size") def check(cls, value)``)
    as the constructor keyword that sets the one field it validates, so the example builds the
    class; and, for a validator pydantic runs after the field's own type check (its default
    ``mode``), the field's declaration: a value outside its type never reaches the validator."""
    if owner is None or EntryKind.PYDANTIC_FIELD_VALIDATOR not in card.entry:
        return {}, None
    checks = validated_fields(card)
    if len(checks) != 1:
        return {}, None
    inputs = card.statement.guard.inputs
    values = [name for name in inputs if name not in checks[0][1]]
    fields = [name for name in checks[0][1] if name not in inputs]
    if len(values) != 1 or len(fields) != 1:
        return {}, None
    found, _ = settable_inputs(constructors, f"{facts.module}.{owner}", fields)
    if fields[0] not in found:
        return {}, None
    raw = any(validator_mode(decorator) in ("before", "plain", "wrap") for decorator in card.at.decorators)
    doc = None if raw else field_doc(constructors.project, facts, owner, fields[0])
    if not raw and doc is None:
        return {}, None  # (its type is not known: the example could not show the value gets there)
    return {values[0]: found[fields[0]]}, doc


def required_fields(constructors: Constructors, facts: FileFacts, owner: str, signature: tuple[Param, ...] | None,
                    leave: str | None = None, in_post_init: bool = False) -> tuple[FieldDoc, ...]:
    """The declarations of the constructor's keywords without a default (but ``leave``) of a
    record class (``owner``, in ``facts``' module) whose constructor is generated (a dataclass,
    a pydantic model: no ``__init__`` of its own that may do more with them) and that has no
    ``__post_init__`` in its chain (which may hand them to code no check shows, as vLLM's
    ``SchedulerConfig`` does its ``InitVar``s), but for a raise in that ``__post_init__``
    (``in_post_init``), whose way there the card's guard models, or for a field's constraint
    (pydantic refuses the value before ``__post_init__`` runs): what an example may give
    stand-ins (Owner.required)."""
    qualname = f"{facts.module}.{owner}"
    found = constructors.project.class_fact(qualname)
    if found is None or found[1].init is not None or not constructors.is_record(qualname) \
            or (not in_post_init and post_init_in_chain(constructors, qualname)):
        return ()
    return tuple(doc for p in signature or () if p.default is None and p.kind in ("normal", "keyword", "positional") and p.name != leave
                 and (doc := field_doc(constructors.project, facts, owner, f"self.{p.name}")) is not None)


def with_records(constructors: Constructors, owner: str, required: tuple[FieldDoc, ...]) -> tuple[tuple[FieldDoc, ...], dict[str, str]]:
    """``required`` (Owner.required of class ``owner``) and, for each field whose declared type is
    an in-tree record class that is plainly built (``usage: Usage``, ``failure: Failure``), that
    class's own required fields as inputs under it (``self.failure.message``); and those fields'
    classes (``self.failure`` -> "module:Qualname"), which an example builds from the stand-ins
    of theirs (``failure=Failure(type='', message='')``, ``usage=Usage()``). One level deep."""
    project = constructors.project
    docs, classes = list(required), {}
    for doc in required:
        found = constructors.keyword(owner, doc.input.removeprefix("self."))
        if found is None or found.annotation is None or one_class(found.annotation) is None:
            continue  # (one class, not ``list[Choice]``)
        cls = project.class_of_annotation(found.facts, found.annotation)
        if cls is None or (place := project.class_fact(cls)) is None or (signature := constructors.signature(cls)) is None \
                or not plainly_built(constructors, cls):
            continue
        classes[doc.input] = f"{place[0].module}:{place[1].qualname}"
        docs.extend(replace(inner, input=f"{doc.input}.{inner.input.removeprefix('self.')}")
                    for inner in required_fields(constructors, place[0], place[1].qualname, signature))
    return tuple(docs), classes


def post_init_in_chain(constructors: Constructors, qualname: str) -> bool:
    project = constructors.project
    return any(name == "__post_init__" for q in (qualname, *project.ancestors(qualname)) if (f := project.class_fact(q)) is not None
               for name, _ in f[1].methods)


def settable_inputs(constructors: Constructors, owner: str | None, names: Iterable[str],
                    built: bool = False) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The inputs among ``names`` that constructing ``owner`` sets ("self.a.b" -> keywords a, b),
    and the in-tree classes their nested constructors build ("self.a" -> "module:Qualname");
    ``built``: as read once the object is built (Constructors.keyword)."""
    settable: dict[str, tuple[str, ...]] = {}
    classes: dict[str, str] = {}
    for name in names:
        parts = name.split(".")
        if owner is None or parts[0] != "self" or len(parts) < 2:
            continue
        found = constructors.along(owner, parts[1:], built)
        if found is not None:
            settable[name] = found[0]
            for n, nested in enumerate([*found[1], _record_class(constructors, found[1][-1] if found[1] else owner, parts, built)]):
                where = constructors.project.class_fact(nested) if nested is not None else None
                if where is not None:  # "module:Qualname", for the example's import line
                    classes[".".join(parts[:n + 2])] = f"{where[0].module}:{where[1].qualname}"
    return settable, classes


def _record_class(constructors: Constructors, owner: str, parts: list[str], built: bool) -> str | None:
    """The one in-tree class the last field of ``self.a.b`` is declared as (``watermark:
    Watermark | None``), which an example builds without arguments (``Watermark()``) where the
    guard only compares it with None: plainly built, and every keyword of its constructor
    defaulted; else None."""
    found = constructors.keyword(owner, parts[-1], built=built or len(parts) > 2)
    if found is None or found.annotation is None or one_class(found.annotation) is None:
        return None
    cls = constructors.project.class_of_annotation(found.facts, found.annotation)
    signature = constructors.signature(cls) if cls is not None else None
    if cls is None or signature is None or any(p.default is None and p.kind != "starstar" and p.kind != "star" for p in signature):
        return None
    return cls if plainly_built(constructors, cls) else None


def tied_inputs(settable: dict[str, tuple[str, ...]], inputs: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
    """The guard's inputs that constructing sets through the same keyword as an earlier one
    (``BoundedSemaphore(value)`` stores ``value`` as both ``self._bound_value`` and, through
    its base, ``self._value``): each with that one, as (input, "tied", earlier input) of
    CardContext.names.named, whose value the solver gives it: a trigger or fix never
    gives them different values (solve.problem.Problem.ties)."""
    first: dict[tuple[str, ...], str] = {}
    tied = []
    for name in inputs:
        keywords = settable.get(name)
        if keywords is None:
            continue
        if keywords in first:
            tied.append((name, "tied", first[keywords]))
        else:
            first[keywords] = name
    return tuple(tied)


def derived_inputs(project: Project, facts: FileFacts, owner: str | None, params: tuple[Param, ...],
                   inputs: tuple[str, ...]) -> tuple[str, ...]:
    """The inputs ``x.name`` where ``x`` is ``self`` or a parameter annotated with an in-tree
    class that defines ``name`` as a method or property: computed, not an attribute a caller
    sets (``spec.needs_normalization``)."""
    annotations = {p.name: p.annotation for p in params}
    found = []
    for name in inputs:
        root, _, rest = name.partition(".")
        if not rest or "." in rest:
            continue
        annotation = annotations.get(root)
        cls = owner if root == "self" and owner else project.class_of_annotation(facts, annotation) if annotation else None
        if cls is not None and any(rest in dict(f[1].methods) for q in (cls, *project.ancestors(cls)) if (f := project.class_fact(q))):
            found.append(name)
    return tuple(found)
