"""The evaluator's limits: no value past a fixed size is ever built, and no evaluation runs long.

Each operation whose result can outgrow its operands (``+``, ``*``, ``**``, ``%``, formatting,
``join``, ``replace``, ``str``/``repr``, ``sorted``, ``sum``, ``round``) checks the size of
its result from the operands *before* computing it, and charges that size to the
evaluation's step budget. Sizes are counted in units, about the length of the value's repr: a
character of a string or a byte of a bytes, a decimal digit of an integer, a separator per
element of a container (nested elements counted again wherever they appear). Past a limit
the evaluator refuses with ``TooLarge``; the card that needed the value says so
(``value_too_large``) instead of the run running out of memory.
"""

from __future__ import annotations

import re
from typing import Any

from ..values import unordered
from .errors import EvalError, TooLarge

MAX_SIZE = 100_000  # units of one value: characters, bytes, elements (nested ones included)
MAX_INT_BITS = 4_096  # bits of an integer the evaluator computes (about 1,233 digits)
MAX_EXPONENT = 64  # of ``**``, whatever the base
MAX_WIDTH = 10_000  # width or precision of a format spec, an f-string field or a % conversion
MAX_ROUND_DIGITS = 400  # ``round(x, n)`` with |n| past this is refused (a negative n on an int costs 10**n)
EVAL_STEPS = 2_000_000  # units of work one evaluation may spend in size-proportional operations


_spent = [0]  # units spent by the evaluation under way (one evaluation at a time per process)


def start_evaluation() -> None:
    """Reset the step budget: called at each entry into the evaluator."""
    _spent[0] = 0


def charge(units: int) -> None:
    """Spend ``units`` of the evaluation's budget, refusing once it is spent."""
    _spent[0] += units
    if _spent[0] > EVAL_STEPS:
        raise TooLarge("evaluation step budget spent")


