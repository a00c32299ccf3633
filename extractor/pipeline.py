"""The pipeline: a folder or a git commit -> Catalog (read, collect each file, link, solve).

The entry points callers use: a run (``incremental``) in the process pool, under the
warning filters and the garbage collection it needs; its catalog as data or a record,
written as a docs folder and a site or compared with one; one side of a diff.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from . import pool
from .cache import Cache
from .errors import CatalogError
from .incremental import Progress, Shared, extract_selection
from .inputs import Selection, select_sources
from .model import Catalog, from_data
from .model.spool import SpooledCatalog
from .options import Options
from .pool import Mapper


def extract_catalog(root: str, options: Options, progress: Progress | None = None,
                    shared: Shared | None = None, selection: Selection | None = None,
                    mapper: Mapper | None = None) -> SpooledCatalog:
    """Analyse every Python file under ``root`` (or of commit ``options.rev`` of the git
    repository at ``root``) and build its error catalog, its cards spooled to a temporary
    file as they are solved (``close()`` it when done): memory holds a summary per card,
    not the cards.

    ``shared``: what an earlier run in this process analysed (the two sides of a diff share
    most files: incremental.Shared); replaced by this run's. ``selection``: the
    sources ``inputs.select_sources(root, options)`` found, when the caller has them.
    ``mapper``: the pool to run on (``pool.mapper``), when the caller keeps one for more work.

    Raises:
        SourceError: ``root`` cannot be read, or ``options.rev`` names no commit.
    """
    # Parsing snippets of the analysed code (annotations, guards, templates) must not print
    # CPython's SyntaxWarnings about that code.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        with nullcontext(mapper) if mapper is not None else pool.mapper(options.jobs) as running, _no_cyclic_gc():
            selection = selection or select_sources(root, options)
            return extract_selection(root, selection, running, progress or (lambda stage, done, total: None), shared)


def extract_data(root: str, options: Options, progress: Progress | None = None, shared: Shared | None = None) -> dict[str, Any]:
    """``extract_catalog`` as catalog.json data (every card in memory).

    Raises:
        SourceError: ``root`` cannot be read, or ``options.rev`` names no commit.
    """
    catalog = extract_catalog(root, options, progress, shared)
    try:
        return catalog.data()
    finally:
        catalog.close()


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """The run builds millions of small acyclic objects (JSON data, records); the cyclic
    collector would walk all of them again and again and find nothing. Reference counting
    still frees everything. What outlives the run (the catalog's summaries, the caches of
    the parsed snippets) is then moved out of the collector's sight (``gc.freeze``): switched
    back on, it would walk all of it at its next pass (2.4 s on vLLM) and again as it ages."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


def write_catalog(root: str, selection: Selection, outdir: str | None, site_dir: str | None, progress: Progress | None,
                  emit: Callable[[Iterable[str]], None]) -> tuple[dict[str, Any], bool]:
    """Extract, then write the docs folder ``outdir`` (else give catalog.json's chunks to
    ``emit``) and the site ``site_dir``; the catalog's envelope, and whether ``outdir`` was
    written (False: it already held exactly this).

    Raises:
        SourceError: a file changed during the run.
        OutputError: a folder cannot be written, or holds files raisedocs did not write.
    """
    from .publish.identity import render_identity
    from .publish.output import write_docs
    from .publish.render import render_chunks

    wrote = False
    with _extracted(root, selection, progress) as (catalog, mapper):
        files = render_chunks(catalog, mapper, _page_memo(selection.options))
        if outdir is None:
            emit(next(files)[1])  # catalog.json, chunk by chunk
        else:
            wrote = write_docs(files, outdir, render_identity(), selection.identity)
        if site_dir is not None:
            from .publish.site import render_site

            write_docs(render_site(catalog), site_dir)
    return catalog.envelope, wrote


def compare_catalog(root: str, selection: Selection, docs_dir: str, recorded: dict[str, Any] | None) -> dict[str, list[str]]:
    """Extract and compare with ``docs_dir`` (output.compare_docs), with the verification
    its cards hold (``verify``). ``recorded``: the folder's catalog as the caller read it,
    whole, or its envelope alone (then read whole here only when its cards hold verification).

    Raises:
        SourceError: a file changed during the run.
        OutputError: ``docs_dir`` is not a folder.
    """
    from .publish.catalog_file import load_catalog
    from .publish.identity import render_identity
    from .publish.output import compare_docs
    from .publish.render import render_chunks
    from .verify.runner import with_verification

    folder = recorded if recorded is None or "errors" in recorded else None
    if folder is None and recorded is not None and recorded["stats"].get("verification"):
        try:
            folder = load_catalog(docs_dir)
        except CatalogError:
            pass
    with _extracted(root, selection) as (catalog, mapper):
        return compare_docs(render_chunks(with_verification(catalog, folder), mapper, _page_memo(selection.options)), docs_dir,
                            render_identity())


def _page_memo(options: Options) -> Cache | None:
    """Where rendered cards are kept between runs (publish.render.file_pages): the cache, if used."""
    return Cache.for_options(options) if options.use_cache else None


@contextmanager
def _extracted(root: str, selection: Selection, progress: Progress | None = None) -> Iterator[tuple[SpooledCatalog, Mapper]]:
    """The catalog of ``selection`` (closed afterwards) and the pool that made it, kept to render it."""
    with pool.mapper(selection.options.jobs) as mapper:
        catalog = extract_catalog(root, selection.options, progress, selection=selection, mapper=mapper)
        try:
            yield catalog, mapper
        finally:
            catalog.close()


def extract(root: str, options: Options, progress: Progress | None = None) -> Catalog:
    """``extract_data`` as a Catalog record."""
    return from_data(Catalog, extract_data(root, options, progress))


def catalog_data(spec: str, options: Options, shared: Shared | None = None, *, validate: bool = False) -> dict[str, Any]:
    """One side of a diff: a catalog.json, a docs folder holding one, ``PATH@REV``, or a
    source folder (one without a catalog.json), the last two extracted in memory (sharing
    ``shared`` with the other side, see ``extract_data``).

    Raises:
        CatalogError: the catalog file is missing or invalid.
        SourceError: ``PATH@REV`` names no repository or no commit.
    """
    from .publish.catalog_file import CATALOG_FILE, load_catalog

    path, at, rev = spec.rpartition("@")
    if at and os.path.isdir(path):
        return extract_data(path, dataclasses.replace(options, rev=rev), shared=shared)
    if os.path.isdir(spec) and not os.path.exists(os.path.join(spec, CATALOG_FILE)):
        return extract_data(spec, dataclasses.replace(options, rev=None), shared=shared)
    return load_catalog(spec, validate=validate)
