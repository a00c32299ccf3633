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
import shlex
import sys
from collections.abc import Iterable
from typing import Any

from ..model import CONSTRUCTING, Card, CardContext, Example, ExampleStyle, FieldDoc, NoFix, Param
from ..model.pytext import repeated_text
from .domains import NO_VALUE
from .evaluate import parse_expr, predicate
from .values import Modelled, Named, python_text

_CLASS_LEVEL = ("classmethod", "staticmethod")
# Decorators after which a call reaches the body as the signature says; any other (a class
# such as typing's ``_SpecialForm``, a registry, a wrapper of unknown shape) gets no example.
_TRANSPARENT = frozenset({
    *_CLASS_LEVEL, "cache", "lru_cache", "abstractmethod", "final", "override", "deprecated", "no_type_check",
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


def _literal(value: Any, imports: set[tuple[str, str]] | None = None, module: str | None = None) -> str | None:
    """``repr(value)`` when it reads back as the same value (a Python literal), else None; a
    named constant (an Enum member, a sentinel, a module-level name) as written in ``module``
    (``Mode.FAST``, ``MISSING``), its first name imported from there."""
    if isinstance(value, Modelled):  # (``torch.empty(2, 3)``: solve.arrays)
        if imports is not None:
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
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return text if type(back) is type(value) and back == value else None


def _public(name: str) -> bool:
    return not name.startswith("_")


def _arguments(params: tuple[Param, ...], values: dict[str, Any], imports: set[tuple[str, str]], module: str) -> str | None:
    """The argument list that passes ``values`` (name -> value) to ``params``."""
    declared = {p.name: p for p in params}
    positional: list[str] = []
    keywords: list[str] = []
    for param in params:
        if param.kind != "positional":
            continue
        if param.name not in values:
            if param.default is None:
                return None
            break  # later positional-only values cannot be passed past a skipped one
        rendered = _literal(values[param.name], imports, module)
        if rendered is None:
            return None
        positional.append(rendered)
    for name, value in values.items():
        target = declared.get(name)
        if target is not None and target.kind == "starstar" and isinstance(value, dict):
            # ``**kwargs`` of ``{"foo": 1}``: the call passes ``foo=1`` (a name no other parameter takes)
            if not all(isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) and k not in declared for k in value):
                return None
            extra = [(k, _literal(v, imports, module)) for k, v in value.items()]
            if any(text is None for _, text in extra):
                return None
            keywords.extend(f"{k}={text}" for k, text in extra)
            continue
        if target is None or target.kind in ("star", "starstar"):
            return None
        if target.kind == "positional":
            continue
        rendered = _literal(value, imports, module)
        if rendered is None or not _public(name):
            return None
        keywords.append(f"{name}={rendered}")
    passed = {p.name for p in params if p.kind == "positional"}.intersection(values)
    if len(positional) != len(passed):
        return None
    return ", ".join([*positional, *keywords])


class _Nested(dict):
    """The keywords of a nested record's constructor (``b=Nested(c=...)``), unlike a dict value."""


def _build(owner: str, fields: dict[tuple[str, ...], Any], ctx: CardContext, imports: set[tuple[str, str]],
           extra: dict[str, Any] | None = None) -> str | None:
    """``Owner(a=..., b=Nested(c=...))`` from constructor keyword paths -> values."""
    if ctx.owner.constructor is None:
        return None
    tree = _Nested(extra or {})
    for path, value in fields.items():
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, _Nested())
            if not isinstance(node, _Nested):
                return None
        node[path[-1]] = value

    def render(cls: str, node: dict[str, Any], prefix: str, signature: tuple[Param, ...] | None, where: str) -> str | None:
        args = []
        for key, child in node.items():
            if isinstance(child, _Nested):
                target = ctx.owner.classes.get(f"{prefix}.{key}")
                if target is None:
                    return None
                module, qualname = target.split(":", 1)
                if "." in qualname or not _public(qualname) or not _public_module(module):
                    return None
                imports.add((module, qualname))
                inner = render(qualname, child, f"{prefix}.{key}", None, module)
                if inner is None:
                    return None
                args.append(f"{key}={inner}")
                continue
            rendered = _literal(child, imports, where)  # an Enum member as written where its field is
            if rendered is None:
                return None
            args.append(f"{key}={rendered}")
        if signature is not None:
            declared = {p.name: p for p in signature}
            if any(declared.get(k) is None or declared[k].kind not in ("normal", "keyword") for k in node):
                return None
            if any(p.default is None and p.kind in ("normal", "keyword", "positional") and p.name not in node for p in signature):
                return None  # a required argument without a value
        return f"{cls}({', '.join(args)})"

    return render(owner, tree, "self", ctx.owner.constructor, ctx.place.module or "")


