"""The evaluator's allow-list: one builder per allowed ``ast`` expression node type."""

from __future__ import annotations

import ast
import struct
from collections.abc import Callable, Mapping
from typing import Any, cast

from ...collect.declarations import dotted_name
from ...model import RAISES
from ..arrays import ARRAY_METHODS, array_method, library_value
from ..values import Modelled, Named, StableSet, UnknownValue
from .builtins import (
    BINOPS,
    BUILTIN_TYPES,
    COMPARISONS,
    DICT_METHODS,
    EXCEPTIONS,
    PINNED,
    PURE_FUNCTIONS,
    STR_METHODS,
    InstancesOf,
    format_value,
    is_plain,
)
from .core import BUILDERS, VALUE_ERRORS, Fn, LazySource, compiled
from .errors import EvalError, TooLarge, ValueFailure
from .limits import MAX_EXPONENT, check_arithmetic, check_call


def _constant(node: ast.Constant) -> Fn:
    value = node.value
    return lambda env: value


_NAMED = {"True": True, "False": False, "None": None, "NotImplemented": NotImplemented, "Ellipsis": Ellipsis,
          "object": object}  # (``base is not object``: known by identity)
PYTHON_NAMES = frozenset({*_NAMED, *BUILTIN_TYPES})  # the bare names the evaluator knows without an environment


def _name(node: ast.Name) -> Fn:
    # (A name bound in the environment wins: ``core._compile`` looks it up first, so a
    # parameter called ``int`` shadows the builtin as it does in Python.)
    if node.id in _NAMED:
        value = _NAMED[node.id]
        return lambda env: value
    if node.id in BUILTIN_TYPES:
        kind = BUILTIN_TYPES[node.id]
        return lambda env: kind

    def unknown(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"unknown name: {node.id}")

    return unknown


def _attribute(node: ast.Attribute) -> Fn:
    if (pinned := dotted_name(node)) in PINNED:  # (a dotted input of that name is looked up first: core._compile)
        value = PINNED[pinned]
        return lambda env: value
    code = LazySource(node)
    base = compiled(node.value)

    def name_of(env: Mapping[str, Any]) -> Any:
        value = _value_or_none(base, env)
        if node.attr == "__name__" and isinstance(value, type):
            return value.__name__
        if isinstance(value, Modelled):
            try:
                return value.attribute(node.attr)
            except AttributeError as exc:
                raise EvalError(str(exc)) from exc
        if isinstance(value, Named) and value.mixin is not None and node.attr in ("value", "name", "_value_", "_name_"):
            return value.value if node.attr in ("value", "_value_") else value.name.rsplit(".", 1)[-1]
        _refuse_missing(value, node.attr)
        raise EvalError(f"unknown attribute: {code}")

    return name_of


_PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


_NOTHING = object()


def _value_or_none(fn: Fn, env: Mapping[str, Any]) -> Any:
    """``fn(env)``, or a marker where the evaluator cannot tell (its refusal stays the
    caller's); a failure of these plain values (``xs[0]`` of ``[]``) is Python's too, and raised."""
    try:
        return fn(env)
    except ValueFailure:
        raise
    except (EvalError, UnknownValue, RecursionError, *VALUE_ERRORS):
        return _NOTHING


def _refuse_missing(value: Any, name: str) -> None:
    """Raise what Python raises for an attribute a plain value does not have (``0 .get``:
    AttributeError), where the environment gives the value itself, not a stand-in's attributes."""
    if type(value) in _PLAIN and not hasattr(value, name):
        cause = AttributeError(f"{type(value).__name__!r} object has no attribute {name!r}")
        raise ValueFailure(str(cause)) from cause


def _bool_op(node: ast.BoolOp) -> Fn:
    operands = [compiled(v) for v in node.values]
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
    operand = compiled(node.operand)
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


_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
            ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def _bin_op(node: ast.BinOp) -> Fn:
    op = BINOPS.get(type(node.op))
    symbol = _SYMBOLS.get(type(node.op), "?")
    left, right = compiled(node.left), compiled(node.right)
    is_pow = isinstance(node.op, ast.Pow)

    def bin_op(env: Mapping[str, Any]) -> Any:
        if op is None:
            raise EvalError("unsupported operator")
        a, b = left(env), right(env)
        if is_pow and (not isinstance(b, (int, float)) or abs(b) > MAX_EXPONENT):
            raise EvalError("exponent too large")
        check_arithmetic(symbol, a, b)  # before computing: the result stays within the limits
        try:
            return op(a, b)
        except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
            raise ValueFailure(str(exc)) from exc

    return bin_op


def _compare(node: ast.Compare) -> Fn:
    first = compiled(node.left)
    steps = [(COMPARISONS[type(op)], compiled(c)) for op, c in zip(node.ops, node.comparators)]

    def compare(env: Mapping[str, Any]) -> bool:
        left = first(env)
        for test, operand in steps:
            right = operand(env)
            try:
                if not test(left, right):
                    return False
            except TypeError as exc:
                raise ValueFailure(str(exc)) from exc
            left = right
        return True

    return compare


