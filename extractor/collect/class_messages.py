"""How an exception class in the tree takes part in ``str(exc)`` -> ClassText: what its
``__init__`` passes to its base's (``super().__init__(message, ctx)``, ``if hint is None: hint
= ...`` first), and what its ``__str__`` returns (``self.message``, an f-string over the
attributes, ``self.args[0] % self.args[1:]``, or text added to ``super().__str__()``). Holes
are written over the ``__init__``'s parameters, or in ``__str__`` over ``__self_<attr>__``
(``self.<attr>``), ``__arg<i>__`` (``self.args[i]``) and ``__class_name__``, so that linking
can follow a raise's own arguments through the chain of classes (link.messages).

Read from ``ast`` (the class body) and libcst (the message expression, by the same
reconstruction as a raise's message); nothing is run.
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from ..model import Argument, ClassText, Detailed, Hole, InitRule, MessageTemplate, Param, Reason, TextRule
from .declarations import SourceText
from .messages import make_template, reconstruct_message
from .scope import raw_code
from .syntax import walk

_BUILTINS = frozenset(dir(builtins))
Function = ast.FunctionDef | ast.AsyncFunctionDef
CLASS_NAME = "__class_name__"  # ``type(self).__name__``, ``self.__class__.__name__``: the raised class's name


def argument_name(index: int) -> str:
    """The name a class template gives ``self.args[index]``."""
    return f"__arg{index}__"


def attribute_name(attribute: str) -> str:
    """The name a ``__str__`` template gives ``self.<attribute>``."""
    return f"__self_{attribute}__"


def class_text(node: ast.ClassDef, src: SourceText, init: tuple[Param, ...] | None) -> ClassText:
    """How the class takes part in ``str()`` of an exception (see ClassText)."""
    methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = ClassText()
    if "__init__" in methods:
        found = _from_init(methods["__init__"], src, init)
    if "__str__" in methods:
        text, template, fallback = _from_str(methods["__str__"], src)
        found = replace(found, text=text, template=template, fallback=fallback)
    if "__repr__" in methods:
        text, template, _ = _from_str(methods["__repr__"], src)
        found = replace(found, repr=text if text is TextRule.TEMPLATE else TextRule.OPAQUE, repr_template=template)
    for s in node.body:
        if isinstance(s, ast.Assign) and any(_is_name(t, "__str__") for t in s.targets):
            # ``__str__ = object.__str__`` (xmlrpc.client.Error): str() shows repr(exc)
            found = replace(found, text=TextRule.REPR if _is_object_str(s.value) else TextRule.OPAQUE, template=None)
    return found


def _is_object_str(node: ast.expr) -> bool:
    """``object.__str__``, whose text is ``repr(self)``."""
    return isinstance(node, ast.Attribute) and node.attr == "__str__" and _is_name(node.value, "object")


def _body(method: Function) -> list[ast.stmt]:
    return [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # no docstring


def _from_str(method: Function, src: SourceText) -> tuple[TextRule, MessageTemplate | None, tuple[str, ...]]:
    body = _body(method)
    this = method.args.args[0].arg if method.args.args else None
    if this is None:
        return TextRule.OPAQUE, None, ()
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        if _is_percent_args(body[0].value, this):
            return TextRule.PERCENT_ARGS, None, ()
        rule = _template(body[0].value, src, lambda node: _self_read(node, this), set(), {})
        if rule is not None:
            return TextRule.TEMPLATE, rule, ()
    elif len(body) == 1 and isinstance(body[0], ast.Try) and (caught := _percent_fallback(body[0], this)) is not None:
        return TextRule.PERCENT_ARGS, None, caught
    return (TextRule.EXTENDS if _calls_base_str(method) else TextRule.OPAQUE), None, ()


def _self_read(node: ast.expr, this: str) -> str | None:
    """The name a ``__str__`` hole gives what ``node`` reads of the exception: ``self.x``,
    ``self.args[i]``, its class's name; None for anything else."""
    if isinstance(node, ast.Attribute) and node.attr == "__name__" and (
            (isinstance(node.value, ast.Attribute) and node.value.attr == "__class__" and _is_name(node.value.value, this))
            or (isinstance(node.value, ast.Call) and _is_name(node.value.func, "type") and len(node.value.args) == 1
                and not node.value.keywords and _is_name(node.value.args[0], this))):
        return CLASS_NAME
    if isinstance(node, ast.Attribute) and _is_name(node.value, this):
        return attribute_name(node.attr)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "args" \
            and _is_name(node.value.value, this) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
            and node.slice.value >= 0:
        return argument_name(node.slice.value)
    return None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_args(node: ast.expr, this: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "args" and _is_name(node.value, this)


def _is_percent_args(node: ast.expr, this: str) -> bool:
    """``self.args[0] % self.args[1:]`` (python-dateutil's ParserError)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
        return False
    left, right = node.left, node.right
    return (isinstance(left, ast.Subscript) and _is_args(left.value, this) and isinstance(left.slice, ast.Constant)
            and left.slice.value == 0 and type(left.slice.value) is int
            and isinstance(right, ast.Subscript) and _is_args(right.value, this) and isinstance(right.slice, ast.Slice)
            and isinstance(right.slice.lower, ast.Constant) and right.slice.lower.value == 1 and type(right.slice.lower.value) is int
            and right.slice.upper is None and right.slice.step is None)


def _percent_fallback(block: ast.Try, this: str) -> tuple[str, ...] | None:
    """``try: return self.args[0] % self.args[1:]`` whose every handler returns the base's text:
    the names of the exceptions they catch; None for any other ``try``."""
    body = _body_of(block.body)
    if block.orelse or block.finalbody or len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None \
            or not _is_percent_args(body[0].value, this):
        return None
    caught: list[str] = []
    for handler in block.handlers:
        inner = _body_of(handler.body)
        if len(inner) != 1 or not isinstance(inner[0], ast.Return) or inner[0].value is None or not _is_base_str(inner[0].value):
            return None
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type is not None else []
        if handler.type is None:
            caught.append("BaseException")
        for kind in types:
            if not isinstance(kind, ast.Name):
                return None
            caught.append(kind.id)
    return tuple(caught)


def _body_of(statements: list[ast.stmt]) -> list[ast.stmt]:
    return [s for s in statements if not isinstance(s, ast.Pass)]


def _is_base_str(node: ast.expr) -> bool:
    """``super().__str__()`` (or ``super(C, self).__str__()``)."""
    return isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "__str__" and _is_super(node.func)


def _calls_base_str(method: Function) -> bool:
    """``super().__str__()`` in it: the text is the base's, perhaps with more added."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__str__" and _is_super(n.func)
               for n in walk(method))


