"""The pipeline: a folder or a git commit -> Catalog (read, collect each file, link, solve).

The two expensive stages, the per-file pass and per-card solving, are pure functions of
their inputs: they are cached by content and run in a process pool, and their results are
put back in input order, so the output is the same for every job count.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from . import pool
from .cache import Cache, Linked
from .collect.declarations import module_name
from .collect.file import UnitMemo, collect_file
from .link.cards import cli_flags, link_file, permalink
from .link.project import Project
from .model import (
    SCHEMA_ID,
    Card,
    CardContext,
    Catalog,
    FileFacts,
    FileFailure,
    Generator,
    Solved,
    SourceInfo,
    Stats,
    Trigger,
    fingerprint,
    from_data,
    to_data,
)
from .options import Options, strict_from_env
from .pool import Mapper
from .solve.triggers import solve_one
from .sources import SourceFile, forge_url, read_command, read_commit, read_tree, resolve_rev, with_contents
from .version import VERSION as __version__

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[str, int, int], None]


def extract_data(root: str, options: Options, progress: Progress | None = None, decoded: dict[str, Linked] | None = None) -> dict[str, Any]:
    """Analyse every Python file under ``root`` (or of commit ``options.rev`` of the git
    repository at ``root``) and build its error catalog, as catalog.json data.

    ``decoded``: linked entries an earlier run in this process decoded, by cache key (the
    two sides of a diff share most files); replaced by this run's.

    Raises:
        SourceError: ``root`` cannot be read, or ``options.rev`` names no commit.
    """
    # Parsing snippets of the analysed code (annotations, guards, templates) must not print
    # CPython's SyntaxWarnings about that code.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        with pool.mapper(options.jobs) as mapper, _no_cyclic_gc():
            return _extract(root, options, mapper, progress or (lambda stage, done, total: None), decoded)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """The run builds millions of small acyclic objects (JSON data, records); the cyclic
    collector would walk all of them again and again and find nothing. Reference counting
    still frees everything; the collector runs once at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def extract(root: str, options: Options, progress: Progress | None = None) -> Catalog:
    """``extract_data`` as a Catalog record."""
    return from_data(Catalog, extract_data(root, options, progress))


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


def _collect(item: tuple[SourceFile, str, Options]) -> FileFacts | FileFailure:
    """Collect one file (in a worker) and cache its facts under ``key``, reusing the libcst
    results of the definitions unchanged since the version of the file analysed last."""
    source, key, options = item
    cache = Cache.for_options(options)
    if cache.root is None:
        return collect_file(source, options)
    units_key = Cache.path_key("units", source.path)
    memo = UnitMemo(known=cache.get_by_path(units_key))
    result = collect_file(source, options, memo)
    if memo.now != memo.known:  # a file without raises has none; an unchanged one, the same
        cache.put_by_path(units_key, memo.now)
    cache.put_file(key, result)
    return result


_WORKER_DIED = "the worker process died (a crash, a signal or its memory limit)"


def _lost_collecting(item: tuple[SourceFile, str, Options]) -> FileFailure:
    """What a file whose worker died while collecting it becomes: a failure, alone."""
    return FileFailure(path=item[0].path, stage="analyse", error=_WORKER_DIED)


def _lost_solving(work: _FileWork) -> Linked:
    """What a file whose worker died while solving its cards becomes: its cards, unsolved
    (not cached, so the next run tries again)."""
    trigger = Trigger(status="unsolved", inputs={}, reason="internal_error: worker_died")
    return dataclasses.replace(work.entry, cards=[to_data(dataclasses.replace(card, trigger=trigger)) for card, _ in work.drafts])

