"""The restricted evaluator: Python source (guards, templates, generated validators) -> values.

An interpreter over ``ast`` with an allow-list: literals, boolean logic, comparisons,
arithmetic, subscripts, f-strings, a few pure builtins and ``str`` methods, and names or
attribute paths looked up in an environment of plain values. Nothing from the analysed
tree is imported or called; anything outside the allow-list raises ``EvalError``.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_MAX_SIZE = 100_000
_BUILTIN_TYPES: dict[str, type] = {
    "int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
    "tuple": tuple, "set": set, "frozenset": frozenset, "bytes": bytes, "type(None)": type(None),
}
def _hash_is_stable(value: Any) -> bool:
    """Whether CPython orders this value in a set the same way in every process (numbers
    are; str and bytes hashes change with PYTHONHASHSEED, None's with the address space)."""
    if type(value) in (int, bool, float, complex):
        return True
    return type(value) is tuple and all(_hash_is_stable(v) for v in value)


class _StableOrder:
    """Set iteration (and so ``repr``, ``join``, ``list``) in an order that is the same in
    every run: CPython's own where it is fixed (numbers), else sorted by type and repr.
    The analysed program may print such a set in another order; no order is promised."""

    _base: type = set
    _display = "set"

    def __iter__(self) -> Any:
        items = list(self._base.__iter__(self))  # type: ignore[attr-defined]
        if all(_hash_is_stable(v) for v in items):
            return iter(items)
        return iter(sorted(items, key=lambda v: (type(v).__name__, repr(v))))

    def __repr__(self) -> str:
        if not self:
            return f"{self._display}()"
        body = ", ".join(repr(v) for v in self)
        return "{" + body + "}" if self._display == "set" else f"frozenset({{{body}}})"


def _stable_operator(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        result = getattr(self._base, name)(self, other)
        return result if result is NotImplemented else type(self)(result)

    return method


for _name in ("__or__", "__and__", "__sub__", "__xor__", "__ror__", "__rand__", "__rsub__", "__rxor__"):
    setattr(_StableOrder, _name, _stable_operator(_name))


class StableSet(_StableOrder, set):  # type: ignore[misc]
    _base = set
    _display = "set"


class StableFrozenSet(_StableOrder, frozenset):  # type: ignore[misc]
    _base = frozenset
    _display = "frozenset"


def stable(value: Any) -> Any:
    """``value`` with every set in it (``ast.literal_eval`` output, say) as a StableSet."""
    if isinstance(value, _StableOrder):
        return value
    if isinstance(value, frozenset):
        return StableFrozenSet(stable(v) for v in value)
    if isinstance(value, set):
        return StableSet(stable(v) for v in value)
    if isinstance(value, tuple):
        return tuple(stable(v) for v in value)
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items()}
    return value


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


class EnumMember:
    """A member of an Enum defined in the analysed tree, known by name only (never imported).

    Interned, so ``is`` and ``==`` both mean "the same member", as for real Enum members.
    """

    _members: dict[str, EnumMember] = {}
    __slots__ = ("name",)

    def __new__(cls, name: str) -> EnumMember:
        member = cls._members.get(name)
        if member is None:
            member = super().__new__(cls)
            member.name = name
            cls._members[name] = member
        return member

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple:
        return (EnumMember, (self.name,))


@dataclass(frozen=True, slots=True)
class Raised:
    """What a generated validator raised: the class name and the rendered message."""

    exception: str
    message: str


def dotted_name(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


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


class Evaluator:
    """Evaluates expressions over ``env``: dotted inputs and opaque atoms (by code) -> values."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = env

    def eval(self, node: ast.AST) -> Any:
        code = _code_key(node)
        if code is not None and code in self.env:
            return self.env[code]
        method = _METHODS.get(type(node))
        if method is None:
            raise EvalError(f"unsupported: {type(node).__name__}")
        return method(self, node)

    # --- expressions -------------------------------------------------------------
    def _Constant(self, node: ast.Constant) -> Any:  # noqa: N802 (ast node names)
        return node.value

    def _Name(self, node: ast.Name) -> Any:  # noqa: N802
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        raise EvalError(f"unknown name: {node.id}")

    def _Attribute(self, node: ast.Attribute) -> Any:  # noqa: N802
        if node.attr == "__name__":
            value = self.eval(node.value)
            if isinstance(value, type):
                return value.__name__
        raise EvalError(f"unknown attribute: {ast.unparse(node)}")

    def _BoolOp(self, node: ast.BoolOp) -> Any:  # noqa: N802
        is_and = isinstance(node.op, ast.And)
        value: Any = None
        for operand in node.values:
            value = self.eval(operand)
            if bool(value) != is_and:
                return value
        return value

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:  # noqa: N802
        value = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        raise EvalError("unsupported unary operator")

    def _BinOp(self, node: ast.BinOp) -> Any:  # noqa: N802
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise EvalError("unsupported operator")
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(node.op, ast.Pow) and (not isinstance(right, (int, float)) or abs(right) > 64):
            raise EvalError("exponent too large")
        if isinstance(node.op, ast.Mult) and any(isinstance(v, (str, bytes, list, tuple)) for v in (left, right)):
            sequence, count = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(count, int) and len(sequence) * max(count, 0) > _MAX_SIZE:
                raise EvalError("sequence too large")
        if isinstance(node.op, ast.Add) and isinstance(left, (str, bytes, list, tuple)) and isinstance(right, type(left)):
            if len(left) + len(right) > _MAX_SIZE:
                raise EvalError("sequence too large")
        try:
            return op(left, right)
        except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
            raise EvalError(str(exc)) from exc

    def _Compare(self, node: ast.Compare) -> Any:  # noqa: N802
        left = self.eval(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError as exc:
                raise EvalError(str(exc)) from exc
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:  # noqa: N802
        return self.eval(node.body) if self.eval(node.test) else self.eval(node.orelse)

    def _Tuple(self, node: ast.Tuple) -> Any:  # noqa: N802
        return tuple(self.eval(e) for e in node.elts)

    def _List(self, node: ast.List) -> Any:  # noqa: N802
        return [self.eval(e) for e in node.elts]

    def _Set(self, node: ast.Set) -> Any:  # noqa: N802
        return StableSet(self.eval(e) for e in node.elts)

    def _Dict(self, node: ast.Dict) -> Any:  # noqa: N802
        if any(k is None for k in node.keys):
            raise EvalError("dict unpacking")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]

    def _Subscript(self, node: ast.Subscript) -> Any:  # noqa: N802
        value = self.eval(node.value)
        index = self.eval(node.slice)
        try:
            return value[index]
        except (TypeError, KeyError, IndexError) as exc:
            raise EvalError(str(exc)) from exc

    def _Slice(self, node: ast.Slice) -> Any:  # noqa: N802
        parts = [self.eval(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def _Call(self, node: ast.Call) -> Any:  # noqa: N802
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise EvalError("keyword or star arguments")
        name = dotted_name(node.func)
        if name == "isinstance" and len(node.args) == 2:
            return isinstance(self.eval(node.args[0]), _type_tuple(node.args[1]))
        if name in PURE_FUNCTIONS:
            args = [self.eval(a) for a in node.args]
            try:
                return PURE_FUNCTIONS[name](*args)
            except (TypeError, ValueError, OverflowError) as exc:
                raise EvalError(str(exc)) from exc
        if isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
            target = self.eval(node.func.value)
            if isinstance(target, str):
                args = [self.eval(a) for a in node.args]
                try:
                    return getattr(target, node.func.attr)(*args)
                except (TypeError, ValueError) as exc:
                    raise EvalError(str(exc)) from exc
        raise EvalError(f"call outside the allow-list: {ast.unparse(node)}")

    def _JoinedStr(self, node: ast.JoinedStr) -> str:  # noqa: N802
        out: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(str(value.value))
            else:
                out.append(self._FormattedValue(value))  # type: ignore[arg-type]
        return "".join(out)

    def _FormattedValue(self, node: ast.FormattedValue) -> str:  # noqa: N802
        spec = self._JoinedStr(node.format_spec) if node.format_spec is not None else ""
        return format_value(self.eval(node.value), chr(node.conversion) if node.conversion != -1 else None, spec)


def _type_tuple(node: ast.expr) -> tuple[type, ...]:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    types: list[type] = []
    for name in names:
        key = dotted_name(name) or ast.unparse(name)
        if key not in _BUILTIN_TYPES:
            raise EvalError(f"isinstance with a class outside the allow-list: {key}")
        types.append(_BUILTIN_TYPES[key])
    return tuple(types)


# Node type -> the Evaluator method for it (``_Name`` for ast.Name, ...): the allow-list.
_METHODS: dict[type, Callable[[Evaluator, Any], Any]] = {
    node_type: getattr(Evaluator, "_" + node_type.__name__)
    for node_type in vars(ast).values()
    if isinstance(node_type, type) and issubclass(node_type, ast.AST) and hasattr(Evaluator, "_" + node_type.__name__)
}


def _code_key(node: ast.AST) -> str | None:
    """The environment key a node may be bound under (dotted input, or opaque atom code).

    Memoized on the node: parsed trees are cached and evaluated many times by the search.
    """
    try:
        return node._raisedocs_key  # type: ignore[attr-defined]
    except AttributeError:
        pass
    key = None
    if isinstance(node, (ast.Name, ast.Attribute)):
        key = dotted_name(node)
    elif isinstance(node, (ast.Call, ast.Subscript)):
        key = ast.unparse(node)
    node._raisedocs_key = key  # type: ignore[attr-defined]
    return key


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
    try:
        return Evaluator(env).eval(tree)  # type: ignore[arg-type]
    except RecursionError as exc:
        raise EvalError("too deep") from exc
    except _VALUE_ERRORS as exc:
        # The operation is allowed but these plain values do not support it.
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc


def run_validator(source: str, kwargs: Mapping[str, Any]) -> Raised | None:
    """Interpret a generated validator (``def f(...): if cond: raise E(msg)``) on ``kwargs``.

    Raises:
        EvalError: the source has a statement or expression outside the allow-list.
    """
    module = ast.parse(source)
    function = next(n for n in module.body if isinstance(n, ast.FunctionDef))
    env = dict(kwargs)
    try:
        return _run_block(function.body, Evaluator(env))
    except (RecursionError, *_VALUE_ERRORS) as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc


def _run_block(body: list[ast.stmt], evaluator: Evaluator) -> Raised | None:
    for stmt in body:
        if isinstance(stmt, ast.If):
            branch = stmt.body if evaluator.eval(stmt.test) else stmt.orelse
            result = _run_block(branch, evaluator)
            if result is not None:
                return result
        elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
            name = dotted_name(stmt.exc.func) or "?"
            args = stmt.exc.args
            message = evaluator.eval(args[0]) if args else ""
            return Raised(exception=name, message=str(message))
        elif isinstance(stmt, (ast.Pass, ast.Expr)) and (not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Constant)):
            continue
        elif isinstance(stmt, ast.Return) and stmt.value is None:
            return None
        else:
            raise EvalError(f"unsupported statement: {type(stmt).__name__}")
    return None


def is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def to_json_value(value: Any) -> Any:
    """A value as JSON can carry it; anything else as ``{"python": repr}``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"python": repr(value)}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json_value(v) for k, v in value.items()}
    return {"python": repr(value)}
