"""Field constraints: the declared fields of a file's pydantic classes -> one card per constraint pydantic checks.

A field of a pydantic model (a ``BaseModel`` subclass, through in-tree bases) or of a pydantic
dataclass (``@pydantic.dataclasses.dataclass``, or a decorator marked ``dataclass_transform``
whose field specifier is pydantic's ``Field``, as vLLM's ``@config`` is) has no raise statement
for what pydantic refuses, yet users meet those errors first. Each of these becomes a card of
kind ``field_constraint``:

- a ``Field(gt|ge|lt|le|multiple_of|min_length|max_length|pattern=...)`` keyword (also inside
  ``Annotated[...]``), and the bounds ``PositiveInt``-like types imply;
- a ``Literal[...]`` type (through aliases) and an in-tree ``Enum`` type whose values are literals;
- a strict type: ``StrictInt``, ``StrictStr``, ``StrictFloat``, ``StrictBool``, ``StrictBytes``,
  or ``Field(strict=True)`` on ``int``, ``str``, ``float``, ``bool`` or ``bytes``.

The card's message is pydantic's own template for the error (``PydanticError``'s description)
with the declared value substituted, its guard the violation over ``self.<field>``, its class
``pydantic.ValidationError``. Everything is read from the declarations: nothing is imported.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal

from ..collect.annotations import read_annotation
from ..collect.messages import make_template
from ..model import (
    Card,
    ClassFact,
    Docs,
    EntryKind,
    ExceptionRef,
    FieldConstraint,
    FieldDoc,
    FieldFact,
    FileFacts,
    Guard,
    GuardPart,
    Hole,
    Location,
    MessageTemplate,
    Part,
    PartRole,
    PydanticError,
    RaiseFacts,
    RaiseKind,
    SiteFact,
    Statement,
    Text,
)
from ..model.facts import Excerpt
from ..model.pytext import literal_or, try_parse_expression
from .bounds import bound_number
from .docstrings import class_summary, field_entry
from .ids import assign_ids, id_key
from .project import Project, field_doc

VALIDATION_ERROR = ExceptionRef(display="ValidationError", classes=("pydantic.ValidationError",),
                                ancestors=("ValueError", "Exception", "BaseException"))
_MODEL_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic_settings.BaseSettings",
                          "pydantic_settings.main.BaseSettings"})
_DATACLASS = frozenset({"pydantic.dataclasses.dataclass", "pydantic.dataclasses"})
_MAX_DEPTH = 12

# Field keyword -> (pydantic's error type, the guard's violation over ``{x}`` and ``{v}``).
_BOUNDS = {
    "gt": (PydanticError.GREATER_THAN, "{x} <= {v}"),
    "ge": (PydanticError.GREATER_THAN_EQUAL, "{x} < {v}"),
    "lt": (PydanticError.LESS_THAN, "{x} >= {v}"),
    "le": (PydanticError.LESS_THAN_EQUAL, "{x} > {v}"),
    "multiple_of": (PydanticError.MULTIPLE_OF, "{x} % {v} != 0"),
}
# The length errors by the field's type: (min_length's, max_length's, the type's name in the message).
_LENGTHS = {
    "str": (PydanticError.STRING_TOO_SHORT, PydanticError.STRING_TOO_LONG, None),
    "bytes": (None, None, None),  # (pydantic's bytes_too_short is not among the codes yet: no card)
    "list": (PydanticError.TOO_SHORT, PydanticError.TOO_LONG, "List"),
    "set": (PydanticError.TOO_SHORT, PydanticError.TOO_LONG, "Set"),
    "tuple": (PydanticError.TOO_SHORT, PydanticError.TOO_LONG, "Tuple"),
    "dict": (PydanticError.TOO_SHORT, PydanticError.TOO_LONG, "Dictionary"),
}
# A strict type (or ``Field(strict=True)`` on a plain type) -> its error, and the guard over ``{x}``.
_STRICT = {
    "int": (PydanticError.INT_TYPE, "not isinstance({x}, int) or isinstance({x}, bool)"),
    "float": (PydanticError.FLOAT_TYPE, "not isinstance({x}, (int, float)) or isinstance({x}, bool)"),
    "str": (PydanticError.STRING_TYPE, "not isinstance({x}, str)"),
    "bool": (PydanticError.BOOL_TYPE, "not isinstance({x}, bool)"),
    "bytes": (PydanticError.BYTES_TYPE, "not isinstance({x}, bytes)"),
}
_STRICT_TYPES = {"StrictInt": "int", "StrictFloat": "float", "StrictStr": "str", "StrictBool": "bool", "StrictBytes": "bytes"}


@dataclass(frozen=True, slots=True)
class Rule:
    """One constraint of a field, before it is a card."""

    constraint: FieldConstraint
    message: MessageTemplate
    guard: str


def is_pydantic(project: Project, qualname: str) -> bool:
    """Whether the in-tree class ``qualname`` is a pydantic model or a pydantic dataclass."""
    found = project.class_fact(qualname)
    if found is None:
        return False
    facts, cls = found
    return any(_pydantic_decorator(project, facts, d) for d in cls.decorators) or _is_model(project, qualname, 0)


def _is_model(project: Project, qualname: str, depth: int) -> bool:
    found = project.class_fact(qualname) if depth <= _MAX_DEPTH else None
    if found is None:
        return False
    facts, cls = found
    for base in cls.bases:
        symbol = project.resolve(facts, base.split("[", 1)[0].strip())
        if symbol is not None and ((symbol.kind == "outside" and symbol.qualname in _MODEL_BASES)
                                   or (symbol.kind == "class" and _is_model(project, symbol.qualname, depth + 1))):
            return True
    return False


def _pydantic_decorator(project: Project, facts: FileFacts, decorator: str) -> bool:
    """``@pydantic.dataclasses.dataclass`` (called or not), or a ``dataclass_transform``
    decorator of the tree whose field specifiers include pydantic's ``Field``."""
    symbol = project.resolve(facts, decorator.split("(", 1)[0].strip())
    if symbol is None:
        return False
    if symbol.kind == "outside":
        return symbol.qualname in _DATACLASS
    if symbol.facts is None:
        return False
    inner = symbol.qualname[len(symbol.facts.module) + 1:]
    for name, specifiers in symbol.facts.specifiers:
        if name == inner:
            return any((s := project.resolve(symbol.facts, spec)) is not None and s.kind == "outside"
                       and s.qualname.startswith("pydantic.") for spec in specifiers)
    return False