def _public_module(module: str) -> bool:
    return all(_public(part) for part in module.split("."))


def decorator_names(card: Card) -> set[str]:
    """The last dotted part of each decorator, without its call (``functools.lru_cache(1)`` -> ``lru_cache``)."""
    return {d.split("(", 1)[0].rsplit(".", 1)[-1].strip() for d in card.at.decorators}


def is_class_level(card: Card) -> bool:
    """A classmethod or staticmethod: called on the class, no object is built."""
    return not decorator_names(card).isdisjoint(_CLASS_LEVEL)


def python_snippet(card: Card, ctx: CardContext, values: dict[str, Any]) -> str | None:
    """Code that imports the entry and calls it with ``values`` (input -> value), or None."""
    function, module = card.at.function, ctx.place.public_module  # (``httpx``, not ``httpx._client``: link.project.entry_module)
    if not function or "<locals>" in function or module is None:
        return None
    decorators = decorator_names(card)
    if not decorators <= _TRANSPARENT:
        return None
    params = {p.name for p in ctx.signature.params}
    args = {k: v for k, v in values.items() if k in params and k not in ("self", "cls")}
    fields = {ctx.owner.settable[k]: v for k, v in values.items() if k in ctx.owner.settable}
    if len(args) + len(fields) != len(values):
        return None  # a value no caller passes
    call = _Call(ctx=ctx, args=args, fields=fields, written=ctx.place.module or module)
    code = _entry_call(call, card, decorators, module, function)
    if code is None or ctx.signature.call_style == "async_generator":
        return None
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


def _entry_call(call: _Call, card: Card, decorators: set[str], module: str, function: str) -> str | None:
    """The call of the entry: a function, a constructor, a class-level method, or a method of a built object."""
    owner, _, name = function.rpartition(".")
    if not owner:
        call_args = _arguments(call.ctx.signature.params, call.args, call.imports, call.written)
        if not _public(name) or call_args is None:
            return None
        call.imports.add((module, name))
        return f"{name}({call_args})"
    if "." in owner or not _public(owner):
        return None  # a nested or private class
    call.imports.add((module, owner))
    if set(card.entry) & CONSTRUCTING:
        return _constructor_call(call, owner, name)
    if decorators & set(_CLASS_LEVEL):
        signature = call.ctx.signature.params[1:] if "classmethod" in decorators else call.ctx.signature.params
        call_args = _arguments(signature, call.args, call.imports, call.written)
        return f"{owner}.{name}({call_args})" if _public(name) and not call.fields and call_args is not None else None
    obj = _build(owner, call.fields, call.ctx, call.imports)
    call_args = _arguments(call.ctx.signature.params[1:], call.args, call.imports, call.written)
    return f"{obj}.{name}({call_args})" if obj is not None and call_args is not None and _public(name) else None


def _constructor_call(call: _Call, owner: str, name: str) -> str | None:
    """``Owner(...)``: the entry is the constructor (its arguments are the call's) or runs while it builds."""
    if name not in ("__init__", "__new__"):
        return _build(owner, call.fields, call.ctx, call.imports) if not call.args else None
    if _arguments(call.ctx.signature.params[1:], call.args, call.imports, call.written) is None:
        return None
    return _build(owner, call.fields, call.ctx, call.imports, extra=call.args)


def _body_run(code: str, card: Card, ctx: CardContext, decorators: set[str], imports: set[tuple[str, str]]) -> str:
    """``code`` as a statement that runs the entry's body."""
    if "contextmanager" in decorators:
        return f"with {code}:\n    pass"  # the body runs as the block is entered
    if ctx.signature.call_style == "generator" and not set(card.entry) & CONSTRUCTING:
        return f"list({code})"  # the body runs as the generator is consumed
    if ctx.signature.call_style == "coroutine":
        imports.add(("asyncio", ""))
        return f"asyncio.run({code})"
    return code


