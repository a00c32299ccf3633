"""State: the corpus build's record -> one SQLite database, and each project's catalog beside it.

``DIR/state.sqlite`` holds one row per project (``projects``), written only by the
coordinating process, each change in its own transaction: a run killed at any moment leaves
every row as it was before or after one change. ``DIR/catalogs/<key>/catalog.json`` is each
built project's catalog, replaced in one rename before its row says ``done``, so a ``done``
row always has its catalog.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import OutputError, RaisedocsError
from ..model.codes import BuildFailure, ProjectStatus
from ..publish.output import write_file_atomic
from .fetch import Resolved
from .projects import Project

DATABASE = "state.sqlite"
LOCK = "build.lock"  # flock()ed by the running build
CATALOGS = "catalogs"
SCHEMA_VERSION = "1"

_TABLE = """
CREATE TABLE IF NOT EXISTS projects (
    key TEXT PRIMARY KEY,
    position INTEGER,           -- its line's place in the last list; NULL: no longer listed
    line TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    pin TEXT,
    version TEXT,               -- a release's version (PyPI)
    sha TEXT,                   -- a commit's sha, or a folder's digest
    artifact TEXT,              -- the file read, with its sha256 (PyPI)
    raisedocs TEXT,             -- the raisedocs (version and code digest) that built it
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,  -- failed builds at this pin
    reason TEXT,
    detail TEXT,
    wall REAL, cpu REAL,
    files INTEGER, files_failed INTEGER, cards INTEGER, verified INTEGER, examples INTEGER
)
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Built:
    """What a worker reports of a project: its pin, its catalog's counts, or its failure."""

    key: str
    resolved: Resolved
    artifact: str | None = None
    raisedocs: str = ""
    failure: BuildFailure | None = None
    detail: str | None = None
    wall: float = 0.0
    cpu: float = 0.0
    counts: tuple[tuple[str, int], ...] = ()
    catalog: bytes | None = None  # catalog.json, zlib-compressed


class StateError(RaisedocsError):
    """The folder holds no corpus state."""


class State:
    """The state folder: its database (opened once) and its catalogs."""

    @classmethod
    def existing(cls, folder: str) -> State:
        """The state a build left in ``folder``.

        Raises:
            StateError: ``folder`` holds no state database.
        """
        if not os.path.isfile(os.path.join(folder, DATABASE)):
            raise StateError(f"no corpus state in {folder} (run `raisedocs corpus build LIST --state {folder}` first)")
        return cls(folder)

    def __init__(self, folder: str) -> None:
        self.folder = folder
        try:
            os.makedirs(os.path.join(folder, CATALOGS), exist_ok=True)
            self.db = sqlite3.connect(os.path.join(folder, DATABASE), isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA synchronous = FULL")
            self.db.execute(_TABLE)
        except (OSError, sqlite3.Error) as exc:
            raise OutputError(f"cannot open the corpus state in {folder}: {exc}") from None

    def lock(self) -> None:
        """Hold the state for this build until the process ends (the kernel lets go of a
        killed process's lock).

        Raises:
            StateError: another build holds it.
        """
        self._lock = open(os.path.join(self.folder, LOCK), "a+")  # noqa: SIM115 (held while the build runs)
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise StateError(f"another corpus build is running on {self.folder}") from None

    def close(self) -> None:
        self.db.close()
        if getattr(self, "_lock", None) is not None:
            self._lock.close()

    def catalog_path(self, key: str) -> str:
        return os.path.join(self.folder, CATALOGS, key, "catalog.json")

    def _change(self, sql: str, *args: Any) -> None:
        with self.db:  # one transaction (isolation_level=None: sqlite3's own BEGIN/COMMIT)
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(sql, args)

    def sync(self, projects: list[Project]) -> None:
        """Record the list: new projects pending, each listed one at its place, the others
        unlisted. A list the state already records is not written again."""
        wanted = {p.key: (position, p.line, p.kind, p.source, p.pin) for position, p in enumerate(projects)}
        held = {row["key"]: (row["position"], row["line"], row["kind"], row["source"], row["pin"])
                for row in self.db.execute("SELECT * FROM projects")}
        if all(held.get(key) == fields for key, fields in wanted.items()) and all(
                key in wanted or fields[0] is None for key, fields in held.items()):
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE projects SET position = NULL")
            for key, fields in wanted.items():
                self.db.execute(
                    "INSERT INTO projects (key, position, line, kind, source, pin, status) VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET position = excluded.position, line = excluded.line, kind = excluded.kind, "
                    "source = excluded.source, pin = excluded.pin", (key, *fields, ProjectStatus.PENDING))

    def row(self, key: str) -> sqlite3.Row:
        return self.db.execute("SELECT * FROM projects WHERE key = ?", (key,)).fetchone()

    def rows(self, status: ProjectStatus | None = None) -> Iterator[sqlite3.Row]:
        """The listed projects' rows, in the list's order."""
        where = "position IS NOT NULL" + (" AND status = ?" if status else "")
        yield from self.db.execute(f"SELECT * FROM projects WHERE {where} ORDER BY position", (status,) if status else ())

    def is_current(self, key: str, resolved: Resolved, raisedocs: str, max_attempts: int) -> bool:
        """Whether the project needs no build: built at this pin by this raisedocs, or failed
        ``max_attempts`` times at this pin."""
        row = self.row(key)
        if not _same_pin(row, resolved, raisedocs):
            return False
        if row["status"] == ProjectStatus.DONE:
            return os.path.isfile(self.catalog_path(key))
        return row["status"] == ProjectStatus.FAILED and row["attempts"] >= max_attempts

    def start(self, key: str, resolved: Resolved, raisedocs: str) -> None:
        """The project is handed to a worker at this pin (failed attempts at another pin are forgotten)."""
        row = self.row(key)
        same = _same_pin(row, resolved, raisedocs)
        self._change("UPDATE projects SET status = ?, version = ?, sha = ?, raisedocs = ?, attempts = ? WHERE key = ?",
                     ProjectStatus.RUNNING, resolved.version, resolved.sha, raisedocs, row["attempts"] if same else 0, key)

    def finish(self, built: Built, text: str | None) -> None:
        """Record a worker's report; a built project's catalog (``text``) is written first.

        Raises:
            OutputError: the catalog cannot be written.
        """
        if built.failure is None and text is not None:
            os.makedirs(os.path.dirname(self.catalog_path(built.key)), exist_ok=True)
            write_file_atomic(self.catalog_path(built.key), text)
        counts = dict(built.counts)
        status = ProjectStatus.DONE if built.failure is None else ProjectStatus.FAILED
        self._change(
            "UPDATE projects SET status = ?, version = ?, sha = ?, raisedocs = ?, artifact = ?, reason = ?, detail = ?, wall = ?, "
            "cpu = ?, attempts = attempts + ?, files = ?, files_failed = ?, cards = ?, verified = ?, examples = ? WHERE key = ?",
            status, built.resolved.version, built.resolved.sha, built.raisedocs, built.artifact, built.failure, built.detail,
            round(built.wall, 3), round(built.cpu, 3), int(built.failure is not None), counts.get("files"), counts.get("files_failed"),
            counts.get("cards"), counts.get("verified"), counts.get("examples"), built.key)


def _same_pin(row: sqlite3.Row, resolved: Resolved, raisedocs: str) -> bool:
    """Whether the row records a build at this pin by this raisedocs."""
    return bool(row["version"] == resolved.version and row["sha"] == resolved.sha and row["raisedocs"] == raisedocs)
