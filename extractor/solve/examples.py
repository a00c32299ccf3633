"""Examples: a trigger and a fix -> a before/after command line or Python snippet.

A command line is used only when every changed input maps to a flag the tree really
declares (argparse ``add_argument``, click ``option``, typer ``Option``). Otherwise a Python
snippet imports the entry and calls it through its public signature:

- a module-level function, a class constructor, a classmethod or staticmethod on its
  class, or an instance method on an object its constructor builds;
- attributes of ``self`` set through the constructor keywords that set them (link's
  ``settable``), nested records built by their own constructors;
- every argument checked against the signature as the tree declares it (positional-only
  parameters passed by position, no private names, every required one given);
- values that are Python literals, and the whole snippet compiled.

Where any of that fails the card gets no Python example: one that could not run would be
worse than none.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import keyword
import math
import re
import shlex
import sys
from collections.abc import Iterable
from typing import Any

from ..collect.declarations import DOTTED
from ..model import CONSTRUCTING, BuiltArgument, Card, CardContext, Example, ExampleStyle, FieldDoc, NoFix, Owner, Param
from ..model.codes import Detailed, EntryKind, Reason, ReasonCode
from ..model.pytext import repeated_text
from .domains import NO_VALUE
from .evaluate import parse_expr, predicate
from .rules import accepts, kept, raw_refused, surely_fits, validated_field
from .values import Modelled, Named, Present, plain_type, python_text

_CLASS_LEVEL = ("classmethod", "staticmethod")
# Decorators that make the method an attribute: reading it on the object runs the body (not
# ``cached_property``, which first needs the object's ``__dict__``: a class with ``__slots__`` has none).
_PROPERTY = frozenset({"property"})
_SETTER = "setter"  # ``@level.setter``: assigning the attribute runs the body (link.cards: EntryKind.PROPERTY_SETTER)
# Decorators after which a call reaches the body as the signature says; any other (a class
# such as typing's ``_SpecialForm``, a registry, a wrapper of unknown shape) gets no example.
_TRANSPARENT = frozenset({
    *_CLASS_LEVEL, "cache", "lru_cache", "abstractmethod", "final", "override", "deprecated", "no_type_check",
    "no_grad", "inference_mode", "enable_grad",  # (torch: the call runs the body with gradients off or on)
    "model_validator", "field_validator", "validator", "root_validator", "contextmanager",
})


def _cli_value(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return shlex.quote(value)
    return None


def _json_value(value: Any) -> Any:
    """``value`` as JSON data (tuples as lists), or NO_VALUE where it has none."""
    if value is None or isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    if isinstance(value, (list, tuple)):
        items = [_json_value(v) for v in value]
        return NO_VALUE if any(i is NO_VALUE for i in items) else items
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        found = {k: _json_value(v) for k, v in value.items()}
        return NO_VALUE if any(v is NO_VALUE for v in found.values()) else found
    return NO_VALUE


def cli_line(prefix: str, changes: dict[str, Any], flags: dict[str, str]) -> str | None:
    """The command line setting ``changes`` through their flags; a boolean flag in its action
    form (``--x``, ``--no-x``, or left out where its action gives that value); the fields of a
    record a JSON flag takes as one shell-quoted object (``--x '{"a": 1, "b": true}'``); else None."""
    words = [prefix]
    objects: dict[str, dict[str, Any]] = {}
    for name, value in changes.items():
        declared = flags.get(name.split(".")[-1])
        if declared is None:
            return None
        flag, _, action = declared.partition(" ")
        if action == "json":
            data = _json_value(value)
            if data is NO_VALUE:
                return None
            objects.setdefault(flag, {})[name.split(".")[-1]] = data
            continue
        written = _flag_words(flag, action, value)
        if written is None:
            return None
        words.extend(written)
    words.extend(word for flag, data in objects.items() for word in (flag, shlex.quote(json.dumps(data, sort_keys=True))))
    return " ".join(words)


def _flag_words(flag: str, action: str, value: Any) -> list[str] | None:
    """How ``flag`` sets ``value`` as its action (collect.flags) takes it, or None where it cannot."""
    if action in ("int", "float", "str"):  # the type a click or typer option converts its text to
        if type(value).__name__ != action:
            return None  # (the command's function would get another value than the trigger's)
        action = ""
    elif action == "field":  # a dataclass parser's flag for a field that is no bool
        action = ""
    elif action == "field-bool":  # HfArgumentParser's bool field: ``--x`` or ``--x False``
        return None if not isinstance(value, bool) else [flag] if value else [flag, "False"]
    if action.startswith("kwargs"):  # keywords from a mapping: boolean only for a boolean value
        action = action.partition("-")[2] if isinstance(value, bool) else ""
        if isinstance(value, bool) and not action:
            return None  # how the flag is written for a boolean is not known
    if action:
        if not isinstance(value, bool):
            return None  # a value for a flag that takes none
        if action == "optional":
            return [flag if value else "--no-" + flag[2:]]
        return [flag] if value == (action == "store_true") else []  # (the flag left out gives the other value)
    rendered = _cli_value(value)
    return None if rendered is None else [flag, rendered]


def _as_annotated(value: Any, annotation: str | None) -> Any:
    """An Enum member spelled as the parameter's annotation names its class, where that is
    through a module (``a_major: sm100_desc.Major``: ``sm100_desc.Major.K``, whose first name the
    module binds; ``Major`` it may not)."""
    if not (isinstance(value, Named) and value.kind == "enum" and annotation):
        return value
    owner, _, member = value.name.rpartition(".")
    written = annotation.strip().strip("'\"").split("|")[0].strip().removeprefix("Optional[").rstrip("]")
    if not owner or "." not in written or not written.endswith("." + owner) or not DOTTED.fullmatch(written):
        return value
    return Named(f"{written}.{member}", value.kind, value.mixin, value.value)


def _literal(value: Any, imports: set[tuple[str, str]] | None = None, module: str | None = None) -> str | None:
    """``repr(value)`` when it reads back as the same value (a Python literal), else None; a
    named constant (an Enum member, a sentinel, a module-level name) as written in ``module``
    (``Mode.FAST``, ``MISSING``), its first name imported from there."""
    if isinstance(value, _Code):
        return value.text if imports is not None else None
    if isinstance(value, Modelled):  # (``torch.empty(2, 3)``: solve.arrays)
        if imports is not None and value.module != "builtins":  # (a lambda needs no import)
            imports.add((value.module, ""))
        return value.code if imports is not None else None
    if isinstance(value, Named):
        head = value.name.split(".", 1)[0]
        if imports is None or module is None or not head.isidentifier() or not _public(head):
            return None
        imports.add((module, head))
        return value.name
    if isinstance(value, float) and not math.isfinite(value):
        return python_text(value)  # (inf, -inf, nan: no literal writes them)
    if (product := repeated_text(value)) is not None:
        return product  # (``'a' * 1001``: the same value, written short)
    kind = plain_type(value)  # (a seed's set is a set)
    text = repr(value)
    try:  # (``frozenset({'x'})`` is a call: its set literal is read)
        back = frozenset(ast.literal_eval(text[len("frozenset("):-1] or "set()")) if kind is frozenset else ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if type(back) is kind and back == value else None


def _public(name: str) -> bool:
    return not name.startswith("_")


def _arguments(params: tuple[Param, ...], values: dict[str, Any], imports: set[tuple[str, str]], module: str) -> str | Reason:
    """The argument list that passes ``values`` (name -> value) to ``params``, or why it cannot be written."""
    declared = {p.name: p for p in params}
    positional: list[str] = []
    keywords: list[str] = []
    for param in params:
        if param.kind != "positional":
            continue
        if param.name not in values:
            if param.default is None:
                return Reason.ARGUMENT_WITHOUT_VALUE
            break  # later positional-only values cannot be passed past a skipped one
        rendered = _literal(_as_annotated(values[param.name], param.annotation), imports, module)
        if rendered is None:
            return Reason.VALUE_NOT_WRITABLE
        positional.append(rendered)
    for name, value in values.items():
        target = declared.get(name)
        if target is not None and target.kind == "starstar" and isinstance(value, dict):
            # ``**kwargs`` of ``{"foo": 1}``: the call passes ``foo=1`` (a name no other parameter takes)
            if not all(isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) and k not in declared for k in value):
                return Reason.SIGNATURE_MISMATCH
            extra = [(k, _literal(v, imports, module)) for k, v in value.items()]
            if any(text is None for _, text in extra):
                return Reason.VALUE_NOT_WRITABLE
            keywords.extend(f"{k}={text}" for k, text in extra)
            continue
        if target is None or target.kind in ("star", "starstar"):
            return Reason.SIGNATURE_MISMATCH
        if target.kind == "positional":
            continue
        if not _public(name):
            return Reason.SIGNATURE_MISMATCH  # (a private keyword)
        rendered = _literal(_as_annotated(value, target.annotation), imports, module)
        if rendered is None:
            return Reason.VALUE_NOT_WRITABLE
        keywords.append(f"{name}={rendered}")
    passed = {p.name for p in params if p.kind == "positional"}.intersection(values)
    if len(positional) != len(passed):
        return Reason.SIGNATURE_MISMATCH
    return ", ".join([*positional, *keywords])


class _Nested(dict):
    """The keywords of a nested record's constructor (``b=Nested(c=...)``), unlike a dict value."""