def _if_exp(node: ast.IfExp) -> Fn:
    test, body, orelse = compiled(node.test), compiled(node.body), compiled(node.orelse)
    return lambda env: body(env) if test(env) else orelse(env)


def _elements(node: ast.Tuple | ast.List | ast.Set, make: Callable[[list[Any]], Any]) -> Fn:
    items = [compiled(e) for e in node.elts]
    return lambda env: make([item(env) for item in items])


def _dict(node: ast.Dict) -> Fn:
    is_unpacking = any(k is None for k in node.keys)
    pairs = [(compiled(k), compiled(v)) for k, v in zip(node.keys, node.values) if k is not None]

    def make(env: Mapping[str, Any]) -> dict[Any, Any]:
        if is_unpacking:
            raise EvalError("dict unpacking")
        return {key(env): value(env) for key, value in pairs}

    return make


def _subscript(node: ast.Subscript) -> Fn:
    container, index = compiled(node.value), compiled(node.slice)

    def subscript(env: Mapping[str, Any]) -> Any:
        value, at = container(env), index(env)
        try:
            return value[at]
        except (TypeError, KeyError, IndexError) as exc:
            raise ValueFailure(str(exc)) from exc

    return subscript


def _slice(node: ast.Slice) -> Fn:
    parts = [compiled(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
    return lambda env: slice(*[p(env) if p is not None else None for p in parts])


def _call(node: ast.Call) -> Fn:
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return _keywords_or_stars(node)
    name = dotted_name(node.func)
    args = [compiled(a) for a in node.args]
    code = LazySource(node)
    if name == "isinstance" and len(node.args) == 2:
        return _isinstance(args[0], node.args[1])
    if name == RAISES and len(node.args) == 2:
        return _raises(args[0], node.args[1])
    if name is not None and name in PURE_FUNCTIONS:
        return _pure_call(name, args)
    if isinstance(node.func, ast.Attribute):
        return _method_call(node.func, args, code)
    return _outside(code)


def _pure_call(name: str, args: list[Fn]) -> Fn:
    function = PURE_FUNCTIONS[name]

    def pure(env: Mapping[str, Any]) -> Any:
        values = [arg(env) for arg in args]
        check_call(name, None, values)
        try:
            return function(*values)
        except (TypeError, ValueError, OverflowError, struct.error) as exc:
            raise ValueFailure(str(exc)) from exc

    return pure


def _method_call(func: ast.Attribute, args: list[Fn], code: LazySource) -> Fn:
    """A str method on a str, a mapping's reading method on a dict (``get`` with a default at
    most), ``count`` on a list or tuple, ``is_integer()`` on a float (an int has
    it from Python 3.12 only: refused)."""
    method = func.attr
    receiver = str if method in STR_METHODS else dict if method in DICT_METHODS and len(args) <= (2 if method == "get" else 0) \
        else float if method == "is_integer" and not args else None
    target = compiled(func.value)
    if receiver is None:
        if method in ARRAY_METHODS:
            return _array_call(target, method, args, code, dotted_name(func.value))
        return _outside(code, target, method)

    def method_call(env: Mapping[str, Any]) -> Any:
        value = target(env)
        is_sequence = method in _SEQUENCE_METHODS and type(value) in (list, tuple)  # (``custom_ops.count("all")``)
        if not (isinstance(value, str) if receiver is str else type(value) is receiver) and not is_sequence:
            _refuse_missing(value, method)
            raise EvalError(f"call outside the allow-list: {code}")
        values = [arg(env) for arg in args]
        check_call(method, value, values)
        try:
            return getattr(value, method)(*values)
        except (TypeError, ValueError) as exc:  # (a dict's: an unhashable key)
            raise ValueFailure(str(exc)) from exc

    return method_call


# A list's or tuple's reading method that str has too (the receiver is told apart at the call)
_SEQUENCE_METHODS = frozenset({"count"})


def _array_call(target: Fn, method: str, args: list[Fn], code: LazySource, chain: str | None = None) -> Fn:
    """``x.dim()``, ``x.size(0)``, ``x.numel()``, ``x.stride()`` of a modelled tensor or array
    (solve.arrays), of the sizes the trigger gives ``x.shape`` where it gives them too (or ones,
    for an ``x.ndim`` other than the tensor's own)."""
    outside = _outside(code, target, method)

    def call(env: Mapping[str, Any]) -> Any:
        value = _value_or_none(target, env)
        if not (isinstance(value, Modelled) and value.is_array):
            return outside(env)
        shape = _given_shape(env, chain, len(value.attribute("shape"))) if chain is not None else None
        try:
            return array_method(value, method, [arg(env) for arg in args], shape)
        except AttributeError as exc:
            raise EvalError(str(exc)) from exc
        except IndexError as exc:  # (``x.size(5)`` of a 2-d tensor: torch raises IndexError too)
            raise ValueFailure(str(exc)) from exc

    return call


def _given_shape(env: Mapping[str, Any], chain: str, own: int) -> Any:
    """The sizes ``env`` gives ``chain.shape``, or ones for a ``chain.ndim`` other than the
    tensor's ``own`` (arrays.fold_arrays builds it so); None where it gives neither as such."""
    shape, ndim = env.get(f"{chain}.shape"), env.get(f"{chain}.ndim")
    if isinstance(shape, (list, tuple)) and all(type(size) is int and size >= 0 for size in shape):
        return tuple(shape)
    return (1,) * ndim if type(ndim) is int and 0 <= ndim <= 8 and ndim != own and shape is None else None


def _outside(code: LazySource, owner: Fn | None = None, attr: str = "") -> Fn:
    """A call outside the allow-list: refused when reached (after what Python raises for a
    method ``attr`` that the plain value of ``owner`` does not have)."""

    def outside(env: Mapping[str, Any]) -> Any:
        if owner is not None:
            _refuse_missing(_value_or_none(owner, env), attr)
        raise EvalError(f"call outside the allow-list: {code}")

    return outside


def raised_classes(node: ast.expr) -> tuple[type, ...] | None:
    """The builtin exception classes ``__raises__`` names, or None for any other class."""
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    found = [EXCEPTIONS.get(dotted_name(n) or "") for n in names]
    classes = tuple(c for c in found if c is not None)
    return classes if len(classes) == len(found) else None


def _raises(target: Fn, classes_node: ast.expr) -> Fn:
    """``__raises__(expr, classes)``: whether evaluating ``expr`` raises one of ``classes``,
    as Python would (``int('x')`` raises ValueError). A refusal of the evaluator (outside
    the allow-list, past the limits, an unknown value) is no answer: it propagates."""
    classes = raised_classes(classes_node)

    def raises(env: Mapping[str, Any]) -> bool:
        if classes is None:
            raise EvalError("an exception class outside the builtins")
        try:
            target(env)
        except EvalError as exc:
            cause = exc.__cause__
            if not isinstance(cause, VALUE_ERRORS) or isinstance(exc, TooLarge):
                raise
            return isinstance(cause, classes)
        except VALUE_ERRORS as exc:
            return isinstance(exc, classes)
        return False

    return raises


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
        return isinstance(tested, types if types is not None else _bound_types(classes, env, tested))

    return check


def _bound_types(node: ast.expr, env: Mapping[str, Any], tested: Any) -> tuple[type, ...]:
    """The classes of ``isinstance(tested, node)`` where some are bound as InstancesOf, or are
    builtin exception classes (of which no plain value is an instance): only for a plain
    ``tested`` (whether another value is an instance is not known)."""
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    types: list[type] = []
    for name in names:
        key = dotted_name(name) or ast.unparse(name)
        bound = env.get(key)
        if key in BUILTIN_TYPES:
            types.append(BUILTIN_TYPES[key])
        elif isinstance(bound, InstancesOf) and is_plain(tested):
            types.extend(bound.types)
        elif key in EXCEPTIONS and bound is None and is_plain(tested):
            continue  # (``isinstance(data, ValueError)`` of a dict: false)
        elif bound is None and (model := library_value(key)) is not None and model.is_array \
                and (is_plain(tested) or isinstance(tested, Modelled)):
            # (``isinstance(x, torch.Tensor)``: true of a tensor's model, false of a plain value)
            types.extend([Modelled] if isinstance(tested, Modelled) and (tested.kind, tested.module) == (model.kind, model.module) else [])
        else:
            raise EvalError(f"isinstance with a class outside the allow-list: {key}")
    return tuple(types)


def _type_tuple(node: ast.expr) -> tuple[type, ...]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    types: list[type] = []
    for name in names:
        key = dotted_name(name) or ast.unparse(name)
        if key not in BUILTIN_TYPES:
            raise EvalError(f"isinstance with a class outside the allow-list: {key}")
        types.append(BUILTIN_TYPES[key])
    return tuple(types)


def _joined_str(node: ast.JoinedStr) -> Fn:
    # (a JoinedStr holds constants and FormattedValues only)
    pieces = [(str(v.value), None) if isinstance(v, ast.Constant) else ("", _formatted_value(cast(ast.FormattedValue, v)))
              for v in node.values]
    return lambda env: "".join([text if piece is None else piece(env) for text, piece in pieces])


def _formatted_value(node: ast.FormattedValue) -> Fn:
    spec = _joined_str(cast(ast.JoinedStr, node.format_spec)) if node.format_spec is not None else None  # (a format spec is a JoinedStr)
    value = compiled(node.value)
    conversion = chr(node.conversion) if node.conversion != -1 else None
    return lambda env: format_value(value(env), conversion, spec(env) if spec is not None else "")


BUILDERS.update({
    ast.Constant: _constant, ast.Name: _name, ast.Attribute: _attribute, ast.BoolOp: _bool_op,
    ast.UnaryOp: _unary_op, ast.BinOp: _bin_op, ast.Compare: _compare, ast.IfExp: _if_exp,
    ast.Tuple: lambda n: _elements(n, tuple), ast.List: lambda n: _elements(n, list),
    ast.Set: lambda n: _elements(n, StableSet), ast.Dict: _dict, ast.Subscript: _subscript,
    ast.Slice: _slice, ast.Call: _call, ast.JoinedStr: _joined_str, ast.FormattedValue: _formatted_value,
})
