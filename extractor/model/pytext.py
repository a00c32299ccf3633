"""Python text, both ways: a value of the catalog's data -> the text cards and examples write
for it; an expression's text (a guard, a guard part, a placeholder, an argument's code) -> its
``ast`` tree, parsed once per process and shared by the stages that read it."""

from __future__ import annotations

import ast
import re
import warnings
from functools import lru_cache
from typing import Any

REPEATED_FROM = 24  # items of a str or list of one repeated item that are written as a product
# Trees kept per process. Measured on vLLM 0.33: its busiest worker asks for 82,520 parses of
# 18,453 distinct texts (most asked once); 8192 trees hit 77.4% of them, no bound 77.6%
# (the stdlib's workers: 8387 distinct texts, 8192 hit as many as no bound). A tree is a few
# KB, with the evaluator's compiled function kept on it (solve.evaluate.core.compiled).
EXPRESSION_CACHE = 8192


def parse_expression(text: str) -> ast.expr:
    """``text`` parsed as one Python expression (exactly: not stripped, so the tree's offsets
    index ``text``). The tree is shared: see ``try_parse_expression``.

    Raises:
        SyntaxError: ``text`` is not one Python expression.
    """
    tree = try_parse_expression(text)
    if tree is None:
        raise SyntaxError(f"not an expression: {text!r}")
    return tree


def own_expression(text: str) -> ast.expr | None:
    """``text`` parsed as one Python expression into a tree of the caller's own, which it may
    change (parsing again costs a tenth of ``copy.deepcopy`` of the shared tree); None where
    ``try_parse_expression`` gives None."""
    if try_parse_expression(text) is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, mode="eval").body


@lru_cache(maxsize=EXPRESSION_CACHE)
def try_parse_expression(text: str) -> ast.expr | None:
    """``text`` parsed as one Python expression, or None where it is not one (nor parses
    within the parser's limits). Parsed once per process: every caller gets the same tree,
    so none may change it (a caller that rewrites the tree rewrites a ``copy.deepcopy``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (an invalid escape, ``x is 1``: a warning; the tree is the same)
            return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # (ValueError: a NUL byte)
        return None


def repeated_text(value: Any) -> str | None:
    """``'a' * 1001``, ``[0] * 1001``: a long str of one character, or a long list of one
    plain item (``len(plural) > 1000``'s trigger, written once, not as a thousand characters
    three times on the card); None for anything else."""
    if type(value) is str and len(value) >= REPEATED_FROM and value == value[0] * len(value):
        return f"{value[0]!r} * {len(value)}"
    if type(value) is list and len(value) >= REPEATED_FROM and type(value[0]) in (int, str, bool, type(None)) \
            and all(type(v) is type(value[0]) and v == value[0] for v in value):
        return f"[{value[0]!r}] * {len(value)}"
    return None


def literal_or(code: str | None, default: Any = None) -> Any:
    """The value of a Python literal's source (``ast.literal_eval``: literals only, nothing
    runs), or ``default`` where ``code`` is None or not a literal within the parser's limits."""
    if code is None:
        return default
    try:
        return ast.literal_eval(code)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return default


def compares_with_none(name: str, code: str) -> bool:
    """Whether the guard ``code`` compares the input ``name`` itself with None (``prompt is None``,
    ``cache is not None``, ``x != None``), not an attribute of it or a name ending in it."""
    if "None" not in code or name not in code:
        return False  # (the test names both; most guards neither: no pattern built)
    return re.search(_NONE_TEST.format(name=re.escape(name)), code) is not None


_NONE_TEST = r"(?<![\w.]){name}\s+is\s+(?:not\s+)?None\b|(?<![\w.]){name}\s*[!=]=\s*None\b"


def one_class(annotation: str | None) -> str | None:
    """The class an annotation names, alone or or None (``Cache | None``, ``Optional[Cache]``:
    ``Cache``); None for ``list[Choice]``, ``SkipValidation[Config]``, a union of classes, ``Any``."""
    text = (annotation or "").strip().strip("'\"")
    optional = re.fullmatch(r"Optional\[(.+)\]", text)
    sides = [optional.group(1)] if optional else [side.strip().strip("'\"") for side in text.split("|")]
    named = [side for side in sides if side != "None"]
    if len(named) != 1 or _DOTTED.fullmatch(named[0]) is None or named[0] in _NOT_CLASSES:
        return None
    return named[0]


_NOT_CLASSES = frozenset({"Any", "typing.Any", "object"})


_DOTTED = re.compile(r"[A-Za-z_][\w.]*")
