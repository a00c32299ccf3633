"""Declarations: an ``ast`` module -> imports, classes (fields, factories, construction, state), functions and aliases of one file.

This is the cheap whole-file half of the per-file pass: it reads only statements, never
walks expressions, and takes source text straight from the lines (``SourceText``).

A class's ``ClassFact`` also says what constructing an object and calling its methods
assign: what its explicit ``__init__`` does with its parameters (``init_facts``: the
attributes it sets straight from one, and what it passes on to the base constructor); what
its ``__post_init__`` assigns (``post_init_sets``: the fields whose value, once the object is
built, is what that method computed rather than what the caller passed; link.constructors);
and the class's own state (``attribute_stores``: where its methods assign ``self.x``;
link.state shows them on the cards whose guard reads such an attribute, which no caller sets
directly). For the state only statements are read, never expressions walked: an assignment
statement (``=``, an annotated one, ``+=``) whose target is an attribute of the method's
first parameter, in the method's body or in the blocks of its compound statements (nested
definitions left out), and the class body's own assignments (class attributes, what an
instance reads until a method assigns its own). ``setattr`` and stores through another name
are not seen.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Iterator
from typing import NamedTuple, overload

from ..model import AttributeStore, ClassFact, Constraint, Excerpt, FieldFact, Param, PostInitSet, ValidatorCalls
from . import purity
from .effects import method_effects
from .syntax import call_name, child_nodes, dotted_name, receiver_name, walk
from .validators import unread_validator

FIELD_CALLS = frozenset({"Field", "field", "attrib", "ib", "PrivateAttr"})
CONSTRAINT_KEYWORDS = (
    "gt",
    "ge",
    "lt",
    "le",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "regex",
    "max_digits",
    "decimal_places",
    "strict",
    "allow_inf_nan",
    "choices",
)


MAX_VALUE_CHARS = 10_000  # a declared value (default, constant, annotation) longer than this is not kept
MAX_TEXT_CHARS = 10_000  # a docstring or message text longer than this is cut, with a marker


@overload
def cut_text(text: str, limit: int = MAX_TEXT_CHARS) -> str: ...
@overload
def cut_text(text: None, limit: int = MAX_TEXT_CHARS) -> None: ...
@overload
def cut_text(text: str | None, limit: int = MAX_TEXT_CHARS) -> str | None: ...
def cut_text(text: str | None, limit: int = MAX_TEXT_CHARS) -> str | None:
    """``text``, cut to ``limit`` characters with a marker saying how long it was."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]} … [cut: {len(text):,} characters in all]"