def _from_init(method: Function, src: SourceText, init: tuple[Param, ...] | None) -> ClassText:
    calls: list[ast.Call] = []
    assigns_args = False
    for n in walk(method):
        if isinstance(n, ast.Call) and _is_base_init(n):
            calls.append(n)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                isinstance(t, ast.Attribute) and t.attr == "args" for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
            assigns_args = True
    if assigns_args or init is None:
        return ClassText(init=InitRule.OPAQUE)
    if not calls:
        return ClassText(init=InitRule.SKIPS)  # BaseException.__new__ keeps the call's arguments as args
    top = [s.value for s in method.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _is_base_init(s.value)]
    if len(calls) != 1 or len(top) != 1:
        return ClassText(init=InitRule.OPAQUE)
    call = top[0]
    args = call.args[1:] if not _is_super(call.func) else call.args  # Base.__init__(self, ...)
    if _forwards(args, call.keywords, init):
        return ClassText(init=InitRule.FORWARDS)  # super().__init__(*args, **kwargs)
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in call.keywords):
        return ClassText(init=InitRule.OPAQUE)
    return _passes(method, src, init, call, args)


def _forwards(args: list[ast.expr], keywords: list[ast.keyword], init: tuple[Param, ...]) -> bool:
    star = next((p.name for p in init if p.kind == "star"), None)
    starstar = next((p.name for p in init if p.kind == "starstar"), None)
    passed_on = [k for k in keywords if not (k.arg is None and isinstance(k.value, ast.Name) and k.value.id == starstar)]
    return len(args) == 1 and isinstance(args[0], ast.Starred) and isinstance(args[0].value, ast.Name) and args[0].value.id == star \
        and not passed_on


