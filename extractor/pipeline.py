"""The pipeline: a folder or a git commit -> Catalog (read, collect each file, link, solve).

The two expensive stages, the per-file pass and per-card solving, are pure functions of
their inputs: they are cached by content and run in a process pool, and their results are
put back in input order, so the output is the same for every job count.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from . import __version__
from .cache import Cache
from .cards import build_cards, solve_one
from .collect import collect_file
from .model import SCHEMA_ID, Card, Catalog, FileFacts, FileFailure, Generator, SourceInfo, Solved, Stats, fingerprint
from .options import Options, strict_from_env
from .sources import SourceFile, forge_url, read_command, read_commit, read_tree, resolve_rev

T = TypeVar("T")
R = TypeVar("R")
Mapper = Callable[[Callable[[T], R], list[T]], Iterator[R]]
Progress = Callable[[str, int, int], None]


def extract(root: str, options: Options, progress: Progress | None = None) -> Catalog:
    """Analyse every Python file under ``root`` (or of commit ``options.rev`` of the git
    repository at ``root``) and build its error catalog.

    Raises:
        SourceError: ``root`` cannot be read, or ``options.rev`` names no commit.
    """
    # Parsing snippets of the analysed code (annotations, guards, templates) must not print
    # CPython's SyntaxWarnings about that code.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        with _mapper(options.jobs) as mapper:
            return _extract(root, options, mapper, progress or (lambda stage, done, total: None))


_POOL_THRESHOLD = 32  # below this many items, starting workers costs more than it saves


@contextmanager
def _mapper(jobs: int) -> Iterator[Mapper]:
    """``map`` for the expensive stages: in-process for one job or little work, else a
    process pool started on first need and shared by both stages."""
    pool: ProcessPoolExecutor | None = None

    def run(fn: Callable[[Any], Any], items: list[Any]) -> Iterator[Any]:
        nonlocal pool
        if jobs <= 1 or len(items) < _POOL_THRESHOLD:
            return map(fn, items)
        if pool is None:
            pool = ProcessPoolExecutor(max_workers=jobs)
        chunk = max(1, min(64, len(items) // (jobs * 8) or 1))
        return pool.map(fn, items, chunksize=chunk)

    try:
        yield run
    finally:
        if pool is not None:
            pool.shutdown()


def read_sources(root: str, options: Options) -> tuple[list[SourceFile], list[FileFailure], Options, str]:
    """The files to analyse, the options completed from the repository, and the root's name."""
    if options.rev is not None:
        sha = resolve_rev(root, options.rev)
        files, failures = read_commit(root, sha, options)
        command = options.command or read_command(root, sha)
        options = dataclasses.replace(options, rev=sha, repo_url=options.repo_url or forge_url(root), command=command)
        name = os.path.basename(os.path.realpath(root).rstrip("/"))
        name = name[:-4] if name.endswith(".git") else name
    else:
        files, failures = read_tree(root, options)
        name = os.path.basename(os.path.realpath(root).rstrip("/"))
        if options.command is None and os.path.isdir(root):
            options = dataclasses.replace(options, command=read_command(root))
    return files, failures, options, options.repo_name or name


def _collect(item: tuple[SourceFile, Options]) -> FileFacts | FileFailure:
    return collect_file(*item)


def _extract(root: str, options: Options, mapper: Mapper, progress: Progress) -> Catalog:
    files, failures, options, name = read_sources(root, options)
    cache = Cache.for_options(options)
    keys = [Cache.file_key(f.path, f.blob_sha, options) for f in files]
    facts: list[FileFacts] = []
    for result in _cached(files, keys, options, cache, mapper, progress):
        (failures if isinstance(result, FileFailure) else facts).append(result)  # type: ignore[arg-type]
    drafts = build_cards(facts, options)
    cards = list(_solved(drafts, dict(zip((f.path for f in files), keys)), options, cache, mapper, progress))
    failures.sort(key=lambda f: f.path)
    read_failures = sum(1 for f in failures if f.stage == "read")
    return Catalog(
        schema=SCHEMA_ID,
        generator=Generator(name="raisedocs", version=__version__),
        source=SourceInfo(root=name, repo_url=options.repo_url, rev=options.rev),
        stats=_stats(len(files) + read_failures, len(failures), facts, cards),
        failures=tuple(failures),
        errors=tuple(cards),
    )


