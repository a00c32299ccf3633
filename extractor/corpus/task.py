"""Task: one project on a worker -> its catalog and counts (``Built``), never an exception.

The worker fetches the project into a temporary folder and runs ``raisedocs extract`` on it
in a child process of its own session, with a time limit: a project that hangs, crashes or
exhausts memory takes only its child with it. The worker writes nothing outside its
temporary folder and returns the catalog's bytes; the coordinator alone writes the state.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from typing import Any

from ..model.codes import BuildFailure
from ..publish.output import is_alive
from .fetch import FetchSettings, Resolved, Tree, materialize
from .projects import BuildError, Project
from .state import Built


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskSettings:
    """How one project is built: the fetch's limits, the time limit, the extract's options."""

    fetch: FetchSettings
    raisedocs: str  # the coordinator's raisedocs (version and code digest), recorded with the result
    timeout: float = 1800.0
    skip_tests: bool = True
    python: str = sys.executable


def build_project(project: Project, resolved: Resolved, settings: TaskSettings) -> Built:
    """Fetch and extract ``project`` at ``resolved``; a failure is reported in the result."""
    start = time.monotonic()
    cpu = _children_cpu()
    remove_dead_workdirs()
    with tempfile.TemporaryDirectory(prefix=f"{_WORKDIR}{os.getpid()}-") as workdir:
        try:
            tree = materialize(project, resolved, workdir, settings.fetch)
            catalog = _extract(project, tree, os.path.join(workdir, "docs"), settings)
            counts = catalog_counts(catalog)
        except BuildError as exc:
            return Built(key=project.key, resolved=resolved, raisedocs=settings.raisedocs, failure=exc.code, detail=exc.detail,
                         wall=time.monotonic() - start, cpu=_children_cpu() - cpu)
    return Built(key=project.key, resolved=resolved, artifact=tree.artifact, raisedocs=settings.raisedocs,
                 wall=time.monotonic() - start, cpu=_children_cpu() - cpu, counts=counts, catalog=zlib.compress(catalog, 6))


_WORKDIR = "raisedocs-corpus-"


def remove_dead_workdirs() -> None:
    """Remove the temporary folders of this machine's workers that were killed mid-task
    (their process is gone): a killed run leaves its downloads behind."""
    parent = tempfile.gettempdir()
    for name in os.listdir(parent):
        pid = name[len(_WORKDIR):].split("-", 1)[0]
        if name.startswith(_WORKDIR) and pid.isdigit() and not is_alive(int(pid)):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def _extract(project: Project, tree: Tree, out: str, settings: TaskSettings) -> bytes:
    """``raisedocs extract`` of the tree in a child process; catalog.json's bytes.

    Raises:
        BuildError: the child timed out or failed.
    """
    command = [settings.python, "-m", "extractor.cli", "extract", tree.path, "-o", out, "-q", "--jobs", "1", "--no-cache",
               "--repo-name", project.key]
    if tree.rev:
        command += ["--rev", tree.rev]
    if settings.skip_tests:
        command.append("--no-tests")
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             env={**os.environ, "PYTHONHASHSEED": "0"})
    try:
        _, err = child.communicate(timeout=settings.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        raise BuildError(BuildFailure.TIMEOUT, f"extract ran past {settings.timeout:g} s") from None
    finally:
        if child.poll() is None:
            _kill_group(child)
    if child.returncode != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        raise BuildError(BuildFailure.EXTRACT_FAILED, lines[-1] if lines else f"exit status {child.returncode}")
    try:
        with open(os.path.join(out, "catalog.json"), "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise BuildError(BuildFailure.EXTRACT_FAILED, f"no catalog.json written: {exc}") from None
    shutil.rmtree(out, ignore_errors=True)
    return data


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    child.wait()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def catalog_counts(data: bytes) -> tuple[tuple[str, int], ...]:
    """The counts the state records of a catalog: files read and failed, cards, verified
    triggers, examples. A catalog with no card of a Python file is still a catalog.

    Raises:
        BuildError: the catalog is not JSON or has no file to read.
    """
    try:
        catalog: dict[str, Any] = json.loads(data)
    except ValueError as exc:
        raise BuildError(BuildFailure.EXTRACT_FAILED, f"catalog.json is not JSON: {exc}") from None
    stats = catalog.get("stats") or {}
    if not stats.get("files") and not stats.get("files_failed"):
        raise BuildError(BuildFailure.NO_PYTHON, "no Python file to read")
    errors = catalog.get("errors") or []
    return (("cards", len(errors)), ("examples", sum(1 for card in errors if card.get("example"))),
            ("files", int(stats.get("files") or 0)), ("files_failed", int(stats.get("files_failed") or 0)),
            ("verified", int(stats.get("verified") or 0)))
