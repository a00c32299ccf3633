"""What the evaluator may call: pure builtins, ``str`` methods, operators, and bounded formatting."""

from __future__ import annotations

import ast
import builtins
import math
import operator
import struct
from collections.abc import Callable
from typing import Any

from ..arrays import modelled_text
from ..values import Modelled, Named, StableFrozenSet, StableSet, UnknownValue, unknown_in, unordered
from .errors import EvalError, ValueFailure
from .limits import check_format_spec, check_size, check_text, size_of

# Exception classes ``__raises__`` may test for: the builtin ones (of this interpreter, never the analysed code's).
EXCEPTIONS: dict[str, type] = {n: c for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, BaseException)}
EXCEPTIONS["struct.error"] = struct.error  # (of the pure functions below)
BUILTIN_TYPES: dict[str, type] = {
    "int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
    "tuple": tuple, "set": set, "frozenset": frozenset, "bytes": bytes, "type(None)": type(None),
}
_PLAIN = {**{name: kind for name, kind in BUILTIN_TYPES.items() if "(" not in name}, "complex": complex, "NoneType": type(None)}


class InstancesOf:
    """What a class of the tree (or a known outside one) is to ``isinstance``, bound in the
    environment under its name as the guard writes it: the plain types whose values are its
    instances (link.instances). A value of any other kind (an Enum member, a sentinel) is
    refused: that answer is not known."""

    __slots__ = ("types",)

    def __init__(self, type_names: tuple[str, ...]) -> None:
        self.types = tuple(_PLAIN[name] for name in type_names if name in _PLAIN)

    def __repr__(self) -> str:
        return f"InstancesOf({', '.join(t.__name__ for t in self.types)})"


def is_plain(value: object) -> bool:
    """A value of a plain builtin type (the solver's candidates: StableSet is a set)."""
    return type(value) in _PLAIN_TYPES or isinstance(value, (StableSet, StableFrozenSet))


_PLAIN_TYPES = frozenset(_PLAIN.values())
def _text_of(function: Callable[[Any], str]) -> Callable[..., str]:
    """``str``, ``repr``: the text of a value within the limits, itself within them."""
    def text(*args: Any) -> str:
        return check_text(function(*args), function.__name__)

    text.__name__ = function.__name__
    return text


def _callable(value: Any) -> bool:
    """``callable`` of a plain value (never one: a type is no candidate) or of a modelled
    function (solve.arrays.callable_value); refused for any other."""
    if isinstance(value, Modelled) and value.kind == "Callable":
        return True
    if not is_plain(value):
        raise EvalError("callable() of a value that is not a plain one")
    return False


def _hasattr(value: Any, name: Any) -> bool:
    """``hasattr`` of a plain value, whose attributes are its builtin type's; refused for any other
    (an object's attributes are its class's, which the tree defines and may compute on reading)."""
    if not is_plain(value) or type(name) is not str:
        raise EvalError("hasattr() of a value that is not a plain one")
    return hasattr(value, name)


PURE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len, "abs": abs, "min": min, "max": max, "bool": bool, "int": int, "float": float,
    "str": _text_of(str), "repr": _text_of(repr), "round": round, "sorted": sorted, "sum": sum, "any": any, "all": all,
    "tuple": tuple, "list": list, "set": StableSet, "frozenset": StableFrozenSet, "type": type,
    "callable": _callable, "hasattr": _hasattr,
    # (by the dotted name a module that imports math writes)
    "math.isfinite": math.isfinite, "math.isinf": math.isinf, "math.isnan": math.isnan, "math.floor": math.floor, "math.ceil": math.ceil,
    "operator.index": operator.index,
    # (a result no larger than the bytes given; a format's size is computed, never allocated)
    "struct.unpack": struct.unpack, "struct.calcsize": struct.calcsize,
}
# Python's own constants a guard may compare with, as a 64-bit CPython 3 has them (``n > sys.maxsize``:
# assuming another value gave "on a machine where sys.maxsize is 0"), by the dotted name the code writes.
PINNED: dict[str, Any] = {"sys.maxsize": 2**63 - 1, "sys.maxunicode": 0x10FFFF, "math.inf": math.inf, "math.pi": math.pi,
                          "math.e": math.e, "math.tau": math.tau}
