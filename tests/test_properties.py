"""Property tests: on any program CPython accepts, the pass finds exactly its raises and never raises."""

from __future__ import annotations

import ast
import warnings

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.collect.file import collect_file
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
