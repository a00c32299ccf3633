"""Messages as Python renders them: a raise's arguments through its exception class -> the
template of ``str(exc)``.

``str(exc)`` depends on the class. BaseException shows one argument as ``str(arg)``, none as
an empty message and several as the tuple's repr; KeyError shows its one argument's repr;
OSError ``(errno, strerror[, filename])`` shows ``[Errno 2] No such file: 'x'``. Classes of
the tree take part as collect.class_messages read them (ClassText): constructing the
exception runs the first ``__init__`` up the chain with the call's arguments, and each passes
its own on to the next (``super().__init__(message, ctx)``), setting attributes on the way
(``self.message = message``) and finally ``self.args``; then the first ``__str__`` up the
chain makes the text from those (``return self.message``, ``self.args[0] % self.args[1:]``),
or BaseException's shows ``self.args``. Where the chain reaches a class outside the tree, its
rendering is unknown: one argument keeps the plain reading, anything else says so.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ..collect.class_messages import CLASS_NAME, argument_name, attribute_name
from ..collect.formats import percent_fields, percent_tuple_parts
from ..collect.messages import make_template, merge_parts, unknown
from ..model import (
    Argument,
    ClassFact,
    ClassText,
    ExceptionRef,
    Hole,
    InitRule,
    MessageTemplate,
    Param,
    Part,
    RaiseKind,
    Reason,
    SiteFact,
    Text,
    TextRule,
)
from ..model.pytext import parse_expression, try_parse_expression
from .project import BUILTIN_EXCEPTIONS, Project

_STRING_FORMS = ("plain", "fstring", "format", "percent", "concat", "call")
_NEVER_NONE = ("plain", "fstring", "format", "percent", "concat")  # (a call may return None)
_UNQUOTED = frozenset("'\"\\")
_CATCHES = {"TypeError": ("TypeError", "Exception", "BaseException"), "IndexError": ("IndexError", "LookupError", "Exception",
                                                                                      "BaseException")}


def compose(project: Project, exception: ExceptionRef, site: SiteFact, message: MessageTemplate) -> MessageTemplate:
    """The message ``str()`` of the raised exception gives, as a template."""
    if len(exception.classes) != 1 or exception.factory or site.raised.statement.kind == RaiseKind.RERAISE \
            or exception.reason == Reason.RAISED_VARIABLE:
        return message
    if site.raised.is_call and site.raised.passage.arguments is None:
        return message  # a star argument: the count is unknown
    args: list[Argument] = list(site.raised.passage.arguments or ()) if site.raised.is_call else []
    chain = (exception.classes[0], *exception.ancestors)
    built = _construct(project, chain, args)
    return _Text(project, chain, built, message).render(0)


@dataclass
class _Built:
    """What constructing the exception leaves, as far as the tree shows."""

    args: list[Argument] | None  # self.args; None: a class's __init__ sets it in a way not followed
    reason: Reason | None = None  # why args is None
    outside: bool = False  # the chain reaches a class outside the tree (its __init__ and __str__ unknown)
    changed: bool = False  # an __init__ of the tree took the call's arguments
    attributes: dict[str, Argument | None] = field(default_factory=dict)  # self.x set from an argument (None: set twice)
    ran: list[ClassFact] = field(default_factory=list)  # the classes whose __init__ ran


def _construct(project: Project, chain: Sequence[str], call: list[Argument]) -> _Built:
    """Run the chain's ``__init__``s over the call's arguments, as far as the tree shows them."""
    built = _Built(args=call)
    args = call
    for name in chain:
        found = project.class_fact(name) if name not in BUILTIN_EXCEPTIONS else None
        if found is None:
            built.outside = name not in BUILTIN_EXCEPTIONS
            break
        fact = found[1]
        text = fact.text or ClassText()
        if text.init in (InitRule.INHERITED, InitRule.FORWARDS):
            continue
        built.changed = True
        bound = bind_arguments(fact.init, args)
        if bound is None:
            return replace(built, args=None, reason=Reason.CLASS_MESSAGE_UNFILLED)
        params = {p.name for p in fact.init or ()}
        bound = _guarded(_defaulted(bound, text.defaults, params), text, params)
        built.ran.append(fact)
        for attribute, param in fact.init_sets:
            built.attributes[attribute] = bound.get(param) if attribute not in built.attributes else None
        if text.init is InitRule.OPAQUE:
            return replace(built, args=None, reason=Reason.BUILT_BY_CLASS)  # (what it set from its arguments holds)
        if text.init is InitRule.SKIPS:
            built.args = [a for a in call if a.keyword is None]  # BaseException.__new__ keeps the call's positional arguments
            return built
        args = [_passed(a, bound, params) for a in text.passes]
    built.args = args
    return built


def _defaulted(bound: dict[str, Argument], defaults: tuple[tuple[str, Argument], ...], params: set[str]) -> dict[str, Argument]:
    """The arguments once ``if p is None: p = <default>`` ran: the default where the call gives
    None (or nothing), the call's where it gives a string, unknown otherwise."""
    for name, default in defaults:
        arg = bound.get(name)
        if arg is None:
            continue
        ok, value = _literal(arg.code)
        if ok and value is None:
            bound[name] = _passed(default, bound, params)
        elif not (ok or (arg.message is not None and arg.message.parts is not None and arg.message.form in _NEVER_NONE)):
            bound[name] = _unknown_argument(arg.keyword, Reason.CLASS_MESSAGE_UNFILLED)  # which one is not known here
    return bound


