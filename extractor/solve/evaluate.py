"""The restricted evaluator: Python source (guards, templates, generated validators) -> values.

A compiler from ``ast`` to closures, with an allow-list: literals, boolean logic, comparisons,
arithmetic, subscripts, f-strings, a few pure builtins and ``str`` methods, and names or
attribute paths looked up in an environment of plain values. Nothing from the analysed
tree is imported or called; anything outside the allow-list raises ``EvalError``.
"""

from __future__ import annotations

import ast
import operator
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..collect.declarations import dotted_name
from .values import StableFrozenSet, StableSet

_MAX_SIZE = 100_000
_BUILTIN_TYPES: dict[str, type] = {
    "int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
    "tuple": tuple, "set": set, "frozenset": frozenset, "bytes": bytes, "type(None)": type(None),
}
PURE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "abs": abs, "min": min, "max": max, "bool": bool, "int": int, "float": float,
    "str": str, "repr": repr, "round": round, "sorted": sorted, "sum": sum, "any": any, "all": all,
    "tuple": tuple, "list": list, "set": StableSet, "frozenset": StableFrozenSet, "type": type,
}
STR_METHODS = frozenset({"join", "upper", "lower", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "replace", "title"})
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


_VALUE_ERRORS = (TypeError, ValueError, ArithmeticError, LookupError, AttributeError)


class EvalError(Exception):
    """The expression needs something outside the allow-list, or failed on these values."""


@dataclass(frozen=True, slots=True)
class Raised:
    """What a generated validator raised: the class name and the rendered message."""

    exception: str
    message: str




def parse_expr(code: str) -> ast.expr:
    """Parse one expression (cached: the search evaluates the same guard many times).

    Raises:
        EvalError: the code is not a single Python expression.
    """
    tree = _parse_cached(code)
    if tree is None:
        raise EvalError(f"not an expression: {code!r}")
    return tree


@lru_cache(maxsize=8192)
def _parse_cached(code: str) -> ast.expr | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


Fn = Callable[[Mapping[str, Any]], Any]


class _Memo:
    """A compiled function kept on its tree; pickles as nothing, so a tree sent to another
    process is compiled again there instead of failing to pickle."""

    __slots__ = ("fn",)

    def __init__(self, fn: Fn | None = None) -> None:
        self.fn = fn

    def __reduce__(self) -> tuple:
        return (_Memo, ())


def _compiled(node: ast.AST) -> Fn:
    """``node`` as a function of the environment, built once per tree (the search
    evaluates the same guard thousands of times). Evaluation follows the allow-list
    exactly as an interpreter would: a node outside it raises when, and only when, it is
    reached (``x or <unsupported>`` is True for a true ``x``)."""
    memo = getattr(node, "_raisedocs_fn", None)
    if memo is not None and memo.fn is not None:
        return memo.fn
    fn = _compile(node)
    node._raisedocs_fn = _Memo(fn)  # type: ignore[attr-defined]
    return fn


_MISSING = object()


def _compile(node: ast.AST) -> Fn:
    builder = _BUILDERS.get(type(node), _unsupported)
    inner = builder(node)
    key = _code_key(node)
    if key is None:
        return inner

    def bound_or_computed(env: Mapping[str, Any]) -> Any:
        # A dotted input or an opaque atom bound in the environment wins over computing it.
        value = env.get(key, _MISSING)
        return inner(env) if value is _MISSING else value

    return bound_or_computed