def _cached(files: list[SourceFile], keys: list[str], options: Options, cache: Cache, mapper: Mapper, progress: Progress) -> Iterable[FileFacts | FileFailure]:
    results: list[FileFacts | FileFailure | None] = [cache.get_file(k) for k in keys]
    missing = [i for i, r in enumerate(results) if r is None]
    for done, (index, result) in enumerate(zip(missing, mapper(_collect, [(files[i], options) for i in missing])), 1):
        results[index] = result
        cache.put_file(keys[index], result)
        progress("files", done, len(missing))
    return [r for r in results if r is not None]


def _solved(drafts: list, file_keys: dict[str, str], options: Options, cache: Cache, mapper: Mapper, progress: Progress) -> Iterable[Card]:
    strict = options.is_strict or strict_from_env()
    # What solving reads: the site (its file's content key and its id), the linked docs and
    # exception, and the context; related ids and permalinks are not part of it.
    keys = [
        Cache.card_key(file_keys[card.path] + card.id + fingerprint((card.docs, card.exception, card.entry, context)))
        for card, context in drafts
    ]
    results: list[Solved | None] = [cache.get_solved(k) for k in keys]
    missing = [i for i, r in enumerate(results) if r is None]
    items = [(drafts[i][0], drafts[i][1], strict) for i in missing]
    for done, (index, card) in enumerate(zip(missing, mapper(solve_one, items)), 1):
        solved = Solved(domains=card.domains, trigger=card.trigger, fixes=card.fixes, validator=card.validator, example=card.example)
        results[index] = solved
        cache.put_solved(keys[index], solved)
        progress("cards", done, len(missing))
    return [
        dataclasses.replace(card, domains=s.domains, trigger=s.trigger, fixes=s.fixes, validator=s.validator, example=s.example)
        for (card, _), s in zip(drafts, results) if s is not None
    ]


def _stats(files: int, failed: int, facts: list[FileFacts], cards: list[Card]) -> Stats:
    """Honest totals: what was found, and how much of it was reconstructed and solved."""
    unsolved: dict[str, int] = {}
    for card in cards:
        if card.trigger is not None and card.trigger.status == "unsolved":
            reason = (card.trigger.reason or "unknown").split(":")[0]
            unsolved[reason] = unsolved.get(reason, 0) + 1
    return Stats(
        files=files,
        files_failed=failed,
        raise_sites=sum(len(f.sites) for f in facts),
        cards=len(cards),
        templates=sum(1 for c in cards if c.message.template is not None),
        solved=sum(1 for c in cards if c.trigger is not None and c.trigger.status == "solved"),
        verified=sum(1 for c in cards if c.trigger is not None and c.trigger.verified),
        unreachable=sum(1 for c in cards if c.trigger is not None and c.trigger.status == "unreachable"),
        unsolved=dict(sorted(unsolved.items())),
    )



def catalog_data(spec: str, options: Options) -> dict[str, Any]:
    """One side of a diff: a catalog.json, a docs folder holding one, or ``PATH@REV``
    extracted in memory.

    Raises:
        CatalogError: the catalog file is missing or invalid.
        SourceError: ``PATH@REV`` names no repository or no commit.
    """
    from .explain import load_catalog
    from .model import to_data

    path, at, rev = spec.rpartition("@")
    if at and os.path.isdir(path):
        return to_data(extract(path, dataclasses.replace(options, rev=rev)))
    return load_catalog(spec)