def _build(owner: str, fields: dict[tuple[str, ...], Any], ctx: CardContext, imports: set[tuple[str, str]],
           extra: dict[str, Any] | None = None) -> str | Reason:
    """``Owner(a=..., b=Nested(c=...))`` from constructor keyword paths -> values, or why it cannot be written."""
    if ctx.owner.constructor is None or any(p.kind in ("star", "starstar") for p in ctx.owner.constructor):
        return Reason.CONSTRUCTOR_UNKNOWN  # (``*args``/``**kwargs``: handed on to a constructor the signature does not show)
    tree = _nested(fields, extra)
    if isinstance(tree, Reason):
        return tree
    return _render(owner, tree, "self", ctx.owner.constructor, ctx.place.module or "", _Writing(ctx, imports))


def _nested(fields: dict[tuple[str, ...], Any], extra: dict[str, Any] | None = None) -> _Nested | Reason:
    """Constructor keyword paths -> values as the nested keywords of one call (``extra``: more keywords of the outer one)."""
    tree = _Nested(extra or {})
    # A keyword given None holds no object: the keywords of one under it go (a fix's
    # ``spec = None`` beside the trigger's ``spec.num_tokens = 5``).
    absent = {path for path, value in fields.items() if value is None}
    for path, value in fields.items():
        if any(path[:n] in absent for n in range(1, len(path))):
            continue
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, _Nested())
            if not isinstance(node, _Nested):
                return Reason.SIGNATURE_MISMATCH  # (a keyword given a value and also one of its own keywords)
        if isinstance(value, Present):  # (an object built from its own keywords, if any)
            if not isinstance(node.setdefault(path[-1], _Nested()), _Nested):
                return Reason.SIGNATURE_MISMATCH
            continue
        if isinstance(node.get(path[-1]), _Nested):
            return Reason.SIGNATURE_MISMATCH
        node[path[-1]] = value
    return tree


