"""Files that are not files: each is listed under failures with its reason, never read forever."""

from __future__ import annotations

import errno
import os

from extractor import sources
from extractor.git import resolve_rev
from extractor.options import Options
from extractor.sources import read_commit, read_tree

from .helpers import make_git_repo, run_cli, temp_tree

GOOD = "def f(x):\n    if x:\n        raise ValueError('x')\n"


def _failures(root) -> tuple[list[str], list[tuple[str, str]]]:
    files, failures = read_tree(str(root), Options())
    return [f.path for f in files], [(f.path, f.error) for f in failures]


def test_fifos_devices_and_huge_files_are_failures_not_reads(tmp_path) -> None:
    temp_tree(tmp_path, {"good.py": GOOD})
    os.mkfifo(tmp_path / "fifo.py")  # opening it to read would wait for a writer forever
    os.symlink("/dev/zero", tmp_path / "zero.py")
    os.symlink("/dev/stdin", tmp_path / "stdin.py")
    with open(tmp_path / "sparse.py", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB, sparse: costs nothing on disk, everything to read
    assert _failures(tmp_path) == (["good.py"], [
        ("fifo.py", "not a regular file (a FIFO)"),
        ("sparse.py", "larger than the 10,000,000-byte limit (1,073,741,824 bytes)"),
        ("stdin.py", "symlink points outside the analysed tree"),
        ("zero.py", "symlink points outside the analysed tree"),
    ])


def test_a_device_inside_the_tree_is_not_read(tmp_path, monkeypatch) -> None:
    # Creating a device node needs privileges; a FIFO behind a symlink inside the tree has
    # the same shape (the link resolves inside the tree, to something that is not a file).
    temp_tree(tmp_path, {"good.py": GOOD})
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "pipe", tmp_path / "linked.py")
    assert _failures(tmp_path)[1] == [("linked.py", "not a regular file (a FIFO)")]


def test_unreadable_files_and_unlistable_folders_are_failures(tmp_path, monkeypatch) -> None:
    # The tests may run as root, which reads past file modes: the denial is simulated.
    temp_tree(tmp_path, {"good.py": GOOD, "secret.py": GOOD, "locked/inner.py": GOOD})
    real_open, real_scandir = os.open, os.scandir

    def denied_open(path, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    def denied_scandir(path=".", *args):
        if str(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path, *args)

    monkeypatch.setattr(os, "open", denied_open)
    monkeypatch.setattr(os, "scandir", denied_scandir)
    assert _failures(tmp_path) == (["good.py"], [
        ("locked/", "cannot list folder: Permission denied"),
        ("secret.py", "Permission denied"),
    ])


def test_a_blob_past_the_size_limit_is_a_failure(tmp_path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    make_git_repo(repo, [("one", {"small.py": GOOD, "big.py": GOOD * 10})])
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", len(GOOD) * 5)
    files, failures = read_commit(str(repo), resolve_rev(str(repo), "main"), Options())
    assert [f.path for f in files] == ["small.py"]
    assert [(f.path, f.error) for f in failures] == [("big.py", "larger than the 250-byte limit (500 bytes)")]


def test_a_file_that_is_not_python_is_refused(capsys, tmp_path) -> None:
    (tmp_path / "afile.txt").write_text("not python", encoding="utf-8")
    run = run_cli(capsys, "extract", str(tmp_path / "afile.txt"))
    assert (run.code, run.out) == (2, "")
    assert run.err == f"raisedocs: error: not a folder or a Python (.py) file: {tmp_path / 'afile.txt'}\n"


def test_an_include_that_matches_nothing_is_said(capsys, tmp_path) -> None:
    temp_tree(tmp_path, {"good.py": GOOD})
    run = run_cli(capsys, "extract", str(tmp_path), "--include", "[", "--include", "good.py", "-q")
    assert run.code == 0
    assert "raisedocs: warning: --include '[' matched no .py file\n" in run.err
    assert "good.py" not in run.err


def test_stdout_on_a_full_disk_is_one_line_and_exit_2() -> None:
    import subprocess
    import sys

    from .helpers import FIXTURES, ROOT

    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "extractor", "extract", str(FIXTURES / "offload"), "-q"], stdout=full,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert (run.returncode, run.stderr) == (2, "raisedocs: error: cannot write to stdout: No space left on device\n")


def test_catalogs_that_are_not_catalogs_are_one_line_errors(capsys, tmp_path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.json")
    for command in (["explain", "x", "--catalog", str(tmp_path / "fifo.json")], ["diff", str(tmp_path / "fifo.json"), str(deep)]):
        run = run_cli(capsys, *command)
        assert (run.code, run.err) == (2, f"raisedocs: error: catalog {tmp_path / 'fifo.json'} is not a regular file\n")
    run = run_cli(capsys, "explain", "x", "--catalog", str(deep))
    assert (run.code, run.err) == (2, f"raisedocs: error: catalog {deep} is nested too deeply to be a raisedocs catalog\n")
