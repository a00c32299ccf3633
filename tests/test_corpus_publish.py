"""corpus publish: the dataset (manifest, index, repos, errors, schemas) and the site (home,
projects, card pages with JSON-LD under 50 KB, cross-project search, llms.txt, sitemaps),
written atomically, refused by the quality gate when too many sampled cards fail."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from extractor.corpus.pages import PAGE_BYTES

from .corpus_helpers import fake_pypi
from .helpers import run_cli, tree_files
from .test_corpus_build import _corpus
from .test_site import _browser, _launch

pytest.importorskip("distributed")
BASE = "https://errors.example.org/kb/"


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder of the build tests' corpus (tinyerr from PyPI, evil refused, gauge from
    git, shelf a folder), plus a folder project whose excerpt's 25 long lines make a page of over 50 KB."""
    tmp = tmp_path_factory.mktemp("corpus")
    listing = _corpus(tmp, tmp / "index")
    huge = tmp / "essay"
    huge.mkdir()
    numbers = ", ".join(str(i) for i in range(200))  # (each a highlighted token; extract keeps 1,200 characters a line)
    lines = "".join(f"    part_{n} = [{numbers}]\n" for n in range(25))
    (huge / "essay.py").write_text(f"def read(words):\n{lines}    if not words:\n        raise ValueError('no words to read')\n")
    listing.write_text(listing.read_text() + f"{huge}\n")
    with fake_pypi(tmp / "index") as url:
        code = _main("corpus", "build", str(listing), "--state", str(tmp / "state"), "-j", "2", "--index", url, "-q")
    assert code == 0
    return tmp / "state"


def _main(*args: str) -> int:
    from extractor.cli import main

    return main(list(args))


@pytest.fixture(scope="module")
def site(state: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert _main("corpus", "publish", "--state", str(state), "-o", str(out), "--base-url", BASE) == 0
    return out


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_manifest_lists_every_data_file_with_its_size_and_digest(site: Path) -> None:
    manifest = _json(site / "manifest.json")
    assert manifest["counts"] == {"projects": 4, "failed": 1, "errors": 6, "verified": manifest["counts"]["verified"],
                                  "examples": manifest["counts"]["examples"]}
    listed = {f["path"]: f for f in manifest["files"]}
    for path, entry in listed.items():
        raw = (site / path).read_bytes()
        assert (entry["bytes"], entry["sha256"]) == (len(raw), hashlib.sha256(raw).hexdigest()), path
    data = {p.relative_to(site).as_posix() for p in site.rglob("*.json")} - {"manifest.json"}
    assert set(listed) == data


def test_every_data_file_matches_its_schema_and_ids_are_unique(site: Path) -> None:
    schemas = {p.name: _json(p) for p in (site / "schema").iterdir()}
    registry = Registry().with_resources((name, Resource.from_contents(s)) for name, s in schemas.items())
    registry = registry.with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values() if "$id" in s)

    def check(file: Path, schema: str) -> None:
        jsonschema.Draft202012Validator(schemas[schema], registry=registry).validate(_json(file))

    check(site / "manifest.json", "manifest.schema.json")
    check(site / "index.json", "index.schema.json")
    check(site / "repos.json", "repos.schema.json")
    for repo in (site / "repos").iterdir():
        check(repo, "repo.schema.json")
    for index in (site / "search-index").iterdir():  # (what `raisedocs mcp --dataset` reads)
        check(index, "search-index.schema.json")
    ids = []
    for error in sorted((site / "errors").iterdir()):
        check(error, "error.schema.json")
        ids.append(_json(error)["id"])
    records = _json(site / "index.json")["records"]
    assert sorted(r["id"] for r in records) == sorted(ids) and len(set(ids)) == len(ids) == 6
    assert {i.split(".")[0] for i in ids} == {"tinyerr", "gauge", "shelf", "essay"}


def test_repos_say_what_was_built_and_why_a_project_failed(site: Path) -> None:
    projects = {p["key"]: p for p in _json(site / "repos.json")["projects"]}
    assert projects["evil"]["status"] == "failed" and projects["evil"]["reason"] == "archive_refused"
    assert projects["evil"]["page"] is None
    tiny = projects["tinyerr"]
    assert (tiny["version"], tiny["counts"]["cards"], tiny["page"], tiny["data"]) == ("1.0", 2, "tinyerr/index.html", "repos/tinyerr.json")
    home = (site / "index.html").read_text()
    assert '<a href="tinyerr/index.html">tinyerr</a>' in home
    assert "<code>evil</code> 1.0: the archive holds a member that would land outside its folder" in home