def _code_key(node: ast.AST) -> str | None:
    """The environment key a node may be bound under (dotted input, or opaque atom code)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return dotted_name(node)
    if isinstance(node, (ast.Call, ast.Subscript)):
        return ast.unparse(node)
    return None


# A node outside the allow-list compiles to a function that refuses when it is reached.


def _unsupported(node: ast.AST) -> Fn:
    def refuse(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"unsupported: {type(node).__name__}")

    return refuse


class _Source:
    """A node's source for a refusal's message, unparsed on first use only: the search
    may refuse the same node thousands of times, and most nodes are never refused."""

    __slots__ = ("node", "text")

    def __init__(self, node: ast.AST) -> None:
        self.node = node
        self.text: str | None = None

    def __str__(self) -> str:
        if self.text is None:
            self.text = ast.unparse(self.node)
        return self.text


# --- one builder per allowed node type -------------------------------------------------


def _constant(node: ast.Constant) -> Fn:
    value = node.value
    return lambda env: value


_NAMED = {"True": True, "False": False, "None": None}


def _name(node: ast.Name) -> Fn:
    if node.id in _NAMED:
        value = _NAMED[node.id]
        return lambda env: value

    def unknown(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"unknown name: {node.id}")

    return unknown


def _attribute(node: ast.Attribute) -> Fn:
    code = _Source(node)
    base = _compiled(node.value) if node.attr == "__name__" else None

    def name_of(env: Mapping[str, Any]) -> Any:
        value = base(env) if base is not None else None
        if base is not None and isinstance(value, type):
            return value.__name__
        raise EvalError(f"unknown attribute: {code}")

    return name_of


def _bool_op(node: ast.BoolOp) -> Fn:
    operands = [_compiled(v) for v in node.values]
    is_and = isinstance(node.op, ast.And)

    def bool_op(env: Mapping[str, Any]) -> Any:
        value: Any = None
        for operand in operands:
            value = operand(env)
            if bool(value) != is_and:
                return value
        return value

    return bool_op


def _unary_op(node: ast.UnaryOp) -> Fn:
    operand = _compiled(node.operand)
    if isinstance(node.op, ast.Not):
        return lambda env: not operand(env)
    if isinstance(node.op, ast.USub):
        return lambda env: -operand(env)
    if isinstance(node.op, ast.UAdd):
        return lambda env: +operand(env)

    def unsupported(env: Mapping[str, Any]) -> Any:
        operand(env)
        raise EvalError("unsupported unary operator")

    return unsupported


def _bin_op(node: ast.BinOp) -> Fn:
    op = _BINOPS.get(type(node.op))
    left, right = _compiled(node.left), _compiled(node.right)
    is_pow, is_mult, is_add = (isinstance(node.op, t) for t in (ast.Pow, ast.Mult, ast.Add))

    def bin_op(env: Mapping[str, Any]) -> Any:
        if op is None:
            raise EvalError("unsupported operator")
        a, b = left(env), right(env)
        if is_pow and (not isinstance(b, (int, float)) or abs(b) > 64):
            raise EvalError("exponent too large")
        if is_mult and (isinstance(a, _SEQUENCES) or isinstance(b, _SEQUENCES)):
            sequence, count = (a, b) if isinstance(b, int) else (b, a)
            if isinstance(count, int) and len(sequence) * max(count, 0) > _MAX_SIZE:
                raise EvalError("sequence too large")
        if is_add and isinstance(a, _SEQUENCES) and isinstance(b, type(a)) and len(a) + len(b) > _MAX_SIZE:
            raise EvalError("sequence too large")
        try:
            return op(a, b)
        except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
            raise EvalError(str(exc)) from exc

    return bin_op


_SEQUENCES = (str, bytes, list, tuple)


def _compare(node: ast.Compare) -> Fn:
    first = _compiled(node.left)
    steps = [(_COMPARE[type(op)], _compiled(c)) for op, c in zip(node.ops, node.comparators)]

    def compare(env: Mapping[str, Any]) -> bool:
        left = first(env)
        for test, operand in steps:
            right = operand(env)
            try:
                if not test(left, right):
                    return False
            except TypeError as exc:
                raise EvalError(str(exc)) from exc
            left = right
        return True

    return compare


def _if_exp(node: ast.IfExp) -> Fn:
    test, body, orelse = _compiled(node.test), _compiled(node.body), _compiled(node.orelse)
    return lambda env: body(env) if test(env) else orelse(env)


def _elements(node: ast.Tuple | ast.List | ast.Set, make: Callable[[list[Any]], Any]) -> Fn:
    items = [_compiled(e) for e in node.elts]
    return lambda env: make([item(env) for item in items])


def _dict(node: ast.Dict) -> Fn:
    is_unpacking = any(k is None for k in node.keys)
    pairs = [(_compiled(k), _compiled(v)) for k, v in zip(node.keys, node.values) if k is not None]

    def make(env: Mapping[str, Any]) -> dict[Any, Any]:
        if is_unpacking:
            raise EvalError("dict unpacking")
        return {key(env): value(env) for key, value in pairs}

    return make


def _subscript(node: ast.Subscript) -> Fn:
    container, index = _compiled(node.value), _compiled(node.slice)

    def subscript(env: Mapping[str, Any]) -> Any:
        value, at = container(env), index(env)
        try:
            return value[at]
        except (TypeError, KeyError, IndexError) as exc:
            raise EvalError(str(exc)) from exc

    return subscript


def _slice(node: ast.Slice) -> Fn:
    parts = [_compiled(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
    return lambda env: slice(*[p(env) if p is not None else None for p in parts])


def _call(node: ast.Call) -> Fn:
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return _keywords_or_stars(node)
    name = dotted_name(node.func)
    args = [_compiled(a) for a in node.args]
    code = _Source(node)
    if name == "isinstance" and len(node.args) == 2:
        return _isinstance(args[0], node.args[1])
    if name in PURE_FUNCTIONS:
        function = PURE_FUNCTIONS[name]

        def pure(env: Mapping[str, Any]) -> Any:
            values = [arg(env) for arg in args]
            try:
                return function(*values)
            except (TypeError, ValueError, OverflowError) as exc:
                raise EvalError(str(exc)) from exc

        return pure
    if isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
        target, method = _compiled(node.func.value), node.func.attr

        def str_method(env: Mapping[str, Any]) -> Any:
            value = target(env)
            if not isinstance(value, str):
                raise EvalError(f"call outside the allow-list: {code}")
            values = [arg(env) for arg in args]
            try:
                return getattr(value, method)(*values)
            except (TypeError, ValueError) as exc:
                raise EvalError(str(exc)) from exc

        return str_method

    def outside(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"call outside the allow-list: {code}")

    return outside


def _keywords_or_stars(node: ast.Call) -> Fn:
    def refuse(env: Mapping[str, Any]) -> Any:
        raise EvalError("keyword or star arguments")

    return refuse


def _isinstance(value: Fn, classes: ast.expr) -> Fn:
    try:
        types: tuple[type, ...] | None = _type_tuple(classes)
    except EvalError:
        types = None  # refused when reached, as below

    def check(env: Mapping[str, Any]) -> bool:
        tested = value(env)
        return isinstance(tested, types if types is not None else _type_tuple(classes))

    return check


def _type_tuple(node: ast.expr) -> tuple[type, ...]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    types: list[type] = []
    for name in names:
        key = dotted_name(name) or ast.unparse(name)
        if key not in _BUILTIN_TYPES:
            raise EvalError(f"isinstance with a class outside the allow-list: {key}")
        types.append(_BUILTIN_TYPES[key])
    return tuple(types)


def _joined_str(node: ast.JoinedStr) -> Fn:
    pieces = [(str(v.value), None) if isinstance(v, ast.Constant) else ("", _formatted_value(v)) for v in node.values]  # type: ignore[arg-type]
    return lambda env: "".join([text if piece is None else piece(env) for text, piece in pieces])


def _formatted_value(node: ast.FormattedValue) -> Fn:
    spec = _joined_str(node.format_spec) if node.format_spec is not None else None  # type: ignore[arg-type]
    value = _compiled(node.value)
    conversion = chr(node.conversion) if node.conversion != -1 else None
    return lambda env: format_value(value(env), conversion, spec(env) if spec is not None else "")


# Node type -> its builder: the allow-list.
_BUILDERS: dict[type, Callable[[Any], Fn]] = {
    ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BoolOp: _bool_op,
    ast.UnaryOp: _unary_op, ast.BinOp: _bin_op, ast.Compare: _compare, ast.IfExp: _if_exp,
    ast.Tuple: lambda n: _elements(n, tuple), ast.List: lambda n: _elements(n, list),
    ast.Set: lambda n: _elements(n, StableSet), ast.Dict: _dict, ast.Subscript: _subscript,
    ast.Slice: _slice, ast.Call: _call, ast.JoinedStr: _joined_str, ast.FormattedValue: _formatted_value,
}


_WIDTH = re.compile(r"\d+")


def format_value(value: Any, conversion: str | None, spec: str) -> str:
    """``format`` after ``!r``/``!s``/``!a``, on plain values only (bounded widths)."""
    if any(int(w) > 10_000 for w in _WIDTH.findall(spec)):
        raise EvalError("format width too large")
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    try:
        return format(value, spec)
    except (TypeError, ValueError) as exc:
        raise EvalError(str(exc)) from exc


def evaluate(code: str, env: Mapping[str, Any]) -> Any:
    """Evaluate one expression over ``env``.

    Raises:
        EvalError: outside the allow-list, or the values do not support the operation.
    """
    return evaluate_tree(parse_expr(code), env)


def evaluate_tree(tree: ast.AST | None, env: Mapping[str, Any]) -> Any:
    """``evaluate`` of an already parsed expression (None: one that does not parse)."""
    if tree is None:
        raise EvalError("not an expression")
    try:
        return _compiled(tree)(env)
    except RecursionError as exc:
        raise EvalError("too deep") from exc
    except _VALUE_ERRORS as exc:
        # The operation is allowed but these plain values do not support it.
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc


def predicate(tree: ast.AST) -> Callable[[Mapping[str, Any]], bool | None]:
    """``tree`` as a test over environments: True or False, None where it cannot be
    evaluated. Built once; the search calls it for every assignment it tries."""
    try:
        fn = _compiled(tree)
    except RecursionError:
        return lambda env: None
    failures = (EvalError, RecursionError, *_VALUE_ERRORS)

    def holds(env: Mapping[str, Any]) -> bool | None:
        try:
            return bool(fn(env))
        except failures:
            return None

    return holds


def run_validator(source: str, kwargs: Mapping[str, Any]) -> Raised | None:
    """Interpret a generated validator (``def f(...): if cond: raise E(msg)``) on ``kwargs``.

    Raises:
        EvalError: the source has a statement or expression outside the allow-list.
    """
    env = dict(kwargs)
    try:
        return _run_block(_validator_body(source), env)
    except (RecursionError, *_VALUE_ERRORS) as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc


@lru_cache(maxsize=64)
def _validator_body(source: str) -> list[ast.stmt]:
    """The function body of a validator, parsed once: a card runs its validator on the
    trigger and on every fix, and the compiled tests stay on the cached tree."""
    module = ast.parse(source)
    return next(n for n in module.body if isinstance(n, ast.FunctionDef)).body


def _run_block(body: list[ast.stmt], env: Mapping[str, Any]) -> Raised | None:
    for stmt in body:
        if isinstance(stmt, ast.If):
            branch = stmt.body if _compiled(stmt.test)(env) else stmt.orelse
            result = _run_block(branch, env)
            if result is not None:
                return result
        elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
            name = dotted_name(stmt.exc.func) or "?"
            args = stmt.exc.args
            message = _compiled(args[0])(env) if args else ""
            return Raised(exception=name, message=str(message))
        elif isinstance(stmt, (ast.Pass, ast.Expr)) and (not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Constant)):
            continue
        elif isinstance(stmt, ast.Return) and stmt.value is None:
            return None
        else:
            raise EvalError(f"unsupported statement: {type(stmt).__name__}")
    return None