@dataclasses.dataclass(frozen=True, slots=True)
class _Writing:
    """What writing a constructor call reads (the object's nested classes) and adds to (the imports)."""

    ctx: CardContext
    imports: set[tuple[str, str]]


def _render(cls: str, node: dict[str, Any], prefix: str, signature: tuple[Param, ...] | None, where: str,
            writing: _Writing) -> str | Reason:
    """``cls(...)`` with ``node``'s keywords; a nested record's by its own class (``signature``:
    the constructor's, where it is known), an Enum member as written ``where`` its field is."""
    args = []
    for key, child in node.items():
        if isinstance(child, _Nested):
            target = writing.ctx.owner.classes.get(f"{prefix}.{key}")
            if target is None:
                return Reason.CONSTRUCTOR_UNKNOWN
            if f"{prefix}.{key}" in writing.ctx.owner.unfilled:
                return Reason.CONSTRUCTOR_NEEDS_ARGUMENTS  # (a required keyword of its constructor no input gives)
            importable = _importable(target)
            if isinstance(importable, Reason):
                return importable
            module, qualname = importable
            writing.imports.add((module, qualname))
            inner = _render(qualname, child, f"{prefix}.{key}", None, module, writing)
            if isinstance(inner, Reason):
                return inner
            args.append(f"{key}={inner}")
            continue
        rendered = _literal(child, writing.imports, where)
        if rendered is None:
            return Reason.VALUE_NOT_WRITABLE
        args.append(f"{key}={rendered}")
    if signature is not None:
        declared = {p.name: p for p in signature}
        if any(declared.get(k) is None or declared[k].kind not in ("normal", "keyword") for k in node):
            return Reason.SIGNATURE_MISMATCH
        if any(p.default is None and p.kind in ("normal", "keyword", "positional") and p.name not in node for p in signature):
            return Reason.CONSTRUCTOR_NEEDS_ARGUMENTS
    return f"{cls}({', '.join(args)})"


def _importable(target: str) -> tuple[str, str] | Reason:
    """A class's module and name (``"module:Qualname"``), where an example can import it by name."""
    module, qualname = target.split(":", 1)
    if "." in qualname or not _public(qualname):
        return Reason.NOT_PUBLIC
    if not _public_module(module):
        return Reason.NO_PUBLIC_MODULE
    return module, qualname


def _public_module(module: str) -> bool:
    return all(_public(part) for part in module.split("."))