class SourceText:
    """Source lines of one file, sliced by ``ast`` positions (columns are UTF-8 byte offsets)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._encoded: dict[int, bytes] = {}

    def _line_bytes(self, lineno: int) -> bytes:
        cached = self._encoded.get(lineno)
        if cached is None:
            cached = self.lines[lineno - 1].encode("utf-8")
            self._encoded[lineno] = cached
        return cached

    def segment(self, node: ast.expr | ast.stmt) -> str:
        """The exact source text of ``node``, as written."""
        start, end = node.lineno, node.end_lineno or node.lineno
        col, end_col = node.col_offset, node.end_col_offset or 0
        if start == end:
            return self._line_bytes(start)[col:end_col].decode("utf-8", "replace")
        chunks = [self._line_bytes(start)[col:].decode("utf-8", "replace")]
        chunks.extend(self.lines[start : end - 1])
        chunks.append(self._line_bytes(end)[:end_col].decode("utf-8", "replace"))
        return "\n".join(chunks)

    def flat(self, node: ast.expr | ast.stmt) -> str:
        """The source of ``node`` on one line (for annotations and defaults; as ``ast.unparse``
        writes it where its lines hold a comment); a marker that is
        no Python value in place of one longer than MAX_VALUE_CHARS (such a value would be
        copied into every card that reads it)."""
        text = self.segment(node)
        if "\n" in text:
            # A comment inside a multi-line value would swallow the rest of the line it is joined into.
            text = ast.unparse(node) if "#" in text else " ".join(part.strip() for part in text.splitlines())
        return text if len(text) <= MAX_VALUE_CHARS else f"<{len(text):,} characters of source, not kept>"


def module_name(path: str, roots: tuple[str, ...] = ()) -> str:
    """``a/b/c.py`` -> ``a.b.c``; ``a/b/__init__.py`` -> ``a.b``; under a source root
    (``src`` of ``src/a/b.py``), what follows it: ``a.b``."""
    root = next((r for r in roots if path.startswith(r + "/")), None)
    path = path[len(root) + 1:] if root is not None else path
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute dotted name of ``from <level dots><target> import ...`` inside ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([*base, *([target] if target else [])])


def import_bindings(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[tuple[str, str]]:
    """Local names an import statement binds, each with the dotted name it refers to."""
    out: list[tuple[str, str]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                out.append((alias.asname, alias.name))
            else:
                head = alias.name.split(".")[0]
                out.append((head, head))
        return out
    base = resolve_relative(module, is_package, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            continue
        out.append((alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name))
    return out


def _string_value(stmt: ast.stmt | None) -> str | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return cut_text(inspect.cleandoc(stmt.value.value))
    return None


# A dotted name written as text (``a.b.c``; any identifier characters).
DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
# Calls a ``for`` loop may iterate that keep the items of their one argument (collect.paths
# follows them to the input, solve.elements rebuilds the input from an element).
LOOP_WRAPPERS = frozenset({"sorted", "reversed", "list", "tuple"})


def _field_call_facts(call: ast.Call, src: SourceText) -> tuple[str | None, str | None, list[Constraint]]:
    default = default_factory = None
    if call.args and not isinstance(call.args[0], ast.Starred):
        first = src.flat(call.args[0])
        if first not in ("...", "Ellipsis"):
            default = first
    constraints: list[Constraint] = []
    for kw in call.keywords:
        if kw.arg == "default":
            default = src.flat(kw.value)
        elif kw.arg in ("default_factory", "factory"):
            default_factory = src.flat(kw.value)
        elif kw.arg in CONSTRAINT_KEYWORDS:
            constraints.append(Constraint(name=kw.arg, value=src.flat(kw.value)))
    return default, default_factory, constraints


# What a field call hands its validators in: attrs' ``field(validator=f)`` (or a list of them),
# huggingface_hub's ``validated_field(f)`` / ``validated_field(validator=[f, g])``.
VALIDATED_FIELD = "validated_field"


def field_validators(call: ast.Call, src: SourceText) -> tuple[str, ...]:
    """The validators a field call names, as written (``validator=positive``: ``positive``)."""
    given = [kw.value for kw in call.keywords if kw.arg == "validator"]
    if call_name(call) == VALIDATED_FIELD and call.args and not isinstance(call.args[0], ast.Starred):
        given.append(call.args[0])
    names: list[str] = []
    for value in given:
        for item in value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]:
            if isinstance(item, (ast.Name, ast.Attribute)):
                names.append(src.flat(item))
    return tuple(names)


def _annotated_constraints(annotation: ast.expr, src: SourceText) -> list[Constraint]:
    """Constraints declared inside ``Annotated[T, Field(ge=0)]``."""
    if not isinstance(annotation, ast.Subscript):
        return []
    head = annotation.value
    name = head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else None
    if name != "Annotated" or not isinstance(annotation.slice, ast.Tuple):
        return []
    found: list[Constraint] = []
    for meta in annotation.slice.elts[1:]:
        if isinstance(meta, ast.Call) and call_name(meta) in FIELD_CALLS:
            found.extend(_field_call_facts(meta, src)[2])
    return found


_ALIASES = ("alias", "validation_alias")  # (pydantic's Field: the name the constructor takes the field by)


def field_fact(stmt: ast.stmt, following: ast.stmt | None, src: SourceText) -> FieldFact | None:
    """A class-body ``name: T = value`` or ``name = value`` as a field, else None."""
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        name, annotation, value = stmt.target.id, stmt.annotation, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name, annotation, value = stmt.targets[0].id, None, stmt.value
    else:
        return None
    default = default_factory = alias = None
    constraints: list[Constraint] = []
    validators: tuple[str, ...] = ()
    if isinstance(value, ast.Call) and call_name(value) == VALIDATED_FIELD:
        validators = field_validators(value, src)
        default, default_factory = _field_call_facts(ast.Call(func=value.func, args=[], keywords=value.keywords), src)[:2]
    elif isinstance(value, ast.Call) and call_name(value) in FIELD_CALLS:
        default, default_factory, constraints = _field_call_facts(value, src)
        validators = field_validators(value, src)
        alias = next((src.flat(kw.value) for kw in value.keywords if kw.arg in _ALIASES), None)
    elif value is not None:
        default = src.flat(value)
    if annotation is not None:
        constraints = _annotated_constraints(annotation, src) + constraints
    return FieldFact(
        name=name,
        line=stmt.lineno,
        annotation=src.flat(annotation) if annotation is not None else None,
        default=default,
        default_factory=default_factory,
        constraints=tuple(constraints),
        doc=_string_value(following),
        validators=validators,
        alias=alias,
    )


def is_init_false(stmt: ast.stmt) -> bool:
    """Whether a class-body field is declared ``field(init=False)``: the generated constructor does not take it."""
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
    return isinstance(value, ast.Call) and call_name(value) in FIELD_CALLS \
        and any(kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False for kw in value.keywords)


_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"})
# A method that runs on a value while the class is constructed (pydantic's, attrs' ``@x.validator``)
_VALIDATOR_DECORATORS = frozenset({"field_validator", "model_validator", "validator", "root_validator", "validates_schema"})


def class_fact(node: ast.ClassDef, qualname: str, src: SourceText) -> ClassFact:
    """Bases, docstring, fields and method return annotations of a class."""
    fields: list[FieldFact] = []
    no_init: list[str] = []
    methods: list[tuple[str, str | None]] = []
    abstract: list[str] = []
    validators: list[str] = []
    unread_validators: list[ValidatorCalls] = []
    assigned: list[str] = []
    body = node.body
    for index, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.append((stmt.name, src.flat(stmt.returns) if stmt.returns is not None else None))
            names = {(dotted_name(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] for d in stmt.decorator_list}
            if names & _ABSTRACT_DECORATORS:
                abstract.append(stmt.name)
            if names & _VALIDATOR_DECORATORS:
                validators.append(stmt.name)
                if (unread := unread_validator(stmt)) is not None:
                    unread_validators.append(unread)
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            assigned.extend(n.id for t in targets for n in walk(t) if isinstance(n, ast.Name))
        following = body[index + 1] if index + 1 < len(body) else None
        fact = field_fact(stmt, following, src)
        if fact is not None:
            fields.append(fact)
            if is_init_false(stmt):
                no_init.append(fact.name)
    inits = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"]
    bases = tuple(src.flat(base) for base in node.bases)
    constructing = init_facts(inits[-1], function_params(inits[-1], src), qualname, bases) if inits else InitFacts()
    return ClassFact(
        qualname=qualname,
        line=node.lineno,
        bases=bases,
        doc=cut_text(ast.get_docstring(node)),
        fields=tuple(fields),
        no_init=tuple(no_init),
        methods=tuple(methods),
        decorators=tuple(src.flat(d) for d in node.decorator_list),
        **constructing._asdict(),
        post_init_sets=post_init_sets(node, src),
        new=new_facts(node, src),
        metaclass=next((src.flat(k.value) for k in node.keywords if k.arg == "metaclass"), None),
        stores=attribute_stores(node, src), init_calls=init_calls(node), init_reads=init_reads(node), effects=method_effects(node),
        abstract=tuple(abstract),
        validators=tuple(validators),
        validators_calling=tuple(unread_validators),
        assigned=tuple(sorted(set(assigned))),
        declarations=field_declarations(node, src) if node.bases or node.decorator_list else (),
    )


MAX_DECLARATION_LINES = 12  # a field declaration longer than this is cut in its card's excerpt


def field_declarations(node: ast.ClassDef, src: SourceText) -> tuple[tuple[str, Excerpt], ...]:
    """Each annotated field of the class body with its declaration's lines as written."""
    found = []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            end = min(stmt.end_lineno or stmt.lineno, stmt.lineno + MAX_DECLARATION_LINES - 1)
            found.append((stmt.target.id, Excerpt(start_line=stmt.lineno, text="\n".join(src.lines[stmt.lineno - 1:end]))))
    return tuple(found)


