"""What the evaluator may call: pure builtins, ``str`` methods, operators, and bounded formatting."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from ..values import StableFrozenSet, StableSet
from .errors import EvalError
from .limits import check_format_spec, check_size, check_text, size_of

BUILTIN_TYPES: dict[str, type] = {
    "int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
    "tuple": tuple, "set": set, "frozenset": frozenset, "bytes": bytes, "type(None)": type(None),
}
def _text_of(function: Callable[[Any], str]) -> Callable[..., str]:
    """``str``, ``repr``: the text of a value within the limits, itself within them."""
    def text(*args: Any) -> str:
        return check_text(function(*args), function.__name__)

    text.__name__ = function.__name__
    return text


PURE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "abs": abs, "min": min, "max": max, "bool": bool, "int": int, "float": float,
    "str": _text_of(str), "repr": _text_of(repr), "round": round, "sorted": sorted, "sum": sum, "any": any, "all": all,
    "tuple": tuple, "list": list, "set": StableSet, "frozenset": StableFrozenSet, "type": type,
}
STR_METHODS = frozenset({"join", "upper", "lower", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "replace", "title"})
BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


def format_value(value: Any, conversion: str | None, spec: str) -> str:
    """``format`` after ``!r``/``!s``/``!a``, on plain values only (bounded widths and sizes)."""
    check_format_spec(spec)
    if not isinstance(value, (str, int, float, bool, type(None))):  # a plain value's text is no larger than it
        check_size(size_of(value), "formatted value")
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    try:
        return check_text(format(value, spec), "formatted value")
    except (TypeError, ValueError) as exc:
        raise EvalError(str(exc)) from exc