def decorator_names(card: Card) -> set[str]:
    """The last dotted part of each decorator, without its call (``functools.lru_cache(1)`` -> ``lru_cache``)."""
    return {d.split("(", 1)[0].rsplit(".", 1)[-1].strip() for d in card.at.decorators}


def is_class_level(card: Card) -> bool:
    """A classmethod or staticmethod: called on the class, no object is built."""
    return not decorator_names(card).isdisjoint(_CLASS_LEVEL)


def python_snippet(card: Card, ctx: CardContext, values: dict[str, Any], passing: bool = False,
                   steps: tuple[str, ...] = ()) -> str | ReasonCode:
    """Code that imports the entry and calls it with ``values`` (input -> value), or why it cannot
    be written; ``passing``: the values of a fix, which the whole construction must accept;
    ``steps``: the methods called on the built object first (Trigger.steps)."""
    function, module = card.at.function, ctx.place.public_module  # (``httpx``, not ``httpx._client``: link.project.entry_module)
    refused = uncallable(card, ctx)
    if refused is not None or not function or module is None:
        return refused or Reason.NOT_PUBLIC
    decorators = decorator_names(card)
    call = _Call(ctx=ctx, args={}, fields={}, written=ctx.place.module or module, passing=passing, steps=steps)
    refused = _pass_values(call, values)
    if refused is not None:
        return refused
    code = _entry_call(call, card, decorators, module, function)
    if isinstance(code, Reason):
        return code
    return _compiled_snippet(_body_run(code, card, ctx, decorators, call.imports), call.imports)


@dataclasses.dataclass(slots=True)
class _Call:
    """What writing the entry's call takes: its arguments, the constructor keyword paths of
    its object's attributes, the module its arguments' named constants are written in
    (``written``), and the imports the code needs, added as it is written."""

    ctx: CardContext
    args: dict[str, Any]
    fields: dict[tuple[str, ...], Any]
    written: str
    imports: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    passing: bool = False  # (a fix's values: the whole construction must accept them)
    steps: tuple[str, ...] = ()  # the methods called on the built object before the entry (Trigger.steps)


def uncallable(card: Card, ctx: CardContext) -> ReasonCode | None:
    """Why no example can call the card's function, whatever the values (None: it may)."""
    function, module = card.at.function, ctx.place.public_module
    if not function or "<locals>" in function:
        return Reason.NOT_PUBLIC
    if module is None:
        return Reason.NO_PUBLIC_MODULE
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split(".")):
        return Reason.NOT_IMPORTABLE
    owner, _, name = function.rpartition(".")
    private_class = "." in owner or bool(owner) and not _public(owner)
    if private_class or (not _public(name) and name != "__call__" and not (owner and set(card.entry) & CONSTRUCTING)):
        return Reason.NOT_PUBLIC  # (a nested or private class; a constructor's own check runs as the class is called, whatever its name)
    decorators = decorator_names(card)
    setter = {_SETTER} if EntryKind.PROPERTY_SETTER in card.entry else set()
    if not decorators <= _TRANSPARENT | _PROPERTY | setter:
        return Detailed(code=Reason.UNKNOWN_DECORATOR, value=min(decorators - _TRANSPARENT - _PROPERTY - setter))
    if ctx.signature.call_style == "async_generator":
        return Reason.ASYNC_GENERATOR
    return None


def _pass_values(call: _Call, values: dict[str, Any]) -> Reason | None:
    """Put each of ``values`` where the call passes it (an argument; a constructor keyword of
    the object; a keyword of an argument the example builds, Owner.arguments), or say why one
    cannot be passed."""
    ctx = call.ctx
    params = {p.name for p in ctx.signature.params} - {"self", "cls"}
    built = {a.param: a for a in ctx.owner.arguments}
    objects: dict[str, dict[tuple[str, ...], Any]] = {}
    for name, value in values.items():
        root = name.split(".", 1)[0]
        argument = built.get(root)
        if argument is not None and (name in argument.settable or (name == root and (value is NO_VALUE or isinstance(value, Present)))):
            keywords = objects.setdefault(root, {})
            if name != root:
                keywords[argument.settable[name]] = value
        elif name in ctx.owner.settable:  # (first: a field validator's value is its field's keyword)
            if (field := validated_field(ctx, name)) is not None and not kept(field, value):
                return Reason.CONSTRUCTION_NOT_SHOWN  # (pydantic's type check of the field refuses it before the validator runs)
            call.fields[ctx.owner.settable[name]] = value
        elif name in params:
            call.args[name] = value
        else:
            return Reason.VALUE_NOT_PASSED
    for root, keywords in objects.items():
        if root in call.args:
            return Reason.VALUE_NOT_PASSED  # (a value for the argument and one for its attribute)
        code = _build_argument(built[root], keywords, values, call)
        if isinstance(code, Reason):
            return code
        call.args[root] = _Code(code)
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class _Code:
    """An argument's value as the example writes it: an object it builds (``Config(a=1)``)."""

    text: str