def transform_specifiers(decorators: list[ast.expr], src: SourceText) -> tuple[str, ...]:
    """The ``field_specifiers`` of a ``@dataclass_transform(field_specifiers=(...))`` among
    ``decorators``, as written."""
    for decorator in decorators:
        if isinstance(decorator, ast.Call) and is_dataclass_transform(decorator):
            for kw in decorator.keywords:
                if kw.arg == "field_specifiers" and isinstance(kw.value, (ast.Tuple, ast.List)):
                    return tuple(src.flat(e) for e in kw.value.elts)
    return ()


def is_dataclass_transform(decorator: ast.expr) -> bool:
    """``@dataclass_transform(...)`` (PEP 681), by any import path."""
    head = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else None) == "dataclass_transform"


def new_facts(node: ast.ClassDef, src: SourceText) -> tuple[Param, ...] | None:
    """The explicit ``__new__``'s parameters after cls, or None."""
    news = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__new__"]
    params = function_params(news[-1], src) if news else ()
    if not params or params[0].kind in ("star", "starstar", "keyword"):
        return None
    return params[1:]


class InitFacts(NamedTuple):
    """What an explicit ``__init__`` tells of constructing its class (ClassFact's fields of the same names)."""

    init: tuple[Param, ...] | None = None
    init_sets: tuple[tuple[str, str], ...] = ()
    super_init: tuple[tuple[str, str], ...] = ()
    super_base: int = 0
    init_plain: bool = True


