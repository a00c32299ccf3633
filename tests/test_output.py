"""The docs folder: replaced in one atomic step, and only while it holds nothing but raisedocs' files."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

from extractor.publish import output
from extractor.publish.output import MANIFEST, write_docs

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