def _build_argument(argument: BuiltArgument, keywords: dict[tuple[str, ...], Any], values: dict[str, Any], call: _Call) -> str | Reason:
    """``Class(a=..., b=Nested(c=...))`` for an argument the example builds (its class imported)."""
    where = _importable(argument.cls)
    if isinstance(where, Reason):
        return where
    module, qualname = where
    rules = {doc.input: doc for doc in argument.rules}
    if any(name in rules and not accepts(rules[name], value) for name, value in values.items()):
        return Reason.CONSTRUCTION_NOT_SHOWN  # (a value its field's declared rules may refuse)
    tree = _nested(keywords)
    if isinstance(tree, Reason):
        return tree
    call.imports.add((module, qualname))
    classes = {f"self{key[len(argument.param):]}": where for key, where in argument.classes.items()}
    unfilled = tuple(f"self{key[len(argument.param):]}" for key in argument.unfilled)
    writing = _Writing(dataclasses.replace(call.ctx, owner=Owner(classes=classes, unfilled=unfilled)), call.imports)
    return _render(qualname, tree, "self", argument.constructor, module, writing)


def _entry_call(call: _Call, card: Card, decorators: set[str], module: str, function: str) -> str | Reason:
    """The call of the entry: a function, a constructor, a class-level method, or a method of a built object."""
    owner, _, name = function.rpartition(".")  # (public, and a class at its module's top: uncallable)
    if not owner:
        call_args = _arguments(call.ctx.signature.params, call.args, call.imports, call.written)
        call.imports.add((module, name))
        return call_args if isinstance(call_args, Reason) else f"{name}({call_args})"
    call.imports.add((module, owner))
    if set(card.entry) & CONSTRUCTING:
        if EntryKind.PYDANTIC_MODEL_VALIDATOR_BEFORE in card.entry and (refused := _raw_keywords(call)) is not None:
            return refused
        return _constructor_call(call, owner, name)
    if decorators & set(_CLASS_LEVEL):
        signature = call.ctx.signature.params[1:] if "classmethod" in decorators else call.ctx.signature.params
        call_args = _arguments(signature, call.args, call.imports, call.written)
        if call.fields:
            return Reason.VALUE_NOT_PASSED  # (an attribute of an object a class-level method has none of)
        return call_args if isinstance(call_args, Reason) else f"{owner}.{name}({call_args})"
    obj = _build(owner, call.fields, call.ctx, call.imports)
    if isinstance(obj, Reason):
        return obj
    if _SETTER in decorators:
        return _assignment(call, obj, name)
    call_args = _arguments(call.ctx.signature.params[1:], call.args, call.imports, call.written)
    if isinstance(call_args, Reason):
        return call_args
    read = bool(decorators & _PROPERTY)
    if not call.steps:
        return _method_call(obj, name, call_args, read)
    named = _object_name(owner, call.imports)
    return "\n".join([f"{named} = {obj}", *(f"{named}.{step}()" for step in call.steps), _method_call(named, name, call_args, read)])


def _assignment(call: _Call, obj: str, name: str) -> str | Reason:
    """``Dial().level = 0``: a property setter's value assigned to the attribute (its one
    parameter after ``self``), where the example builds the object at once."""
    params = call.ctx.signature.params[1:]
    if call.steps or len(params) != 1 or params[0].kind in ("star", "starstar"):
        return Reason.SIGNATURE_MISMATCH
    value = _literal(call.args[params[0].name], call.imports, call.written) if params[0].name in call.args else None
    return f"{obj}.{name} = {value}" if value is not None else Reason.VALUE_NOT_WRITABLE


def _method_call(receiver: str, name: str, arguments: str, read: bool = False) -> str:
    """``receiver.name(arguments)``; ``receiver(arguments)`` for ``__call__``, which calling the
    object runs; ``receiver.name`` for a property (``read``), which reading the attribute runs."""
    if read:
        return f"{receiver}.{name}"
    return f"{receiver}({arguments})" if name == "__call__" else f"{receiver}.{name}({arguments})"


def _object_name(owner: str, imports: set[tuple[str, str]]) -> str:
    """The name an example binds the object of class ``owner`` to: ``zip_file`` for ``ZipFile``
    (``obj`` where that is a keyword or a name the example imports)."""
    named = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", owner.rpartition(".")[2]).lower()
    taken = {name for pair in imports for name in pair}
    return "obj" if keyword.iskeyword(named) or named in taken or not named.isidentifier() else named