def _guarded(bound: dict[str, Argument], text: ClassText, params: set[str]) -> dict[str, Argument]:
    """The arguments once a top-level ``if`` over None tests ran: a parameter it rebinds keeps
    the caller's value where the test is false for the call's arguments, and gets the value the
    ``if`` gives it first where the test is true (ClassText.rebound); otherwise it is not known."""
    given = dict(bound)
    rebound = dict(text.rebound)
    for name, test in text.guarded:
        if name not in bound:
            continue
        holds = _none_test(parse_expression(test), given)
        if holds is True and name in rebound:
            value = _passed(rebound[name], given, params)
            if value.message is not None and "class_base:" in value.message.form:  # (only its start is known)
                value = replace(value, message=replace(value.message, form="class_base:" + value.message.form.split(":")[-1]))
            bound[name] = replace(value, keyword=bound[name].keyword)
        elif holds is not False:
            bound[name] = _unknown_argument(bound[name].keyword, Reason.CLASS_MESSAGE_UNFILLED)  # rebound, or not known
    return bound


def _none_test(test: ast.expr, bound: dict[str, Argument]) -> bool | None:
    """A test of parameters against None (collect.class_messages._is_none_test) for the bound
    arguments; None where an argument's value is not a literal."""
    if isinstance(test, ast.BoolOp):
        values = [_none_test(v, bound) for v in test.values]
        decisive = not isinstance(test.op, ast.And)  # ``and``: one False decides; ``or``: one True
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(test, ast.UnaryOp):
        inner = _none_test(test.operand, bound)
        return None if inner is None else not inner
    if not isinstance(test, ast.Compare) or not isinstance(test.left, ast.Name) or test.left.id not in bound:
        return None
    arg = bound[test.left.id]
    ok, value = _literal(arg.code)
    if not ok and not _not_none(arg, bound.values()):
        return None
    return ok and value is None if isinstance(test.ops[0], ast.Is) else not (ok and value is None)


def _not_none(arg: Argument, others: Iterable[Argument]) -> bool:
    """An argument that cannot be None: a string the call builds, arithmetic over ``len()``
    and numbers, or a value another argument of the call passes to ``len()`` where nothing
    makes that call conditional (``len(None)`` raises before the exception is made)."""
    if arg.message is not None and arg.message.parts is not None and arg.message.form in _NEVER_NONE:
        return True
    tree = try_parse_expression(arg.code) if arg.code else None
    if tree is None:
        return False
    if _is_int(tree):
        return True
    return any(_len_of(other, tree) for other in others)


