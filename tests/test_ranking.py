"""Issue 42, user-facing first and less noise: publish.ranking (one key orders the index, the
site and search: the errors users hit first, message-less ones last), publish.families
(identical checks across files, listed once) and link.docstrings (what a card quotes)."""

from __future__ import annotations

import json

from extractor.link.docstrings import class_summary, field_entry
from extractor.model import Standing
from extractor.model.spool import summary_of
from extractor.publish.catalog_file import load_catalog
from extractor.publish.families import family_key, find_families, normalized_guard
from extractor.publish.index_groups import index_modules
from extractor.publish.ranking import is_public_module, is_public_name, rank_key, standing
from extractor.publish.search_index import index_entry

from .helpers import FIXTURES, GOLDEN, run_cli


def _card(function: str | None = "parse", template: str | None = "bad {x}", path: str = "pkg/mod.py", **extra) -> dict:
    return {"id": "0" * 16, "path": path, "line": 1, "end_line": 1, "function": function, "kind": "call",
            "exception": {"display": "ValueError"}, "message": {"template": template, "reason": None}, **extra}


def test_standing_reads_the_message_the_catch_and_the_reach() -> None:
    assert standing(_card()) is Standing.USER
    assert standing(_card(template="")) is Standing.NO_MESSAGE
    assert standing(_card(caught={"visibility": "hidden"})) is Standing.CAUGHT
    assert standing(_card(caught={"visibility": "reraised"})) is Standing.USER
    assert standing(_card(function="_helper")) is Standing.INTERNAL
    assert standing(_card(function="_helper", callers=[{"function": "parse", "line": 3}])) is Standing.USER
    assert standing(_card(path="pkg/_impl.py")) is Standing.INTERNAL
    assert standing(_card(path="tests/test_mod.py")) is Standing.INTERNAL
    assert standing(_card(function="_main", kind="parser_error")) is Standing.USER  # the command line reaches it
    # A card that lists its public entries is ranked by them alone
    # (link.callgraph's record: its paths, or the reason none reaches the card)
    paths = {"paths": [{"entry": "pkg.parse", "path": ["pkg.mod.parse", "pkg.mod._helper"]}]}
    assert standing(_card(function="_helper", entries=paths)) is Standing.USER
    assert standing(_card(function="parse", entries={"reason": "no_public_entry"})) is Standing.INTERNAL


def test_the_key_puts_users_errors_first_and_message_less_ones_last() -> None:
    cards = [_card(template=""), _card(function="_x"), _card(template=None), _card(caught={"visibility": "hidden"}), _card(),
             _card(function="_x", template=None)]
    order = sorted(range(len(cards)), key=lambda i: rank_key(cards[i]))
    # message known: user, internal; message unknown: user, internal; always caught; no message
    assert order == [4, 1, 2, 5, 3, 0]


def test_a_card_its_summary_and_its_search_entry_rank_alike() -> None:
    catalog = load_catalog(str(GOLDEN / "callers" / "catalog.json"))
    for card in catalog["errors"]:
        assert rank_key(summary_of(card)) == rank_key(card) == rank_key(json.loads(json.dumps(index_entry(card))))


def test_public_names() -> None:
    assert is_public_name("Class.__init__") and is_public_name("f.<locals>.g")
    assert not is_public_name("Class._check") and not is_public_name("_f.<locals>.g")
    assert is_public_module("pkg/__init__.py") and is_public_module("pkg/__main__.py") and is_public_module("top.py")
    assert not any(is_public_module(p) for p in ("pkg/_x.py", "_pkg/a.py", "test/a.py", "pkg/test_a.py", "pkg/a_test.py", "conftest.py"))


def test_the_index_lists_public_modules_first_and_each_module_ranked() -> None:
    summaries = [summary_of({**_card(template="", path="pkg/a.py"), "id": "1" * 16, "line": 1}),
                 summary_of({**_card(path="pkg/a.py"), "id": "2" * 16, "line": 9}),
                 summary_of({**_card(path="pkg/_b.py"), "id": "3" * 16}),
                 summary_of({**_card(path="pkg/c.py", function="_f"), "id": "4" * 16})]
    modules = index_modules(summaries)
    assert [m["path"] for m in modules] == ["pkg/a.py", "pkg/c.py", "pkg/_b.py"]
    assert [c["id"][0] for c in modules[0]["cards"]] == ["2", "1"]


# --- families of identical checks (publish.families) -----------------------------------------

def test_a_family_is_the_same_check_in_three_files_its_names_normalised(tmp_path, capsys) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "families"), "-o", str(out), "--no-cache").code == 0
    catalog = load_catalog(str(out / "catalog.json"))
    by_id = {card["id"]: card for card in catalog["errors"]}
    [family] = catalog["families"]
    assert [by_id[i]["path"] for i in family["cards"]] == ["zoo/models/cat.py", "zoo/models/dog.py", "zoo/models/owl.py"]
    index = (out / "index.md").read_text(encoding="utf-8")
    first, *others = family["cards"]
    assert first in index and not any(i in index for i in others)
    assert "one of 3 identical checks in 3 files" in index
    for card_id in family["cards"]:  # every member's page lists the family
        page = (out / "errors" / f"{card_id}.md").read_text(encoding="utf-8")
        assert "One of 3 identical checks" in page and all(i in page for i in family["cards"] if i != card_id)
    # explain lists the family once
    found = json.loads(run_cli(capsys, "explain", "Only image modality is supported", "--catalog", str(out), "--format", "json").out)
    assert [m["card"]["id"] for m in found] == [first]


def test_normalised_guards_and_what_is_no_family() -> None:
    assert normalized_guard("not modality.startswith('image')") == normalized_guard("not kind.startswith('image')")
    assert normalized_guard("a.x > b") == "_0.x > _1" and normalized_guard("a b") == "a b"
    assert family_key(_card(guard={"code": "x > 1"})) == family_key(_card(guard={"code": "y > 1"}, template="bad {y}"))
    assert family_key(_card(guard={"code": "True"})) is None  # no condition: no check
    assert family_key(_card(template="", guard={"code": "x"})) is None
    two = [{"id": str(i), "path": f"m{i % 2}.py", "family_key": "k"} for i in range(4)]
    assert find_families(two) == []  # two files are not many
    assert find_families([*two, {"id": "9", "path": "m9.py", "family_key": "k"}]) == [{"id": "k", "cards": ["0", "1", "2", "3", "9"]}]


# --- class docstrings and field entries (link.docstrings) ------------------------------------

def test_a_long_class_docstring_is_cut_to_its_first_paragraph() -> None:
    short = "A pen.\n\nIt holds animals."
    assert class_summary(short) == short
    long = "\n".join(["A pen", "that holds animals.", "", *["More."] * 20])
    assert class_summary(long) == "A pen\nthat holds animals.\n… [cut: the first paragraph of a docstring of 23 lines]"


def test_a_field_entry_is_read_from_google_numpy_and_sphinx_sections() -> None:
    google = "Config.\n\nArgs:\n    size (int): the most.\n        Positive.\n    mode: how\n"
    assert field_entry(google, "size") == "the most.\nPositive." and field_entry(google, "mode") == "how"
    numpy = "Config.\n\nParameters\n----------\nsize : int\n    The size.\n"
    assert field_entry(numpy, "size") == "int\nThe size."
    assert field_entry(":param size: the size\n:ivar mode: how", "mode") == "how"
    assert field_entry("size: not in a section", "size") is None and field_entry(google, "other") is None
