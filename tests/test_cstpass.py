"""The libcst pass: units parse with libcst's node checks off, and only while parsing;
plain atoms are read off the tree; the CLI-flag prefilter of the collect stage."""

from __future__ import annotations

import libcst as cst
import pytest

from extractor.collect.cstpass import parse_unit

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


def test_the_flag_call_prefilter_agrees_with_word_boundaries() -> None:
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from extractor.collect.flags import may_declare_flags

    pieces = st.sampled_from(["option", "Option", "add_argument", "add_option", "_", "x", "1", " ", ".", "(", "é"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, max_size=8).map("".join))
    def agrees(text: str) -> None:
        expected = not text.isascii() or re.search(r"\b(?:add_argument|add_option|option|Option)\b", text) is not None
        assert may_declare_flags(text) is expected

    agrees()


def test_plain_atoms_read_off_the_tree_are_the_generated_code() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from extractor.collect.scope import _EMPTY_MODULE, raw_code

    atoms = st.sampled_from(["a", "b_1", "self", "0", "1.5", "2j", "'s'", '"t"', "(a)", "( b )"])
    dots = st.sampled_from([".", " .", ". ", ".\\\n"])

    @settings(max_examples=300, deadline=None)
    @given(atoms, st.lists(st.tuples(dots, st.sampled_from(["x", "y_2"])), max_size=3), st.booleans())
    def same(first: str, rest: list[tuple[str, str]], wrapped: bool) -> None:
        code = first + "".join(dot + name for dot, name in rest)
        if rest and first[0].isdigit() and "." in first + rest[0][0]:
            code = f"({first})" + code[len(first):]  # 1.5.x is not an expression
        if wrapped:
            code = f"({code})"
        try:
            node = cst.parse_expression(code)
        except cst.ParserSyntaxError:
            return
        generated = _EMPTY_MODULE.code_for_node(node)
        if "\n" not in generated:
            assert raw_code(node) == generated.strip()

    same()
