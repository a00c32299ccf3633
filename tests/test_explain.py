"""``raisedocs explain``: a pasted error message -> the cards whose message template matches it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.publish.catalog_file import load_catalog
from extractor.publish.explain import match_message
from extractor.publish.paste import render_match

from .helpers import FIXTURES, run_cli, temp_tree

PREFETCH_STEP = "offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)"
PREFETCH_STEP_CARD = "06464a7bea2efb32"  # minivllm/config/offload.py:49
NUM_IN_GROUP_CARD = "c70859336680feca"  # minivllm/config/offload.py:43
PYDANTIC_WRAPPED = """\
1 validation error for OffloadConfig
  Value error, offload_prefetch_step (0) must be >= 1 when prefetch
offloading is enabled (offload_group_size > 0) [type=value_error, input_value={'prefetch': {'offload_group_size': 2, 'offload_prefetch_step': 0}}, input_type=dict]
    For further information visit https://errors.pydantic.dev/2.9/v/value_error
"""


@pytest.fixture
def docs(capsys, tmp_path) -> str:  # noqa: ANN001 (pytest fixture)
    """The docs folder of the bundled ``offload`` fixture."""
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(out)).code == 0
    return str(out)


def test_exact_message_prints_the_card(capsys, docs) -> None:
    run = run_cli(capsys, "explain", PREFETCH_STEP, "--catalog", f"{docs}/catalog.json")
    assert (run.code, run.err) == (0, "")
    lines = run.out.splitlines()
    # Between "When:" and "Card:" come the trigger and fixes, when the card has them.
    assert lines[:5] + lines[-1:] == [
        f"ValueError · minivllm/config/offload.py:49 · card {PREFETCH_STEP_CARD} (score 0.99)",
        "offload_prefetch_step ({self.prefetch.offload_prefetch_step}) must be >= 1 when prefetch offloading is enabled"
        " (offload_group_size > 0)",
        "  self.prefetch.offload_prefetch_step = 0",
        "The caller gets pydantic.ValidationError (a framework runs this code and wraps or prints the error)",
        'When: (self.offload_backend == "prefetch" or self.prefetch.offload_group_size > 0)'
        " and not (self.prefetch.offload_num_in_group > self.prefetch.offload_group_size)"
        " and self.prefetch.offload_prefetch_step < 1",
        f"Card: {docs}/errors/{PREFETCH_STEP_CARD}.md",
    ]


def test_message_wrapped_in_a_pydantic_validation_error_still_matches_first(capsys, docs) -> None:
    run = run_cli(capsys, "explain", PYDANTIC_WRAPPED, "--catalog", docs)
    assert run.code == 0
    header, _template, value = run.out.splitlines()[:3]
    assert header.startswith(f"ValueError · minivllm/config/offload.py:49 · card {PREFETCH_STEP_CARD} (score ")
    assert value == "  self.prefetch.offload_prefetch_step = 0"


def test_two_placeholders_are_both_captured(capsys, docs) -> None:
    run = run_cli(capsys, "explain", "offload_num_in_group (8) must be <= offload_group_size (4)", "--catalog", docs)
    assert run.code == 0
    assert run.out.splitlines()[:4] == [
        f"ValueError · minivllm/config/offload.py:43 · card {NUM_IN_GROUP_CARD} (score 0.98)",
        "offload_num_in_group ({self.prefetch.offload_num_in_group}) must be <= offload_group_size"
        " ({self.prefetch.offload_group_size})",
        "  self.prefetch.offload_num_in_group = 8",
        "  self.prefetch.offload_group_size = 4",
    ]


def test_trailing_placeholder_in_a_traceback_stops_at_the_end(capsys, docs) -> None:
    text = "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\nSystemExit: --offload-group-size must be >= 0, got -3\n"
    run = run_cli(capsys, "explain", text, "--catalog", docs, "--limit", "1")
    assert run.code == 0
    assert run.out.splitlines()[0].startswith("SystemExit · minivllm/cli.py:31 · card ")
    assert run.out.splitlines()[2] == "  args.offload_group_size = -3"


def test_message_that_matches_nothing_exits_1(capsys, docs) -> None:
    run = run_cli(capsys, "explain", "KeyError: 'model.layers.0.weight'", "--catalog", docs)
    assert (run.code, run.out, run.err) == (1, "", "raisedocs: no card matches this message\n")


def test_missing_catalog_is_one_line_and_exit_2(capsys, tmp_path) -> None:
    run = run_cli(capsys, "explain", PREFETCH_STEP, "--catalog", str(tmp_path / "nope.json"))
    assert (run.code, run.out, run.err) == (2, "", f"raisedocs: error: catalog not found: {tmp_path / 'nope.json'}\n")


@pytest.mark.parametrize(
    ("content", "args", "error"),
    [
        ("{", (), "is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('{"schema": "other/1"}', (), "is not a raisedocs catalog: schema is 'other/1', expected 'raisedocs/catalog/2'"),
        ('{"schema": "raisedocs/catalog/1"}', (), "catalog does not match schema at errors: not a list of cards"),
        # the whole document is checked against the JSON Schema only when asked
        ('{"schema": "raisedocs/catalog/1"}', ("--validate",), "catalog does not match schema at (root): 'errors' is a required property"),
        ('{"schema": "raisedocs/catalog/1", "errors": [{}]}', (), "catalog does not match schema at errors/0: 'exception' is missing"),
    ],
)
def test_bad_catalog_is_one_line_and_exit_2(capsys, tmp_path, content: str, args: tuple[str, ...], error: str) -> None:
    (tmp_path / "catalog.json").write_text(content)
    run = run_cli(capsys, "explain", PREFETCH_STEP, "--catalog", str(tmp_path), "--no-cache", *args)
    assert run.code == 2
    assert run.err.startswith("raisedocs: error: ") and run.err.endswith(f"{error}\n") and run.err.count("\n") == 1


def test_json_output_carries_ids_scores_and_values(capsys, docs) -> None:
    run = run_cli(capsys, "explain", PREFETCH_STEP, "--catalog", docs, "--format", "json")
    assert run.code == 0
    matches = json.loads(run.out)
    assert [(m["id"], m["score"], m["values"]) for m in matches] == [
        (PREFETCH_STEP_CARD, 0.9942, {"self.prefetch.offload_prefetch_step": "0"}),
    ]
    assert matches[0]["card"] == next(c for c in load_catalog(docs)["errors"] if c["id"] == PREFETCH_STEP_CARD)
    assert run.out == json.dumps(matches, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_dash_reads_the_message_from_stdin(capsys, docs, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PYDANTIC_WRAPPED))
    run = run_cli(capsys, "explain", "-", "--catalog", docs, "--format", "json")
    assert run.code == 0
    assert [m["id"] for m in json.loads(run.out)] == [PREFETCH_STEP_CARD]


# --- matching rules, on the fixture's cards with their templates swapped --------------


def _catalog_with_parts(docs: str, parts_by_line: dict[int, list[dict[str, str | None]]]) -> dict:
    """The fixture's catalog with the message parts of the cards at these lines replaced."""
    data = load_catalog(docs)
    for card in data["errors"]:
        card["message"]["parts"] = parts_by_line.get(card["line"], [_text("never shown")])
    return data


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _hole(expr: str, conversion: str | None = None) -> dict[str, str | None]:
    return {"type": "hole", "expr": expr, "conversion": conversion, "format_spec": None}


