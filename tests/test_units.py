"""Units: the text libcst parses is cut after the last raise and thinned, never changing a fact."""

from __future__ import annotations

from extractor.collect.cstpass import parse_unit

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
    # f's tail binds only `total`, never mentioned above it: cut. g's tail rebinds `x` (which
    # the message model reads as assigned twice) and h's declares `global`: both read whole.
    import ast

    from extractor.collect import file as collect
    from extractor.collect import units
    from extractor.options import Options
    from extractor.sources import SourceFile, split_lines

    tree = ast.parse(SOURCE)
    lines = split_lines(SOURCE)
    scan = collect._scan(tree, "m", False, collect.decl.SourceText(lines))
    ends = {}
    for hit in scan.hits:
        unit, _ = collect._unit_of(hit)
        ends[unit.name] = units.needed_end(unit, hit.node.lineno, lines)
    assert ends == {"f": 7, "g": None, "h": None}
    source = SourceFile(path="m.py", data=SOURCE.encode(), blob_sha="0" * 40)
    cut = collect.collect_file(source, Options())
    monkeypatch.setattr(collect, "needed_end", lambda unit, last, lines: None)
    assert collect.collect_file(source, Options()) == cut
    # `limit` and `x` read as the values that reach their raises (the loop in g's tail comes after).
    assert [(site.raised.statement.guard.code, site.raised.statement.guard.opaque) for site in cut.sites] == [("a > 10", ()), ("(a * 2) > 3", ()), ("a", ())]


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
    from extractor.collect import units

    monkeypatch.setattr(units, "_unread_left_out", lambda unit, lines, first, end, keep=frozenset(): lines[first - 1 : end])


def test_libcst_reads_no_statement_it_would_not_use(monkeypatch) -> None:
    # Left out: the docstring (as `pass`: it does nothing), the logging call, comments and blank lines between
    # statements, `unused = ...` (bound, never read), the loop over `item`, the `with`
    # (binds `fh`, read only inside). Kept: the exit call, `seen` and `total` (read
    # later), the `;` line, and the expression statement holding `:=`.
    import ast

    from extractor.collect import file as collect
    from extractor.collect import units
    from extractor.options import Options
    from extractor.sources import SourceFile, split_lines

    tree = ast.parse(ELIDED)
    lines = split_lines(ELIDED)
    method = tree.body[1].body[0]
    assert units.unit_text(method, lines) == '''if 1:
    def m(self, a, b):
        pass
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
    assert [site.raised.statement.guard.code for site in elided.sites] == ["a is not None and [v for v in a]",
                                                                            "a is not None and not [v for v in a] and size > 3"]


def test_leaving_statements_out_changes_no_fact_of_the_fixtures(monkeypatch) -> None:
    from extractor.collect import file as collect
    from extractor.inputs import select_sources
    from extractor.options import Options
    from extractor.sources import read_contents

    from .helpers import FIXTURES

    for case in ("forms", "offload", "broken"):
        listed = select_sources(str(FIXTURES / case), Options()).files
        files = list(read_contents(str(FIXTURES / case), None, listed))
        elided = [collect.collect_file(f, Options()) for f in files]
        with monkeypatch.context() as patch:
            _read_whole(patch)
            assert [collect.collect_file(f, Options()) for f in files] == elided


def test_a_blank_line_that_ends_a_backslash_continuation_stays() -> None:
    import ast

    from extractor.collect import units
    from extractor.sources import split_lines

    source = "def f(x):\n    y = 1 \\\n\n    if x:\n        raise ValueError(y)\n"
    text = units.unit_text(ast.parse(source).body[0], split_lines(source))
    assert text == source
    assert len(parse_unit(text)) == 1