def _is_int(node: ast.expr) -> bool:
    """``len(x)``, an int literal, or ``+ - *`` of those: an int."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return _is_int(node.left) and _is_int(node.right)
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
        and not node.keywords


def _len_of(other: Argument, value: ast.expr) -> bool:
    """``len(<value>)`` in the argument's code, outside any part evaluated only sometimes."""
    tree = try_parse_expression(other.code) if other.code else None
    wanted = ast.dump(value)
    stack: list[ast.AST] = [tree] if tree is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Call) and _is_int(node) and ast.dump(node.args[0]) == wanted:
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _passed(arg: Argument, bound: dict[str, Argument], params: set[str]) -> Argument:
    """An argument an ``__init__`` passes on, over its parameters, with the ones it was given."""
    tree = try_parse_expression(arg.code) if arg.code else None
    if isinstance(tree, ast.Name) and tree.id in bound:
        return replace(bound[tree.id], keyword=arg.keyword)  # passed on as it is
    code = substituted(tree, bound, params) if tree is not None else None
    message = _fill(arg.message, bound, params) if arg.message is not None else None
    if not code and message is None:
        return _unknown_argument(arg.keyword, _why(arg.message, bound) if arg.message is not None else Reason.BUILT_BY_CLASS)
    return Argument(code=code or "", keyword=arg.keyword, message=message)


def _unknown_argument(keyword: str | None, reason: Reason) -> Argument:
    """An argument whose value the tool does not know, and why (its message's reason)."""
    return Argument(code="", keyword=keyword, message=unknown("class", reason))


def _why(template: MessageTemplate, bound: dict[str, Argument]) -> Reason:
    """Why ``template`` could not be filled: the class reads what the tool does not follow
    (an attribute, an argument it made in a way not followed), or the call's arguments do not
    settle it."""
    for part in template.parts or ():
        tree = try_parse_expression(part.expr) if isinstance(part, Hole) else None
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, ast.Name):
                continue
            if node.id.startswith("__self_") and node.id not in bound:
                return Reason.BUILT_BY_CLASS
            found = bound.get(node.id)
            if found is not None and found.message is not None and found.message.reason in (Reason.BUILT_BY_CLASS,
                                                                                            Reason.CLASS_MESSAGE_UNFILLED):
                return Reason(found.message.reason)
    return Reason.CLASS_MESSAGE_UNFILLED