def _compiled_snippet(code: str, imports: set[tuple[str, str]]) -> str | None:
    """``code`` after its imports, where they are public and the whole compiles."""
    modules = sorted({m for m, _ in imports})
    if not all(_public_module(m) for m in modules):
        return None  # (a constant imported from the private module the entry is defined in)
    lines = [f"import {m}" if (m, "") in imports else f"from {m} import {', '.join(sorted(n for k, n in imports if k == m))}"
             for m in modules]
    text = "\n".join([*lines, code])
    try:
        compile(text, "<example>", "exec")
    except (SyntaxError, ValueError):
        return None
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
                  required: dict[str, Any], setup: str = "") -> Example | None:
    """Before (the trigger's changes) and after (the first fix's changes on top; None where
    no fix is proven: the example then only reproduces the error).

    ``required`` holds the function's parameters without a default, with the trigger's
    value where it has one; a Python call is written only when all have a value. ``setup``:
    Python run first, which gives the process the environment the trigger assumes
    (solve.environ); such an example is Python only.
    """
    # The flags are those of the command's own parser (link.commands); a flag is named only for
    # a declared field of a record the command configures or an attribute of a parsed-arguments
    # parameter (``args.size``), never for a plain parameter or attribute that happens to share
    # a flag's name (``vllm serve --version`` is not pynvml's ``version``), and never with a
    # value outside the field's declared choices (the command's parser would refuse it first).
    fields = {f.input: f for f in card.docs.fields}
    if ctx.cli.command and before and not setup \
            and all(_flag_fits(name, value, fields, ctx) for name, value in (*before.items(), *(after or {}).items())) \
            and clears_checks(card, ctx, before) and (after is None or clears_checks(card, ctx, after)):
        first = cli_line(ctx.cli.command, before, ctx.cli.flags)
        second = cli_line(ctx.cli.command, after, ctx.cli.flags) if after is not None else None
        if first and (second or after is None):
            return Example(style=ExampleStyle.CLI, before=first, after=second)
    if any(value is NO_VALUE for value in required.values()):
        return None
    first = python_snippet(card, ctx, {**required, **before})
    second = python_snippet(card, ctx, {**required, **after}) if after is not None else None
    if first and (second or after is None):
        if setup:
            first, second = f"{setup}\n{first}", f"{setup}\n{second}" if second else None
        own = {m.split(".", 1)[0] for m in (ctx.place.module, ctx.place.public_module, ctx.place.exception_module) if m}
        return Example(style=ExampleStyle.PYTHON, before=first, after=second,
                       requires=example_requires((first, second or ""), own or {card.path.split("/", 1)[0].removesuffix(".py")}))
    return None


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


def constraint_example(card: Card, ctx: CardContext, before: dict[str, Any],
                       after: dict[str, Any] | None) -> tuple[Example | None, tuple[str | None, str | None]]:
    """A field constraint's example: the class built with the field's keyword (Python, which
    verify runs), "after" with the fix's value; and the command lines that pass the trigger's
    value, and the fix's, through the field's flag, where the command's code hands that flag on
    to the class and its own checks let the value through (the fix's line: None without one)."""
    owner, module = card.at.function, ctx.place.public_module
    fields = {f.input: f for f in card.docs.fields}

    def command(values: dict[str, Any] | None) -> str | None:
        if not ctx.cli.command or not values or not all(_flag_fits(n, v, fields, ctx, constraint=True) for n, v in values.items()) \
                or not clears_checks(card, ctx, values):
            return None
        return cli_line(ctx.cli.command, values, ctx.cli.flags)

    first_line = command(before)
    line = (first_line, command(after) if first_line is not None else None)
    if not owner or module is None or "." in owner or "<" in owner or not _public(owner):
        return None, line

    def snippet(values: dict[str, Any]) -> str | None:
        imports = {(module, owner)}
        keywords = {ctx.owner.settable[k]: v for k, v in values.items() if k in ctx.owner.settable}
        code = _build(owner, keywords, ctx, imports) if len(keywords) == len(values) else None
        return _compiled_snippet(code, imports) if code is not None else None

    first = snippet(before)
    second = snippet(after) if after is not None else None
    if first is None or (after is not None and second is None):
        return None, line
    return Example(style=ExampleStyle.PYTHON, before=first, after=second, no_fix=None if after is not None else NoFix.NONE_FOUND), line
