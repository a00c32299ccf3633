"""A card's source excerpt: the enclosing definition, clipped to the lines that lead to the raise."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from extractor.collect.sites import _AFTER_RAISE, excerpt_of


def _function(before: int, raise_lines: int, after: int) -> tuple[str, ast.FunctionDef, ast.Raise]:
    body = [f"    x{i} = {i}" for i in range(before)]
    if raise_lines == 1:
        body.append("    raise ValueError('bad')")
    else:
        body += ["    raise ValueError(", *[f"        'part {i}'" for i in range(raise_lines - 2)], "    )"]
    body += [f"    y{i} = {i}" for i in range(after)]
    code = "def f():\n" + "\n".join(body) + "\n"
    function = ast.parse(code).body[0]
    assert isinstance(function, ast.FunctionDef)
    node = next(n for n in ast.walk(function) if isinstance(n, ast.Raise))
    return code, function, node


@given(st.integers(0, 60), st.integers(1, 40), st.integers(0, 60), st.integers(1, 50))
def test_an_excerpt_keeps_the_raise_and_what_leads_to_it(before: int, raise_lines: int, after: int, limit: int) -> None:
    code, function, node = _function(before, raise_lines, after)
    lines = code.splitlines()
    excerpt = excerpt_of(function, node, lines, limit)
    shown = excerpt.text.split("\n")
    first, last = excerpt.start_line, excerpt.start_line + len(shown) - 1
    assert shown == lines[first - 1 : last]
    assert 1 <= first <= node.lineno and node.end_lineno <= last <= function.end_lineno  # the whole raise, in the function
    assert len(shown) <= max(limit, raise_lines)
    if function.end_lineno - function.lineno + 1 <= limit:
        assert (first, last) == (1, function.end_lineno)  # a short definition is shown whole
    elif first > 1:
        assert last - node.end_lineno <= _AFTER_RAISE  # clipped: the lines after the raise are few


def test_a_long_function_shows_the_lines_before_its_raise() -> None:
    code, function, node = _function(before=50, raise_lines=1, after=50)
    excerpt = excerpt_of(function, node, code.splitlines(), 30)
    assert (excerpt.start_line, excerpt.text.count("\n") + 1) == (node.lineno - 26, 30)
    assert excerpt.text.endswith("    raise ValueError('bad')\n    y0 = 0\n    y1 = 1\n    y2 = 2")
