"""A card's source excerpt: the definition around a raise, clipped to the lines that lead to it."""

from __future__ import annotations

import ast

from ..model import Excerpt
from . import declarations as decl
from .units import first_line


def excerpt_of(span: ast.stmt, node: ast.Raise, lines: list[str], limit: int) -> Excerpt:
    """The enclosing definition, clipped to ``limit`` lines that keep the raise in view: what
    leads to it (the tests of its guard stand before it), and ``_AFTER_RAISE`` lines after it."""
    first = first_line(span)
    last = span.end_lineno or span.lineno
    raise_first, raise_last = node.lineno, node.end_lineno or node.lineno
    limit = max(limit, raise_last - raise_first + 1)
    if last - first + 1 > limit:
        lowest = first
        last = min(last, raise_last + _AFTER_RAISE)
        first = max(lowest, min(raise_first, last - limit + 1))
        last = min(span.end_lineno or span.lineno, first + limit - 1)
    return Excerpt(start_line=first, text="\n".join(decl.cut_text(line, _MAX_EXCERPT_LINE) for line in lines[first - 1 : last]))


_AFTER_RAISE = 3  # lines of a clipped excerpt after the raise
_MAX_EXCERPT_LINE = 1_000  # characters of one excerpt line; a longer one is cut, with a marker