class _Text:
    """``str(exc)``: the first ``__str__`` up the chain, over what construction left."""

    def __init__(self, project: Project, chain: Sequence[str], built: _Built, message: MessageTemplate) -> None:
        self.project, self.chain, self.built, self.message = project, chain, built, message

    def render(self, start: int) -> MessageTemplate:
        for index in range(start, len(self.chain)):
            name = self.chain[index]
            if name in BUILTIN_EXCEPTIONS:
                return self.builtin(BUILTIN_EXCEPTIONS[name])
            found = self.project.class_fact(name)
            if found is None:
                return self.outside()
            text = found[1].text
            if text is None or text.text is None:
                continue
            if text.text is TextRule.EXTENDS:
                return _marked(self.render(index + 1))
            if text.text is TextRule.TEMPLATE and text.template is not None:
                return self.own(text.template)
            if text.text is TextRule.PERCENT_ARGS:
                return self.percent(text, index)
            if text.text is TextRule.REPR:
                return self.repr()
            return unknown("class", Reason.BUILT_BY_CLASS)
        return self.outside()  # (the chain's top is not known)

    def repr(self) -> MessageTemplate:
        """``object.__str__``: ``repr(exc)``, the first ``__repr__`` up the chain, or
        BaseException's ``ClassName(<repr of self.args>)``."""
        for name in self.chain:
            found = self.project.class_fact(name) if name not in BUILTIN_EXCEPTIONS else None
            if found is None:
                return unknown("class", Reason.CLASS_OUTSIDE_TREE) if name not in BUILTIN_EXCEPTIONS else self.base_repr()
            text = found[1].text or ClassText()
            if text.repr is TextRule.TEMPLATE and text.repr_template is not None:
                return self.own(text.repr_template)
            if text.repr is not None:
                return unknown("class", Reason.REPR_BY_CLASS)
        return unknown("class", Reason.CLASS_OUTSIDE_TREE)

    def base_repr(self) -> MessageTemplate:
        """BaseException's repr: the class's name, then ``(repr(arg))`` for one argument, the
        tuple's repr for several, ``()`` for none."""
        args = self.args()
        if isinstance(args, MessageTemplate):
            return args
        if any(a.keyword is not None for a in args):
            return unknown("class", Reason.BUILT_BY_CLASS)  # (builtin exceptions take no keywords)
        parts: list[Part] = [Text(text=self.chain[0].rsplit(".", 1)[-1] + "(")]
        for index, arg in enumerate(args):
            piece = _repr_parts(arg) or ([_hole(arg, "r")] if arg.code else None)  # (a string whose quotes are not known: its repr)
            if piece is None:
                return unknown("class", Reason.CLASS_MESSAGE_UNFILLED)
            parts.extend([*([Text(text=", ")] if index else []), *piece])
        return make_template("class:repr", list(merge_parts([*parts, Text(text=")")])))

    def args(self) -> list[Argument] | MessageTemplate:
        if self.built.args is None:
            return unknown("class", self.built.reason or Reason.BUILT_BY_CLASS)
        return self.built.args

    def builtin(self, mro: Sequence[str]) -> MessageTemplate:
        args = self.args()
        if isinstance(args, MessageTemplate):
            return args
        if not self.built.changed:
            return _builtin(mro, args, self.message)
        positional = [a for a in args if a.keyword is None]
        message = positional[0].message if len(positional) == 1 else None
        if len(positional) == 1 and (message is None or message.parts is None):
            return message or unknown("class", Reason.BUILT_BY_CLASS)  # (the argument's own reason)
        return _as_class(_builtin(mro, args, message or self.message))

    def outside(self) -> MessageTemplate:
        args = self.args()
        if isinstance(args, MessageTemplate):
            return args
        positional = [a for a in args if a.keyword is None]
        if len(positional) != 1:
            return _unknown_for(self.message, args)
        if not self.built.changed:
            return self.message
        message = positional[0].message
        if message is None or message.parts is None:
            return message or unknown("class", Reason.BUILT_BY_CLASS)  # (the argument's own reason)
        return _as_class(message)

    def own(self, template: MessageTemplate) -> MessageTemplate:
        """A ``__str__`` template over the attributes and ``self.args``."""
        bound: dict[str, Argument] = {}
        for attribute in self.built.attributes:
            if (found := self.attribute(attribute)) is not None:
                bound[attribute_name(attribute)] = found
        if self.built.args is not None and not self.built.outside:
            bound.update((argument_name(i), a) for i, a in enumerate(a for a in self.built.args if a.keyword is None))
        simple = self.chain[0].rsplit(".", 1)[-1]
        bound[CLASS_NAME] = Argument(code=repr(simple), message=make_template("plain", [Text(text=simple)]))
        filled = _fill(template, bound, set())
        return filled if filled is not None else unknown("class", self.built.reason or _why(template, bound))

    def attribute(self, name: str) -> Argument | None:
        """What ``self.<name>`` holds once built: the argument the one ``__init__`` that sets it
        gave it, unless another method of the chain may set it first or reads it as a method."""
        value = self.built.attributes.get(name)
        facts = [found[1] for c in self.chain if c not in BUILTIN_EXCEPTIONS and (found := self.project.class_fact(c)) is not None]
        if value is None or any(name == method for fact in facts for method, _ in fact.methods):
            return None
        called = {method for fact in self.built.ran for method in fact.init_calls}
        stores = [store for fact in self.built.ran for attribute, store in fact.stores if attribute == name and store.method == "__init__"]
        if len(stores) != 1 or any(a == name and s.method in called for fact in facts for a, s in fact.stores):
            return None
        return value

    def percent(self, text: ClassText, index: int) -> MessageTemplate:
        """``self.args[0] % self.args[1:]``: the format's text with the other arguments in its
        fields; the base's text where the format fails and the ``try`` catches that."""
        args = self.args()
        if isinstance(args, MessageTemplate) or self.built.outside:
            return args if isinstance(args, MessageTemplate) else unknown("class", Reason.CLASS_OUTSIDE_TREE)
        positional = [a for a in args if a.keyword is None]
        if not positional:
            return self.fallback(text, index, "IndexError")
        first = _string_parts(positional[0])
        if first is None or any(isinstance(p, Hole) for p in first):
            return unknown("class", Reason.CLASS_MESSAGE_UNFILLED)  # the format is not a literal: its fields are not known
        literal = "".join(p.text for p in first if isinstance(p, Text))
        fields = percent_fields(literal)
        if fields is None:
            return unknown("class", Reason.BUILT_BY_CLASS)
        if len(fields) != len(positional) - 1:
            return self.fallback(text, index, "TypeError")  # not all arguments converted, or not enough
        if any(kind not in "rsa" and not _is_number(arg) for kind, arg in zip(fields, positional[1:])):
            return unknown("class", Reason.CLASS_MESSAGE_UNFILLED)  # %d of a value that may not be a number
        holes = [argument_name(i + 1) for i in range(len(fields))]
        template = make_template("percent", percent_tuple_parts(literal, holes))
        bound = {argument_name(i): a for i, a in enumerate(positional)}
        filled = _fill(template, bound, set())
        return filled if filled is not None else unknown("class", _why(template, bound))

    def fallback(self, text: ClassText, index: int, error: str) -> MessageTemplate:
        if any(name in _CATCHES[error] for name in text.fallback):
            return _as_class(self.render(index + 1))
        return unknown("class", Reason.BUILT_BY_CLASS)  # str() itself raises


