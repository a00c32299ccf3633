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


SOURCE = '''import os


def f(a, b=1):
    limit = 10
    if a > limit:
        raise ValueError(f"a ({a}) > {limit}")
    total = a + b
    return total


def g(a):
    x = a * 2
    if x > 3:
        raise ValueError(f"x ({x}) too big")
    for x in range(3):
        pass
    return x


def h(a):
    if a:
        raise KeyError("a")
    global os
    os = None
'''


def test_libcst_reads_a_function_only_up_to_its_last_raise_when_the_rest_cannot_matter(monkeypatch) -> None:
    # f's tail binds only `total`, never mentioned above it: cut. g's tail rebinds `x` (then
    # x is assigned twice and not inlined) and h's declares `global`: both read whole.
    import ast

    from extractor import collect
    from extractor.options import Options
    from extractor.sources import SourceFile, split_lines

    tree = ast.parse(SOURCE)
    lines = split_lines(SOURCE)
    scan = collect._scan(tree, "m", False, collect.decl.SourceText(lines))
    ends = {}
    for hit in scan.hits:
        unit = collect._unit_of(hit)
        ends[unit.name] = collect._needed_end(unit, [hit], lines)
    assert ends == {"f": 7, "g": None, "h": None}
    source = SourceFile(path="m.py", data=SOURCE.encode(), blob_sha="0" * 40)
    cut = collect.collect_file(source, Options())
    monkeypatch.setattr(collect, "_needed_end", lambda unit, hits, lines: None)
    assert collect.collect_file(source, Options()) == cut
    # `limit` is inlined (assigned once); `x` is not (the loop in g's tail rebinds it).
    assert [(site.guard.code, site.guard.opaque) for site in cut.sites] == [("a > 10", ()), ("x > 3", ("x",)), ("a", ())]


ELIDED = '''import sys


class C:
    def m(self, a, b):
        """A docstring
        on two lines."""
        log.info("checking %s", a)  # a comment after
        # a comment line

        unused = compute(a)
        seen = [v for v in a]
        if a is None:
            sys.exit(2)
        for item in a:
            print(item)
        if seen:
            raise ValueError(f"{a} {b}")
        n = len(a); log.debug(n)
        if b:
            total = 0
            total += b
        helper(total)
        with open(b) as fh:
            fh.read()
        (size := len(b))
        if size > 3:
            raise KeyError(b)
'''


def _read_whole(monkeypatch) -> None:
    from extractor import collect

    monkeypatch.setattr(collect, "_unread_left_out", lambda unit, lines, first, end: lines[first - 1 : end])


def test_libcst_reads_no_statement_it_would_not_use(monkeypatch) -> None:
    # Left out: the docstring, the logging call, comments and blank lines between
    # statements, `unused = ...` (bound, never read), the loop over `item`, the `with`
    # (binds `fh`, read only inside). Kept: the exit call, `seen` and `total` (read
    # later), the `;` line, and the expression statement holding `:=`.
    import ast

    from extractor import collect
    from extractor.options import Options
    from extractor.sources import SourceFile, split_lines

    tree = ast.parse(ELIDED)
    lines = split_lines(ELIDED)
    method = tree.body[1].body[0]
    assert collect._unit_text(method, lines) == '''if 1:
    def m(self, a, b):
        ...
        ...
        ...
        seen = [v for v in a]
        if a is None:
            sys.exit(2)
        ...
        if seen:
            raise ValueError(f"{a} {b}")
        n = len(a); log.debug(n)
        if b:
            total = 0
            total += b
        ...
        ...
        (size := len(b))
        if size > 3:
            raise KeyError(b)
'''
    source = SourceFile(path="m.py", data=ELIDED.encode(), blob_sha="0" * 40)
    elided = collect.collect_file(source, Options())
    _read_whole(monkeypatch)
    assert collect.collect_file(source, Options()) == elided
    assert [site.guard.code for site in elided.sites] == ["a is not None and seen", "a is not None and not seen and size > 3"]


def test_leaving_statements_out_changes_no_fact_of_the_fixtures(monkeypatch) -> None:
    from extractor import collect
    from extractor.options import Options
    from extractor.pipeline import read_sources

    from .helpers import FIXTURES

    for case in ("forms", "offload", "broken"):
        files, *_ = read_sources(str(FIXTURES / case), Options())
        elided = [collect.collect_file(f, Options()) for f in files]
        with monkeypatch.context() as patch:
            _read_whole(patch)
            assert [collect.collect_file(f, Options()) for f in files] == elided


def test_the_flag_call_prefilter_agrees_with_word_boundaries() -> None:
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from extractor.collect import may_declare_flags

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

    from extractor.scope import _EMPTY_MODULE, raw_code

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


def test_a_blank_line_that_ends_a_backslash_continuation_stays() -> None:
    import ast

    from extractor import collect
    from extractor.sources import split_lines

    source = "def f(x):\n    y = 1 \\\n\n    if x:\n        raise ValueError(y)\n"
    text = collect._unit_text(ast.parse(source).body[0], split_lines(source))
    assert text == source
    assert len(parse_unit(text)) == 1