def test_the_same_placeholder_must_show_the_same_text(docs) -> None:
    parts = [_text("expected "), _hole("n"), _text(" items, counted "), _hole("n"), _text(" twice")]
    catalog = _catalog_with_parts(docs, {49: parts})
    assert [m.values for m in match_message("expected 3 items, counted 3 twice", catalog, 3)] == [{"n": "3"}]
    assert match_message("expected 3 items, counted 4 twice", catalog, 3) == []


def test_leading_placeholder_drops_the_wrapper_head(docs) -> None:
    catalog = _catalog_with_parts(docs, {49: [_hole("name", "r"), _text(" is not a known backend")]})
    matches = match_message("ValueError: 'fast path' is not a known backend", catalog, 3)
    assert [m.values for m in matches] == [{"name": "'fast path'"}]


def test_templates_without_a_long_literal_match_nothing(docs) -> None:
    catalog = _catalog_with_parts(docs, {49: [_hole("a"), _text(": "), _hole("b")]})
    assert match_message("a: b", catalog, 3) == []


def test_cards_are_ordered_by_score_then_location(docs) -> None:
    shorter = [_text("value "), _hole("x"), _text(" is too large")]
    catalog = _catalog_with_parts(docs, {49: shorter, 43: shorter, 73: [_text("the value "), _hole("x"), _text(" is too large")]})
    matches = match_message("the value 3 is too large", catalog, 3)
    assert [(m.card["line"], m.score) for m in matches] == [(73, 0.9737), (43, 0.7895), (49, 0.7895)]
    assert [m.card["line"] for m in match_message("the value 3 is too large", catalog, 1)] == [73]


