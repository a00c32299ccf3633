"""The docs folder: replaced in one atomic step, and only while it holds nothing but raisedocs' files; its index pages."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

from extractor.publish import output
from extractor.publish.output import MANIFEST, write_docs
from extractor.publish.render import render_docs

from .helpers import FIXTURES, ROOT, run_cli, temp_tree, tree_files


def test_user_files_next_to_a_forged_catalog_survive(capsys, tmp_path) -> None:
    docs = tmp_path / "docs"
    temp_tree(docs, {"README.md": "mine", "img/logo.png": b"\x89PNG", "catalog.json": json.dumps({"schema": "raisedocs/catalog/1"})})
    before = tree_files(docs)
    run = run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(docs))
    assert run.code == 2
    assert run.err == f"raisedocs: error: output folder holds files raisedocs did not write (README.md, img/logo.png); refusing to replace it: {docs}\n"
    assert tree_files(docs) == before


def test_a_file_added_to_a_catalog_folder_blocks_the_replacement(capsys, tmp_path) -> None:
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(docs)).code == 0
    (docs / "errors" / "notes.md").write_text("mine", encoding="utf-8")
    run = run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(docs))
    assert (run.code, (docs / "errors" / "notes.md").read_text()) == (2, "mine")


def test_a_catalog_folder_written_before_manifests_is_still_replaced(tmp_path) -> None:
    docs = tmp_path / "docs"
    temp_tree(docs, {"catalog.json": "{}", "index.md": "old", "errors/0123456789abcdef.md": "old", "errors/0123456789abcdef.json": "{}"})
    write_docs([("index.md", "new")], str(docs))
    assert tree_files(docs) == {MANIFEST: output.manifest_text(["index.md"]).encode(), "index.md": b"new"}


def test_the_swap_is_one_atomic_exchange(tmp_path, monkeypatch) -> None:
    docs = tmp_path / "docs"
    write_docs([("index.md", "one")], str(docs))
    exchanged = []
    real = output._exchange

    def spy(a: str, b: str) -> bool:
        exchanged.append(real(a, b))
        assert os.path.isdir(docs) and os.path.isdir(a)  # both sides exist throughout
        return exchanged[-1]

    monkeypatch.setattr(output, "_exchange", spy)
    write_docs([("index.md", "two")], str(docs))
    assert exchanged == [True]
    assert (docs / "index.md").read_text() == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def test_what_a_dead_run_left_is_removed_and_nothing_else(tmp_path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    temp_tree(tmp_path, {
        f".raisedocs-{dead}-abc123/.raisedocs-staging": "", f".raisedocs-{dead}-abc123/errors/x.md": "partial",
        f".raisedocs-{dead}-def456/{MANIFEST}": "", f".raisedocs-{dead}-def456/index.md": "retired",
        f".raisedocs-{dead}-mine00/notes.md": "looks like staging, but holds no mark of ours",
        f".raisedocs-{os.getpid()}-live00/.raisedocs-staging": "",  # a live run's
    })
    write_docs([("index.md", "new")], str(tmp_path / "docs"))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f".raisedocs-{dead}-mine00", f".raisedocs-{os.getpid()}-live00", "docs"])


def _complete(docs) -> bool:
    listed = (docs / MANIFEST).read_text(encoding="utf-8").split("\n")[1:-1]
    json.loads((docs / "catalog.json").read_text(encoding="utf-8"))
    return bool(listed) and all((docs / rel).is_file() for rel in listed)


def test_a_kill_at_any_moment_leaves_a_complete_folder(tmp_path) -> None:
    docs = tmp_path / "docs"
    command = [sys.executable, "-m", "extractor", "extract", str(FIXTURES / "forms"), "--no-cache", "-q", "-o", str(docs)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(command, env=env, check=True)
    chance = random.Random(7)
    for _ in range(12):
        run = subprocess.Popen(command, env=env)
        time.sleep(chance.uniform(0.3, 2.0))
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert _complete(docs)
    subprocess.run(command, env=env, check=True)
    assert _complete(docs) and sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def _raises(tag: str, count: int) -> str:
    return "".join(f"def f{n}():\n    raise ValueError('{tag} {n}')\n\n" for n in range(count))


# 817 cards, past index_groups.PAGE_CARDS (500): alpha/ (300) fits a page, beta/ (515) does not
# and is split into its own module and its two subfolders; setup_tool.py is at the top level.
LARGE_TREE = {
    "setup_tool.py": _raises("setup", 2),
    "alpha/__init__.py": "", "alpha/a.py": _raises("alpha a", 150), "alpha/b.py": _raises("alpha b", 150),
    "beta/__init__.py": _raises("beta", 5),
    "beta/core/__init__.py": "", "beta/core/c.py": _raises("core", 260),
    "beta/odd.d/e.py": _raises("odd", 250),
}
LARGE_INDEX = """\
# tree · error catalog

817 error cards from 817 raise statements in 8 files.

## Packages

A page per package lists its modules and their cards.

