"""Publish: the state folder's built projects -> one dataset and one site, written atomically.

The files are made one project at a time (a project's catalog is read, its pages, data
files and search entries written, and it is let go), into a staging folder that replaces
the site in one rename (``publish.output.write_docs``): a failed publish, or one the quality
gate refuses, leaves the previous site as it was. The data files are counted into
``manifest.json`` as they are written; it comes last.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import CatalogError
from ..model import dumps_data
from ..model.spool import DataCatalog
from ..publish.catalog_file import load_catalog, read_catalog_bytes
from ..publish.families import family_sites, with_family
from ..publish.identity import template_root
from ..publish.output import write_docs
from ..publish.search_index import build_index, dump_index, index_entry
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


class _Publishing:
    """One publish's accumulators: the data files written so far (with their sizes and
    digests: manifest.json's list), the search shards, the index records, each project's
    pages (for the sitemaps), and the quality gate."""

    def __init__(self, base_url: str, gate: Gate) -> None:
        self.base_url = base_url
        self.gate = gate
        self.files: dict[str, tuple[int, str]] = {}
        self.shards = SearchShards()
        self.records: list[dict[str, Any]] = []
        self.pages: dict[str, list[str]] = {}

    def data(self, path: str, text: str) -> tuple[str, str]:
        """A data file, counted into the manifest."""
        raw = text.encode("utf-8")
        self.files[path] = (len(raw), hashlib.sha256(raw).hexdigest())
        return path, text

    def project(self, project: dict[str, Any], catalog: DataCatalog, digest: str) -> Iterator[tuple[str, str]]:
        """One project's data files, search entries and pages (``digest``: its catalog
        file's sha256), its sampled cards checked."""
        key = project["key"]
        sampled = sample_ids([card["id"] for card in catalog.cards()])
        published: dict[str, dict[str, Any]] = {}
        families = family_sites(catalog.envelope.get("families") or [], catalog.summaries)
        entries = yield from self._cards(project, catalog, families, sampled, published)
        # (the project's search index, as a docs folder holds it: `raisedocs mcp --dataset` reads it)
        yield self.data(f"search-index/{key}.json", dump_index(build_index(entries, digest)))
        for path, page in project_pages(project, catalog, families, self.base_url):
            self.pages.setdefault(key, []).append(path)
            card_id = path.rsplit("/", 1)[-1].removesuffix(".html")
            if "/errors/" in path and card_id in published:
                self.gate.record(f"{key} {card_id}", card_problems(published[card_id], page, self.base_url + path))
            yield path, page
        yield self.data(f"repos/{key}.json", repo_file(project, catalog.envelope, [e["id"] for e in entries]))

    def _cards(self, project: dict[str, Any], catalog: DataCatalog, families: dict[str, dict[str, Any]], sampled: set[str],
               published: dict[str, dict[str, Any]]) -> Generator[tuple[str, str], None, list[dict[str, Any]]]:
        """Each card's data file, index record and search entry; the search entries. The
        sampled cards are kept in ``published`` as catalog.json holds them."""
        key = project["key"]
        entries = []
        for card in catalog.cards():
            kept = published_card(card)
            if card["id"] in sampled:
                published[card["id"]] = kept
            yield self.data(f"errors/{key}.{card['id']}.json", error_file(project, card, kept))
            self.records.append(index_record(project, card))
            entries.append(with_family(index_entry(card), families))
            yield from self.shards.add(key, entries[-1])
        return entries


def _files(rows: list[dict[str, Any]], state: State, base_url: str, gate: Gate, result: Published) -> Iterator[tuple[str, str]]:
    run = _Publishing(base_url, gate)
    yield from site_assets()
    yield "assets/corpus.js", (template_root() / "site" / "corpus.js").read_text(encoding="utf-8")
    built: list[dict[str, Any]] = []
    for row in rows:
        if row["status"] != "done":
            continue
        try:
            raw = read_catalog_bytes(state.catalog_path(row["key"]))
            catalog = DataCatalog(load_catalog(state.catalog_path(row["key"]), data=raw))
        except CatalogError as exc:
            gate.unreadable(row["key"], str(exc))
            continue
        built.append(project_record(row))
        yield from run.project(built[-1], catalog, hashlib.sha256(raw).hexdigest())
    yield from run.shards.finish()
    yield from (run.data(path, text) for path, text in index_files(run.records))
    failed = [project_record(row) for row in rows if row["status"] == "failed"]
    yield run.data("repos.json", dumps_data({"schema": "raisedocs-corpus-repos/1", "projects": [project_record(r) for r in rows]}))
    schemas = {**SCHEMAS, **{name: api_schemas()[name] for name in ("catalog.schema.json", "search-index.schema.json")}}
    yield from (run.data(f"schema/{name}", dumps_data(schema)) for name, schema in sorted(schemas.items()))
    counts = {"projects": len(built), "failed": len(failed), "errors": len(run.records),
              "verified": sum(r["verified"] for r in run.records), "examples": sum(r["example"] for r in run.records)}
    generator = {"name": "raisedocs", "version": VERSION}
    yield "index.html", home_page(built, failed, counts, generator)
    yield "llms.txt", llms_text(counts, built, base_url)
    yield from sitemaps(run.pages, base_url)
    gate.verdict()
    result.projects, result.errors, result.counts = len(built), len(run.records), counts
    yield "manifest.json", manifest_file(run.files, counts, generator, base_url)
