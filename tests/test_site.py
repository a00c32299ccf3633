"""``raisedocs site``: the static error-docs site, checked as files and in a real browser.

The browser tests drive Debian's Chromium through Playwright (``executable_path``); they are
skipped only where neither is installed, and ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os
import shutil
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PREFETCH_STEP = "offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)"
PREFETCH_STEP_CARD = "06464a7bea2efb32"
# query -> the card that must come first (rustdoc's tests/rustdoc-js, for error pages)
GOLDEN_QUERIES = {
    PREFETCH_STEP: PREFETCH_STEP_CARD,
    "prefetch step": PREFETCH_STEP_CARD,
    "1 validation error for OffloadConfig\n  Value error, offload_prefetch_step (0) must be >= 1 when prefetch\n"
    "offloading is enabled (offload_group_size > 0) [type=value_error, input_value={}, input_type=dict]": PREFETCH_STEP_CARD,
    "offload_num_in_group (4) must be <= offload_group_size (2)": "c70859336680feca",
    'Traceback (most recent call last):\n  File "/x/minivllm/config/offload.py", line 43, in validate_offload_config\n'
    "ValueError: something": "c70859336680feca",
}


def _site(capsys, tmp_path: Path, fixture: str, *extra: str) -> Path:
    docs, site = tmp_path / "docs", tmp_path / "site"
    assert run_cli(capsys, "extract", str(FIXTURES / fixture), "-o", str(docs), "--no-cache", *extra).code == 0
    assert run_cli(capsys, "site", str(docs), "-o", str(site)).code == 0
    return site


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: Path) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.tags


@pytest.fixture
def offload_site(capsys, tmp_path) -> Path:  # noqa: ANN001
    return _site(capsys, tmp_path, "offload", "--repo-url", "https://github.com/acme/minivllm")


def test_a_page_per_card_an_index_and_the_json_api(offload_site) -> None:
    catalog = load_catalog(str(offload_site / "api" / "catalog.json"))
    ids = sorted(c["id"] for c in catalog["errors"])
    assert sorted(p.stem for p in (offload_site / "errors").glob("*.html")) == ids
    assert sorted(p.stem for p in (offload_site / "api" / "errors").glob("*.json")) == ids
    schemas = offload_site / "api" / "schema"
    jsonschema.validate(catalog, json.loads((schemas / "catalog.schema.json").read_text(encoding="utf-8")))
    index = json.loads((offload_site / "api" / "search-index.json").read_text(encoding="utf-8"))
    jsonschema.validate(index, json.loads((schemas / "search-index.schema.json").read_text(encoding="utf-8")))
    page = (offload_site / "errors" / f"{PREFETCH_STEP_CARD}.html").read_text(encoding="utf-8")
    for heading in ("Error message", "What it means", "Source", "Solutions", "Example fix", "Validate before calling", "When it happens", "Related errors"):
        assert f"<h2>{heading}</h2>" in page
    assert page.index("<h2>Error message</h2>") < page.index("<h2>Source</h2>") < page.index("<h2>Solutions</h2>") < page.index("<h2>Related errors</h2>")
    assert "Thrown at <code>minivllm/config/offload.py:49</code>" in page and 'class="hll"' in page
    assert f'href="../api/errors/{PREFETCH_STEP_CARD}.json"' in page


def test_the_site_is_self_contained_and_allows_only_its_own_scripts(offload_site) -> None:
    for page in [offload_site / "index.html", *(offload_site / "errors").glob("*.html")]:
        tags = _tags(page)
        csp = [a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert csp and "script-src 'self'" in csp[0] and "default-src 'none'" in csp[0]
        for tag, attrs in tags:
            for name in ("src", "href"):
                value = attrs.get(name) or ""
                assert not value.lower().startswith("javascript:"), (page, value)
                if value.startswith(("http://", "https://", "//")):
                    assert tag == "a" and value.startswith("https://github.com/acme/minivllm/"), (page, value)  # only permalinks
            if tag == "script":
                assert attrs.get("src", "").endswith(("assets/search-index.js", "assets/site.js"))


def test_hostile_messages_and_docstrings_render_inert(capsys, tmp_path) -> None:
    site = _site(capsys, tmp_path, "hostile_markdown")
    for page in [site / "index.html", *(site / "errors").glob("*.html")]:
        for tag, attrs in _tags(page):
            assert tag != "img" and not any(name.startswith("on") for name in attrs), (page, tag, attrs)
            assert not (attrs.get("href") or "").lower().startswith("javascript:")
            if tag == "script":
                assert attrs.get("src", "").endswith(("assets/search-index.js", "assets/site.js"))


def _browser():  # noqa: ANN202
    playwright = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("no Chromium installed (.ci/run installs Debian's)")
    return playwright


def _launch(p):  # noqa: ANN001, ANN202
    return p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def test_in_a_browser_pages_load_links_resolve_search_and_filters_work(offload_site, tmp_path) -> None:
    sync_api = _browser()
    pages = [offload_site / "index.html", *sorted((offload_site / "errors").glob("*.html"))]
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        for file in pages:
            page.goto(file.as_uri())
            for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))"):
                if not href.startswith(("https://", "#")):
                    target = (file.parent / href.split("#", 1)[0]).resolve()
                    assert target.is_file(), (file, href)
        assert problems == []
        page.goto((offload_site / "index.html").as_uri())
        first = "() => { const a = document.querySelector('#search-results li a'); return a && a.getAttribute('href'); }"
        for query, expected in GOLDEN_QUERIES.items():
            page.fill("#search-box", "")
            page.fill("#search-box", query)
            page.wait_for_timeout(300)  # (the search runs once typing pauses)
            assert page.evaluate(first) == f"errors/{expected}.html", query
        # A hole of an int field never shows letters: no card of that template matches this.
        page.fill("#search-box", "offload_num_in_group (many) must be <= offload_group_size (2)")
        page.wait_for_timeout(300)
        assert page.evaluate(first) != "errors/c70859336680feca.html"
        # Filters: one exception class, then a status no card has.
        visible = "els => els.filter(e => !e.closest('[hidden]')).length"
        total = page.eval_on_selector_all("ul.cards li", visible)
        page.select_option("#filter-status", "concrete")
        assert page.eval_on_selector_all("ul.cards li", visible) == total  # every offload card is concrete
        page.select_option("#filter-module", "minivllm/cli.py")
        assert 0 < page.eval_on_selector_all("ul.cards li", visible) < total
        page.goto((offload_site / "errors" / f"{PREFETCH_STEP_CARD}.html").as_uri())
        page.set_viewport_size({"width": 390, "height": 844})  # a phone
        artifacts = Path(os.environ.get("RAISEDOCS_ARTIFACTS", tmp_path))
        artifacts.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(artifacts / "offload-card.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        browser.close()


def test_in_a_browser_no_script_of_a_hostile_tree_runs(capsys, tmp_path) -> None:
    sync_api = _browser()
    site = _site(capsys, tmp_path, "hostile_markdown")
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for file in [site / "index.html", *sorted((site / "errors").glob("*.html"))]:
            page.goto(file.as_uri())
            page.fill("#search-box", "<script>alert('message')</script> [x](javascript:alert(6))")
            page.wait_for_timeout(50)
            for link in page.query_selector_all("a[href]"):
                assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
        assert dialogs == []
        browser.close()


def test_the_index_opens_on_the_errors_users_hit_and_lists_a_family_once(capsys, tmp_path) -> None:
    site = _site(capsys, tmp_path, "families")
    catalog = load_catalog(str(site / "api" / "catalog.json"))
    [family] = catalog["families"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert family["cards"][0] in index and not any(i in index for i in family["cards"][1:])
    rows = [attrs for tag, attrs in _tags(site / "index.html") if tag == "li" and "data-standing" in attrs]
    standings = [attrs["data-standing"] for attrs in rows]
    assert {"user", "internal", "no_message"} <= set(standings)
    # In a module, the cards users hit come first and message-less ones last (publish.ranking).
    keeper = [attrs["data-standing"] for attrs in rows if attrs["data-module"] == "zoo/keeper.py"]
    assert keeper == sorted(keeper, key=["user", "internal", "caught", "no_message"].index) and keeper[-1] == "no_message"
    sync_api = _browser()
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page()
        page.goto((site / "index.html").as_uri())
        visible = "els => els.filter(e => !e.closest('[hidden]')).map(e => e.getAttribute('data-standing'))"
        assert set(page.eval_on_selector_all("ul.cards li", visible)) == {"user"}  # the filter opens on them
        page.select_option("#filter-standing", "")
        assert len(page.eval_on_selector_all("ul.cards li", visible)) == len(rows)  # and shows all
        page.fill("#search-box", "Only image modality is supported")
        page.wait_for_timeout(300)
        hrefs = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
        assert hrefs == [f"errors/{family['cards'][0]}.html"]  # a family once: ant's other message does not match
        browser.close()
