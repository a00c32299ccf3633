"""Property tests: on any program CPython accepts, the pass finds exactly its raises and never raises."""

from __future__ import annotations

import ast
import warnings

import hypothesmith
import libcst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.collect.declarations import call_style
from extractor.collect.file import collect_file
from extractor.collect.syntax import child_nodes, walk
from extractor.model import FileFacts, FileFailure
from extractor.options import Options
from extractor.sources import SourceFile

# Derandomized and without an example database: the same programs on every machine, so
# CI time does not depend on what earlier local runs saved.
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)


def _check(source: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # generated code warns about itself
            expected = sum(isinstance(n, ast.Raise) for n in ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    result = collect_file(SourceFile.from_bytes("gen.py", source.encode("utf-8", "surrogatepass")), Options())
    if isinstance(result, FileFailure):
        # Only decoding can differ between str and bytes input (e.g. surrogates).
        assert result.stage == "decode", result
        return
    assert isinstance(result, FileFacts)
    assert len(result.sites) == expected
    assert [s.line for s in result.sites] == sorted(s.line for s in result.sites)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates
@SETTINGS
@given(hypothesmith.from_grammar())
def test_grammar_generated_programs(source: str) -> None:
    _check(source)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@SETTINGS
@given(hypothesmith.from_node())
def test_node_generated_programs(source: str) -> None:
    _check(source)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@given(_JSON)
def test_the_indented_encoder_writes_what_the_json_module_writes(data) -> None:
    import json
    import re

    from extractor.model import dumps_data

    expected = json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert dumps_data(data) == re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", expected)


def _parsed(source: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@SETTINGS
@given(hypothesmith.from_node())
def test_the_fast_walk_yields_what_ast_walk_yields_in_its_order(source: str) -> None:
    tree = _parsed(source)
    if tree is None:
        return
    assert list(walk(tree)) == list(ast.walk(tree))
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node))


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@SETTINGS
@given(hypothesmith.from_node(libcst.FunctionDef) | st.sampled_from([
    "def f(x):\n    if x:\n        yield x\n", "async def f():\n    return [(yield) for _ in ()]\n",
    "def f():\n    def g():\n        yield 1\n    return g\n", "def f():\n    x = lambda: (yield)\n",
]))
def test_the_call_style_of_a_function_without_yield_in_its_text_is_the_walked_one(source: str) -> None:
    tree = _parsed(source)
    if tree is None:
        return
    lines = source.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            assert call_style(node, may_yield="yield" in text or not text.isascii()) == call_style(node)
