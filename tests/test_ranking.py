"""publish.ranking: one key orders the index, the site and search; the errors users hit first,
those raised without a message last."""

from __future__ import annotations

import json

from extractor.model import Standing
from extractor.model.spool import summary_of
from extractor.publish.catalog_file import load_catalog
from extractor.publish.index_groups import index_modules
from extractor.publish.ranking import is_public_module, is_public_name, rank_key, standing
from extractor.publish.search_index import index_entry

from .helpers import GOLDEN


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
    assert standing(_card(function="_helper", entries=[{"entry": "pkg.parse"}])) is Standing.USER
    assert standing(_card(function="parse", entries=[])) is Standing.INTERNAL


def test_the_key_puts_users_errors_first_and_message_less_ones_last() -> None:
    cards = [_card(template=""), _card(function="_x"), _card(template=None), _card(caught={"visibility": "hidden"}), _card()]
    order = sorted(range(len(cards)), key=lambda i: rank_key(cards[i]))
    assert order == [4, 2, 1, 3, 0]  # user (message known, then unknown), internal, caught, no message


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