def field_rules(project: Project, facts: FileFacts, cls: ClassFact, fact: FieldFact, flag: str | None) -> list[Rule]:
    """The constraints pydantic checks on one declared field, in a fixed order."""
    if fact.annotation is None or fact.name.startswith("_") or fact.name in cls.no_init \
            or fact.annotation.split("[", 1)[0].endswith("ClassVar"):
        return []
    if len(_union_members(fact.annotation)) != 1:
        return []  # (a union of types: pydantic reports an error per member, at a longer loc, another wording)
    owner = f"{facts.module}.{cls.qualname}"
    read = read_annotation(fact.annotation)
    types = [t for t in read.types if t != "NoneType"]
    base = types[0] if len(types) == 1 else None
    x = f"self.{fact.name}"
    rule = _Field(owner=owner, name=fact.name, flag=flag).rule
    rules: list[Rule] = []
    for constraint in (*read.implied, *fact.constraints):
        value = _resolved(project, facts, constraint.name, constraint.value)
        rules.extend(_keyword_rule(rule, constraint.name, (constraint.value, value), base, x))
    if (strict := _strict_type(fact, read.names, base)) is not None:
        error, guard = _STRICT[strict[1]]
        rules.append(rule(strict[0], strict[0] if strict[0] != "strict" else "strict=True", error, [Text(text=error.description)],
                          guard.format(x=x), value=strict[1]))
    rules.extend(_choice_rules(project, facts, fact, rule, x))
    return rules


@dataclass(frozen=True, slots=True)
class _Field:
    owner: str
    name: str
    flag: str | None

    def rule(self, name: str, declared: str, error: PydanticError, parts: list[Part], guard: str, value: str | None = None,
             choices: tuple[str, ...] = ()) -> Rule:
        constraint = FieldConstraint(owner=self.owner, field=self.name, rule=name, declared=declared, error_type=error, flag=self.flag,
                                     value=value, choices=choices)
        return Rule(constraint=constraint, message=make_template("pydantic", parts), guard=guard)


_Make = Callable[..., Rule]


def _resolved(project: Project, facts: FileFacts, name: str, value: str) -> str:
    """A bound's or length's value as a literal where the tree gives its number (link.bounds:
    ``_INT64_MAX``, ``-(2**63)``), else as written."""
    if name not in _BOUNDS and name not in ("min_length", "max_length") or literal_or(value) is not None:
        return value
    number = bound_number(project, facts, value)
    return repr(number) if number is not None else value


