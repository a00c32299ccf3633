"""Publish: the state folder's built projects -> one dataset and one site, written atomically.

The files are made one project at a time (a project's catalog is read, its pages, data
files and search entries written, and it is let go), into a staging folder that replaces
the site in one rename (``publish.output.write_docs``): a failed publish, or one the quality
gate refuses, leaves the previous site as it was. The data files are counted into
``manifest.json`` as they are written; it comes last.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import CatalogError
from ..model import dumps_data
from ..model.spool import DataCatalog
from ..publish.catalog_file import load_catalog
from ..publish.families import family_sites, with_family
from ..publish.identity import template_root
from ..publish.output import write_docs
from ..publish.search_index import index_entry
from ..publish.site import api_schemas, site_assets
from ..version import VERSION
from .dataset import SCHEMAS, error_file, index_files, index_record, manifest_file, project_record, repo_file
from .gate import Gate, card_problems, sample_ids
from .pages import home_page, llms_text, project_pages, published_card, sitemaps
from .search import SearchShards
from .state import State


@dataclass(slots=True)
class Published:
    """What a publish wrote: projects, errors, files and bytes; the sample the gate checked."""

    projects: int = 0
    errors: int = 0
    files: int = 0
    bytes: int = 0
    largest_page: tuple[int, str] = (0, "")
    sampled: int = 0
    failing: int = 0
    counts: dict[str, int] = field(default_factory=dict)


def publish_corpus(state_dir: str, outdir: str, base_url: str, max_failing: float) -> Published:
    """Write the dataset and the site of the state's built projects to ``outdir``.

    Raises:
        StateError: ``state_dir`` holds no corpus state.
        GateError: the quality gate refuses the publish (``outdir`` is left as it was).
        OutputError: ``outdir`` cannot be written.
    """
    state = State.existing(state_dir)
    try:
        rows = [dict(row) for row in state.rows()]
        result = Published()
        gate = Gate(max_failing)
        write_docs(_counted(_files(rows, state, base_url.rstrip("/") + "/", gate, result), result), outdir)
    finally:
        state.close()
    result.sampled, result.failing = gate.checked, len(gate.failures)
    return result


def _counted(files: Iterator[tuple[str, str]], result: Published) -> Iterator[tuple[str, str]]:
    for path, text in files:
        size = len(text.encode("utf-8"))
        result.files += 1
        result.bytes += size
        if path.endswith(".html") and "/errors/" in path and size > result.largest_page[0]:
            result.largest_page = (size, path)
        yield path, text


class _Data:
    """The data files written so far, with their sizes and digests (manifest.json's list)."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[int, str]] = {}

    def add(self, path: str, text: str) -> tuple[str, str]:
        raw = text.encode("utf-8")
        self.files[path] = (len(raw), hashlib.sha256(raw).hexdigest())
        return path, text


def _files(rows: list[dict[str, Any]], state: State, base_url: str, gate: Gate, result: Published) -> Iterator[tuple[str, str]]:
    data = _Data()
    yield from site_assets()
    yield "assets/corpus.js", (template_root() / "site" / "corpus.js").read_text(encoding="utf-8")
    shards = SearchShards()
    records: list[dict[str, Any]] = []
    pages: dict[str, list[str]] = {}
    built: list[dict[str, Any]] = []
    for row in rows:
        if row["status"] != "done":
            continue
        project = project_record(row)
        try:
            catalog = DataCatalog(load_catalog(state.catalog_path(row["key"])))
        except CatalogError as exc:
            gate.unreadable(row["key"], str(exc))
            continue
        built.append(project)
        yield from _project(project, catalog, base_url, gate, data, shards, records, pages)
    yield from shards.finish()
    yield from (data.add(path, text) for path, text in index_files(records))
    failed = [project_record(row) for row in rows if row["status"] == "failed"]
    yield data.add("repos.json", dumps_data({"schema": "raisedocs-corpus-repos/1", "projects": [project_record(r) for r in rows]}))
    schemas = {**SCHEMAS, "catalog.schema.json": api_schemas()["catalog.schema.json"]}
    yield from (data.add(f"schema/{name}", dumps_data(schema)) for name, schema in sorted(schemas.items()))
    counts = {"projects": len(built), "failed": len(failed), "errors": len(records),
              "verified": sum(r["verified"] for r in records), "examples": sum(r["example"] for r in records)}
    generator = {"name": "raisedocs", "version": VERSION}
    yield "index.html", home_page(built, failed, counts, generator)
    yield "llms.txt", llms_text(counts, built, base_url)
    yield from sitemaps(pages, base_url)
    gate.verdict()
    result.projects, result.errors, result.counts = len(built), len(records), counts
    yield "manifest.json", manifest_file(data.files, counts, generator)


def _project(project: dict[str, Any], catalog: DataCatalog, base_url: str, gate: Gate, data: _Data, shards: SearchShards,
             records: list[dict[str, Any]], pages: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    """One project's data files, search entries and pages, its sampled cards checked."""
    key = project["key"]
    families = family_sites(catalog.envelope.get("families") or [], catalog.summaries)
    sampled = sample_ids([card["id"] for card in catalog.cards()])
    published: dict[str, dict[str, Any]] = {}
    ids = []
    for card in catalog.cards():
        ids.append(card["id"])
        kept = published_card(card)
        if card["id"] in sampled:
            published[card["id"]] = kept
        yield data.add(f"errors/{key}.{card['id']}.json", error_file(project, card, kept))
        records.append(index_record(project, card))
        yield from shards.add(key, with_family(index_entry(card), families))
    for path, page in project_pages(project, catalog, base_url):
        pages.setdefault(key, []).append(path)
        card_id = path.rsplit("/", 1)[-1].removesuffix(".html")
        if "/errors/" in path and card_id in published:
            gate.record(f"{key} {card_id}", card_problems(published[card_id], page, base_url + path))
        yield path, page
    yield data.add(f"repos/{key}.json", repo_file(project, catalog.envelope, ids))
