"""How an exception class in the tree makes its message: ``__str__`` returning a template, or
``__init__`` passing one to ``super().__init__`` (``calendar.IllegalMonthError``: "bad month
number %r; must be 1-12" % self.month). The template's holes are written over the
``__init__``'s parameters (``self.month`` -> ``month``) or the call's positional arguments
(``self.args[0]`` -> ``__arg0__``), so that linking can put a raise's own arguments in them.

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

from ..model import Detailed, Hole, MessageTemplate, Param, Reason
from .declarations import SourceText
from .messages import make_template, reconstruct_message
from .scope import raw_code
from .syntax import walk

_BUILTINS = frozenset(dir(builtins))
Rule = tuple[str, MessageTemplate | None]
TRANSPARENT: Rule = ("transparent", None)
OPAQUE: Rule = ("opaque", None)


def argument_name(index: int) -> str:
    """The name a class template gives the call's positional argument ``index``."""
    return f"__arg{index}__"


def class_message(node: ast.ClassDef, src: SourceText, init: tuple[Param, ...] | None, init_sets: tuple[tuple[str, str], ...]) -> Rule:
    """The class's message rule (see ClassFact.message_rule) and its template."""
    methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "__str__" in methods:
        found = _from_str(methods["__str__"], src, init, dict(init_sets))
        if found == OPAQUE and _calls_base_str(methods["__str__"]):
            return ("extends", None) if "__init__" not in methods else _extends(_from_init(methods["__init__"], src, init))
        return found
    if "__init__" not in methods:
        return TRANSPARENT
    return _from_init(methods["__init__"], src, init)


def _from_str(method: ast.FunctionDef | ast.AsyncFunctionDef, src: SourceText, init: tuple[Param, ...] | None, sets: dict[str,
                                                                                                                          str]) -> Rule:
    body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # no docstring
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None or not method.args.args:
        return OPAQUE
    this = method.args.args[0].arg

    def attribute(node: ast.expr) -> str | None:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == this:
            return sets.get(node.attr)  # set from an __init__ parameter, else not followed
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "args" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == this and init is None \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int and node.slice.value >= 0:
            return argument_name(node.slice.value)  # no __init__: self.args is the call's arguments
        return None

    return _template(body[0].value, src, attribute, set(), {})


def _calls_base_str(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``super().__str__()`` in it: the text is BaseException's, perhaps with more added."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__str__" and _is_super(n.func)
               for n in walk(method))


def _extends(init_rule: Rule) -> Rule:
    """A __str__ building on the text its __init__ passes on: that text, marked as a start."""
    return ("extends", None) if init_rule == TRANSPARENT else ("extends", init_rule[1]) if init_rule[0] == "template" else OPAQUE


def _from_init(method: ast.FunctionDef | ast.AsyncFunctionDef, src: SourceText, init: tuple[Param, ...] | None) -> Rule:
    calls: list[ast.Call] = []
    assigns_args = False
    for n in walk(method):
        if isinstance(n, ast.Call) and _is_base_init(n):
            calls.append(n)
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "args" for t in n.targets):
            assigns_args = True
    if assigns_args or init is None:
        return OPAQUE
    if not calls:
        return TRANSPARENT  # BaseException.__new__ keeps the call's arguments as args
    top = [s.value for s in method.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _is_base_init(s.value)]
    if len(calls) != 1 or len(top) != 1:
        return OPAQUE
    call = top[0]
    args = call.args[1:] if not _is_super(call.func) else call.args  # Base.__init__(self, ...)
    params = {p.name for p in init}
    star = next((p.name for p in init if p.kind == "star"), None)
    starstar = next((p.name for p in init if p.kind == "starstar"), None)
    passed_on = [k for k in call.keywords if not (k.arg is None and isinstance(k.value, ast.Name) and k.value.id == starstar)]
    if len(args) == 1 and isinstance(args[0], ast.Starred) and isinstance(args[0].value,
                                                                          ast.Name) and args[0].value.id == star and not passed_on:
        return TRANSPARENT  # super().__init__(*args, **kwargs)
    if len(args) != 1 or isinstance(args[0], ast.Starred) or call.keywords:
        return OPAQUE
    locals_ = _single_locals(method, call.lineno)
    return _template(args[0], src, lambda node: None, params, locals_)


def _is_super(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) \
        and func.value.func.id == "super"


def _is_base_init(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"


def _single_locals(method: ast.FunctionDef | ast.AsyncFunctionDef, before: int) -> dict[str, ast.expr]:
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
    ast.expr]) -> Rule:
    """The message ``expr`` builds, each hole rewritten over parameters (``attribute`` maps
    ``self.x`` reads); opaque where a hole reads anything else but builtins."""
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
        return OPAQUE
    if message.parts is None and isinstance(message.reason, Detailed) and message.reason.code is Reason.OPAQUE:
        message = make_template("call", [Hole(expr=raw_code(node))])  # not a string: str() of it
    if message.parts is None:
        return OPAQUE
    parts = []
    for part in message.parts:
        if isinstance(part, Hole):
            rewritten = _rewrite(part.expr, attribute, params, locals_)
            if rewritten is None:
                return OPAQUE
            part = replace(part, expr=rewritten)
        parts.append(part)
    return "template", make_template(message.form, parts)


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
