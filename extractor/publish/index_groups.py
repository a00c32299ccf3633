"""Index pages: the cards' summaries -> the groups of modules each Markdown index page lists.

A catalog of at most ``PAGE_CARDS`` cards keeps every module on ``index.md``. A larger one
gets a page per package: the top level is split into its folders, and a folder holding more
than ``PAGE_CARDS`` cards is split again into one group for the modules directly in it and a
group per subfolder, until each group fits or is a single folder's own modules. ``index.md``
then lists the groups (vLLM 0.33: 98 pages, the largest its ``model_executor/models`` folder's
819 cards).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from .ranking import module_rank, rank_key

PAGE_CARDS = 500  # the most cards an index page lists before its folder is split
TOP_LEVEL = "top-level"  # the page of the modules at the tree's root; no folder's page has this name
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")
_MAX_NAME = 200  # bytes: file systems allow 255 in a name


def group_modules(summaries: list[dict[str, Any]], limit: int = PAGE_CARDS) -> list[dict[str, Any]] | None:
    """The index pages' groups, in tree order, or None when the whole catalog fits ``index.md``.

    Each group is ``{"folder", "is_whole", "page", "modules", "cards"}``: ``folder`` is a
    repo-relative folder (``""`` for the root), ``is_whole`` whether the group holds every
    module under it (else only those directly in it), ``page`` the page's path in the docs
    folder, and ``cards`` its summaries, by path and then in catalog order."""
    if len(summaries) <= limit:
        return None
    by_path: dict[str, list[dict[str, Any]]] = {}
    for summary in summaries:
        by_path.setdefault(summary["path"], []).append(summary)
    groups = []
    work = [("", sorted(by_path))]  # folders to split; a list, not recursion: trees can be deep
    while work:
        folder, paths = work.pop()
        prefix = f"{folder}/" if folder else ""
        own: list[str] = []
        children: dict[str, list[str]] = {}
        for path in paths:
            below = path[len(prefix):]
            if "/" in below:
                children.setdefault(prefix + below.split("/", 1)[0], []).append(path)
            else:
                own.append(path)
        if own:
            groups.append(_group(folder, own, by_path, is_whole=False))
        for child, child_paths in children.items():
            if sum(len(by_path[p]) for p in child_paths) > limit:
                work.append((child, child_paths))
            else:
                groups.append(_group(child, child_paths, by_path, is_whole=True))
    # Public packages first (tests and private folders after), each in tree order, the root ([""]) first
    return sorted(groups, key=lambda group: (module_rank(group["folder"]), group["folder"].split("/")))


def _group(folder: str, paths: list[str], by_path: dict[str, list[dict[str, Any]]], *, is_whole: bool) -> dict[str, Any]:
    return {"folder": folder, "is_whole": is_whole, "page": f"index/{page_name(folder)}.md", "modules": len(paths),
            "cards": [card for path in paths for card in by_path[path]]}


def index_modules(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The modules an index page lists, each ``{"path", "cards"}``: public modules first
    (publish.ranking.module_rank), then by path; a module's cards in rank order
    (publish.ranking.rank_key), equal ranks in catalog order."""
    by_path: dict[str, list[dict[str, Any]]] = {}
    for summary in summaries:
        by_path.setdefault(summary["path"], []).append(summary)
    order = sorted(by_path, key=lambda path: (module_rank(path), path))
    return [{"path": path, "cards": sorted(by_path[path], key=rank_key)} for path in order]


def page_name(folder: str) -> str:
    """The file name (without ``.md``) of a folder's index page: its dotted path
    (``vllm/config`` -> ``vllm.config``), a part with any other character than letters,
    digits, ``_`` and ``-`` spelled ``~xx`` byte by byte, so that two folders never share a
    page and a link needs no percent-encoding. The root is ``top-level``."""
    if not folder:
        return TOP_LEVEL
    name = ".".join(part if _PLAIN.fullmatch(part) and part != TOP_LEVEL else _escape(part) for part in folder.split("/"))
    if len(name) > _MAX_NAME:  # a deep folder: its name's start, and a digest of the whole path
        digest = hashlib.sha256(folder.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{name[:_MAX_NAME - 20]}~~{digest}"
    return name


def _escape(part: str) -> str:
    return "".join(
        char if char.isascii() and (char.isalnum() or char == "_") else "".join(f"~{byte:02x}" for byte in char.encode("utf-8",
                                                                                                                       "surrogatepass"))
        for char in part
    )