def _raw_keywords(call: _Call) -> Reason | None:
    """A "before" model validator's raw input (``data``, its one argument) given as the dict of
    the constructor's keywords (``{"tools": []}``: ``Request(..., tools=[])``), as pydantic hands
    it on; why not where a key is no keyword of the constructor, or a validator the tool does not
    read may refuse them first."""
    if len(call.args) != 1 or call.ctx.owner.constructor is None:
        return None
    (raw, value), = call.args.items()
    keywords = {p.name: p for p in call.ctx.owner.constructor if p.kind not in ("star", "starstar")}
    if not isinstance(value, dict) or not all(isinstance(k, str) and k in keywords and (k,) not in call.fields for k in value):
        return Reason.VALUE_NOT_PASSED
    # (a fix's value its field's declared type may refuse once the validator lets it through; a
    # trigger's raises in the validator, before pydantic checks the fields)
    given = {**{path[0]: item for path, item in call.fields.items() if len(path) == 1}, **value}
    if call.ctx.owner.refuses_first(list(given)) or raw_refused(call.ctx, given) \
            or call.passing and not all(surely_fits(keywords[k].annotation, item) for k, item in value.items()):
        return Reason.CONSTRUCTION_NOT_SHOWN
    del call.args[raw]
    call.fields.update({(key,): item for key, item in value.items()})
    return None


def _constructor_call(call: _Call, owner: str, name: str) -> str | Reason:
    """``Owner(...)``: the entry is the constructor (its arguments are the call's) or runs while it builds."""
    keywords = {p.name for p in call.ctx.owner.constructor or ()}
    if name == "__post_init__" and call.args and set(call.args) <= keywords:
        return _build(owner, call.fields, call.ctx, call.imports, extra=call.args)  # (its parameters are the InitVars, by name)
    if name not in ("__init__", "__new__"):
        return _build(owner, call.fields, call.ctx, call.imports) if not call.args else Reason.VALUE_NOT_PASSED
    checked = _arguments(call.ctx.signature.params[1:], call.args, call.imports, call.written)
    if isinstance(checked, Reason):
        return checked
    return _build(owner, call.fields, call.ctx, call.imports, extra=call.args)


def _body_run(code: str, card: Card, ctx: CardContext, decorators: set[str], imports: set[tuple[str, str]]) -> str:
    """``code`` (its last line: the entry's call) as statements that run the entry's body."""
    head, _, code = code.rpartition("\n")
    return f"{head}\n{_body_statement(code, card, ctx, decorators, imports)}" if head else \
        _body_statement(code, card, ctx, decorators, imports)


def _body_statement(code: str, card: Card, ctx: CardContext, decorators: set[str], imports: set[tuple[str, str]]) -> str:
    """The call ``code`` as a statement that runs the entry's body."""
    if "contextmanager" in decorators:
        return f"with {code}:\n    pass"  # the body runs as the block is entered
    if ctx.signature.call_style == "generator" and not set(card.entry) & CONSTRUCTING:
        return f"list({code})"  # the body runs as the generator is consumed
    if ctx.signature.call_style == "coroutine":
        imports.add(("asyncio", ""))
        return f"asyncio.run({code})"
    return code


def _compiled_snippet(code: str, imports: set[tuple[str, str]]) -> str | Reason:
    """``code`` after its imports, where they are public and the whole compiles."""
    modules = sorted({m for m, _ in imports})
    if not all(_public_module(m) for m in modules):
        return Reason.NO_PUBLIC_MODULE  # (a constant imported from the private module the entry is defined in)
    lines = [f"import {m}" if (m, "") in imports else f"from {m} import {', '.join(sorted(n for k, n in imports if k == m))}"
             for m in modules]
    text = "\n".join([*lines, code])
    try:
        compile(text, "<example>", "exec")
    except (SyntaxError, ValueError):
        return Reason.EXAMPLE_NOT_COMPILED
    return text


_FLOATS = ("float", "float|None", "Optional[float]")