def _keyword_rule(rule: _Make, name: str, values: tuple[str, str], base: str | None, x: str) -> Iterator[Rule]:
    """``values``: the value as written (the rule's ``declared``), and as a literal where known."""
    written, value = values
    declared = f"{name}={written}"
    if name in _BOUNDS:
        error, guard = _BOUNDS[name]
        yield rule(name, declared, error, _filled(error.description, name, value), guard.format(x=x, v=value), value)
    elif name in ("min_length", "max_length") and base in _LENGTHS:
        short, long, kind = _LENGTHS[base]
        found = short if name == "min_length" else long
        if found is None:
            return
        error = found
        template = error.description.replace("{field_type}", kind or "")
        number = literal_or(value)
        plural = "" if number == 1 else "s" if isinstance(number, int) else None
        if plural is not None:
            template = template.replace("{expected_plural}", plural)
        parts = _filled(template, name, value)
        parts = [p for part in parts for p in _actual_length(part, x)]
        guard = f"len({x}) < {value}" if name == "min_length" else f"len({x}) > {value}"
        yield rule(name, declared, error, parts, guard, value)
    elif name == "pattern":
        error = PydanticError.STRING_PATTERN_MISMATCH
        pattern = literal_or(value)
        shown = pattern if isinstance(pattern, str) else None
        parts = [Text(text=error.description.replace("{pattern}", shown))] if shown is not None else _filled(error.description, name, value)
        yield rule(name, declared, error, parts, f"re.search({value}, {x}) is None", value)


def _filled(template: str, name: str, value: str) -> list[Part]:
    """pydantic's template with ``{name}`` replaced by the declared value as pydantic shows it
    (a literal number as Python prints it; else a hole over the code as written)."""
    head, sep, tail = template.partition("{" + name + "}")
    if not sep:
        return [Text(text=template)]
    number = literal_or(value)
    if isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number):
        return [Text(text=head + _number_text(number) + tail)]
    return [Text(text=head), Hole(expr=value), Text(text=tail)]


def _number_text(number: float) -> str:
    """A number as pydantic-core (Rust) prints it: ``0.0`` as ``0``, ``1e-05`` as ``0.00001``."""
    if isinstance(number, float) and number.is_integer():
        return str(int(number))
    text = repr(number)
    return format(Decimal(text), "f") if "e" in text else text


def _actual_length(part: Part, x: str) -> list[Part]:
    if not isinstance(part, Text) or "{actual_length}" not in part.text:
        return [part]
    head, _, tail = part.text.partition("{actual_length}")
    return [Text(text=head), Hole(expr=f"len({x})"), *([Text(text=tail)] if tail else [])]


def _strict_type(fact: FieldFact, names: tuple[str, ...], base: str | None) -> tuple[str, str] | None:
    """(the rule, the plain type) of a strict type or ``Field(strict=True)``; else None. The
    strict type is the field's own (``base``), not its elements' (``tuple[StrictInt, ...]`` is a tuple)."""
    for name in names:
        tail = name.rsplit(".", 1)[-1]
        if tail in _STRICT_TYPES and base == _STRICT_TYPES[tail]:
            return tail, _STRICT_TYPES[tail]
    if any(c.name == "strict" and c.value == "True" for c in fact.constraints) and base in _STRICT:
        return "strict", base
    return None


def _choice_rules(project: Project, facts: FileFacts, fact: FieldFact, rule: _Make, x: str) -> Iterator[Rule]:
    """A ``Literal`` type's rule, or an in-tree Enum's, where every value is a literal."""
    literals = project.literal_values(facts, fact.annotation)
    if literals is not None:
        values = [literal_or(v) for v in literals]
        if literals and all(v is not None or c == "None" for v, c in zip(values, literals)):
            error = PydanticError.LITERAL_ERROR
            expected = _expected(values)
            yield rule("literal", fact.annotation or "", error, [Text(text=error.description.replace("{expected}", expected))],
                       f"{x} not in ({', '.join(literals)},)", choices=literals)
        return
    enum = _enum_values(project, facts, fact.annotation)
    if enum is not None:
        name, codes = enum
        error = PydanticError.ENUM
        expected = _expected([literal_or(c) for c in codes])
        yield rule("enum", name, error, [Text(text=error.description.replace("{expected}", expected))],
                   f"{x} not in ({', '.join(codes)},)", choices=codes)


def _union_members(annotation: str | None) -> list[ast.expr]:
    """The members of a union annotation (``|``, ``Optional``, ``Union``) other than None."""
    tree = try_parse_expression((annotation or "").strip().strip("\"'"))
    if tree is None:
        return []
    work = [tree]
    found: list[ast.expr] = []
    while work:
        node = work.pop()
        head = node.value if isinstance(node, ast.Subscript) else None
        name = head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            work.extend((node.left, node.right))
        elif isinstance(node, ast.Subscript) and name in ("Optional", "Union"):
            work.extend(node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice])
        elif not (isinstance(node, ast.Constant) and node.value is None):
            found.append(node)
    return found