| package | modules | cards |
|---|---|---|
| [top-level modules](index/top-level.md) | 1 | 2 |
| [`alpha/`](index/alpha.md) | 2 | 300 |
| [`beta/*.py`](index/beta.md) | 1 | 5 |
| [`beta/core/`](index/beta.core.md) | 1 | 260 |
| [`beta/odd.d/`](index/beta.odd~2ed.md) | 1 | 250 |
"""
_LINK = re.compile(r"\]\(([^)]+)\)")
_MODULE = re.compile(r"^## `([^`]+)`$", re.MULTILINE)


def _index_pages(docs) -> dict[str, str]:
    return {rel: text.decode("utf-8") for rel, text in tree_files(docs).items() if rel == "index.md" or rel.startswith("index/")}


def test_a_large_catalog_gets_an_index_page_per_package(capsys, tmp_path) -> None:
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(temp_tree(tmp_path / "tree", LARGE_TREE)), "-o", str(docs), "-q").code == 0
    pages = _index_pages(docs)
    assert pages.pop("index.md") == LARGE_INDEX
    assert {rel: _MODULE.findall(text) for rel, text in pages.items()} == {
        "index/top-level.md": ["setup_tool.py"], "index/alpha.md": ["alpha/a.py", "alpha/b.py"],
        "index/beta.md": ["beta/__init__.py"], "index/beta.core.md": ["beta/core/c.py"], "index/beta.odd~2ed.md": ["beta/odd.d/e.py"],
    }
    assert pages["index/beta.md"].split("\n")[:3] == [
        "# tree · `beta/*.py` · errors", "",
        "5 error cards in 1 module directly in `beta/` (its subfolders have pages of their own). [All packages](../index.md)",
    ]
    # Every card is on one page, and every link of every page leads to a file of the folder.
    cards = [link for text in pages.values() for link in _LINK.findall(text) if link.startswith("../errors/")]
    assert sorted(cards) == sorted(f"../{rel}" for rel in tree_files(docs) if rel.startswith("errors/"))
    for rel, text in _index_pages(docs).items():
        for link in _LINK.findall(text):
            assert (docs / os.path.dirname(rel) / link).resolve().is_file(), (rel, link)
    # The folder is the catalog's rendering, byte for byte.
    rendered = dict(render_docs(json.loads((docs / "catalog.json").read_text(encoding="utf-8"))))
    written = {rel: text.decode() for rel, text in tree_files(docs).items()}
    assert written.pop(output.STATE).startswith("raisedocs state 2\nrender ")
    assert {**rendered, MANIFEST: output.manifest_text(rendered)} == written


def test_check_compares_the_index_pages(capsys, tmp_path) -> None:
    tree, docs = temp_tree(tmp_path / "tree", LARGE_TREE), tmp_path / "docs"
    assert run_cli(capsys, "extract", str(tree), "-o", str(docs), "-q").code == 0
    assert run_cli(capsys, "check", str(docs), "--path", str(tree)).code == 0
    (tree / "beta" / "core" / "c.py").write_text(_raises("core", 261), encoding="utf-8")
    (docs / "index" / "alpha.md").unlink()
    run = run_cli(capsys, "check", str(docs), "--path", str(tree))
    assert run.code == 1
    assert [line for line in run.out.splitlines() if "errors/" not in line] == [
        "stale: .raisedocs-manifest", "stale: catalog.json", "stale: index.md", "stale: index/beta.core.md", "stale: search-index.json",
        "missing: index/alpha.md",
    ]
    # Without beta/odd.d/, beta/ fits a page again: its subfolders' pages are not produced any more.
    assert run_cli(capsys, "extract", str(tree), "-o", str(docs), "-q").code == 0
    shutil.rmtree(tree / "beta" / "odd.d")
    run = run_cli(capsys, "check", str(docs), "--path", str(tree))
    assert run.code == 1
    assert [line for line in run.out.splitlines() if "errors/" not in line] == [
        "stale: .raisedocs-manifest", "stale: catalog.json", "stale: index.md", "stale: index/beta.md", "stale: search-index.json",
        "orphaned: index/beta.core.md", "orphaned: index/beta.odd~2ed.md",
    ]


def test_an_unchanged_folder_is_recognised_without_rendering_and_left_as_it_is(tmp_path, capsys, monkeypatch) -> None:
    from extractor.publish import render

    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache").code == 0
    before = {p: p.stat().st_mtime_ns for p in docs.rglob("*")}
    calls = []
    card = render.render_card
    monkeypatch.setattr(render, "render_card", lambda *a, **k: calls.append(1) or card(*a, **k))
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache")
    assert run.code == 0 and "is unchanged" in run.err and calls == []
    assert {p: p.stat().st_mtime_ns for p in docs.rglob("*")} == before
    assert run_cli(capsys, "check", str(docs), "--path", str(FIXTURES / "forms"), "--no-cache").code == 0 and calls == []
    # A file edited by hand is no longer what the state says: rendered and compared again.
    card_file = next((docs / "errors").glob("*.md"))
    card_file.write_text("edited", encoding="utf-8")
    run = run_cli(capsys, "check", str(docs), "--path", str(FIXTURES / "forms"), "--no-cache")
    assert run.code == 1 and f"stale: errors/{card_file.name}" in run.out and calls
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(docs), "--no-cache").code == 0
    assert card_file.read_text(encoding="utf-8") != "edited"


def test_every_relative_link_of_the_markdown_pages_resolves(capsys, tmp_path) -> None:
    # The per-card JSON is written only with --card-json: a page links it only then.
    for flags in ((), ("--card-json",)):
        out = tmp_path / ("docs" + "".join(flags))
        assert run_cli(capsys, "extract", str(FIXTURES / "callers"), "-o", str(out), "--no-cache", *flags).code == 0
        broken = []
        for page in out.rglob("*.md"):
            for target in re.findall(r"\]\(([^)#]+)\)", page.read_text(encoding="utf-8")):
                if "://" not in target and not (page.parent / target).resolve().is_file():
                    broken.append(f"{page.relative_to(out)} -> {target}")
        assert broken == [], flags
