"""Git, read only: run a git command, resolve a revision, stream blobs, read the remote."""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
from typing import TYPE_CHECKING

from .errors import SourceError

if TYPE_CHECKING:
    from typing import Self


def run_git(repo: str, *args: str, data: bytes | None = None) -> bytes:
    """Run a read-only git command in ``repo``.

    Raises:
        SourceError: git is missing or the command fails.
    """
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(["git", "-C", repo, *args], input=data, capture_output=True, env=env, check=False)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc.strerror}") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]} failed in {repo}: {message[-1] if message else proc.returncode}")
    return proc.stdout


def resolve_rev(repo: str, rev: str) -> str:
    """The full 40-hex sha of a commit-ish (tag, branch, short or full sha).

    Raises:
        SourceError: ``repo`` is not a git repository or ``rev`` names no commit.
    """
    if not os.path.isdir(repo):
        raise SourceError(f"path does not exist: {repo}")
    run_git(repo, "rev-parse", "--git-dir")
    try:
        sha = run_git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
    except SourceError:
        raise SourceError(f"unknown revision in {repo}: {rev}") from None
    return sha


class BlobReader:
    """Blob contents by sha, from one ``git cat-file --batch`` process, one blob at a time."""

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        return self

    def read(self, sha: str) -> bytes:
        if self.process is None:
            env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
            try:
                self.process = subprocess.Popen(["git", "-C", self.repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            except OSError as exc:
                raise SourceError(f"cannot run git: {exc.strerror}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(sha.encode() + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise SourceError(f"git cat-file failed in {self.repo}: no blob {sha}")
        data = self.process.stdout.read(int(header[2]))
        self.process.stdout.read(1)  # the newline after each blob
        return data

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    stream.close()
            # Workers forked while it ran hold copies of its stdin: it would never see EOF.
            self.process.kill()
            self.process.wait()


_REMOTE = re.compile(r"^(?:https?://|ssh://git@|git@)(?P<host>github\.com|gitlab\.com)[:/](?P<path>.+?)(?:\.git)?/?$")


def origin(repo: str) -> tuple[str | None, str | None]:
    """``origin``'s https URL on GitHub or GitLab (else None), and the name its URL ends with
    (``widgets`` of ``git@github.com:acme/widgets.git``; None without a remote)."""
    try:
        remote = run_git(repo, "config", "--get", "remote.origin.url").decode().strip()
    except SourceError:
        return None, None
    match = _REMOTE.match(remote)
    # (normalized: the path a local clone records may end in ``/.``, as ``git clone . ../copy`` writes it)
    name = re.sub(r"\.git$", "", posixpath.basename(posixpath.normpath(remote.replace(":", "/")))) or None
    return (f"https://{match.group('host')}/{match.group('path')}" if match else None), name


def work_tree_top(root: str) -> str | None:
    """The top folder of the git work tree holding ``root``, else None."""
    try:
        return run_git(root, "rev-parse", "--show-toplevel").decode().strip() or None
    except SourceError:
        return None


def work_tree_head(root: str) -> str | None:
    """HEAD's sha when ``root`` is the top of a git work tree with a commit, else None."""
    top = work_tree_top(root)
    if top is None or os.path.realpath(top) != os.path.realpath(root):
        return None
    try:
        return resolve_rev(root, "HEAD")
    except SourceError:
        return None