def _flag_fits(name: str, value: Any, fields: dict[str, FieldDoc], ctx: CardContext, constraint: bool = False) -> bool:
    """Whether the example may set ``name`` to ``value`` through its flag. ``constraint``: the
    card is the field's own constraint (a value outside the choices is then its trigger where
    a JSON flag's record checks it, not the parser)."""
    if name not in ctx.cli.routed:
        return False  # the command's code is not seen handing the flag's value on to this raise
    if name.startswith(("self.", "cls.")):
        field = fields.get(name)
        if field is None or name not in ctx.owner.settable:
            return False
        if type(value) is int and not constraint and (field.declared.annotation or "").replace(" ", "") in _FLOATS:
            return False  # the flag's type (or the record's validation) makes it a float: a message would show 1.0, not 1
        if ctx.cli.flags.get(name.split(".")[-1], "").endswith(" json"):
            return constraint or field.literal_values is None or repr(value) in field.literal_values \
                or (isinstance(value, str) and f'"{value}"' in field.literal_values)
        if isinstance(value, bool) and field.declared.annotation != "bool" \
                and ctx.cli.flags.get(name.split(".")[-1], "").endswith("kwargs-optional"):
            return False  # (``bool | str | None`` gets a flag with an optional value, not --no-x)
        choices = field.literal_values
        return choices is None or repr(value) in choices or (isinstance(value, str) and f'"{value}"' in choices)
    root, dot, _ = name.partition(".")
    if not dot:
        return True  # a click or typer command's parameter, which the framework sets from its option (routed)
    param = next((p for p in ctx.signature.params if p.name == root), None)  # the parsed arguments: ``args: Namespace``
    return bool(dot) and param is not None and (root == "args" or "Namespace" in (param.annotation or ""))


def clears_checks(card: Card, ctx: CardContext, values: dict[str, Any]) -> bool:
    """Whether the command's code lets ``values`` (written as their flags) through: every test
    it puts one of those flags to on the way (``CommandLine.checks``), but the card's own
    raise, is false for them (a test the values do not decide, reading another name, counts
    as not cleared: ``minivllm serve model --offload-group-size -1`` exits in the command's own
    check before the record's constraint is met)."""
    env = {name.split(".")[-1]: value for name, value in values.items()}
    for dest, path, line, test in ctx.cli.checks:
        if dest in env and (path, line) != (card.path, card.at.line) and predicate(parse_expr(test))(env) is not False:
            return False
    return True


def build_example(card: Card, ctx: CardContext, before: dict[str, Any], after: dict[str, Any] | None,
                  required: dict[str, Any], setup: str = "", steps: tuple[str, ...] = ()) -> Example | ReasonCode:
    """Before (the trigger's changes) and after (the first fix's changes on top; None where
    no fix is proven: the example then only reproduces the error), or why no example can be written.

    ``required`` holds the function's parameters without a default, with the trigger's
    value where it has one; a Python call is written only when all have a value. ``setup``:
    Python run first, which gives the process the environment the trigger assumes
    (solve.environ), and ``steps`` the methods called on the object first (Trigger.steps); such
    an example is Python only.
    """
    # The flags are those of the command's own parser (link.commands); a flag is named only for
    # a declared field of a record the command configures or an attribute of a parsed-arguments
    # parameter (``args.size``), never for a plain parameter or attribute that happens to share
    # a flag's name (``vllm serve --version`` is not pynvml's ``version``), and never with a
    # value outside the field's declared choices (the command's parser would refuse it first).
    fields = {f.input: f for f in card.docs.fields}
    if ctx.cli.command and before and not setup and not steps \
            and all(_flag_fits(name, value, fields, ctx) for name, value in (*before.items(), *(after or {}).items())) \
            and clears_checks(card, ctx, before) and (after is None or clears_checks(card, ctx, after)):
        line = cli_line(ctx.cli.command, before, ctx.cli.flags)
        line_fix = cli_line(ctx.cli.command, after, ctx.cli.flags) if after is not None else None
        if line and (line_fix or after is None):
            return Example(style=ExampleStyle.CLI, before=line, after=line_fix)
    if EntryKind.MODULE_GETATTR in card.entry:
        return _attribute_example(card, ctx, before, after)
    refused = uncallable(card, ctx)
    if refused is not None:
        return refused
    built = {argument.param for argument in ctx.owner.arguments}  # (the example builds them: Owner.arguments)
    if any(value is NO_VALUE for name, value in required.items() if name not in built):
        return Reason.ARGUMENT_WITHOUT_VALUE
    first = python_snippet(card, ctx, {**required, **before}, steps=steps)
    second = python_snippet(card, ctx, {**required, **after}, passing=True, steps=steps) if after is not None else None
    if isinstance(first, (Reason, Detailed)):
        return first
    if isinstance(second, (Reason, Detailed)):
        return second
    if setup:
        first, second = f"{setup}\n{first}", f"{setup}\n{second}" if second else None
    own = {m.split(".", 1)[0] for m in (ctx.place.module, ctx.place.public_module, ctx.place.exception_module) if m}
    return Example(style=ExampleStyle.PYTHON, before=first, after=second,
                   requires=tuple(sorted({*example_requires((first, second or ""), own or {card.path.split("/", 1)[0].removesuffix(".py")}),
                                          *ctx.place.requires})))


