"""Helpers shared by the tests: temp trees, one-snippet extraction, CLI runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from extractor import extract
from extractor.cli import main
from extractor.model import Card
from extractor.model.serialize import complete
from extractor.options import Options

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"


def temp_tree(base: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``base``."""
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")
    return base


def extract_snippet(tmp_path: Path, code: str, **options: object) -> list[Card]:
    """The cards of one module ``mod.py`` holding ``code``."""
    temp_tree(tmp_path, {"mod.py": code})
    return list(extract(str(tmp_path), Options(**options)).errors)  # type: ignore[arg-type]


def extracted(text: str) -> dict:
    """``extract``'s JSON output with every field of each card given (catalog.json leaves out
    a field that holds its default)."""
    data = json.loads(text)
    for card in data["errors"]:
        complete(Card, card)
    return data


def only(cards: list[Card]) -> Card:
    """The one raise card (the cards of pydantic's field constraints aside)."""
    raises = [c for c in cards if c.constraint is None]
    assert len(raises) == 1, [c.at.line for c in raises]
    return raises[0]


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(capsys, *args: str) -> Run:  # noqa: ANN001 (pytest fixture)
    code = main(list(args))
    captured = capsys.readouterr()
    return Run(code=code, out=captured.out, err=captured.err)


def run_module(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m extractor ...`` in a fresh interpreter."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "extractor", *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=300)


GIT_ENV = {
    "GIT_AUTHOR_NAME": "raisedocs tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "raisedocs tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null",
}


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def make_git_repo(repo: Path, commits: list[tuple[str, dict[str, str | bytes | None]]]) -> list[str]:
    """A repository with one commit per (message, {path: content or None to delete});
    commit shas are deterministic (fixed names and dates)."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    shas = []
    for message, files in commits:
        for rel, content in files.items():
            path = repo / rel
            if content is None:
                git(repo, "rm", "-q", rel)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
            git(repo, "add", rel)
        git(repo, "commit", "-q", "--allow-empty", "-m", message)
        shas.append(git(repo, "rev-parse", "HEAD"))
    return shas


def tree_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
