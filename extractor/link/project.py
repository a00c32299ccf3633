"""Linking: every file's FileFacts -> the project view (names, re-exports, exception hierarchy, fields).

``Project`` resolves a name as written in one module to the symbol it denotes anywhere in
the tree (through imports and package re-exports), to a builtin, or to an outside name.
Module names come from paths; an import that names a module by a shorter dotted path
(``src/`` layouts) is matched by unique suffix.

Modules are loaded on first use, and every question records what it consulted (``Reads``):
each module name looked at, with the file that provides it or None, and the answer of each
suffix match. Cards linked from unchanged facts under unchanged reads are unchanged, which
is what lets a later run reuse them (``incremental``).

Re-exports: ``httpx`` defines ``Client`` in ``httpx/_client.py`` and binds it in
``httpx/__init__.py`` by ``from ._client import *``: ``httpx.Client`` is that class (what a
raise of ``httpx.UnsupportedProtocol`` names), and an example imports it ``from httpx``,
never from the private module (``entry_module``). A star import binds the names of the
module's literal ``__all__``, else its public module-level names (Python's rule); a module
whose ``__all__`` the tree does not give as a literal binds nothing seen here.

Field docs: an input like ``self.a.b`` (or ``ctx.a.b`` of an annotated parameter) is read
back to the declaration of the field it reads (``field_doc``).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..collect.annotations import read_annotation
from ..collect.declarations import DOTTED
from ..model import CallsMade, ClassFact, FieldDoc, FieldFact, FileFacts, Param
from .indexes import Indexes, PartStore, Reads

BUILTIN_EXCEPTIONS: dict[str, tuple[str, ...]] = {
    name: tuple(c.__name__ for c in obj.__mro__ if c is not object)
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}
_MAX_DEPTH = 12
# An Enum's base that mixes in a plain type -> how its members print: ``str``/``int`` (``class
# S(str, Enum)``: ``str()`` is ``S.NAME``) or the class (StrEnum, IntEnum: ``str()`` is the value's).
_ENUM_MIXINS = {"str": "str", "int": "int", "enum.StrEnum": "StrEnum", "enum.IntEnum": "IntEnum", "enum.IntFlag": "IntEnum"}
_STR_LITERAL = re.compile(r"'[^'\\\n]*'|" + r'"[^"\\\n]*"')
_INT_LITERAL = re.compile(r"-?[0-9]+")


@dataclass(frozen=True, slots=True)
class Symbol:
    """What a name denotes: kind is class, function, method, builtin or outside."""

    kind: str
    qualname: str
    facts: FileFacts | None = None
    returns: str | None = None


@dataclass(slots=True)
class _Module:
    facts: FileFacts
    classes: dict[str, ClassFact]
    functions: dict[str, str | None]
    imports: dict[str, str]
    assignments: dict[str, str]
    constants: dict[str, str]
    lazy: dict[str, str | None]


def _classes(module: _Module) -> dict[str, ClassFact]:
    return module.classes


def _functions(module: _Module) -> dict[str, str | None]:
    return module.functions


_Entry = TypeVar("_Entry")
# What ``_find`` answered for a key (None: not found), and how many module names it consulted:
# the key's longest prefixes, kept as a count (the names, per question, cost the memory of every
# callee of the tree once link.callgraph has asked about them all: 0.5 KiB a question).
_Answer = tuple[tuple[FileFacts, _Entry] | None, int]
# Answers kept per table: past this many the table starts again (memory; a question asked again
# is answered again, with the same reads).
MAX_ANSWERS = 100_000


def decorator_target(imports: dict[str, str], decorator: str) -> str:
    """A decorator's dotted name through the module's imports (``abstractmethod`` ->
    ``abc.abstractmethod``; a call's arguments left out)."""
    head = decorator.split("(", 1)[0].strip()
    first, _, rest = head.partition(".")
    return imports.get(first, first) + ("." + rest if rest else "")


class Project:
    """Name resolution and class facts across all analysed files.

    ``providers`` maps each module name to the path of the file defining it; ``load`` reads
    that file's facts when a question first needs them, and ``calls`` its calls (``FileFacts.made``,
    which a loader may keep apart: link.callgraph reads each file's once; default: the facts').
    ``parts`` keeps the project-wide indexes' parts between runs (link.indexes).
    """

    def __init__(self, providers: dict[str, str], load: Callable[[str], FileFacts],
                 calls: Callable[[str], tuple[CallsMade, ...]] | None = None, parts: PartStore | None = None) -> None:
        self.providers = providers
        self._load = load
        self.calls_made: Callable[[str], tuple[CallsMade, ...]] = calls or (lambda path: load(path).made)
        self._loaded: dict[str, _Module] = {}
        self._classes_found: dict[str, _Answer[ClassFact]] = {}
        self._functions_found: dict[str, _Answer[str | None]] = {}
        self._suffixes: dict[str, list[str]] = {}
        for name in sorted(providers):
            dotted = name.split(".")
            for i in range(1, len(dotted)):
                self._suffixes.setdefault(".".join(dotted[i:]), []).append(name)
        self._by_path = {path: name for name, path in providers.items()}
        self.tops = frozenset(name.split(".", 1)[0] for name in providers)  # the tree's top-level packages and modules
        self.reads = Reads()
        self.indexes = Indexes(self, parts)

    def record(self) -> Reads:
        """Start a new record of reads; the returned one is the finished record."""
        done, self.reads = self.reads, Reads()
        return done

    def _module(self, name: str) -> _Module | None:
        path = self.providers.get(name)
        self.reads.modules[name] = path
        if path is None:
            return None
        found = self._loaded.get(name)
        if found is None:
            facts = self._load(path)
            found = _Module(
                facts=facts,
                classes={c.qualname: c for c in facts.classes},
                functions=dict(facts.functions),
                imports=dict(facts.imports),
                assignments=dict(facts.assignments),
                constants=dict(facts.constants),
                lazy=dict(facts.lazy),
            )
            self._loaded[name] = found
        return found

    def facts_of(self, path: str) -> FileFacts:
        """A module's facts by its file's path (not recorded: an index's part, link.indexes),
        without the tables ``_module`` builds."""
        module = self._loaded.get(self._by_path.get(path, ""))
        return module.facts if module is not None else self._load(path)

    def forget_answers(self) -> None:
        """Let go of the answers kept per qualname (a question asked again is answered again, and
        records the same reads): after a project-wide pass that asked one question per call of
        the tree (link.callgraph), most of them are never asked again."""
        self._classes_found.clear()
        self._functions_found.clear()

    def release(self) -> None:
        """Let go of the loaded modules' tables, the answers and the indexes (at the end of linking)."""
        self._loaded.clear()
        self.forget_answers()
        self.indexes.release()

    def suffix_match(self, name: str) -> str | None:
        """The one module whose dotted name ends with ``name`` (not recorded)."""
        if name in self.providers:
            return name
        candidates = self._suffixes.get(name, [])
        return candidates[0] if len(candidates) == 1 else None

    def module(self, name: str) -> FileFacts | None:
        found = self.suffix_match(name)
        self.reads.suffixes[name] = found
        module = self._module(found) if found is not None else None
        return module.facts if module is not None else None

    def _find(self, key: str, answers: dict[str, _Answer[_Entry]],
              table: Callable[[_Module], dict[str, _Entry]]) -> tuple[FileFacts, _Entry] | None:
        """``key`` (module.qualname) in the ``table`` (classes or functions) of the most specific
        module that is a prefix of it (``a.b.C`` is class C of module a.b before class b.C of a).
        Answered once per key (``answers``, up to MAX_ANSWERS); a repeated question records the same module reads."""
        parts = key.split(".")
        known = answers.get(key)
        if known is not None:
            for cut in range(len(parts) - 1, len(parts) - 1 - known[1], -1):
                name = ".".join(parts[:cut])
                self.reads.modules[name] = self.providers.get(name)
            return known[0]
        found = None
        consulted = 0
        for cut in range(len(parts) - 1, 0, -1):
            consulted += 1
            module = self._module(".".join(parts[:cut]))
            if module is None:
                continue
            entries = table(module)
            inner = ".".join(parts[cut:])
            if inner in entries:
                found = (module.facts, entries[inner])
                break
        if len(answers) >= MAX_ANSWERS:
            answers.clear()
        answers[key] = (found, consulted)
        return found

    def class_fact(self, qualname: str) -> tuple[FileFacts, ClassFact] | None:
        return self._find(qualname, self._classes_found, _classes)

    def _function(self, qualname: str) -> tuple[FileFacts, str | None] | None:
        return self._find(qualname, self._functions_found, _functions)

    def _imports(self, facts: FileFacts) -> dict[str, str]:
        module = self._module(facts.module)
        return module.imports if module is not None else {}

    def _assignments(self, facts: FileFacts) -> dict[str, str]:
        module = self._module(facts.module)
        return module.assignments if module is not None else {}

    # --- names ---------------------------------------------------------------------
    def resolve(self, facts: FileFacts, written: str, depth: int = 0) -> Symbol | None:
        """The symbol ``written`` (a dotted name) denotes inside ``facts``' module."""
        head, _, rest = written.partition(".")
        local = f"{facts.module}.{written}"
        if self.class_fact(local) or self._function(local) or self._method(local):
            return self.lookup(local, depth)
        imports = self._imports(facts)
        if head in imports:
            return self.lookup(imports[head] + ("." + rest if rest else ""), depth)
        if facts.star_imports and (star := star_target(self, facts, head)) is not None:
            return self.lookup(star + ("." + rest if rest else ""), depth)
        if not rest and head in BUILTIN_EXCEPTIONS:
            # By the class's own name: ``IOError`` and ``EnvironmentError`` are OSError.
            return Symbol(kind="builtin", qualname=BUILTIN_EXCEPTIONS[head][0])
        return self._class_alias(facts, head, rest, depth)

    def _class_alias(self, facts: FileFacts, head: str, rest: str, depth: int) -> Symbol | None:
        """A module-level name bound once to another name (``error = OSError``, ``Error =
        _compiler.error``): what that name denotes, where it resolves to a class."""
        value = self._assignments(facts).get(head)
        if value is None or depth >= _MAX_DEPTH or not DOTTED.fullmatch(value) or value == head:
            return None
        found = self.resolve(facts, value + ("." + rest if rest else ""), depth + 1)
        return found if found is not None and found.kind in ("class", "builtin") else None

    def lookup(self, target: str, depth: int = 0) -> Symbol:
        """The symbol behind an absolute dotted name: in the tree if found there, else outside."""
        found_class = self.class_fact(target)
        if found_class is not None:
            return Symbol(kind="class", qualname=target, facts=found_class[0])
        found_function = self._function(target)
        if found_function is not None:
            return Symbol(kind="function", qualname=target, facts=found_function[0], returns=found_function[1])
        method = self._method(target)
        if method is not None:
            return method
        parts = target.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            facts = self.module(".".join(parts[:cut]))
            if facts is None:
                continue
            inner = ".".join(parts[cut:])
            key = f"{facts.module}.{inner}"
            if key != target and (self.class_fact(key) or self._function(key) or self._method(key)):
                return self.lookup(key, depth)
            if depth < _MAX_DEPTH and (inner.split(".")[0] in self._imports(facts) or facts.star_imports):
                found = self.resolve(facts, inner, depth + 1)
                if found is not None:
                    return found
            head, _, rest = inner.partition(".")
            if (found := self._class_alias(facts, head, rest, depth)) is not None:
                return found
            break
        return Symbol(kind="outside", qualname=target)

    def _method(self, target: str) -> Symbol | None:
        owner, _, name = target.rpartition(".")
        found = self.class_fact(owner) if owner else None
        if found is None:
            return None
        facts, cls = found
        for method, returns in cls.methods:
            if method == name:
                return Symbol(kind="method", qualname=target, facts=facts, returns=returns)
        return None

    # --- classes -------------------------------------------------------------------
    def class_of_annotation(self, facts: FileFacts, annotation: str | None) -> str | None:
        """The in-tree class an annotation names (through quotes, Optional, ``X | None``)."""
        for name in read_annotation(annotation).names:
            symbol = self.resolve(facts, name)
            if symbol is not None and symbol.kind == "class":
                return symbol.qualname
        return None

    def ancestors(self, qualname: str) -> tuple[str, ...]:
        """Every known ancestor of a class, nearest first (builtins by their MRO)."""
        if qualname in BUILTIN_EXCEPTIONS:
            return BUILTIN_EXCEPTIONS[qualname][1:]
        seen: dict[str, None] = {}
        stack = [qualname]
        while stack and len(seen) < 64:
            current = stack.pop(0)
            if current in BUILTIN_EXCEPTIONS:
                for name in BUILTIN_EXCEPTIONS[current][1:]:
                    seen.setdefault(name, None)
                continue
            found = self.class_fact(current)
            if found is None:
                continue
            facts, cls = found
            for base in cls.bases:
                symbol = self.resolve(facts, base)
                target = symbol.qualname if symbol is not None else base
                if target not in seen and target != qualname:
                    seen[target] = None
                    stack.append(target)
        return tuple(seen)

    def field(self, class_qualname: str, name: str, depth: int = 0) -> tuple[FileFacts, ClassFact, FieldFact] | None:
        """A field declared on the class or, failing that, on its in-tree bases."""
        found = self.class_fact(class_qualname) if depth <= _MAX_DEPTH else None
        if found is None:
            return None
        facts, cls = found
        for fact in cls.fields:
            if fact.name == name:
                return facts, cls, fact
        for base in cls.bases:
            symbol = self.resolve(facts, base)
            if symbol is not None and symbol.kind == "class":
                inherited = self.field(symbol.qualname, name, depth + 1)
                if inherited is not None:
                    return inherited
        return None

    def literal_values(self, facts: FileFacts, annotation: str | None, depth: int = 0, of_elements: bool = False) -> tuple[str, ...] | None:
        """Values of ``Literal[...]`` in an annotation (``of_elements``: of its container's
        elements), following aliases across modules."""
        if annotation is None or depth > 6:
            return None
        values: list[str] = []
        found = False
        read = read_annotation(annotation)
        for kind, text in read.elements if of_elements else read.literals:
            if kind == "value":
                found = True
                values.append(text)
                continue
            alias = self._alias(facts, text)
            if alias is not None:
                inner = self.literal_values(alias[0], alias[1], depth + 1)
                if inner is not None:
                    found = True
                    values.extend(inner)
        return tuple(dict.fromkeys(values)) if found else None

    def enum_members(self, facts: FileFacts, annotation: str | None) -> tuple[str, ...] | None:
        """``Color.RED``, ... when the annotation names an Enum class defined in the tree."""
        qualname = self.class_of_annotation(facts, annotation)
        if qualname is None or not any(a.rsplit(".", 1)[-1].endswith(("Enum", "Flag")) for a in self.ancestors(qualname)):
            return None
        found = self.class_fact(qualname)
        if found is None:  # (an Enum's ancestors were found: its class is)
            return None
        cls = found[1]
        short = cls.qualname.rsplit(".", 1)[-1]
        members = tuple(f"{short}.{f.name}" for f in cls.fields if f.annotation is None and not f.name.startswith("_"))
        return members or None

    def enum_values(self, qualname: str, prefix: str) -> tuple[tuple[str, str, str], ...]:
        """The members of an Enum class of the tree that mixes in ``str`` or ``int`` (``class
        S(str, Enum)``, StrEnum, IntEnum, IntFlag) with the literal value each is given: (member
        as the guard writes it, ``prefix`` + name, kind ``enum_value``, ``"<mixin> <value source>"``),
        where ``mixin`` is ``str``/``int`` (the member's ``str()`` is ``Class.NAME``) or
        ``StrEnum``/``IntEnum`` (its ``str()`` is its value's). Empty for any other class."""
        ancestors = self.ancestors(qualname)
        mixin = next((_ENUM_MIXINS[a] for a in ancestors if a in _ENUM_MIXINS), None)
        found = self.class_fact(qualname)
        if mixin is None or found is None or not any(a.rsplit(".", 1)[-1].endswith(("Enum", "Flag")) for a in ancestors):
            return ()
        literal = _STR_LITERAL if mixin in ("str", "StrEnum") else _INT_LITERAL
        return tuple((prefix + f.name, "enum_value", f"{mixin} {f.default}") for f in found[1].fields
                     if f.annotation is None and not f.name.startswith("_") and f.default is not None and literal.fullmatch(f.default))

    def _alias(self, facts: FileFacts, name: str) -> tuple[FileFacts, str] | None:
        value = self._assignments(facts).get(name)
        if value is not None:
            return facts, value
        target = self._imports(facts).get(name)
        if target is None:
            return None
        module, _, symbol = target.rpartition(".")
        owner = self.module(module)
        value = self._assignments(owner).get(symbol) if owner is not None else None
        return (owner, value) if owner is not None and value is not None else None

    def member_of(self, facts: FileFacts, chain: str) -> tuple[str, str]:
        """A dotted name as ``(owner, member)``: the qualified class or module it is read from, and the name."""
        return _member(facts, chain, self._bound_elsewhere(facts, chain.partition(".")[0]))

    def _bound_elsewhere(self, facts: FileFacts, head: str) -> str | None:
        """What an import binds ``head`` to in the module: a plain import's target, or the name a
        star import of the tree binds (``from ._constants import *``: ``pkg._constants.FLAG``)
        where every star import of the module is of the tree (one from outside may rebind it)."""
        imports = self._imports(facts)
        if head in imports:
            return imports[head]
        if not facts.star_imports or head in facts.module_names:
            return None
        if any((module := self.module(star)) is None or module.module != star for star in facts.star_imports):
            return None
        return star_target(self, facts, head)

    def named_constant(self, facts: FileFacts, chain: str) -> tuple[str, str] | None:
        """What a dotted name that no caller sets denotes, where the tree says: ``("value",
        source)`` for a constant of another module, ``("enum", members)`` for a member of an Enum
        class of the tree (``members``: all of the class's, as the guard would write them,
        comma-separated), ``("sentinel", "")`` for a sentinel; else None."""
        bound = self._bound_elsewhere(facts, chain.partition(".")[0])
        owner, member = _member(facts, chain, bound)
        if not owner or member.startswith("__"):
            return None
        found = self.class_fact(owner)
        if found is not None:
            is_enum = any(a.rsplit(".", 1)[-1].endswith(("Enum", "Flag")) for a in self.ancestors(owner))
            members = [f.name for f in found[1].fields if f.annotation is None and not f.name.startswith("_")]
            prefix = chain[: -len(member)]
            return ("enum", ",".join(prefix + m for m in members)) if is_enum and member in members else None
        facts_there = self.module(owner) if bound is not None else None
        module = self._module(facts_there.module) if facts_there is not None else None
        if module is None:
            return None
        if member in module.lazy:  # computed on each read (collect.lazy), whatever a TYPE_CHECKING block declares
            code = module.lazy[member]
            return ("lazy", code) if code is not None else None
        if member in module.facts.sentinels:
            return ("sentinel", "")
        value = module.constants.get(member)
        return ("value", value) if value is not None else None


def _member(facts: FileFacts, chain: str, bound: str | None) -> tuple[str, str]:
    """``(owner, member)`` of a dotted name whose head an import binds to ``bound`` (None: the module's own)."""
    rest = chain.partition(".")[2]
    target = bound + ("." + rest if rest else "") if bound is not None else f"{facts.module}.{chain}"
    owner, _, member = target.rpartition(".")
    return owner, member


def method_class(project: Project, cls: str, name: str) -> tuple[FileFacts, ClassFact] | None:
    """The in-tree class whose method ``name`` an object of class ``cls`` runs: ``cls`` or its
    nearest in-tree ancestor that defines it; None where a class on the way binds the name
    otherwise (a class attribute, the object's own) or lies outside the tree (it may define it)."""
    for current in (cls, *project.ancestors(cls)):
        found = project.class_fact(current)
        if found is None:
            if current in BUILTIN_EXCEPTIONS or current in ("object", "builtins.object"):
                continue  # (builtin classes define no method a project's method would call)
            return None  # outside the tree: it may define the name
        fact = found[1]
        if name in fact.assigned or any(f.name == name for f in fact.fields) or any(a == name for a, _ in fact.stores):
            return None  # bound otherwise (a class attribute, the object's own)
        if any(method == name for method, _ in fact.methods):
            return found
    return None


# --- re-exports: ``from ._client import *`` and ``__all__`` -> what a package binds, and where a caller imports from

_MAX_STARS = 6  # star imports followed through (a package re-exporting a package's re-exports)


def star_target(project: Project, facts: FileFacts, name: str, depth: int = 0) -> str | None:
    """The absolute dotted name that one of the module's star imports binds ``name`` to (the
    last one that binds it wins); None where none is seen to."""
    if depth >= _MAX_STARS:
        return None
    for star in reversed(facts.star_imports):
        module = project.module(star)
        if module is None or module.module != star:
            continue  # outside the tree (or only a suffix match): what it binds is not known
        if module.exports is not None:
            if name not in module.exports:
                continue
        elif name.startswith("_") or "__all__" in module.module_names:
            continue
        if name in module.module_names:
            return f"{star}.{name}"
        found = star_target(project, module, name, depth + 1)
        if found is not None:
            return found
    return None


def public_module(project: Project, module: str, name: str) -> str | None:
    """The module a caller imports ``name`` (a top-level definition of ``module``) from: the
    module itself where no part of its name is private, else the shortest public package
    above it that binds the same definition (``httpx._client.Client`` -> ``httpx``); None
    where there is none."""
    parts = module.split(".")
    if all(_public(p) for p in parts):
        return module
    target = f"{module}.{name}"
    for cut in range(1, len(parts)):
        if not _public(parts[cut - 1]):
            break
        prefix = ".".join(parts[:cut])
        if project.lookup(f"{prefix}.{name}").qualname == target:
            return prefix
    return None


def entry_module(project: Project, module: str, function: str | None) -> str | None:
    """Where a caller imports the top-level definition of ``function`` (a qualname) from."""
    if not function or "<locals>" in function:
        return None
    return public_module(project, module, function.split(".", 1)[0])


def _public(name: str) -> bool:
    return not name.startswith("_")


# --- field docs: an input like ``self.a.b`` (or ``ctx.a.b`` of an annotated parameter) -> the field it reads

def class_along(project: Project, owner: str, names: list[str]) -> str | None:
    """The in-tree class reached from class ``owner`` through the annotated fields
    ``names`` (``["prefetch"]`` -> the class of ``owner.prefetch``); None where it breaks."""
    current = owner
    for name in names:
        found = project.field(current, name)
        if found is None:
            return None
        nested = project.class_of_annotation(found[0], found[2].annotation)
        if nested is None:
            return None
        current = nested
    return current


def field_doc(project: Project, facts: FileFacts, owner: str | None, expr: str, params: tuple[Param, ...] = ()) -> FieldDoc | None:
    """Docs of the field an input like ``self.a.b`` reads, through annotated sub-fields;
    also ``ctx.a.b`` of a parameter ``ctx`` annotated with a class of the tree."""
    parts = expr.split(".")
    if len(parts) < 2:
        return None
    if parts[0] in ("self", "cls") and owner is not None:
        start: str | None = f"{facts.module}.{owner}"
    else:
        param = next((p for p in params if p.name == parts[0] and p.kind not in ("star", "starstar")), None)
        start = project.class_of_annotation(facts, param.annotation) if param is not None else None
    if start is None:
        return None
    holder = class_along(project, start, parts[1:-1])
    found = project.field(holder, parts[-1]) if holder is not None else None
    if found is None:
        return None
    where, cls, fact = found
    return FieldDoc(
        input=expr,
        owner=f"{where.module}.{cls.qualname}",
        path=where.path,
        declared=fact,
        literal_values=project.literal_values(where, fact.annotation) or project.enum_members(where, fact.annotation),
        element_values=project.literal_values(where, fact.annotation, of_elements=True),
    )