def test_a_wrapped_message_scores_below_the_bare_message(docs) -> None:
    data = load_catalog(docs)
    bare, wrapped = (match_message(text, data, 1)[0] for text in (PREFETCH_STEP, f"ValueError: {PREFETCH_STEP}"))
    assert (bare.id, wrapped.id) == (PREFETCH_STEP_CARD, PREFETCH_STEP_CARD)
    assert bare.score > wrapped.score


def test_solved_trigger_and_fixes_are_shown(docs) -> None:
    data = load_catalog(docs)
    match = match_message(PREFETCH_STEP, data, 1)[0]
    card = {
        **match.card,
        "trigger": {"status": "concrete", "inputs": {"self.prefetch.offload_group_size": 1, "self.prefetch.offload_prefetch_step": 0}},
        "fixes": [{"description": "set self.prefetch.offload_prefetch_step to 1"}],
    }
    text = render_match(type(match)(id=match.id, score=match.score, values=match.values, card=card), "nowhere")
    assert text.splitlines()[5:] == [
        "Trigger:",
        "  self.prefetch.offload_group_size = 1",
        "  self.prefetch.offload_prefetch_step = 0",
        "Fixes:",
        "  - set self.prefetch.offload_prefetch_step to 1",
    ]


# The matcher places literals with str.find instead of a regular expression of lazy groups;
# it must find exactly what that expression finds (the reference below), in linear time.
_TEXT = st.text(alphabet="ab: [type=", min_size=0, max_size=40)


def _reference(parts: list[dict], text: str):
    import re

    from extractor.publish.explain import _literal, _merge_texts

    parts = _merge_texts(parts)
    pieces, names = [], {}
    for index, part in enumerate(parts):
        if part["type"] == "text":
            pieces.append(re.escape(_literal(parts, index)))
        elif part["expr"] in names:
            pieces.append(f"(?P={names[part['expr']]})")
        else:
            names[part["expr"]] = name = f"h{len(names)}"
            # A hole followed only by whitespace is the message's last hole (the old regex gave it
            # the empty match: "x = {x} " found x = "" in "x = 42"; the matcher takes "42").
            is_last = all(parts[j]["type"] == "text" and _literal(parts, j) == "" for j in range(index + 1, len(parts)))
            pieces.append(f"(?P<{name}>.*?)" + (r"(?=\s\[type=|$)" if is_last else ""))
    found = re.compile("".join(pieces)).search(text)
    return None if found is None else (found.span(), {n: found.group(n) for n in names.values()})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_TEXT.filter(bool).map(lambda s: {"type": "text", "text": s}),
                          st.sampled_from(["x", "y"]).map(lambda e: {"type": "hole", "expr": e})), min_size=1, max_size=6),
       _TEXT)
