"""Messages as Python renders them: a raise's arguments through its exception class.

``str(exc)`` depends on the class. BaseException shows one argument as ``str(arg)``, none as
an empty message and several as the tuple's repr; KeyError shows its one argument's repr;
OSError ``(errno, strerror[, filename])`` shows ``[Errno 2] No such file: 'x'``. A class in
the tree may make its own in ``__init__`` or ``__str__`` (collect.class_messages); its
template is filled with the raise's arguments. Where the chain reaches a class outside the
tree, its rendering is unknown: one argument keeps the plain reading, anything else says so.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from dataclasses import replace

from ..collect.class_messages import argument_name
from ..collect.messages import make_template, merge_parts, unknown
from ..model import Argument, ExceptionRef, Hole, MessageTemplate, Param, Part, RaiseKind, Reason, SiteFact, Text
from ..model.pytext import parse_expression, try_parse_expression
from .project import BUILTIN_EXCEPTIONS, Project

_STRING_FORMS = ("plain", "fstring", "format", "percent", "concat", "call")
_UNQUOTED = frozenset("'\"\\")


def compose(project: Project, exception: ExceptionRef, site: SiteFact, message: MessageTemplate) -> MessageTemplate:
    """The message ``str()`` of the raised exception gives, as a template."""
    if len(exception.classes) != 1 or exception.factory or site.raised.statement.kind == RaiseKind.RERAISE \
            or exception.reason == Reason.RAISED_VARIABLE:
        return message
    if site.raised.is_call and site.raised.passage.arguments is None:
        return message  # a star argument: the count is unknown
    args: list[Argument] = list(site.raised.passage.arguments or ()) if site.raised.is_call else []
    chain = (exception.classes[0], *exception.ancestors)
    extended = False  # a __str__ on the way adds to the text: it starts the message
    for index, name in enumerate(chain):
        if name in BUILTIN_EXCEPTIONS:
            if len(args) == 1 and args[0].code == "" and args[0].message is not None:  # what a class's __init__ made
                message = args[0].message
            return _marked(_builtin(BUILTIN_EXCEPTIONS[name], args, message), extended)
        found = project.class_fact(name)
        if found is None:  # outside the tree: its rendering is not known
            return _marked(message, extended) if len([a for a in args if a.keyword is None]) == 1 else _unknown_for(message, args)
        fact = found[1]
        if fact.message_rule == "transparent":
            continue
        if fact.message_rule == "extends":
            extended = True
            if fact.message is None:
                continue
        if fact.message_rule not in ("template", "extends") or fact.message is None:
            return unknown("class", Reason.BUILT_BY_CLASS)
        own_str = fact.message_rule != "extends" and any(method == "__str__" for method, _ in fact.methods)
        filled = _fill(fact.message, fact.init, args)
        if filled is None:
            return unknown("class", Reason.CLASS_MESSAGE_UNFILLED)
        if own_str:
            below = [project.class_fact(c) for c in chain[:index]]
            if any(b is not None and "__init__" in dict(b[1].methods) for b in below):
                return unknown("class", Reason.CLASS_MESSAGE_UNFILLED)  # its __init__ is not the one called
            return filled
        args = [Argument(code="", message=filled)]  # what its __init__ passes on, rendered further up
    return message


def _marked(message: MessageTemplate, extended: bool) -> MessageTemplate:
    """A text a class's __str__ builds on: the start of the message (form ``class_base:``)."""
    return replace(message, form="class_base:" + message.form) if extended and message.parts is not None else message


def _unknown_for(message: MessageTemplate, args: list[Argument]) -> MessageTemplate:
    return message if message.parts is None else unknown("multiple_args" if args else "none", Reason.CLASS_OUTSIDE_TREE)


def _builtin(mro: Sequence[str], args: list[Argument], message: MessageTemplate) -> MessageTemplate:
    if any(a.keyword is not None for a in args):
        return message  # builtin exceptions take no keywords (the call itself fails)
    if not args:
        return make_template("none", [])  # str(ValueError()) == ""
    if "KeyError" in mro and len(args) == 1:
        key = _repr_parts(args[0])
        return make_template("key", key) if key is not None else message
    if len(args) == 1:
        return message
    if "OSError" in mro and len(args) in (2, 3):
        errno, strerror = _str_parts(args[0]), _str_parts(args[1])
        filename = _repr_parts(args[2]) if len(args) == 3 else []
        if errno is None or strerror is None or filename is None:
            return message
        named = [Text(text=": "), *filename] if filename else []
        return make_template("oserror", [Text(text="[Errno "), *errno, Text(text="] "), *strerror, *named])
    if any(name in mro for name in ("OSError", "UnicodeError", "SyntaxError")):
        return message  # a __str__ of their own, not followed for these arguments
    parts: list[Part] = [Text(text="(")]
    for index, arg in enumerate(args):
        piece = _repr_parts(arg)
        if piece is None:
            return message
        parts.extend([*([Text(text=", ")] if index else []), *piece])
    return make_template("args", [*parts, Text(text=")")])