def _is_number(arg: Argument) -> bool:
    ok, value = _literal(arg.code)
    return ok and type(value) in (int, float)


def _as_class(message: MessageTemplate) -> MessageTemplate:
    """A text the classes of the tree made from the call's arguments (form ``class:``)."""
    if message.parts is None or message.form.startswith(("class:", "class_base:")):
        return message
    return replace(message, form="class:" + message.form)


def _marked(message: MessageTemplate) -> MessageTemplate:
    """A text a class's __str__ builds on: the start of the message (form ``class_base:``)."""
    if message.parts is None:
        return message
    return replace(message, form="class_base:" + message.form.removeprefix("class:"))


def _unknown_for(message: MessageTemplate, args: list[Argument]) -> MessageTemplate:
    return message if message.parts is None else unknown("multiple_args" if args else "none", Reason.CLASS_OUTSIDE_TREE)


def _builtin(mro: Sequence[str], args: list[Argument], message: MessageTemplate) -> MessageTemplate:
    if any(a.keyword is not None for a in args):
        return message  # builtin exceptions take no keywords (the call itself fails)
    if not args:
        if "SyntaxError" in mro:
            return make_template("none", [Text(text="None")])  # (its own __str__: str(SyntaxError()) == "None")
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
    if "BaseExceptionGroup" in mro and len(args) == 2:
        return _group(args, message)
    if any(name in mro for name in ("OSError", "UnicodeError", "SyntaxError", "BaseExceptionGroup")):
        return message  # a __str__ of their own, not followed for these arguments
    parts: list[Part] = [Text(text="(")]
    for index, arg in enumerate(args):
        piece = _repr_parts(arg)
        if piece is None:
            return message
        parts.extend([*([Text(text=", ")] if index else []), *piece])
    return make_template("args", [*parts, Text(text=")")])