def test_the_matcher_finds_what_lazy_groups_would(parts: list[dict], text: str) -> None:
    from extractor.publish.explain import compile_template, normalize_whitespace, search_pattern

    pattern = compile_template(parts)
    if pattern is None:
        return
    text = normalize_whitespace(text + " " + "".join(p.get("text", "ab") for p in parts))
    found = search_pattern(pattern, text, steps=10**9)  # semantics alone: the budget is tested below
    assert (None if found is None else ((found.start, found.end), found.holes)) == _reference(parts, text)


def test_a_long_paste_against_many_holes_is_searched_in_bounded_steps() -> None:
    # A 6-hole template against 6 KB that almost matches: a regex of lazy groups backtracks
    # for minutes (the issue saw 137 s for 3.6 KB); placements are counted and capped.
    from extractor.publish.explain import compile_template, search_pattern

    parts = []
    for index in range(6):
        parts += [{"type": "text", "text": f"value {index} is "}, {"type": "hole", "expr": f"v{index}"}]
    parts.append({"type": "text", "text": " and that is wrong"})
    pattern = compile_template(parts)
    paste = " ".join(f"value {i % 6} is {i}" for i in range(400))
    assert search_pattern(pattern, paste) is None
    found = search_pattern(pattern, paste + " and that is wrong")
    assert found is not None and found.holes["h5"].endswith("399")


def test_the_docs_folder_carries_a_search_index_of_its_catalog(capsys, docs, tmp_path) -> None:
    import hashlib

    from extractor.publish.search_index import open_index

    index = json.loads((tmp_path / "docs" / "search-index.json").read_text(encoding="utf-8"))
    catalog = (tmp_path / "docs" / "catalog.json").read_bytes()
    assert index["catalog_sha256"] == hashlib.sha256(catalog).hexdigest()
    assert [e["id"] for e in index["entries"]] == [c["id"] for c in json.loads(catalog)["errors"]]
    # The index answers as the catalog does.
    assert match_message(PREFETCH_STEP, index, 3)[0].id == match_message(PREFETCH_STEP, load_catalog(docs), 3)[0].id
    assert open_index(docs, cache_dir=None) == index
    # Written in chunks from each entry's text, byte for byte the index built whole from the catalog.
    from extractor.publish.search_index import dump_index

    rebuilt = open_index(docs, validate=True, cache_dir=None)
    assert dump_index(rebuilt) == (tmp_path / "docs" / "search-index.json").read_text(encoding="utf-8")


def test_a_stale_index_is_never_used_and_a_plain_catalog_gets_one_in_the_cache(capsys, docs, tmp_path) -> None:
    cache = tmp_path / "cache"
    # The catalog changed after the index was written: its new template is what matches.
    catalog_file = tmp_path / "docs" / "catalog.json"
    changed = catalog_file.read_text(encoding="utf-8").replace("must be >= 1 when prefetch", "must be at least 1 when prefetch")
    plain = tmp_path / "plain.json"
    plain.write_text(changed, encoding="utf-8")
    catalog_file.write_text(changed, encoding="utf-8")
    for catalog in (docs, str(plain), str(plain)):  # the last one reads the cached index
        run = run_cli(capsys, "explain", PREFETCH_STEP.replace(">= 1", "at least 1"), "--catalog", catalog, "--cache-dir", str(cache))
        assert run.code == 0 and f"card {PREFETCH_STEP_CARD}" in run.out.splitlines()[0]
    assert len(list((cache / "search-index").iterdir())) == 1