STR_METHODS = frozenset({"join", "upper", "lower", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "replace", "title",
                         # predicates and searches: a bool or an int, in time linear in the text
                         "isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isidentifier", "isascii", "isupper",
                         "islower", "isspace", "istitle", "isprintable", "find", "rfind", "count",
                         # a sequence of texts no larger than the text
                         "partition", "rpartition", "rsplit", "splitlines",
                         # bytes at most 4 times as long, with a codec of limits.TEXT_CODECS
                         "encode"})
# A mapping's reading methods, evaluated on a dict only: ``config.get("mode") is None``.
DICT_METHODS = frozenset({"get", "keys", "values", "items"})
BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    # Sets (``SPECIALS | set("(")``: a module's character classes) and ints; a shift is bounded in limits.
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
def _equal(a: Any, b: Any) -> bool:
    if (isinstance(a, Modelled) or isinstance(b, Modelled)) and not (isinstance(a, Modelled) and isinstance(b, Modelled)
                                                                     and not a.is_array and not b.is_array):
        raise EvalError("== of a tensor, or of a dtype or device with another kind of value, is not modelled")
    if unknown_in(a, b):
        raise UnknownValue("compares a constant whose value the tree does not give")
    return a == b


def _same(a: Any, b: Any) -> bool:
    """``a is b``. A constant of unknown value may be any object: it may be None, a bool or
    another constant (``ET is not pyET``, both rebound by ``global`` statements elsewhere), so
    whether it is one of those is no answer; a value a caller makes is never it."""
    if a is not b and any(isinstance(x, Named) and not x.known and (y is None or isinstance(y, (bool, Named)))
                          for x, y in ((a, b), (b, a))):
        raise UnknownValue("tests the identity of a constant whose value the tree does not give")
    return a is b


def _contains(container: Any, item: Any) -> bool:
    if isinstance(item, Modelled) and item.is_array or isinstance(container, Modelled):
        raise EvalError("membership of a tensor or in one is not modelled")
    if isinstance(container, Named) and not container.known:
        raise UnknownValue("membership in a constant whose value the tree does not give")
    if isinstance(container, (tuple, list, set, frozenset, dict)):
        if any(element is item for element in container):
            return True
        if isinstance(item, Named) and not item.known or any(isinstance(e, Named) and not e.known for e in container):
            raise UnknownValue("membership among constants whose values the tree does not give")
    return item in container


COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: _equal, ast.NotEq: lambda a, b: not _equal(a, b), ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: _contains(b, a),
    ast.NotIn: lambda a, b: not _contains(b, a), ast.Is: _same, ast.IsNot: lambda a, b: not _same(a, b),
}


def format_value(value: Any, conversion: str | None, spec: str) -> str:
    """``format`` after ``!r``/``!s``/``!a``, on plain values only (bounded widths and sizes)."""
    check_format_spec(spec)
    if unordered(value):
        raise EvalError("the order a set of texts or dtypes prints in differs from run to run")
    if isinstance(value, Modelled):
        value = modelled_text(value, conversion)
        if value is None:
            raise EvalError("the text of a tensor, an array or a numpy dtype is not modelled")
        conversion = None
    if isinstance(value, Named) and value.mixin is not None:
        value = value.value if conversion is None and value.mixin in ("StrEnum", "IntEnum") else value.shown(conversion)
        if value is None:
            raise EvalError("the text of a str-mixin Enum member in a format depends on the Python version")
        conversion = None
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
        raise ValueFailure(str(exc)) from exc
