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