def test_card_pages_carry_json_ld_and_stay_under_the_limit(site: Path) -> None:
    pages = sorted(site.glob("*/errors/*.html"))
    assert len(pages) == 6
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert len(text.encode("utf-8")) <= PAGE_BYTES, page
        found = re.search(r'<script type="application/ld\+json">(.*?)</script>', text)
        assert found is not None, page
        data = json.loads(found.group(1))
        key, card_id = page.parent.parent.name, page.stem
        card = _json(site / "errors" / f"{key}.{card_id}.json")["card"]
        assert data["@type"] == "TechArticle" and data["url"] == f"{BASE}{key}/errors/{card_id}.html"
        assert data["mainEntity"]["name"] == card["message"]["template"]
        if card.get("fixes"):
            assert data["mainEntity"]["acceptedAnswer"]["text"] == card["fixes"][0]["description"]
    essay = next(site.glob("essay/errors/*.html")).read_text(encoding="utf-8")
    assert "This page is cut to stay under 50 KB" in essay and "no words to read" in essay


def test_llms_txt_and_the_sitemaps_name_what_is_published(site: Path) -> None:
    llms = (site / "llms.txt").read_text()
    assert llms.startswith("# Python error knowledge base\n\n> The errors of 4 Python projects")
    assert f"- [manifest.json]({BASE}manifest.json)" in llms and f"[tinyerr 1.0]({BASE}repos/tinyerr.json): 2 errors" in llms
    index = (site / "sitemap.xml").read_text()
    assert re.findall(r"<loc>(.*?)</loc>", index) == [f"{BASE}sitemaps/{k}.xml" for k in ("essay", "gauge", "shelf", "tinyerr")]
    tiny = re.findall(r"<loc>(.*?)</loc>", (site / "sitemaps" / "tinyerr.xml").read_text())
    assert len(tiny) == 3 and f"{BASE}tinyerr/index.html" in tiny


def test_publishing_again_writes_the_same_bytes(state: Path, site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert _main("corpus", "publish", "--state", str(state), "-o", str(again), "--base-url", BASE) == 0
    assert tree_files(again) == tree_files(site)


def test_the_gate_refuses_and_the_previous_site_stays(state: Path, site: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "state"
    shutil.copytree(state, broken)
    (broken / "catalogs" / "shelf" / "catalog.json").write_text("{not json")
    out = tmp_path / "site"
    shutil.copytree(site, out)
    before = tree_files(out)
    run = run_cli(capsys, "corpus", "publish", "--state", str(broken), "-o", str(out), "--base-url", BASE)
    assert run.code == 1
    assert run.err.startswith("raisedocs: quality gate: 20 of 24 sampled cards fail their checks (83.3%, the limit is 2.0%): shelf: catalog ")
    assert run.err.rstrip().endswith(f"{out} is left as it was")
    assert tree_files(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".raisedocs-")] == []


@pytest.mark.parametrize(("args", "wording"), [
    (["--state", "{tmp}/none", "--base-url", BASE], "raisedocs: error: no corpus state in {tmp}/none (run `raisedocs corpus build"),
    (["--state", "{tmp}", "--base-url", "ftp://x/"], "raisedocs: error: Invalid value for --base-url: must be an http(s) URL"),
])
def test_bad_arguments_get_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], wording: str) -> None:
    run = run_cli(capsys, "corpus", "publish", "-o", str(tmp_path / "out"), *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert run.code == 2 and run.err.startswith(wording.replace("{tmp}", str(tmp_path))) and run.err.count("\n") == 1


def test_in_a_browser_a_pasted_message_finds_its_card_across_projects(state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sync_api = _browser()
    monkeypatch.setattr("extractor.corpus.search.ENTRY_SHARD", 2)  # small shards, so that a paste loads only some
    monkeypatch.setattr("extractor.corpus.search.TERM_SHARD_BYTES", 40)
    site = tmp_path / "site"
    assert _main("corpus", "publish", "--state", str(state), "-o", str(site), "--base-url", BASE) == 0
    assert len(list((site / "search").glob("e*.js"))) == 3 and len(list((site / "search").glob("t*.js"))) > 8
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto((site / "index.html").as_uri())
        page.fill("#search-box", "ValueError: unknown colour 'mauve': pick red, green or blue")
        page.wait_for_selector("#search-results li a")
        first = page.get_attribute("#search-results li a", "href")
        assert first is not None and first.startswith("tinyerr/errors/")
        assert "pick red, green or blue" in _json(site / "errors" / f"tinyerr.{Path(first).stem}.json")["card"]["message"]["template"]
        traceback = 'Traceback (most recent call last):\n  File "/srv/app/shelf.py", line 13, in put\n' \
                    "OverflowError: the shelf is full"
        found = page.evaluate("t => window.raisedocsCorpusSearch(t).then(r => r.map(x => x.entry.href))", traceback)
        assert found[0].startswith("shelf/errors/")
        loaded = page.evaluate("() => [...document.scripts].map(s => s.src).filter(s => s.includes('/search/'))")
        shards = list((site / "search").iterdir())
        assert 0 < len(loaded) < len(shards)  # only the shards the pastes needed
        page.goto((site / "tinyerr" / "index.html").as_uri())
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))"):
            assert (site / "tinyerr" / href).resolve().is_file(), href
        card = next((site / "tinyerr" / "errors").iterdir())
        page.goto(card.as_uri())
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))"):
            if not href.startswith("https://"):
                assert (card.parent / href).resolve().is_file(), href
        assert problems == []
        browser.close()
