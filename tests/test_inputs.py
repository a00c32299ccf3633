"""The input identity: a docs folder written by a run of the same inputs is recognised before
anything is analysed, and a change to any input is never mistaken for none."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from extractor import pipeline
from extractor.inputs import RUN_ONLY, select_sources
from extractor.options import Options, Pinned
from extractor.publish import output
from extractor.publish.catalog_file import load_catalog, read_envelope

from .helpers import FIXTURES, run_cli, temp_tree

# A value other than the default for every Options field (the test fails on a new field until
# it is given one here, and so decided: does it change the output or only the run?).
OTHER = {
    "include": ("*.py",), "exclude": ("nothing",), "use_default_excludes": False, "exceptions": ("ValueError",),
    "excerpt_lines": 5, "repo_url": "https://github.com/acme/widgets", "rev": "abc", "repo_name": "widgets",
    "command": "widgets run", "jobs": 2, "use_cache": True, "cache_dir": "/elsewhere", "is_strict": True,
    "skip_tests": True, "card_json": True, "source_roots": ("src",), "pinned": Pinned(name="gadgets"),
}


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Options)])
def test_every_option_that_changes_the_output_changes_the_identity(field: str) -> None:
    selection = select_sources(str(FIXTURES / "forms"), Options())
    changed = dataclasses.replace(selection, options=dataclasses.replace(selection.options, **{field: OTHER[field]}))
    assert (changed.identity == selection.identity) == (field in RUN_ONLY)


def test_the_identity_changes_with_a_file_the_name_and_nothing_else(tmp_path) -> None:
    tree = temp_tree(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    if x:\n        raise ValueError('x')\n"})
    first = select_sources(str(tree), Options()).identity
    assert select_sources(str(tree), Options(jobs=4)).identity == first
    assert select_sources(str(tree), Options(repo_name="other")).identity != first
    (tree / "pkg" / "a.py").write_text("def f(x):\n    if not x:\n        raise ValueError('x')\n", encoding="utf-8")
    assert select_sources(str(tree), Options()).identity != first
    (tree / "pkg" / "b.py").write_text("", encoding="utf-8")  # a new file, even without a raise
    assert len({first, select_sources(str(tree), Options()).identity}) == 2


def _no_analysis(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("analysed")

    monkeypatch.setattr(pipeline, "extract_catalog", refuse)


def test_a_folder_written_from_the_same_inputs_is_recognised_without_analysing(tmp_path, capsys, monkeypatch) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "forms", tree)
    docs = tmp_path / "docs"
    first = run_cli(capsys, "extract", str(tree), "-o", str(docs), "--no-cache", "--exclude", "nothing", "--excerpt-lines", "9")
    assert first.code == 0
    with monkeypatch.context() as patch:
        _no_analysis(patch)
        again = run_cli(capsys, "extract", str(tree), "-o", str(docs), "--no-cache", "--exclude", "nothing", "--excerpt-lines", "9")
        assert again.code == 0 and "is unchanged" in again.err
        assert again.err.splitlines()[-1] == first.err.splitlines()[-1]  # the same summary, from the catalog
        # check reads the options the folder records, without reading its cards.
        assert run_cli(capsys, "check", str(docs), "--path", str(tree), "--no-cache").code == 0
        full = run_cli(capsys, "check", str(docs), "--path", str(tree), "--no-cache", "--full")  # never trusts the state
        assert full.code == 2 and "AssertionError: analysed" in full.err
    assert run_cli(capsys, "check", str(docs), "--path", str(tree), "--no-cache", "--full").code == 0
    # Other options, or an edited file, are other inputs: analysed, and found stale.
    assert run_cli(capsys, "check", str(docs), "--path", str(tree), "--no-cache", "--excerpt-lines", "3").code == 1
    source = next(tree.rglob("*.py"))
    source.write_text(source.read_text(encoding="utf-8") + "\n\ndef late(x):\n    raise KeyError(x)\n", encoding="utf-8")
    run = run_cli(capsys, "check", str(docs), "--path", str(tree), "--no-cache")
    assert run.code == 1 and "stale: catalog.json" in run.out


def test_a_folder_holding_a_file_of_its_own_is_not_taken_as_the_output(tmp_path, capsys, monkeypatch) -> None:
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache").code == 0
    (docs / "notes.txt").write_text("mine", encoding="utf-8")
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache")
    assert run.code == 2 and "holds files raisedocs did not write (notes.txt)" in run.err
    run = run_cli(capsys, "check", str(docs), "--path", str(FIXTURES / "forms"), "--no-cache")
    assert run.code == 1 and "orphaned: notes.txt" in run.out


def test_the_same_output_from_other_inputs_records_them(tmp_path, capsys, monkeypatch) -> None:
    """An upgrade of raisedocs that writes the same folder: left as it is, and its state then
    names the new inputs, so the next run is recognised without analysing."""
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache").code == 0
    state = (docs / output.STATE).read_text(encoding="utf-8")
    (docs / output.STATE).write_text(state.replace("\ninput ", "\ninput 0"), encoding="utf-8")
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache")
    assert run.code == 0 and "is unchanged" in run.err
    assert (docs / output.STATE).read_text(encoding="utf-8") == state
    with monkeypatch.context() as patch:
        _no_analysis(patch)
        assert "is unchanged" in run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache").err


@pytest.mark.parametrize("fixture", ["forms", "broken"])
def test_the_envelope_is_the_catalog_without_its_cards(tmp_path, capsys, fixture: str) -> None:
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / fixture), "-o", str(docs), "--no-cache", "-q").code == 0
    catalog = load_catalog(str(docs))
    assert read_envelope(str(docs)) == {k: v for k, v in catalog.items() if k != "errors"}


def test_the_envelope_of_no_cards_and_of_files_of_another_shape(tmp_path, capsys) -> None:
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache", "-q", "--exception", "NoSuchError").code == 0
    catalog = load_catalog(str(docs))
    assert catalog["errors"] == [] and read_envelope(str(docs)) == {k: v for k, v in catalog.items() if k != "errors"}
    (docs / "catalog.json").write_text(json.dumps(catalog, indent=2), encoding="utf-8")  # valid, but not as raisedocs writes it
    assert read_envelope(str(docs)) is None
    (docs / "catalog.json").write_text('{"errors": [\n{}\n],\n"schema": "other"}\n', encoding="utf-8")
    assert read_envelope(str(docs)) is None
    assert read_envelope(str(tmp_path / "absent")) is None
