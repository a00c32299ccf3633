"""Golden tests: the whole docs folder of each fixture tree, compared file by file.

Regenerate with ``pytest tests/test_golden.py --update-golden`` and review the diff like code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from extractor.errors import CatalogError
from extractor.model import Catalog, from_json, to_json
from extractor.model.schema import validate_catalog
from extractor.model.serialize import complete
from extractor.publish.catalog_file import load_catalog
from extractor.publish.output import MANIFEST, STATE, manifest_text
from extractor.publish.render import render_docs

from .helpers import FIXTURES, GOLDEN, git, make_git_repo, run_cli, tree_files

CASES = {
    "offload": ["--repo-url", "https://github.com/acme/minivllm", "--rev", "v1"],
    "forms": [],
    "broken": [],
    "callers": [],
    "internalcatch": [],
    "dateparse": [],
    "pydconfig": [],
    "strictcfg": [],
    "clikit": [],
    "families": [],
    "entries": [],
    "cliflags": [],
    "hfargs": [],
    "values": [],
}


def _source(case: str, tmp_path: Path) -> Path:
    """The fixture tree; for a case pinned to a revision, a git repository committing it."""
    if "--rev" not in CASES[case]:
        return FIXTURES / case
    repo = tmp_path / case
    make_git_repo(repo, [("fixture", {k: v for k, v in tree_files(FIXTURES / case).items()})])
    git(repo, "tag", "v1")
    return repo


def _files(folder: Path) -> dict[str, str]:
    # (the state file names the code that rendered the folder: it changes with every edit of
    # a template, so goldens leave it out; tests/test_output.py tests it)
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file() and p.name != STATE}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_docs(case: str, tmp_path: Path, capsys, update_golden: bool) -> None:
    out = tmp_path / "docs"
    run = run_cli(capsys, "extract", str(_source(case, tmp_path)), "-o", str(out), *CASES[case])
    assert run.code == 0, run.err
    produced = _files(out)
    golden = GOLDEN / case
    if update_golden:
        shutil.rmtree(golden, ignore_errors=True)
        shutil.copytree(out, golden, ignore=shutil.ignore_patterns(STATE))
    expected = _files(golden)
    assert sorted(produced) == sorted(expected), "file set differs; run pytest --update-golden and review"
    for rel, text in expected.items():
        assert produced[rel] == text, f"{rel} differs from tests/golden/{case}; run pytest --update-golden and review"


def _clone_with_committed_docs(tmp_path: Path, capsys, fixture: Path, name: str, remote: str) -> Path:
    """``fixture`` committed in a repository ``name`` with no remote, its docs extracted into
    ``docs`` and committed; then cloned into another folder, its origin set to ``remote``."""
    repo = tmp_path / name
    make_git_repo(repo, [("fixture", tree_files(fixture))])
    assert run_cli(capsys, "extract", str(repo), "-o", str(repo / "docs"), "--no-cache", "-q").code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")
    clone = tmp_path / "elsewhere"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "remote", "set-url", "origin", remote)
    return clone


def test_a_fresh_clone_writes_the_golden_docs_and_passes_check(tmp_path: Path, capsys, monkeypatch) -> None:
    # The forms fixture committed with its docs in a repository named by its folder, with no
    # remote; a clone in another folder, its origin on GitHub under another name, regenerates
    # the same docs (the golden's, every byte of its state file too), and check passes.
    clone = _clone_with_committed_docs(tmp_path, capsys, FIXTURES / "forms", "forms", "git@github.com:acme/gadgets.git")
    monkeypatch.chdir(clone)
    (clone / "docs" / STATE).unlink()  # nothing to trust: the clone analyses and writes them all again
    run = run_cli(capsys, "extract", ".", "-o", "docs", "--no-cache")
    assert run.code == 0 and "raisedocs: wrote docs" in run.err
    assert _files(clone / "docs") == _files(GOLDEN / "forms")
    assert git(clone, "status", "--porcelain") == ""
    for flags in ((), ("--full",)):
        run = run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", *flags)
        assert (run.code, run.err) == (0, "raisedocs: docs is up to date\n")


@pytest.mark.parametrize("case", sorted(CASES))
def test_docs_render_the_same_from_catalog_json(case: str) -> None:
    # catalog.json is the contract: rendering it again (key order now sorted, as written)
    # gives back every file extract wrote, byte for byte.
    catalog = load_catalog(str(GOLDEN / case / "catalog.json"))
    rendered = dict(render_docs(catalog))
    written = _files(GOLDEN / case)
    assert written.pop(MANIFEST) == manifest_text(rendered)  # what write_docs adds: the list of what it wrote
    assert rendered == written


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_catalog_matches_schema_and_round_trips(case: str) -> None:
    text = (GOLDEN / case / "catalog.json").read_text(encoding="utf-8")
    validate_catalog(json.loads(text))
    catalog = from_json(Catalog, text)
    assert from_json(Catalog, to_json(catalog)) == catalog
    # catalog.json is one card per line (render.catalog_json): the same data as to_json's text
    # (with every field given: catalog.json leaves out a field that holds its default)
    assert json.loads(to_json(catalog)) == complete(Catalog, json.loads(text))


def test_schema_tells_guard_nodes_apart_by_their_tag() -> None:
    catalog = json.loads((GOLDEN / "offload" / "catalog.json").read_text(encoding="utf-8"))
    assert all("tree" not in card["guard"] for card in catalog["errors"])  # (published only where it is opaque)
    tree = {"type": "compare", "left": "a", "ops": ["<"], "comparators": ["1"]}
    catalog["errors"][0]["guard"]["tree"] = tree
    validate_catalog(catalog)
    unknown = {**tree, "type": "nonsense"}
    other = {"type": "not" if tree["type"] != "not" else "and", **{k: v for k, v in tree.items() if k != "type"}}
    for bad, message in ((unknown, "is not one of"), (other, "is not valid under any of the given schemas")):
        catalog["errors"][0]["guard"]["tree"] = bad
        with pytest.raises(CatalogError, match=message):
            validate_catalog(catalog)


RELEASES = [("v1", "v2"), ("v2", "v3")]


@pytest.mark.parametrize("old,new", RELEASES)
def test_golden_release_notes(old: str, new: str, capsys, update_golden: bool) -> None:
    # fixtures/releases/README.md says which change each release makes, once each: a cascade
    # from an earlier test, one comparison of a long guard, breaking and subclass exception
    # changes, unrelated template-less sites that must not pair, a moved function, a renamed
    # package folder.
    sides = [str(FIXTURES / "releases" / side) for side in (old, new)]
    produced = {
        fmt: run_cli(capsys, "diff", *sides, "--format", fmt, "--no-cache").out for fmt in ("md", "json")
    }
    golden = GOLDEN / "releases"
    for fmt, text in produced.items():
        file = golden / f"{old}-{new}.{fmt}"
        if update_golden:
            golden.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        assert text == file.read_text(encoding="utf-8"), f"{file.name} differs; run pytest --update-golden and review"
    # The JSON is the contract: it matches the diff schema raisedocs ships.
    jsonschema.validate(json.loads(produced["json"]), json.loads(run_cli(capsys, "schema", "diff").out))


def test_the_release_notes_pair_only_on_evidence(capsys) -> None:
    # What the golden notes of v1 -> v2 must say, each once (fixtures/releases/README.md).
    data = json.loads(run_cli(capsys, "diff", *(str(FIXTURES / "releases" / v) for v in ("v1", "v2")), "--format", "json",
                              "--no-cache").out)
    changes = {(c["kind"], (c["new"] or c["old"])["function"]): c for c in data["changes"] if c["kind"] != "moved"}
    # A reworded message keeps its card's id; a class changed at the same raise is breaking.
    reworded = changes[("message_changed", "place")]
    assert reworded["old"]["id"] == reworded["new"]["id"] and reworded["new"]["template"] == "an order needs an item to ship"
    weigh = changes[("exception_changed", "weigh")]
    assert (weigh["old"]["exception"], weigh["new"]["exception"], weigh["breaking"]) == ("TypeError", "ValueError", True)
    # Every pair with another class is within one function; two message-less raises of one
    # function, unlike, are a removal and an addition.
    assert all(c["old"]["function"] == c["new"]["function"] for c in data["changes"] if c["kind"] == "exception_changed")
    assert {k for k in changes if k[1] == "Store.keep"} == {("added", "Store.keep"), ("removed", "Store.keep")}
    # A renamed class is one rename with its raises' count; a moved function, one too.
    renames = [(d["kind"], d["old_name"], d["new_name"], d["errors"]) for d in data["definitions"]]
    assert renames == [("class", "Ledger", "_Ledger", 2), ("function", "helper", "helper", 1)]
    assert not [c for c in data["changes"] if c["kind"] in ("added", "removed") and "ledger" in (c["new"] or c["old"])["path"]]


def test_a_fresh_clone_of_a_release_passes_check(tmp_path: Path, capsys, monkeypatch) -> None:
    # The release fixture's docs, committed where the repository has no remote, stay fresh in a
    # clone under another folder name whose origin is on GitHub.
    monkeypatch.chdir(_clone_with_committed_docs(tmp_path, capsys, FIXTURES / "releases" / "v2", "shop",
                                                 "https://github.com/acme/shop-fork.git"))
    for flags in ((), ("--full",)):
        run = run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", *flags)
        assert (run.code, run.err) == (0, "raisedocs: docs is up to date\n")


def _readme_fixture_rows() -> dict[str, list[str]]:
    """README's figures table, the row of each fixture tree: its cells after the first."""
    rows = {}
    for line in (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| `fixtures/"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].split("`")[1].removeprefix("fixtures/")] = cells[1:]
    return rows


@pytest.mark.parametrize("case", sorted(_readme_fixture_rows()))
def test_readmes_figures_of_a_fixture_are_its_golden_catalogs(case: str) -> None:
    data = json.loads((GOLDEN / case / "catalog.json").read_text(encoding="utf-8"))
    stats, cards = data["stats"], data["errors"]
    statuses = stats["statuses"]
    examples = [c for c in cards if c.get("example")]
    counted = [stats["raise_sites"], stats["templates"], *(statuses.get(s, 0) for s in
               ("concrete", "environment", "internal", "unconditional", "unreachable", "unsolved")), stats["verified"]]
    cells = _readme_fixture_rows()[case]
    assert [int(cells[0]), *(int(c) for c in cells[2:10])] == counted, cells
    assert int(cells[1].split()[0]) == stats["cards"] and int(cells[10].split()[0]) == len(examples), cells