def _passes(method: Function, src: SourceText, init: tuple[Param, ...], call: ast.Call, args: list[ast.expr]) -> ClassText:
    """A ``__init__`` that calls its base's once: the arguments it passes, over its parameters."""
    this = method.args.args[0].arg if method.args.args else "self"
    names = {p.name for p in init}
    defaulted = _none_defaults(method, call.lineno, names)
    guarded = _guarded(method, call.lineno, names, set(defaulted))
    stored = {n.id for n in walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    params = names - (stored - set(defaulted) - {name for name, _ in guarded})  # a parameter rebound otherwise is not the caller's value
    locals_ = _single_locals(method, call.lineno)
    sets = _attributes_set(method, this, call.lineno, params)

    def attribute(node: ast.expr) -> str | None:
        return sets.get(node.attr) if isinstance(node, ast.Attribute) and _is_name(node.value, this) else None

    def argument(expr: ast.expr, keyword: str | None) -> Argument:
        code = _rewrite(src.segment(expr), attribute, params, locals_)  # (None where it reads a name of the module: gettext's ``_``)
        return Argument(code=code or "", keyword=keyword, message=_template(expr, src, attribute, params, locals_))

    passes = [argument(a, None) for a in args] + [argument(k.value, k.arg) for k in call.keywords]
    defaults = tuple((name, argument(value, None)) for name, value in sorted(defaulted.items()))
    rebound = []
    for name, when in guarded:
        if (found := _rebound(method, name, when)) is not None:
            value, grows = found
            made = argument(value, None)
            if made.message is not None and made.message.parts is not None:
                form = ("class_base:" if grows else "") + made.message.form
                rebound.append((name, Argument(code="" if grows else made.code, message=replace(made.message, form=form))))
    return ClassText(init=InitRule.PASSES, passes=tuple(passes), defaults=defaults, guarded=tuple(guarded), rebound=tuple(rebound))


def _rebound(method: Function, name: str, when: str) -> tuple[ast.expr, bool] | None:
    """The value a top-level ``if`` (whose test is ``when``) gives ``name`` first, by a
    statement of its body, and whether a nested statement may then add to its end (each later
    store a ``name = <text starting with name>`` inside a nested ``if``); None otherwise."""
    stmt = next((s for s in method.body if isinstance(s, ast.If) and ast.unparse(s.test) == when), None)
    if stmt is None:
        return None
    first = next((s for s in stmt.body if _stores(s, name)), None)
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and _is_name(first.targets[0], name)):
        return None
    later = [s for s in stmt.body[stmt.body.index(first) + 1:] if _stores(s, name)]
    if not all(isinstance(s, ast.If) and all(_extends(n, name) for n in walk(s) if isinstance(n, ast.Assign) and _stores(n, name))
               for s in later):
        return None
    return first.value, bool(later)


def _stores(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)) for n in walk(node))


def _extends(assign: ast.Assign, name: str) -> bool:
    """``name = '%s ...' % (name, ...)`` or ``name = f"{name}..."``: text added after name's."""
    value = assign.value
    if len(assign.targets) != 1 or not _is_name(assign.targets[0], name):
        return False
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mod) and isinstance(value.left, ast.Constant) \
            and isinstance(value.left.value, str) and value.left.value.startswith("%s") and isinstance(value.right, ast.Tuple) \
            and value.right.elts and _is_name(value.right.elts[0], name):
        return True
    return isinstance(value, ast.JoinedStr) and bool(value.values) and isinstance(first := value.values[0], ast.FormattedValue) \
        and _is_name(first.value, name) and first.conversion == -1 and first.format_spec is None