def test_json_output_still_carries_the_whole_card(capsys, docs, tmp_path) -> None:
    run = run_cli(capsys, "explain", PREFETCH_STEP, "--catalog", docs, "--format", "json", "--no-cache")
    [first, *_] = json.loads(run.out)
    catalog = load_catalog(str(tmp_path / "docs" / "catalog.json"))
    assert first["card"] == next(c for c in catalog["errors"] if c["id"] == PREFETCH_STEP_CARD)
    assert "excerpt" in first["card"] and "pattern" not in first["card"]


TRACEBACK = """\
Traceback (most recent call last):
  File "/home/me/run.py", line 3, in <module>
    OffloadConfig(prefetch=PrefetchOffloadConfig(offload_group_size=2, offload_prefetch_step=0))
  File "/site-packages/minivllm/config/offload.py", line {line}, in _validate
    {code}
ValueError: offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)
"""


def test_a_traceback_frame_on_a_cards_line_names_that_card(capsys, docs) -> None:
    from extractor.publish.paste import match_paste
    from extractor.publish.search_index import open_index

    index = open_index(docs)
    card = next(e for e in index["entries"] if e["id"] == PREFETCH_STEP_CARD)
    [first, *_], origin = match_paste(TRACEBACK.format(line=card["line"], code="raise ValueError(...)"), index, 3)
    assert (first.id, first.score, origin) == (PREFETCH_STEP_CARD, 1.0, None)


def test_a_traceback_that_ends_below_a_line_with_no_raise_says_so(capsys, docs) -> None:
    # The innermost frame of the tree is a line with no raise statement: the error came from
    # below it (compiled code, another library). Template matches are then doubtful.
    run = run_cli(capsys, "explain", TRACEBACK.format(line=1, code="import x"), "--catalog", docs)
    assert "the traceback's innermost frame in this catalog's tree is minivllm/config/offload.py:1 (in _validate)" in run.err
    header = run.out.splitlines()[0]
    assert run.code == 0 and header.startswith(f"ValueError · minivllm/config/offload.py:49 · card {PREFETCH_STEP_CARD}")
    assert float(header.rsplit("(score ", 1)[1].rstrip(")")) < 0.5


def test_a_class_whose_raises_have_no_template_is_found_by_its_name(tmp_path, capsys) -> None:
    from extractor.publish.paste import match_paste

    cards = [
        {"id": "a1", "path": "pkg/decoder.py", "line": 10, "end_line": 10, "exception": {"display": "JSONDecodeError", "classes": ["pkg.decoder.JSONDecodeError"]},
         "message": {"template": None, "parts": None}},
        {"id": "b2", "path": "pkg/other.py", "line": 5, "end_line": 5, "exception": {"display": "ValueError", "classes": ["ValueError"]},
         "message": {"template": None, "parts": None}},
    ]
    matches, origin = match_paste("pkg.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)", {"errors": cards}, 3)
    assert [(m.id, m.score) for m in matches] == [("a1", 0.3)] and origin is None


def test_fixes_are_given_for_the_values_in_the_pasted_message(capsys, docs) -> None:
    run = run_cli(capsys, "explain", "offload_num_in_group (4) must be <= offload_group_size (2)", "--catalog", docs, "--limit", "1")
    lines = run.out.splitlines()
    start = lines.index("For your values (self.prefetch.offload_num_in_group = 4, self.prefetch.offload_group_size = 2):")
    part = "self.prefetch.offload_num_in_group > self.prefetch.offload_group_size"
    assert lines[start + 1 : start + 3] == [
        f"  - set `prefetch.offload_num_in_group` to `2` (you have `4`), so that `{part}` is false",
        f"  - set `prefetch.offload_group_size` to `4` (you have `2`), so that `{part}` is false",
    ]
    data = json.loads(run_cli(capsys, "explain", "offload_num_in_group (4) must be <= offload_group_size (2)", "--catalog", docs, "--format", "json").out)
    assert [f["to"] for f in data[0]["personal"]["fixes"]] == [2, 4]