def _attribute_example(card: Card, ctx: CardContext, before: dict[str, Any], after: dict[str, Any] | None) -> Example | ReasonCode:
    """A module's ``__getattr__`` (PEP 562): ``import pkg.mod`` then ``pkg.mod.name``, the name its
    one parameter takes (a name that is no keyword); the fix's name "after"."""
    module, params = ctx.place.module, ctx.signature.params
    if not module or not all(_public(part) and part.isidentifier() for part in module.split(".")):
        return Reason.NOT_PUBLIC
    if len(params) != 1 or set(before) != {params[0].name}:
        return Reason.SIGNATURE_MISMATCH

    def read(values: dict[str, Any]) -> str | None:
        name = values.get(params[0].name)
        ok = isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
        return f"import {module}\n{module}.{name}" if ok else None

    first = read(before)
    if first is None:
        return Reason.VALUE_NOT_WRITABLE
    return Example(style=ExampleStyle.PYTHON, before=first, after=read(after) if after is not None else None)


def example_requires(codes: Iterable[str], own: set[str]) -> tuple[str, ...]:
    """The top-level modules the imports of ``codes`` name that are neither ``own`` (the
    project's) nor the standard library's (``sys.stdlib_module_names``), sorted: what a
    reader installs first. Only the name the import shows; never a guessed distribution."""
    found: set[str] = set()
    for code in codes:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".", 1)[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".", 1)[0])
    return tuple(sorted(found - own - set(sys.stdlib_module_names) - {"__future__"}))


def constraint_example(card: Card, ctx: CardContext, before: dict[str, Any], after: dict[str, Any] | None,
                       stand_ins: dict[str, Any] | None,
                       unshown: NoFix | None = None) -> tuple[Example | ReasonCode, tuple[str | None, str | None]]:
    """A field constraint's example: the class built with the field's keyword (Python, which
    verify runs), "after" with the fix's value; and the command lines that pass the trigger's
    value, and the fix's, through the field's flag, where the command's code hands that flag on
    to the class and its own checks let the value through (the fix's line: None without one).
    ``stand_ins``: values of the class's other required fields (solve.constraints), which the
    Python example passes too (its placeholders); None where they have none. ``unshown``: why
    the Python example has no "after" though a fix is known (its stand-ins may be refused:
    NoFix.STAND_INS_UNSEEN, NoFix.STAND_INS_UNCHECKED); None where it has one.
    Without a Python example: why not, in its place."""
    owner, module = card.at.function, ctx.place.public_module
    fields = {f.input: f for f in card.docs.fields}

    def command(values: dict[str, Any] | None) -> str | None:
        if not ctx.cli.command or not values or not all(_flag_fits(n, v, fields, ctx, constraint=True) for n, v in values.items()) \
                or not clears_checks(card, ctx, values):
            return None
        return cli_line(ctx.cli.command, values, ctx.cli.flags)

    first_line = command(before)
    line = (first_line, command(after) if first_line is not None else None)
    if not owner or "." in owner or "<" in owner or not _public(owner):
        return Reason.NOT_PUBLIC, line
    if module is None:
        return Reason.NO_PUBLIC_MODULE, line

    if stand_ins is None:
        return Reason.CONSTRUCTOR_NEEDS_ARGUMENTS, line
    first = _built(owner, module, ctx, {**stand_ins, **before})
    second = _built(owner, module, ctx, {**stand_ins, **after}) if after is not None and unshown is None else None
    if isinstance(first, Reason):
        return first, line
    if isinstance(second, Reason):
        return second, line
    no_fix = None if second is not None else NoFix.NONE_FOUND if after is None else unshown
    return Example(style=ExampleStyle.PYTHON, before=first, after=second, no_fix=no_fix,
                   placeholders=tuple(sorted(".".join(ctx.owner.settable[n]) for n in stand_ins))), line


def _built(owner: str, module: str, ctx: CardContext, values: dict[str, Any]) -> str | Reason:
    """The code that imports ``owner`` from ``module`` and builds it with ``values`` (its settable
    attributes -> value), or why it cannot be written."""
    imports = {(module, owner)}
    keywords = {ctx.owner.settable[k]: v for k, v in values.items() if k in ctx.owner.settable}
    if len(keywords) != len(values):
        return Reason.VALUE_NOT_PASSED
    code = _build(owner, keywords, ctx, imports)
    return code if isinstance(code, Reason) else _compiled_snippet(code, imports)