def _guarded(method: Function, before: int, params: set[str], defaulted: set[str]) -> list[tuple[str, str]]:
    """Parameters rebound only in one top-level ``if`` before line ``before`` whose test only
    compares parameters with None: (p, the test under which p is rebound)."""
    found: dict[str, str | None] = {}
    for stmt in method.body:
        if not isinstance(stmt, ast.If) or stmt.lineno >= before or not _is_none_test(stmt.test, params):
            continue
        test = ast.unparse(stmt.test)
        for branch, when in ((stmt.body, test), (stmt.orelse, f"not ({test})")):
            for name in {n.id for s in branch for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}:
                if name in params and name not in defaulted:
                    found[name] = when if name not in found else None  # (rebound in two places: not followed)
    elsewhere = {n.id for s in method.body if not (isinstance(s, ast.If) and s.lineno < before and _is_none_test(s.test, params))
                 for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    return sorted((name, when) for name, when in found.items() if when is not None and name not in elsewhere)


def _is_none_test(test: ast.expr, params: set[str]) -> bool:
    """``p is None``, ``p is not None``, and ``and``/``or``/``not`` of them, over parameters."""
    if isinstance(test, ast.BoolOp):
        return all(_is_none_test(v, params) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_none_test(test.operand, params)
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
        and isinstance(test.left, ast.Name) and test.left.id in params and isinstance(test.comparators[0], ast.Constant) \
        and test.comparators[0].value is None


def _none_defaults(method: Function, before: int, params: set[str]) -> dict[str, ast.expr]:
    """``if p is None: p = <value>`` at the top of the method before line ``before``, for a
    parameter bound nowhere else in it: p -> value."""
    found: dict[str, ast.expr] = {}
    for stmt in method.body:
        if isinstance(stmt, ast.If) and stmt.lineno < before and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(test := stmt.test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id in params \
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value is None and isinstance(assign := stmt.body[0], ast.Assign) and len(assign.targets) == 1 \
                and _is_name(assign.targets[0], test.left.id):
            found[test.left.id] = assign.value
    stores: dict[str, int] = {}
    for n in walk(method):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
    return {name: value for name, value in found.items() if stores.get(name) == 1}


def _attributes_set(method: Function, this: str, before: int, params: set[str]) -> dict[str, str]:
    """``self.x = p`` at the top of the method before line ``before``, p a parameter: x -> p."""
    sets: dict[str, str] = {}
    for stmt in method.body:
        if stmt.lineno >= before:
            break
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        for target in targets:
            if isinstance(target, ast.Attribute) and _is_name(target.value, this):
                if isinstance(value, ast.Name) and value.id in params:
                    sets[target.attr] = value.id
                else:
                    sets.pop(target.attr, None)
    return sets


def _is_super(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) \
        and func.value.func.id == "super"


def _is_base_init(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"


def _single_locals(method: Function, before: int) -> dict[str, ast.expr]:
    """Names bound once in the method, by a top-level assignment before line ``before``."""
    counts: dict[str, int] = {}
    for node in walk(method):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    found = {}
    for stmt in method.body:
        if (isinstance(stmt, ast.Assign) and stmt.lineno < before and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and counts.get(stmt.targets[0].id) == 1):
            found[stmt.targets[0].id] = stmt.value
    return found


def _template(expr: ast.expr, src: SourceText, attribute: Callable[[ast.expr], str | None], params: set[str], locals_: dict[str,
    ast.expr]) -> MessageTemplate | None:
    """The message ``expr`` builds, each hole rewritten over parameters (``attribute`` maps
    ``self.x`` reads); None where a hole reads anything else but builtins."""
    def parse(node: ast.expr) -> cst.BaseExpression:
        return cst.parse_expression("(" + src.segment(node) + ")")

    def resolve(name: cst.Name) -> cst.BaseExpression:
        if name.value in locals_:
            return parse(locals_[name.value])
        return name  # a parameter

    try:
        node = parse(expr)
        message = reconstruct_message(node, raw_code, resolve)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    if message.parts is None and isinstance(message.reason, Detailed) and message.reason.code is Reason.OPAQUE:
        message = make_template("call", [Hole(expr=raw_code(node))])  # not a string: str() of it
    if message.parts is None:
        return None
    parts = []
    for part in message.parts:
        if isinstance(part, Hole):
            rewritten = _rewrite(part.expr, attribute, params, locals_)
            if rewritten is None:
                return None
            part = replace(part, expr=rewritten)
        parts.append(part)
    return make_template(message.form, parts)


def _rewrite(code: str, attribute: Callable[[ast.expr], str | None], params: set[str], locals_: dict[str, ast.expr]) -> str | None:
    """A hole's expression over parameters only (a local bound once before is replaced by
    its value), or None."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None

    class Rewrite(ast.NodeTransformer):
        failed = False
        depth = 0

        def visit(self, node: ast.AST) -> ast.AST:
            if isinstance(node, (ast.Attribute, ast.Subscript)) and (name := attribute(node)) is not None:
                return ast.Name(id=name, ctx=ast.Load())
            if isinstance(node, ast.Name) and node.id in locals_ and node.id not in params and self.depth < 4:
                self.depth += 1
                value = self.visit(copy.deepcopy(locals_[node.id]))
                self.depth -= 1
                return value
            if isinstance(node, ast.Name) and node.id not in params and node.id not in _BUILTINS:
                self.failed = True
            if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.comprehension)):
                self.failed = True
            return super().generic_visit(node)

    rewrite = Rewrite()
    new = rewrite.visit(tree)
    return None if rewrite.failed else ast.unparse(new)