def _expected(values: list[object]) -> str:
    """The values as pydantic lists them: ``'a', 'b' or 3``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _enum_values(project: Project, facts: FileFacts, annotation: str | None) -> tuple[str, tuple[str, ...]] | None:
    """(the class name, its members' values as written) of an in-tree Enum type whose members
    are all literals."""
    if project.enum_members(facts, annotation) is None:
        return None
    qualname = project.class_of_annotation(facts, annotation)
    found = project.class_fact(qualname) if qualname else None
    if found is None:
        return None
    members = [f for f in found[1].fields if f.annotation is None and not f.name.startswith("_")]
    codes = tuple(f.default or "" for f in members)
    if not codes or any(literal_or(c) is None for c in codes):
        return None  # (``auto()``, a computed value: pydantic's wording is not known here)
    return found[1].qualname.rsplit(".", 1)[-1], codes


def constraint_cards(project: Project, facts: FileFacts, flags: dict[str, str]) -> Iterator[tuple[Card, SiteFact, str]]:
    """Each constraint card of the file's pydantic classes (id not yet set), with the bare site
    its context is linked from and its id key's function."""
    for cls in facts.classes:
        declarations = dict(cls.declarations)
        if not declarations or not is_pydantic(project, f"{facts.module}.{cls.qualname}"):
            continue
        for fact in cls.fields:
            excerpt = declarations.get(fact.name)
            if excerpt is None:
                continue
            declared = flags.get(fact.name)
            # (the flag as users type it: its text's action, ``kwargs-optional`` say, is the collector's note)
            flag = declared.partition(" ")[0] if declared else None
            for rule in field_rules(project, facts, cls, fact, flag):
                yield _card(project, facts, cls, fact, excerpt, rule)


def _card(project: Project, facts: FileFacts, cls: ClassFact, fact: FieldFact, excerpt: Excerpt, rule: Rule) -> tuple[Card, SiteFact, str]:
    input_name = f"self.{fact.name}"
    at = Location(line=excerpt.start_line, end_line=excerpt.start_line + excerpt.text.count("\n"), function=cls.qualname,
                  decorators=(), excerpt=excerpt)
    statement = Statement(kind=RaiseKind.FIELD_CONSTRAINT, cause=None,
                          guard=Guard(code=rule.guard, parts=(GuardPart(role=PartRole.OWN, code=rule.guard),), inputs=(input_name,)))
    doc = field_doc(project, facts, cls.qualname, input_name)
    if doc is not None:  # (its bounds as numbers, as the solver checks a value against each: solve.constraints)
        resolved = tuple(replace(c, value=_resolved(project, facts, c.name, c.value)) for c in doc.declared.constraints)
        doc = replace(doc, declared=replace(doc.declared, constraints=resolved))
        if fact.doc is None:
            doc = replace(doc, described=field_entry(cls.doc, fact.name))
    docs = Docs(owner=f"{facts.module}.{cls.qualname}", owner_doc=class_summary(cls.doc), fields=(doc,) if doc is not None else ())
    card = Card(id="", path=facts.path, at=at, entry=(EntryKind.PYDANTIC_FIELD_CONSTRAINT,), statement=statement,
                exception=VALIDATION_ERROR, message=rule.message, docs=docs, constraint=rule.constraint)
    site = SiteFact(at=at, owner=cls.qualname, raised=RaiseFacts(statement=statement, message=rule.message))
    return card, site, f"{cls.qualname}.{fact.name}"


def constraint_key(function: str, card: Card) -> tuple[str, str]:
    """The function and exception an id of a constraint card is keyed by (``id_key``): the
    class and field, and pydantic's error type, never its line or its value."""
    return function, _exception_key(card.constraint.error_type if card.constraint else None)


def _exception_key(error: PydanticError | None) -> str:
    return f"ValidationError[{error or ''}]"


def field_constraint_ids(project: Project, doc: FieldDoc) -> list[str]:
    """The ids of the constraint cards of the field a card's field doc names (in any file)."""
    found = project.class_fact(doc.owner)
    if found is None or not found[1].declarations or not is_pydantic(project, doc.owner):
        return []
    facts, cls = found
    if doc.declared.name not in dict(cls.declarations):
        return []
    rules = field_rules(project, facts, cls, doc.declared, None)
    function = f"{cls.qualname}.{doc.declared.name}"
    return assign_ids([id_key(facts.path, function, _exception_key(r.constraint.error_type)) for r in rules])
