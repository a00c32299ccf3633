"""The libcst pass parses units with libcst's node checks off, and only while parsing."""

from __future__ import annotations

import libcst as cst
import pytest

from extractor.cstpass import parse_unit

UNIT = '''def f(x, *, y=1):
    """Doc."""
    if x > (y + 1) and not isinstance(x, int):
        raise ValueError(f"x ({x!r:>4}) is bad" "!")
    try:
        g(x)
    except (KeyError, IndexError) as exc:
        raise RuntimeError("g failed") from exc
'''


def test_a_unit_parses_to_the_same_tree_as_a_checked_parse() -> None:
    found = parse_unit(UNIT)
    checked = cst.parse_module(UNIT)
    assert found[0][1][0].deep_equals(checked)
    assert len(found) == 2 and all(isinstance(raw, cst.Raise) for raw, _ in found)


def test_node_checks_are_back_on_after_a_parse() -> None:
    parse_unit(UNIT)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parse_unit("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("still checked")