def init_facts(init: ast.FunctionDef | ast.AsyncFunctionDef | None, params: tuple[Param, ...], owner: str = "",
               bases: tuple[str, ...] = ()) -> InitFacts:
    """The explicit ``__init__``'s (``init``, whose parameters are ``params``, of class ``owner``
    whose bases are ``bases`` as written) parameters after self, the attributes it sets straight
    from one of them (``self.size = size`` at the top of its body, the parameter never
    rebound): what a caller sets by constructing the object; what it passes on
    straight from one to a base constructor (``super().__init__(size=size)``: ("size",
    "size"); a positional one: ("#0", "size")), and which base that is."""
    if init is None:
        return InitFacts()
    if not params or params[0].kind in ("star", "starstar", "keyword"):
        return InitFacts(init_plain=False)  # (no self to set attributes on: ``__init__(*args)`` may do anything)
    this, params = params[0].name, params[1:]
    names = {p.name for p in params}
    # The names the body binds or deletes, walked for on first need.
    rebound = functools.cache(lambda: {n.id for n in walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))})
    sets: dict[str, str] = {}
    for stmt in init.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == this:
                if isinstance(value, ast.Name) and value.id in names and value.id not in rebound():
                    sets[target.attr] = value.id
                else:
                    sets.pop(target.attr, None)  # set from something else (last binding wins)
    calls = (stmt.value for stmt in init.body if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call))
    name = owner.rsplit(".", 1)[-1]
    found = next(((call, passing) for call in calls if (passing := base_init(call, this, name, bases)) is not None), None)
    plain = all(_plain_init_statement(stmt, this, name, bases) for stmt in init.body)
    if found is None:
        return InitFacts(params, tuple(sorted(sets.items())), init_plain=plain)
    call, (base, args) = found
    straight = lambda value: value.id if isinstance(value, ast.Name) and value.id in names and value.id not in rebound() else None
    passed: dict[str, str] = {}
    for index, arg in enumerate(args):
        if isinstance(arg, ast.Starred):
            break
        if (param := straight(arg)) is not None:
            passed[f"#{index}"] = param
    passed.update((k.arg, param) for k in call.keywords if k.arg is not None and (param := straight(k.value)) is not None)
    return InitFacts(params, tuple(sorted(sets.items())), tuple(sorted(passed.items())), base, plain)