def test_values_off_the_cards_path_get_no_personal_fix(capsys, docs) -> None:
    # 1 <= 2: these values would not raise here, so no fix is claimed for them.
    run = run_cli(capsys, "explain", "offload_num_in_group (1) must be <= offload_group_size (2)", "--catalog", docs, "--limit", "1")
    assert run.code == 0 and "For your values" not in run.out


def test_a_class_from_outside_the_tree_makes_a_bare_message_match_doubtful() -> None:
    from extractor.publish.paste import match_paste

    def card(id_: str, path: str, cls: str) -> dict:
        return {"id": id_, "path": path, "line": 3, "end_line": 3, "exception": {"display": cls, "classes": [cls]},
                "message": {"template": "Incorrect padding", "parts": [{"type": "text", "text": "Incorrect padding"}]}}

    # binascii (compiled) raises "Incorrect padding" too: base64's card is only a guess.
    cards = [card("c1", "base64.py", "binascii.Error"), card("c2", "pkg/codec.py", "pkg.errors.PaddingError")]
    # pkg.faults raises nothing (no card names it), but it is a module of the tree's package pkg.
    cards += [card("c4", "pkg/codec.py", "pkg.faults.Bad")]
    found = {m.id: m for m in match_paste("Incorrect padding", {"errors": [*cards, {**cards[0], "id": "c3", "path": "pkg/errors.py"}]}, 5)[0]}
    assert found["c1"].note == "class_outside_tree" and found["c1"].score == 0.5  # (1.0 halved)
    assert found["c2"].note is None and found["c2"].score > 0.9
    assert found["c4"].note is None and found["c4"].score > 0.9


def test_a_hole_of_a_typed_input_shows_text_of_its_type(capsys, docs) -> None:
    # offload_num_in_group is declared int: "(many)" is not a value it can print.
    good = run_cli(capsys, "explain", "offload_num_in_group (4) must be <= offload_group_size (2)", "--catalog", docs, "--no-cache")
    assert good.code == 0 and good.out.startswith("ValueError · minivllm/config/offload.py:43")
    bad = run_cli(capsys, "explain", "offload_num_in_group (many) must be <= offload_group_size (2)", "--catalog", docs, "--no-cache")
    assert not bad.out.startswith("ValueError · minivllm/config/offload.py:43")


def test_a_card_is_read_from_its_own_line_of_the_catalog(docs) -> None:
    from extractor.publish.search_index import _card_line

    catalog = load_catalog(str(Path(docs) / "catalog.json"))
    for card in catalog["errors"]:
        assert _card_line(str(Path(docs) / "catalog.json"), card["id"]) == card
    assert _card_line(str(Path(docs) / "catalog.json"), "0000000000000000") is None


def test_a_message_whose_last_value_is_empty_matches_as_pasted(tmp_path, capsys) -> None:
    """Run, the raise says "... but found " (the value is empty); a paste loses that space."""
    from extractor.publish.catalog_file import load_catalog
    from extractor.publish.explain import match_message

    tree = temp_tree(tmp_path / "tree", {"words.py": "def word(value):\n    if not value.isalpha():\n        raise ValueError(f'expected encoded word but found {value}')\n"})
    try:
        exec(compile((tree / "words.py").read_text(encoding="utf-8") + "\nword('')\n", "words.py", "exec"), {})
    except ValueError as exc:
        pasted = f"ValueError: {exc}".strip()
    assert pasted == "ValueError: expected encoded word but found"
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(tree), "-o", str(docs), "--no-cache", "-q").code == 0
    run = run_cli(capsys, "explain", pasted, "--catalog", str(docs), "--format", "json", "--no-cache")  # from the search index
    assert run.code == 0 and json.loads(run.out)[0]["values"] == {"value": ""}
    matches = match_message(pasted, load_catalog(str(docs)), 3)  # from the cards
    assert [m.values for m in matches] == [{"value": ""}]
    assert match_message("ValueError: expected encoded word but foun", load_catalog(str(docs)), 3) == []
