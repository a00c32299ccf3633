"""Build: the corpus list and the state folder -> every project built once, on Dask.

The coordinator reads the list, pins each project (``fetch.resolve``), skips those the
state already holds at that pin for this raisedocs, and submits the others as tasks to a
Dask ``distributed`` cluster: one started on this machine's cores, or the one at
``--scheduler``. Results are recorded as they arrive, so a run killed at any moment resumes
with the same command and builds only what it had not recorded. Dask is the optional extra
``raisedocs[corpus]``; it is imported only here.
"""

from __future__ import annotations

import logging
import os
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..cache import CODE
from ..errors import RaisedocsError
from ..model.codes import BuildFailure, ProjectStatus
from .fetch import FetchSettings, Resolved, resolve
from .projects import BuildError, Project, read_list
from .state import Built, State
from .task import TaskSettings, build_project

CONNECT_TIMEOUT = "20s"  # how long to try a --scheduler address


class ClusterError(RaisedocsError):
    """Dask is not installed, or the scheduler cannot be reached."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildSettings:
    """A corpus build's settings (``raisedocs corpus build``'s options)."""

    fetch: FetchSettings = field(default_factory=FetchSettings)
    timeout: float = 1800.0
    max_attempts: int = 3
    workers: int | None = None  # local workers (default: the CPU count)
    scheduler: str | None = None  # a running Dask scheduler's address
    skip_tests: bool = True


@dataclass(slots=True)
class Tally:
    """What a run did: projects built, skipped and failed (with why), and its times."""

    total: int = 0
    built: int = 0
    skipped: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    cpu: float = 0.0
    wall: float = 0.0


Progress = Callable[[str], None]


def build_corpus(list_path: str, state_dir: str, settings: BuildSettings, progress: Progress) -> Tally:
    """Build every project of the list that the state does not hold at its pin.

    Raises:
        ListError: the list cannot be read.
        StateError: another build is running on the state folder.
        ClusterError: Dask is missing or its scheduler cannot be reached.
        OutputError: the state folder cannot be written.
    """
    start = time.monotonic()
    projects = read_list(list_path)
    state = State(state_dir)
    try:
        state.lock()
        state.sync(projects)
        tally = Tally(total=len(projects))
        todo = list(_plan(projects, state, settings, tally, progress))
        if todo:
            _run(todo, state, settings, tally, progress)
    finally:
        state.close()
    tally.wall = time.monotonic() - start
    return tally


def _plan(projects: list[Project], state: State, settings: BuildSettings, tally: Tally,
          progress: Progress) -> Iterator[tuple[Project, Resolved]]:
    """The projects to build, pinned; those that cannot be pinned are recorded as failed."""
    for project in projects:
        try:
            resolved = resolve(project, settings.fetch)
        except BuildError as exc:
            _record(state, Built(key=project.key, resolved=Resolved(), raisedocs=CODE, failure=exc.code, detail=exc.detail),
                    tally, progress)
            continue
        if state.is_current(project.key, resolved, CODE, settings.max_attempts):
            tally.skipped += 1
            row = state.row(project.key)
            if row["status"] == ProjectStatus.FAILED:
                tally.failed[row["reason"]] += 1
            continue
        yield project, resolved


def _run(todo: list[tuple[Project, Resolved]], state: State, settings: BuildSettings, tally: Tally, progress: Progress) -> None:
    task = TaskSettings(fetch=settings.fetch, raisedocs=CODE, timeout=settings.timeout, skip_tests=settings.skip_tests)
    with _client(settings) as client:
        from distributed import as_completed  # (after _client: without Dask, it has said so)

        futures = {}
        for project, resolved in todo:
            state.start(project.key, resolved, CODE)
            future = client.submit(build_project, project, resolved, task, key=f"raisedocs-{project.key}-{os.getpid()}", pure=False)
            futures[future] = (project, resolved)
        for future in as_completed(futures):
            project, resolved = futures.pop(future)
            _record(state, _result(future, project, resolved), tally, progress)


def _result(future: Any, project: Project, resolved: Resolved) -> Built:
    try:
        built = future.result()
    except Exception as exc:  # noqa: BLE001 (the task boundary: a worker killed, a cluster gone; build_project never raises)
        return Built(key=project.key, resolved=resolved, raisedocs=CODE, failure=BuildFailure.WORKER_LOST,
                     detail=f"{type(exc).__name__}: {exc}")
    return built if isinstance(built, Built) else Built(key=project.key, resolved=resolved, raisedocs=CODE,
                                                         failure=BuildFailure.WORKER_LOST, detail="the worker returned no result")


def _record(state: State, built: Built, tally: Tally, progress: Progress) -> None:
    text = zlib.decompress(built.catalog).decode("utf-8") if built.catalog is not None else None
    state.finish(built, text)
    tally.cpu += built.cpu
    done = tally.built + sum(tally.failed.values()) + tally.skipped + 1
    pin = built.resolved.version or (built.resolved.sha or "")[:12]
    if built.failure is None:
        tally.built += 1
        counts = dict(built.counts)
        progress(f"[{done}/{tally.total}] {built.key} {pin}: {counts.get('cards', 0)} cards, {counts.get('verified', 0)} verified, "
                 f"{built.wall:.1f} s")
    else:
        tally.failed[built.failure] += 1
        progress(f"[{done}/{tally.total}] {built.key} {pin}: failed ({built.failure}: {built.detail})")


@contextmanager
def _client(settings: BuildSettings) -> Iterator[Any]:
    """A Dask client: of the scheduler given, else of a cluster of local worker processes
    (one thread each: a task's CPU time is its child's)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError('corpus build needs Dask: pip install "raisedocs[corpus]"') from None
    if settings.scheduler:
        try:
            client = Client(settings.scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {settings.scheduler}: {exc}") from None
        with client:
            yield client
        return
    workers = settings.workers or os.cpu_count() or 1
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client