def _plain_init_statement(stmt: ast.stmt, this: str, owner: str, bases: tuple[str, ...]) -> bool:
    """Whether a statement of ``__init__`` surely runs through: a docstring, ``pass``, a store of
    a name or a literal into the object, or a base constructor's call passing those (ClassFact.init_plain)."""
    if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
    if call is not None and (passing := base_init(call, this, owner, bases)) is not None:
        return all(_plain_value(arg) for arg in [*passing[1], *(k.value for k in call.keywords)])
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else None
    value = getattr(stmt, "value", None)
    return bool(targets) and value is not None and _plain_value(value) and all(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == this for t in targets or ())


def _plain_value(node: ast.expr) -> bool:
    """A name, a literal, or an empty or literal display: evaluating it cannot fail."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_plain_value(e) for e in node.elts)
    return isinstance(node, ast.Dict) and all(k is not None and _plain_value(k) and _plain_value(v) for k, v in zip(node.keys, node.values))


def base_init(call: ast.Call, this: str, owner: str, bases: tuple[str, ...]) -> tuple[int, list[ast.expr]] | None:
    """Which base's constructor ``call`` (a statement of class ``owner``'s ``__init__``, whose
    receiver is ``this``) runs, as an index into ``bases``, and the arguments it passes after
    the object; None where it runs none: ``super().__init__(a)`` and ``super(Owner, self).__init__(a)``
    (the first base), ``Base.__init__(self, a)`` (that base, as written among ``bases``)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "__init__":
        return None
    head = func.value
    if isinstance(head, ast.Call) and isinstance(head.func, ast.Name) and head.func.id == "super":
        plain = not head.args
        named = [dotted_name(a) for a in head.args] == [owner, this]
        return (0, list(call.args)) if bases and (plain or named) else None
    written = dotted_name(head)
    if written is None or written not in bases or not call.args or dotted_name(call.args[0]) != this:
        return None
    return bases.index(written), list(call.args[1:])


def post_init_sets(node: ast.ClassDef, src: SourceText) -> tuple[PostInitSet, ...]:
    """What the class's own ``__post_init__`` assigns anywhere in its body (``self.x = ...``,
    ``self.x += ...``, ``setattr(self, "x", ...)``, ``object.__setattr__(self, "x", ...)``),
    nested definitions left out: once the object is built such an attribute holds what that
    computed, not the caller's value, except where every assignment of it sits in one
    top-level ``if`` with no ``else`` (``if self.size is None: self.size = 8``), which the
    caller's value leaves alone where the test is false."""
    posts = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__post_init__"]
    if not posts or not posts[-1].args.args:
        return ()
    this = posts[-1].args.args[0].arg
    tests: dict[str, ast.expr | None] = {}
    for stmt in posts[-1].body:
        assigned = _assigned_attributes(stmt, this)
        test = stmt.test if isinstance(stmt, ast.If) and not stmt.orelse and not _assigned_attributes(stmt.test, this) else None
        for attribute in assigned:
            tests[attribute] = test if attribute not in tests else None  # (assigned in two places: either may run)
    found = []
    for attribute, test in sorted(tests.items()):
        reads = () if test is None else tuple(sorted({
            f"self.{n.attr}" for n in walk(test) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == this}))
        plain = test is not None and this == "self" and all(n.id == this or n.id in _TEST_BUILTINS for n in walk(test) if isinstance(n,
            ast.Name))
        code = src.flat(test) if test is not None and plain else None
        found.append(PostInitSet(attribute=attribute, test=code, reads=reads if code is not None else ()))
    return tuple(found)