def _group(args: list[Argument], message: MessageTemplate) -> MessageTemplate:
    """An exception group's ``str``: ``'invalid metadata (2 sub-exceptions)'``, where the group's
    exceptions are a list or tuple written out (their count is then known); else ``message``."""
    text = _str_parts(args[0])
    listed = try_parse_expression(args[1].code)
    if text is None or not isinstance(listed, (ast.List, ast.Tuple)) or not listed.elts \
            or any(isinstance(e, ast.Starred) for e in listed.elts):
        return message  # (the count, and so the text's plural, is not known)
    count = len(listed.elts)
    return make_template("group", [*text, Text(text=f" ({count} sub-exception{'s' if count > 1 else ''})")])


def _string_parts(arg: Argument) -> list[Part] | None:
    """The argument's parts when it is a string: a string message, or what a class's
    ``__init__`` made (no code of its own)."""
    message = arg.message
    if message is None or message.parts is None or message.form.startswith("class_base:"):
        return None  # (only the start of the text: not to be put inside another)
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


def _fill(template: MessageTemplate, bound: dict[str, Argument], params: set[str]) -> MessageTemplate | None:
    """A class's template with the arguments bound to its names in its holes; None where an
    argument a hole needs is not given, or cannot be written as code."""
    return fill_template(template, bound, params, "class:")


def fill_template(template: MessageTemplate, bound: dict[str, Argument], params: set[str], prefix: str) -> MessageTemplate | None:
    """A template over ``params`` with the arguments ``bound`` to them in its holes (its form
    prefixed with ``prefix``, once); None where a hole reads a parameter not bound, or cannot be
    written as code."""
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
        code = substituted(tree, bound, params)
        if code is None:
            return None
        parts.append(Hole(expr=code, conversion=part.conversion, format_spec=part.format_spec))
    return make_template(prefix + template.form.removeprefix(prefix), list(merge_parts(parts)))


def bind_arguments(params: tuple[Param, ...] | None, args: list[Argument]) -> dict[str, Argument] | None:
    positional = [a for a in args if a.keyword is None]
    if params is None:  # no __init__: the template reads the call's positional arguments
        return {argument_name(i): a for i, a in enumerate(positional)} if len(positional) == len(args) else None
    bound: dict[str, Argument] = {}
    slots = [p for p in params if p.kind in ("normal", "positional")]
    for param, arg in zip(slots, positional):
        bound[param.name] = arg
    if len(positional) > len(slots):
        star = next((p for p in params if p.kind == "star"), None)
        if star is None or any(not a.code for a in positional[len(slots):]):
            return None
        bound[star.name] = Argument(code="(" + "".join(a.code + ", " for a in positional[len(slots):]).rstrip() + ")")
    for arg in args:
        if arg.keyword is not None:
            if not any(p.name == arg.keyword and p.kind in ("normal", "keyword") for p in params):
                return None
            bound[arg.keyword] = arg
    for param in params:
        if param.name not in bound and param.default is None and param.kind in ("normal", "positional", "keyword"):
            return None  # a required argument not given: the call itself raises TypeError
        if param.name not in bound and param.default is not None and param.kind in ("normal", "positional", "keyword"):
            ok, value = _literal(param.default)
            message = make_template("plain", [Text(text=value)]) if ok and isinstance(value, str) else None
            bound[param.name] = Argument(code=param.default, message=message)
    return bound


def substituted(tree: ast.expr, bound: dict[str, Argument], params: set[str]) -> str | None:
    """A hole's expression with each parameter replaced by the argument's code; None when
    one it reads is not given (nor defaulted)."""
    failed = False

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            nonlocal failed
            arg = bound.get(node.id)
            if arg is None:
                if node.id in params or node.id.startswith(("__arg", "__self_")) or node.id == CLASS_NAME:
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
