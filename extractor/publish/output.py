"""Output: rendered files -> a docs folder, replaced atomically so a failed run keeps the old one."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable

from ..errors import OutputError
from ..model import SCHEMA_ID


def _is_catalog_dir(path: str) -> bool:
    if not os.listdir(path):
        return True
    try:
        with open(os.path.join(path, "catalog.json"), encoding="utf-8") as handle:
            return json.load(handle).get("schema") == SCHEMA_ID
    except (OSError, ValueError, AttributeError):
        return False


def write_docs(files: Iterable[tuple[str, str]], outdir: str) -> None:
    """Write ``files`` (relative path, text) as the whole content of ``outdir``.

    The new folder is built beside the old one and swapped in by renames, so an interrupted
    run leaves the previous catalog in place.

    Raises:
        OutputError: ``outdir`` is a file, is a folder that is not a raisedocs catalog, or
            cannot be written.
    """
    target = os.path.abspath(outdir)
    if os.path.exists(target) and not os.path.isdir(target):
        raise OutputError(f"output path is a file: {outdir}")
    if os.path.isdir(target) and not _is_catalog_dir(target):
        raise OutputError(f"output folder is not empty and holds no raisedocs catalog; refusing to replace it: {outdir}")
    parent = os.path.dirname(target)
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".raisedocs-", dir=parent)
    except OSError as exc:
        raise OutputError(f"cannot write to {parent}: {exc.strerror}") from None
    try:
        for rel, text in files:
            full = os.path.join(staging, *rel.split("/"))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
                handle.write(text)
        os.chmod(staging, 0o755)
        _swap(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"cannot write {outdir}: {exc.strerror or exc}") from None


def _swap(staging: str, target: str) -> None:
    if not os.path.exists(target):
        os.rename(staging, target)
        return
    retired = tempfile.mkdtemp(prefix=".raisedocs-old-", dir=os.path.dirname(target))
    os.rmdir(retired)
    os.rename(target, retired)
    os.rename(staging, target)
    shutil.rmtree(retired, ignore_errors=True)


def compare_docs(files: Iterable[tuple[str, str]], docs_dir: str) -> dict[str, list[str]]:
    """Which files of ``docs_dir`` differ from ``files`` (stale), are absent (missing) or
    are not produced any more (orphaned).

    Raises:
        OutputError: ``docs_dir`` is not a folder.
    """
    if not os.path.isdir(docs_dir):
        raise OutputError(f"not a docs folder: {docs_dir}")
    present: dict[str, str] = {}
    for dirpath, _, filenames in os.walk(docs_dir):
        for name in filenames:
            full = os.path.join(dirpath, name)
            present[os.path.relpath(full, docs_dir).replace(os.sep, "/")] = full
    report: dict[str, list[str]] = {"stale": [], "missing": [], "orphaned": []}
    produced: set[str] = set()
    for rel, text in files:
        produced.add(rel)
        if rel not in present:
            report["missing"].append(rel)
            continue
        with open(present[rel], "rb") as handle:
            on_disk = handle.read()
        if on_disk != text.encode("utf-8", "backslashreplace"):
            report["stale"].append(rel)
    report["orphaned"] = sorted(set(present) - produced)
    report["stale"].sort()
    report["missing"].sort()
    return report