_TEST_BUILTINS = frozenset({"isinstance", "len", "bool", "int", "float", "str", "list", "tuple", "dict", "set"})


def _assigned_attributes(root: ast.AST, this: str) -> set[str]:
    prefix = this + "."
    return {chain.removeprefix(prefix) for chain in purity.attribute_stores([root]) if chain.startswith(prefix)}


MAX_VALUE = 80  # a longer value is shown as "a computed value": its source would crowd the card
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def attribute_stores(node: ast.ClassDef, src: SourceText) -> tuple[tuple[str, AttributeStore], ...]:
    """Every assignment of an attribute of the receiver in the class's methods, and each class
    attribute the body assigns, in source order: (attribute, assignment)."""
    found: list[tuple[str, AttributeStore]] = []
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            receiver = receiver_name(stmt)
            if receiver is not None:
                for inner, nested in _statements(stmt.body, False):
                    found.extend(_stores(inner, receiver, stmt.name, nested, src))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found.append((target.id, AttributeStore(method=None, line=stmt.lineno, value=_value(stmt.value, src))))
    return tuple(found)


def _statements(body: list[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """The statements of a body and of its blocks, each with whether it sits in one (under an
    ``if``, loop, ``try``, ``with`` or ``match``), nested definitions left out."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt, nested
        for name in _BLOCKS:
            for block in getattr(stmt, name, ()):
                if isinstance(block, (ast.ExceptHandler, ast.match_case)):
                    yield from _statements(block.body, True)
                elif isinstance(block, ast.stmt):
                    yield from _statements([block], True)


def _stores(stmt: ast.stmt, receiver: str, method: str, nested: bool, src: SourceText) -> Iterator[tuple[str, AttributeStore]]:
    whole: ast.expr | None  # the value the targets are bound to (None for ``+=``)
    if isinstance(stmt, ast.Assign):
        targets, whole = stmt.targets, stmt.value
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
        targets, whole = [stmt.target], stmt.value if isinstance(stmt, ast.AnnAssign) else None
    else:
        return
    for target in targets:
        one = isinstance(target, ast.Attribute)
        for part in [target] if one else getattr(target, "elts", ()):
            part = part.value if isinstance(part, ast.Starred) else part
            if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == receiver:
                value = _value(whole, src) if one and whole is not None else None  # (one of several, or ``+=``: no one value)
                yield part.attr, AttributeStore(method=method, line=stmt.lineno, value=value, conditional=nested)


def _value(value: ast.expr, src: SourceText) -> str | None:
    text = src.flat(value)
    return text if len(text) <= MAX_VALUE else None


def _init_nodes(node: ast.ClassDef) -> tuple[str, list[ast.AST]] | None:
    """The receiver of the class's own ``__init__`` and every node of its body outside nested
    scopes, else None (no ``__init__``, or one without a receiver)."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    receiver = receiver_name(init) if init is not None else None
    if init is None or receiver is None:
        return None
    found: list[ast.AST] = []
    work: list[ast.AST] = list(init.body)
    while work:
        current = work.pop()
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            found.append(current)
            work.extend(ast.iter_child_nodes(current))
    return receiver, found


def _on(expr: ast.expr, receiver: str) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == receiver


def init_calls(node: ast.ClassDef) -> tuple[str, ...]:
    """The methods the class's own ``__init__`` calls on its receiver (``self._reset()``):
    what they assign, constructing the object assigns too."""
    init = _init_nodes(node)
    if init is None:
        return ()
    receiver, nodes = init
    return tuple(sorted({n.func.attr for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                         and _on(n.func, receiver)}))


def init_reads(node: ast.ClassDef) -> tuple[str, ...]:
    """The attributes the class's own ``__init__`` reads on its receiver and never assigns
    there (``self.executables`` of a base class its subclasses give the attribute): linking
    asks whether the class or one it derives from defines them. () where the ``__init__``
    may set attributes by name (``setattr``, ``__dict__``, ``vars``)."""
    init = _init_nodes(node)
    if init is None:
        return ()
    receiver, nodes = init
    read: set[str] = set()
    stored = _body_names(node.body)
    for current in nodes:
        if isinstance(current, ast.Name) and current.id in ("setattr", "vars") \
                or isinstance(current, ast.Attribute) and current.attr == "__dict__":
            return ()
        if isinstance(current, ast.Attribute) and _on(current, receiver):
            (read if isinstance(current.ctx, ast.Load) else stored).add(current.attr)
        elif isinstance(current, ast.Call) and isinstance(current.func, ast.Name) and current.func.id in ("hasattr", "getattr") \
                and len(current.args) > 1 and isinstance(current.args[1], ast.Constant) and isinstance(current.args[1].value, str):
            stored.add(current.args[1].value)  # (``hasattr(self, "x")`` first: not read unguarded)
    return tuple(sorted(name for name in read - stored if not (name.startswith("__") and name.endswith("__"))))


def _body_names(body: list[ast.stmt]) -> set[str]:
    """Every name a class body binds, in its blocks too (``if _mswindows: def _execute_child``),
    nested classes and functions by their names."""
    names: set[str] = set()
    work: list[ast.AST] = list(body)
    while work:
        current = work.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(current.name)
            continue
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
            names.add(current.id)
        elif isinstance(current, ast.alias):
            names.add((current.asname or current.name).split(".", 1)[0])
        work.extend(ast.iter_child_nodes(current))
    return names


def alias_value(stmt: ast.stmt, src: SourceText) -> tuple[str, str] | None:
    """``Backend = Literal[...]`` or ``Backend: TypeAlias = Literal[...]`` at module level."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        target, value = stmt.targets[0].id, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        target, value = stmt.target.id, stmt.value
    else:
        return None
    if isinstance(value, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute, ast.Tuple, ast.List, ast.Constant)):
        return target, src.flat(value)
    return None


def function_params(node: ast.FunctionDef | ast.AsyncFunctionDef, src: SourceText) -> tuple[Param, ...]:
    """Parameters with their annotations and defaults as written."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    kinds = ["positional"] * len(args.posonlyargs) + ["normal"] * len(args.args) + ["keyword"] * len(args.kwonlyargs)
    pairs = [*zip(positional, defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    params = [
        Param(
            name=arg.arg,
            annotation=src.flat(arg.annotation) if arg.annotation is not None else None,
            default=src.flat(default) if default is not None else None,
            kind=kind,
        )
        for (arg, default), kind in zip(pairs, kinds)
    ]
    # Unpassed *args and **kwargs are empty: that is their default.
    if args.vararg is not None:
        params.append(Param(name=args.vararg.arg, annotation="tuple", default="()", kind="star"))
    if args.kwarg is not None:
        params.append(Param(name=args.kwarg.arg, annotation="dict", default="{}", kind="starstar"))
    return tuple(params)


def call_style(function: ast.FunctionDef | ast.AsyncFunctionDef, may_yield: bool = True) -> str:
    """How calling the function runs its body: at once, or when iterated or awaited.
    ``may_yield``: False when the function's text holds no ``yield`` (nothing to walk for)."""
    stack: list[ast.AST] = list(function.body) if may_yield else []
    generator = False
    while stack and not generator:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            generator = True
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(child_nodes(node))
    if isinstance(function, ast.AsyncFunctionDef):
        return "async_generator" if generator else "coroutine"
    return "generator" if generator else "function"