def _extract(root: str, options: Options, mapper: Mapper, progress: Progress, decoded: dict[str, Linked] | None) -> dict[str, Any]:
    """Incremental by construction: a file whose facts, and everything linking its cards
    read from other files, are as in an earlier run takes its cards from the cache; the
    others are collected (in parallel, cached by content), linked and solved."""
    files, failures, options, name = read_sources(root, options)
    contents: Callable[[list[SourceFile]], list[SourceFile]] = (
        (lambda wanted: with_contents(root, wanted)) if options.rev is not None else (lambda wanted: wanted)
    )
    cache = Cache.for_options(options)
    cache.mark_used()
    keys = {f.path: Cache.file_key(f.path, f.blob_sha, options) for f in files}
    linked_keys = {path: Cache.linked_key(key, options) for path, key in keys.items()}
    known = decoded if decoded is not None else {}
    linked = {f.path: known.get(linked_keys[f.path]) or cache.get_linked(linked_keys[f.path]) for f in files}
    facts: dict[str, FileFacts] = {}
    sources = {f.path: f for f in files}
    unlinked = [f for f in files if linked[f.path] is None]
    for result in _collected(unlinked, keys, contents, options, cache, mapper, progress):
        if isinstance(result, FileFailure):
            failures.append(result)
        else:
            facts[result.path] = result
    analysed = sorted(p for p in keys if p in facts or linked[p] is not None)
    providers = {module_name(path): path for path in analysed}  # a later path wins a module name

    def load(path: str) -> FileFacts:
        """A parsed file's facts: held, cached, or collected again (the cache may have lost
        them; the same bytes parse the same way, so this is facts again, not a failure)."""
        if path not in facts:
            found = cache.get_file(keys[path])
            if not isinstance(found, FileFacts):
                found = collect_file(contents([sources[path]])[0], options)
                cache.put_file(keys[path], found)
            facts[path] = found  # type: ignore[assignment]
        return facts[path]

    project = Project(providers, load)
    flags = cli_flags((p, linked[p].flags if linked[p] is not None else facts[p].flags) for p in analysed)  # type: ignore[union-attr]
    provider_key = {module: keys[path] for module, path in providers.items()}
    relink = [p for p in analysed if not _still_holds(linked[p], project, provider_key, flags)]
    # The files with the most raise sites (about as many cards) first, so that no worker is
    # left alone with a big one at the end; each is linked as the pool takes it, so the
    # workers solve while this process links the rest.
    relink.sort(key=lambda path: (-len(load(path).sites), path))
    strict = options.is_strict or strict_from_env()

    def linked_work() -> Iterator[_FileWork]:
        for path in relink:
            project.record()
            drafts, flag_reads = link_file(project, load(path), flags, options)
            done = project.record()
            entry = Linked(
                sites=len(facts[path].sites), flags=facts[path].flags, cards=[],
                modules={module: provider_key.get(module) for module in sorted(done.modules)},
                suffixes=dict(sorted(done.suffixes.items())), flag_reads=dict(sorted(flag_reads.items())),
            )
            yield _FileWork(path, linked_keys[path], entry, drafts, options, strict)

    for solved, (path, entry) in enumerate(zip(relink, mapper(_solve_file, linked_work(), len(relink), _lost_solving)), 1):
        linked[path] = entry
        progress("files solved", solved, len(relink))
    if decoded is not None:
        decoded.clear()
        decoded.update((linked_keys[path], linked[path]) for path in analysed)  # type: ignore[misc]
    errors = [
        {**card, "permalink": permalink(options, path, card["line"], card["end_line"])}
        for path in analysed for card in linked[path].cards  # type: ignore[union-attr]
    ]
    failures.sort(key=lambda f: f.path)
    read_failures = sum(1 for f in failures if f.stage == "read")
    sites = sum(linked[p].sites for p in analysed)  # type: ignore[union-attr]
    data = to_data(Catalog(
        schema=SCHEMA_ID,
        generator=Generator(name="raisedocs", version=__version__),
        source=SourceInfo(root=name, repo_url=options.repo_url, rev=options.rev),
        stats=_stats(len(files) + read_failures, len(failures), sites, errors),
        failures=tuple(failures),
        errors=(),
    ))
    data["errors"] = errors
    return data


def _still_holds(entry: Linked | None, project: Project, provider_key: dict[str, str], flags: dict[str, str]) -> bool:
    """Whether what linking a file's cards read is unchanged: each module it looked at is
    provided by the same file content (or is still absent), each shortened module name
    matches the same module, each CLI flag its examples name is the same."""
    return (
        entry is not None
        and all(provider_key.get(module) == key for module, key in entry.modules.items())
        and all(project.suffix_match(name) == found for name, found in entry.suffixes.items())
        and all(flags.get(dest) == flag for dest, flag in entry.flag_reads.items())
    )


def _collected(files: list[SourceFile], keys: dict[str, str], contents: Callable[[list[SourceFile]], list[SourceFile]],
               options: Options, cache: Cache, mapper: Mapper, progress: Progress) -> list[FileFacts | FileFailure]:
    """Each file's facts (or why it could not be analysed), from the cache or collected."""
    results: list[FileFacts | FileFailure | None] = [cache.get_file(keys[f.path]) for f in files]
    missing = [i for i, r in enumerate(results) if r is None]
    read = contents([files[i] for i in missing]) if missing else []
    work = [(source, keys[source.path], options) for source in read]
    sizes = [(len(source.data or b""), source.path) for source in read]
    for done, (n, result) in enumerate(_largest_first(mapper, _collect, work, sizes, _lost_collecting), 1):
        results[missing[n]] = result  # the worker has cached it
        progress("files", done, len(missing))
    return [r for r in results if r is not None]


