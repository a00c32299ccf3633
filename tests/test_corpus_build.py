"""corpus build on a real Dask LocalCluster: every kind of project, failures recorded, a
second run that does nothing, and a run killed with SIGKILL that resumes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from extractor.corpus.fetch import FetchSettings, Resolved
from extractor.corpus.projects import Project
from extractor.corpus.task import TaskSettings, build_project
from extractor.model.codes import BuildFailure, ProjectKind

from .corpus_helpers import FIXTURES, fake_pypi, make_wheel, publish_release
from .helpers import ROOT, make_git_repo, run_cli

pytest.importorskip("distributed")


def _rows(state: Path) -> dict[str, dict]:
    with sqlite3.connect(state / "state.sqlite") as db:
        db.row_factory = sqlite3.Row
        return {row["key"]: dict(row) for row in db.execute("SELECT * FROM projects")}


def _evil_sdist(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("evil-1.0/../../escaped.py")
        archive.addfile(info)
    return path


def _corpus(tmp_path: Path, index: Path) -> Path:
    publish_release(index, "tinyerr", "1.0", make_wheel(FIXTURES / "tinyerr", tmp_path / "tinyerr-1.0-py3-none-any.whl"))
    publish_release(index, "evil", "1.0", _evil_sdist(tmp_path / "evil-1.0.tar.gz"))
    shas = make_git_repo(tmp_path / "gauge", [("v1", {"gauge.py": "def read(v):\n    if v < 0:\n        raise ValueError('negative')\n"}),
                                              ("v2", {"gauge.py": "def read(v):\n    if v < 0:\n        raise ValueError('below zero')\n"})])
    listing = tmp_path / "list.txt"
    listing.write_text(f"tinyerr==1.0\nevil==1.0\ngauge@{shas[0][:10]}\n{FIXTURES / 'shelf'}\n")
    return listing


def test_build_records_every_project_and_a_second_run_does_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listing = _corpus(tmp_path, tmp_path / "index")
    state = tmp_path / "state"
    with fake_pypi(tmp_path / "index") as url:
        args = ["corpus", "build", str(listing), "--state", str(state), "-j", "2", "--index", url, "--max-attempts", "1"]
        first = run_cli(capsys, *args)
        assert first.code == 0, first.err
        assert first.err.splitlines()[-1].startswith("raisedocs: corpus: 4 projects: 3 built, 0 already current, 1 failed "
                                                     "(1 archive_refused);")
        assert "evil 1.0: failed (archive_refused: member 'evil-1.0/../../escaped.py' would land outside its folder)" in first.err
        rows = _rows(state)
        assert {k: (r["status"], r["reason"], r["attempts"]) for k, r in rows.items()} == {
            "tinyerr": ("done", None, 0), "evil": ("failed", "archive_refused", 1), "gauge": ("done", None, 0),
            "shelf": ("done", None, 0)}
        assert rows["tinyerr"]["artifact"].startswith("tinyerr-1.0-py3-none-any.whl sha256:")
        assert len(rows["gauge"]["sha"]) == 40 and rows["shelf"]["sha"].startswith("tree-")
        tiny = json.loads((state / "catalogs" / "tinyerr" / "catalog.json").read_text())
        assert sorted(c["message"]["template"] for c in tiny["errors"]) == [
            "size must be positive, got {size}", "unknown colour {colour!r}: pick red, green or blue"]
        assert rows["tinyerr"]["cards"] == 2 and rows["tinyerr"]["files"] == 1
        gauge = json.loads((state / "catalogs" / "gauge" / "catalog.json").read_text())
        assert [c["message"]["template"] for c in gauge["errors"]] == ["negative"]  # the listed commit, not the head
        assert not (tmp_path / "escaped.py").exists()
        before = {p: p.stat().st_mtime_ns for p in state.rglob("*")}
        second = run_cli(capsys, *args)
    assert second.code == 0
    assert second.err.splitlines() == [second.err.splitlines()[-1]]  # no project line: nothing built
    assert "4 projects: 0 built, 4 already current, 1 failed (1 archive_refused)" in second.err
    assert {p: p.stat().st_mtime_ns for p in state.rglob("*")} == before


def test_build_resumes_after_sigkill_and_rebuilds_only_what_was_unfinished(tmp_path: Path) -> None:
    folders = ["offload", "values", "forms", "entries", "families", "callers", "clikit", "dateparse", "cliflags", "pydconfig"]
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{ROOT / 'fixtures' / name}\n" for name in folders))
    state = tmp_path / "state"
    command = [sys.executable, "-m", "extractor", "corpus", "build", str(listing), "--state", str(state), "-j", "1"]
    run = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
        if (state / "state.sqlite").exists() and sum(r["status"] == "done" for r in _rows(state).values()) >= 2:
            break
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    done = {k: (state / "catalogs" / k / "catalog.json").stat().st_mtime_ns
            for k, r in _rows(state).items() if r["status"] == "done"}
    assert 2 <= len(done) < len(folders)
    resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(folders)} projects: {len(folders) - len(done)} built, {len(done)} already current, 0 failed" in resumed.stderr
    assert {k: r["status"] for k, r in _rows(state).items()} == dict.fromkeys(folders, "done")
    assert {k: (state / "catalogs" / k / "catalog.json").stat().st_mtime_ns for k in done} == done


def test_projects_run_on_the_cluster_at_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import distributed

    listing = tmp_path / "list.txt"
    listing.write_text(f"{FIXTURES / 'shelf'}\n")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        def refused(*args: object, **kwargs: object) -> None:
            raise AssertionError("a cluster of its own was started")
        monkeypatch.setattr(distributed, "LocalCluster", refused)
        run = run_cli(capsys, "corpus", "build", str(listing), "--state", str(tmp_path / "state"), "--scheduler",
                      cluster.scheduler_address)
        assert run.code == 0, run.err
    assert "1 projects: 1 built" in run.err
    assert _rows(tmp_path / "state")["shelf"]["status"] == "done"


def test_an_unreachable_scheduler_gets_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("extractor.corpus.build.CONNECT_TIMEOUT", "1s")
    (tmp_path / "list.txt").write_text(f"{FIXTURES / 'shelf'}\n")
    run = run_cli(capsys, "corpus", "build", str(tmp_path / "list.txt"), "--state", str(tmp_path / "state"), "--scheduler",
                  "tcp://127.0.0.1:9")
    assert run.code == 2
    assert run.err.startswith("raisedocs: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ") and run.err.count("\n") == 1
    assert _rows(tmp_path / "state")["shelf"]["status"] == "pending"


def test_a_second_build_on_the_same_state_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from extractor.corpus.state import State

    (tmp_path / "list.txt").write_text(f"{FIXTURES / 'shelf'}\n")
    running = State(str(tmp_path / "state"))
    running.lock()
    try:
        run = run_cli(capsys, "corpus", "build", str(tmp_path / "list.txt"), "--state", str(tmp_path / "state"))
    finally:
        running.close()
    assert (run.code, run.err) == (2, f"raisedocs: error: another corpus build is running on {tmp_path / 'state'}\n")


def test_a_project_past_its_time_limit_is_reported(tmp_path: Path) -> None:
    project = Project(key="shelf", kind=ProjectKind.FOLDER, source=str(FIXTURES / "shelf"), pin=None, line="shelf")
    built = build_project(project, Resolved(sha="tree-x"), TaskSettings(fetch=FetchSettings(), raisedocs="test", timeout=0.05))
    assert (built.failure, built.detail, built.catalog) == (BuildFailure.TIMEOUT, "extract ran past 0.05 s", None)


def test_a_bad_list_gets_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "list.txt").write_text("click>=8\n")
    run = run_cli(capsys, "corpus", "build", str(tmp_path / "list.txt"), "--state", str(tmp_path / "state"))
    assert (run.code, run.err) == (2, f"raisedocs: error: {tmp_path / 'list.txt'}:1: not a PyPI requirement (name==version), "
                                      "URL@rev, PATH@rev or folder: 'click>=8'\n")


def test_without_dask_the_build_says_how_to_install_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # (import distributed then raises ImportError)
    (tmp_path / "list.txt").write_text(f"{FIXTURES / 'shelf'}\n")
    run = run_cli(capsys, "corpus", "build", str(tmp_path / "list.txt"), "--state", str(tmp_path / "state"))
    assert (run.code, run.err) == (2, 'raisedocs: error: corpus build needs Dask: pip install "raisedocs[corpus]"\n')