def size_of(value: Any, limit: int = MAX_SIZE) -> int:
    """The size of ``value`` in units, about the length of its repr, counted up to just past
    ``limit`` (so a value that shares one inner list a million times costs ``limit`` to
    measure, not a million)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 3
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2  # at least its decimal digits, and a separator
        elif isinstance(item, dict):
            total += 2 + 2 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(item)
            stack.extend(item)
        else:
            total += 8
        if total > limit:
            return total
    return total


def check_text(text: str, what: str) -> str:
    """``text`` (the repr or formatting of a value within the limits: at most a few times its
    size) refused if it is itself past MAX_SIZE characters."""
    if len(text) > MAX_SIZE:
        raise TooLarge(f"{what} too large to evaluate")
    return text


def check_size(units: int, what: str) -> None:
    """Refuse a result of ``units`` past MAX_SIZE, else charge it to the budget."""
    if units > MAX_SIZE:
        raise TooLarge(f"{what} too large to evaluate")
    charge(units)


def _bits(value: Any) -> int:
    return value.bit_length() if isinstance(value, int) else 0


def check_arithmetic(op: str, a: Any, b: Any) -> None:
    """Refuse ``a <op> b`` when its result would be past the limits (``op`` is the operator's
    symbol); called before the operation, from its operands alone."""
    is_sequence = isinstance(a, (str, bytes, list, tuple)) or isinstance(b, (str, bytes, list, tuple))
    if op == "*" and is_sequence:
        sequence, count = (a, b) if isinstance(b, int) else (b, a)
        if isinstance(count, int):
            check_size(size_of(sequence) * max(count, 0), "repeated sequence")
        return
    if op == "+" and is_sequence:
        check_size(size_of(a) + size_of(b), "concatenation")
        return
    if op == "%" and isinstance(a, (str, bytes)):
        check_percent_format(a, b)
        return
    if max(_bits(a), _bits(b)) > MAX_INT_BITS:
        raise TooLarge("integer too large to evaluate")
    if op == "*" and _bits(a) + _bits(b) > MAX_INT_BITS:
        raise TooLarge("product too large to evaluate")
    if op == "**" and isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and _bits(a) * b > MAX_INT_BITS:
        raise TooLarge("power too large to evaluate")
    if op == "<<" and isinstance(a, int) and isinstance(b, int) and a and _bits(a) + b > MAX_INT_BITS:
        raise TooLarge("shift too large to evaluate")


# A %-conversion: flags, width (or *), precision (or .*), length modifier, type.
_PERCENT = re.compile(rb"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.)", re.DOTALL)


def check_percent_format(template: str | bytes, args: Any) -> None:
    """Refuse ``template % args`` when a width or precision (written, or taken from ``args``
    by ``*``) is past MAX_WIDTH, or the text it would make is past MAX_SIZE."""
    raw = template.encode("utf-8", "surrogatepass") if isinstance(template, str) else template
    values = list(args) if isinstance(args, tuple) else [args]
    taken = 0
    for match in _PERCENT.finditer(raw):
        for field in (match.group(1), match.group(2)):
            if field == b"*":
                width = values[taken] if taken < len(values) else 0
                taken += 1
            else:
                width = int(field) if field else 0
            if not isinstance(width, int) or abs(width) > MAX_WIDTH:
                raise TooLarge("format width too large to evaluate")
        if match.group(3) != b"%":
            taken += 1
    check_size(len(raw) + size_of(args), "formatted text")


_SPEC_NUMBER = re.compile(r"\d+")


def check_format_spec(spec: str) -> None:
    """Refuse a format spec whose width or precision is past MAX_WIDTH."""
    if spec and any(len(number) > 6 or int(number) > MAX_WIDTH for number in _SPEC_NUMBER.findall(spec)):
        raise TooLarge("format width too large to evaluate")


# The text codecs ``str.encode`` may be evaluated with (the standard library's own, by their usual names)
TEXT_CODECS = frozenset({"ascii", "us-ascii", "utf-8", "utf8", "latin-1", "latin1", "iso-8859-1", "utf-16", "utf-32", "idna", "cp1252"})


_ORDERED_RESULTS = frozenset({"str", "repr", "ascii", "list", "tuple", "join", "next", "iter", "enumerate", "zip"})


def check_call(name: str, target: Any, args: list[Any]) -> None:
    """Refuse a builtin call or ``str`` method call whose result would be past the limits, or
    whose result depends on the order of a set CPython does not fix (``", ".join(MODES)``)."""
    if name in _ORDERED_RESULTS and any(unordered(arg) for arg in args):
        raise EvalError(f"{name}() of a set of texts or dtypes: its order differs from run to run")
    if name in ("str", "repr", "sorted", "list", "tuple", "set", "frozenset"):  # they build a value as large as their argument
        for arg in args:
            if isinstance(arg, (str, bytes)) and name not in ("str", "repr"):
                check_size(2 + 6 * len(arg), "value")  # one item of 1 character (4 units, and 2 between) per character
            elif not isinstance(arg, (int, float, bool, type(None))):
                check_size(size_of(arg), "value")
    elif name == "sum":
        items = args[0] if args else ()
        if len(args) > 1 and not isinstance(args[1], (int, float)):
            raise TooLarge("sum of sequences not evaluated (quadratic)")
        check_size(size_of(items), "sum")
    elif name == "round" and len(args) > 1 and isinstance(args[1], int) and abs(args[1]) > MAX_ROUND_DIGITS:
        raise TooLarge("round to too many digits")
    elif name == "join" and isinstance(target, str) and args:
        items = args[0]
        count = len(items) if isinstance(items, (list, tuple, set, frozenset, dict, str)) else 0
        check_size(size_of(items) + len(target) * count, "joined text")
    elif name == "replace" and isinstance(target, str) and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
        old, new = args[0], args[1]
        hits = target.count(old) if old else len(target) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            hits = min(hits, args[2])
        check_size(len(target) + hits * max(len(new) - len(old), 0), "replaced text")
    elif name == "encode" and isinstance(target, str):
        if args[:1] and (not isinstance(args[0], str) or args[0].lower().replace("_", "-") not in TEXT_CODECS) \
                or args[1:2] and args[1] not in ("strict", "ignore", "replace"):
            raise EvalError("encode() with a codec or error handler outside the allow-list")
        check_size(4 * len(target), "encoded text")
    elif isinstance(target, str):
        check_size(len(target), "text")