def _largest_first(mapper: Mapper, fn: Callable[[T], R], items: list[T], sizes: list[tuple[int, str]],
                   on_death: Callable[[T], R]) -> Iterator[tuple[int, R]]:
    """``(index in items, fn(item))``, the items sent largest first (by ``sizes``, ties by
    name), so that no worker is left alone with a big one at the end."""
    order = sorted(range(len(items)), key=lambda n: (-sizes[n][0], sizes[n][1]))
    return zip(order, mapper(fn, [items[n] for n in order], len(items), on_death))


@dataclasses.dataclass(frozen=True)
class _FileWork:
    """One re-linked file's cards to solve, and the cache entry they complete."""

    path: str
    linked_key: str
    entry: Linked  # what linking read; its cards are filled in by solving
    drafts: list[tuple[Card, CardContext]]
    options: Options
    is_strict: bool


def _solve_file(work: _FileWork) -> Linked:
    """Solve one file's cards, reusing the solutions its last version had for cards whose
    solving inputs are unchanged; cache the solutions and the linked entry."""
    cache = Cache.for_options(work.options)
    solutions_key = Cache.path_key("solutions", work.path)
    known = cache.get_by_path(solutions_key)
    group: dict[str, Any] = {}
    cards: list[dict[str, Any]] = []
    for card, context in work.drafts:
        # Encoded once: the key reads these fields, and solving changes only _SOLVED_FIELDS.
        data = to_data(card)
        # Exactly what solving reads of a card (triggers.solve_card): never its line, id,
        # related ids or permalink, so a raise that an edit elsewhere moved is not solved again.
        key = Cache.card_key(fingerprint([*(data[name] for name in _SOLVING_READS), to_data(context)]))
        solved = Cache.solved_from(known.get(key))
        if solved is None:
            done = solve_one((card, context, work.is_strict))
            group[key] = encoded = to_data(Solved(**{name: getattr(done, name) for name in _SOLVED_FIELDS}))
        else:
            group[key] = known[key]
            encoded = to_data(solved)
        data.update((name, encoded[name]) for name in _SOLVED_FIELDS)
        cards.append(data)
    # The entry holds the solutions of the file's current cards: it never grows stale.
    if group != known:
        cache.put_by_path(solutions_key, group)
    entry = dataclasses.replace(work.entry, cards=cards)
    cache.put_linked(work.linked_key, entry)
    return entry


# What solving adds to a card, under the same names on Card and Solved.
_SOLVED_FIELDS = tuple(f.name for f in dataclasses.fields(Solved))
# What solving reads of a card, with its context.
_SOLVING_READS = ("path", "function", "kind", "guard", "message", "docs", "exception", "entry")


def _stats(files: int, failed: int, sites: int, cards: list[dict[str, Any]]) -> Stats:
    """Honest totals: what was found, and how much of it was reconstructed and solved."""
    unsolved: dict[str, int] = {}
    triggers = [card["trigger"] for card in cards if card["trigger"] is not None]
    for trigger in triggers:
        if trigger["status"] == "unsolved":
            reason = (trigger["reason"] or "unknown").split(":")[0]
            unsolved[reason] = unsolved.get(reason, 0) + 1
    return Stats(
        files=files,
        files_failed=failed,
        raise_sites=sites,
        cards=len(cards),
        templates=sum(1 for card in cards if card["message"]["template"] is not None),
        solved=sum(1 for t in triggers if t["status"] == "solved"),
        verified=sum(1 for t in triggers if t["verified"]),
        unreachable=sum(1 for t in triggers if t["status"] == "unreachable"),
        unsolved=dict(sorted(unsolved.items())),
    )


def catalog_data(spec: str, options: Options, decoded: dict[str, Linked] | None = None) -> dict[str, Any]:
    """One side of a diff: a catalog.json, a docs folder holding one, or ``PATH@REV``
    extracted in memory (sharing ``decoded`` with the other side, see ``extract_data``).

    Raises:
        CatalogError: the catalog file is missing or invalid.
        SourceError: ``PATH@REV`` names no repository or no commit.
    """
    from .publish.explain import load_catalog

    path, at, rev = spec.rpartition("@")
    if at and os.path.isdir(path):
        return extract_data(path, dataclasses.replace(options, rev=rev), decoded=decoded)
    return load_catalog(spec)