def _string_parts(arg: Argument) -> list[Part] | None:
    """The argument's parts when it is a string: a string message, or what a class's
    ``__init__`` made (no code of its own)."""
    message = arg.message
    if message is None or message.parts is None:
        return None
    return list(message.parts) if message.form.split(":")[-1] in _STRING_FORMS or not arg.code else None


def _literal(code: str) -> tuple[bool, object]:
    """A literal's value (ast.literal_eval: literals only, nothing runs)."""
    try:
        return True, ast.literal_eval(code)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _str_parts(arg: Argument) -> list[Part] | None:
    """``str(arg)`` as template parts."""
    if (parts := _string_parts(arg)) is not None:
        return parts
    ok, value = _literal(arg.code)
    if ok and isinstance(value, (int, float, bool, type(None))):
        return [Text(text=str(value))]
    return [_hole(arg, None)] if arg.code else None


def _hole(arg: Argument, conversion: str | None) -> Hole:
    """The argument as a placeholder, with its value at the raise (a local's value over the
    inputs, the name the guard gives a parameter's rebound value), if collect gave one."""
    return Hole(expr=arg.code, conversion=conversion, value=arg.value)


def _repr_parts(arg: Argument) -> list[Part] | None:
    """``repr(arg)`` as template parts: a string quoted (the way repr quotes a string without
    quotes or backslashes of its own; other strings, and those holding a ``!r``, are not
    followed), anything else ``!r``."""
    if (parts := _string_parts(arg)) is not None:
        if any(isinstance(p, Text) and (set(p.text) & _UNQUOTED or not p.text.isprintable()) for p in parts):
            return None
        if any(isinstance(p, Hole) and p.conversion == "r" for p in parts):
            return None  # a repr inside usually brings quotes, and repr then picks the other kind
        return [Text(text="'"), *parts, Text(text="'")]
    ok, value = _literal(arg.code)
    if ok and isinstance(value, (int, float, bool, type(None))):
        return [Text(text=repr(value))]
    return [_hole(arg, "r")] if arg.code else None


def _fill(template: MessageTemplate, params: tuple[Param, ...] | None, args: list[Argument]) -> MessageTemplate | None:
    """A class's template with the call's arguments in its holes; None where an argument a
    hole needs is not given, or cannot be written as code."""
    bound = _bind(params, args)
    if bound is None:
        return None
    parts: list[Part] = []
    for part in template.parts or ():
        if not isinstance(part, Hole):
            parts.append(part)
            continue
        tree = try_parse_expression(part.expr)
        if tree is None:
            return None
        if isinstance(tree, ast.Name) and tree.id in bound:
            arg = bound[tree.id]
            if part.conversion in (None, "s") and not part.format_spec and (found := _str_parts(arg)) is not None:
                parts.extend(found)
                continue
            if part.conversion == "r" and not part.format_spec and (found := _repr_parts(arg)) is not None:
                parts.extend(found)
                continue
        code = _substituted(tree, bound, {p.name for p in params or ()})
        if code is None:
            return None
        parts.append(Hole(expr=code, conversion=part.conversion, format_spec=part.format_spec))
    return make_template("class:" + template.form, list(merge_parts(parts)))


def _bind(params: tuple[Param, ...] | None, args: list[Argument]) -> dict[str, Argument] | None:
    positional = [a for a in args if a.keyword is None]
    if params is None:  # no __init__: the template reads the call's positional arguments
        return {argument_name(i): a for i, a in enumerate(positional)} if len(positional) == len(args) else None
    bound: dict[str, Argument] = {}
    slots = [p for p in params if p.kind in ("normal", "positional")]
    for param, arg in zip(slots, positional):
        bound[param.name] = arg
    if len(positional) > len(slots):
        return None  # into *args: not followed
    for arg in args:
        if arg.keyword is not None:
            if not any(p.name == arg.keyword and p.kind in ("normal", "keyword") for p in params):
                return None
            bound[arg.keyword] = arg
    for param in params:
        if param.name not in bound and param.default is not None and param.kind in ("normal", "positional", "keyword"):
            ok, value = _literal(param.default)
            message = make_template("plain", [Text(text=value)]) if ok and isinstance(value, str) else None
            bound[param.name] = Argument(code=param.default, message=message)
    return bound


def _substituted(tree: ast.expr, bound: dict[str, Argument], params: set[str]) -> str | None:
    """A hole's expression with each parameter replaced by the argument's code; None when
    one it reads is not given (nor defaulted)."""
    failed = False

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            nonlocal failed
            arg = bound.get(node.id)
            if arg is None:
                if node.id in params or node.id.startswith("__arg"):
                    failed = True
                return node  # a builtin (collect allowed nothing else)
            try:
                return parse_expression(arg.code) if arg.code else _fail()  # (shared: put in the copy, not visited)
            except SyntaxError:
                failed = True
                return node

    def _fail() -> ast.AST:
        nonlocal failed
        failed = True
        return ast.Name(id="_", ctx=ast.Load())

    new = Substitute().visit(copy.deepcopy(tree))  # (a copy: parsed trees are shared, model.pytext)
    return None if failed else ast.unparse(new)
