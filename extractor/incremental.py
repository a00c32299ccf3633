"""One run of the pipeline: the files a selection found -> their cards, spooled (collect
each file, link, solve), redoing only what an earlier run's results no longer cover.

The two expensive stages, the per-file pass and per-card solving, are pure functions of
their inputs: they are cached by content and run in a process pool, and their results are
put back in input order, so the output is the same for every job count.
"""

from __future__ import annotations

import dataclasses
import pickle
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import tasks
from .cache import Cache, Linked
from .collect.declarations import module_name
from .collect.file import collect_file
from .errors import SourceError
from .inputs import Selection, run_options, warn_unmatched
from .link.cards import cli_flags, link_file, permalink
from .link.commands import command_flags, command_routes, resolve_kwargs_flags
from .link.project import Project
from .model import SCHEMA_ID, Catalog, FileFacts, FileFailure, Generator, SiteFact, SourceInfo, Stats, to_data
from .model.spool import SpooledCatalog, with_permalink
from .options import Options, strict_from_env
from .pool import Mapper
from .solve.status import CLAIMED
from .sources import SourceFile, read_contents
from .version import VERSION as __version__

Progress = Callable[[str, int, int], None]


def extract_selection(root: str, selection: Selection, mapper: Mapper, progress: Progress, decoded: dict[str, Linked] | None) -> SpooledCatalog:
    """The catalog of the files ``selection`` found under ``root``, its cards spooled (see
    ``pipeline.extract_catalog``); ``decoded`` as there. Incremental by construction: a file
    whose facts, and everything linking its cards read from other files, are as in an
    earlier run takes its cards from the cache; the others are collected (in parallel,
    cached by content), linked and solved.

    Raises:
        SourceError: a file changed during the run.
    """
    files, failures, options, name = list(selection.files), list(selection.failures), selection.options, selection.name

    def contents(wanted: Iterable[SourceFile]) -> Iterator[SourceFile | FileFailure]:
        return read_contents(root, options.rev, wanted)

    cache = Cache.for_options(options)
    cache.mark_used()
    keys = {f.path: Cache.file_key(f.path, f.blob_sha, options) for f in files}
    linked_keys = {path: Cache.linked_key(key, options) for path, key in keys.items()}
    known = decoded if decoded is not None else {}
    # Read without their cards' texts (most of an entry): those go to the spool one file at a time.
    linked = {f.path: known.get(linked_keys[f.path]) or cache.get_linked(linked_keys[f.path], with_cards=decoded is not None) for f in files}
    # Held for the whole run: every file's declarations (what linking asks about other files);
    # a collected file's raise sites, packed, only until it is linked.
    facts: dict[str, FileFacts] = {}
    packed: dict[str, tuple[int, bytes]] = {}
    sources = {f.path: f for f in files}

    def keep(result: FileFacts) -> FileFacts:
        facts[result.path] = dataclasses.replace(result, sites=())
        return result

    unlinked = [f for f in files if linked[f.path] is None]
    for result in _collected(unlinked, keys, contents, options, cache, mapper, progress):
        if isinstance(result, FileFailure):
            failures.append(result)
        else:
            packed[result.path] = (len(result.sites), _pack(keep(result).sites))
    analysed = sorted(p for p in keys if p in facts or linked[p] is not None)
    providers = {module_name(path, options.source_roots): path for path in analysed}  # a later path wins a module name

    def full(path: str) -> FileFacts:
        """A parsed file's facts from the cache, or collected again (the cache may have lost
        them; the same bytes parse the same way, so this is facts again, not a failure)."""
        found = cache.get_file(keys[path])
        if not isinstance(found, FileFacts):
            source = next(contents([sources[path]]))
            found = collect_file(source, options) if isinstance(source, SourceFile) else None
            if not isinstance(found, FileFacts):
                raise SourceError(f"{path} changed during the run; run again")
            cache.put_file(keys[path], found)
        return found

    def load(path: str) -> FileFacts:
        """A parsed file's declarations (its raise sites are ``sites_of``)."""
        if path not in facts:
            keep(full(path))
        return facts[path]

    def sites_of(path: str) -> tuple[SiteFact, ...]:
        if path in packed:
            return _unpack(packed.pop(path)[1])
        return full(path).sites

    def site_count(path: str) -> int:
        return packed[path][0] if path in packed else len(full(path).sites)

    project = Project(providers, load)
    flags = resolve_kwargs_flags(cli_flags((p, linked[p].flags if linked[p] is not None else facts[p].flags) for p in analysed))  # type: ignore[union-attr]
    if options.command:  # only the flags the command's own parser declares, where the tree shows it
        parsers = {p: linked[p].parsers if linked[p] is not None else facts[p].parsers for p in analysed}  # type: ignore[union-attr]
        flags, modules = command_flags(options.command, flags, parsers, project)
        # ... and where the command's code hands their values on (the CLI map's route entries)
        routes = {p: linked[p].routes if linked[p] is not None else facts[p].routes for p in analysed}  # type: ignore[union-attr]
        flags = {**flags, **command_routes(routes, modules, project)}
    provider_key = {module: keys[path] for module, path in providers.items()}
    relink = [p for p in analysed if not _still_holds(linked[p], project, provider_key, flags)]
    # The files with the most raise sites (about as many cards) first, so that no worker is
    # left alone with a big one at the end; each is linked as the pool takes it, so the
    # workers solve while this process links the rest.
    relink.sort(key=lambda path: (-site_count(path), path))
    strict = options.is_strict or strict_from_env()

    def linked_work() -> Iterator[tasks.FileWork]:
        for path in relink:
            yield link_now(path)

    def link_now(path: str) -> tasks.FileWork:
        project.record()
        whole = dataclasses.replace(load(path), sites=sites_of(path))
        drafts, flag_reads = link_file(project, whole, flags, options)
        done = project.record()
        entry = Linked(
            sites=len(whole.sites), flags=whole.flags, parsers=whole.parsers, routes=whole.routes, cards=None, summaries=[],
            modules={module: provider_key.get(module) for module in sorted(done.modules)},
            suffixes=dict(sorted(done.suffixes.items())), flag_reads=dict(sorted(flag_reads.items())),
        )
        return tasks.FileWork(path, linked_keys[path], entry, drafts, options, strict)

    spool = SpooledCatalog()
    places: dict[str, list[tuple[int, int]]] = {}

    def spooled(path: str, entry: Linked) -> Linked:
        """The file's cards written to the spool (with their permalinks); the entry kept without them."""
        texts = entry.cards
        if texts is None:  # a reused entry: its cards are read now, one file at a time
            texts = cache.get_cards(linked_keys[path], len(entry.summaries))
            if texts is None:  # gone since (another run pruning the cache): made again
                entry = tasks.solve_file(link_now(path))
                texts = entry.cards
        links = (permalink(options, path, s["line"], s["end_line"]) for s in entry.summaries)
        places[path] = spool.add(with_permalink(text, link) for text, link in zip(texts, links))  # type: ignore[arg-type]
        return entry if decoded is not None else dataclasses.replace(entry, cards=None)

    for solved, (path, entry) in enumerate(zip(relink, mapper(tasks.solve_file, linked_work(), len(relink), tasks.lost_solving)), 1):
        linked[path] = spooled(path, entry)
        progress("files solved", solved, len(relink))
    for path in analysed:
        if path not in places:
            linked[path] = spooled(path, linked[path])  # type: ignore[arg-type]
    if decoded is not None:
        decoded.clear()
        decoded.update((linked_keys[path], linked[path]) for path in analysed)  # type: ignore[misc]
    summaries = [s for path in analysed for s in linked[path].summaries]  # type: ignore[union-attr]
    failures.sort(key=lambda f: f.path)
    read_failures = sum(1 for f in failures if f.stage == "read")
    sites = sum(linked[p].sites for p in analysed)  # type: ignore[union-attr]
    envelope = to_data(Catalog(
        schema=SCHEMA_ID,
        generator=Generator(name="raisedocs", version=__version__),
        source=SourceInfo(root=name, repo_url=options.repo_url, rev=options.rev),
        stats=_stats(len(files) + read_failures, len(failures), sites, summaries),
        failures=tuple(failures),
        errors=(),
        options=run_options(options),
    ))
    del envelope["errors"]
    warn_unmatched(options, len(summaries))
    spool.arrange([place for path in analysed for place in places[path]], summaries, envelope)
    return spool


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


def _collected(files: list[SourceFile], keys: dict[str, str], contents: Callable[[Iterable[SourceFile]], Iterator[SourceFile | FileFailure]],
               options: Options, cache: Cache, mapper: Mapper, progress: Progress) -> Iterator[FileFacts | FileFailure]:
    """Each file's facts (or why it could not be analysed), from the cache or collected; the
    files to collect are read one at a time as the workers take them, largest first (so that
    no worker is left alone with a big one at the end)."""
    missing = []
    for source in files:
        found = cache.get_file(keys[source.path])
        if found is None:
            missing.append(source)
        else:
            yield found
    if not missing:
        return
    missing.sort(key=lambda source: (-source.size, source.path))

    def work() -> Iterator[tuple[SourceFile | FileFailure, str, Options]]:
        for source in contents(missing):
            yield source, keys[source.path], options

    for done, result in enumerate(mapper(tasks.collect, work(), len(missing), tasks.lost_collecting), 1):
        yield result  # the worker has cached it
        progress("files", done, len(missing))


def _pack(sites: tuple[SiteFact, ...]) -> bytes:
    """Raise sites as compressed bytes: a fifth of their size as objects, until linked."""
    return zlib.compress(pickle.dumps(sites, protocol=pickle.HIGHEST_PROTOCOL), 1)


def _unpack(data: bytes) -> tuple[SiteFact, ...]:
    return pickle.loads(zlib.decompress(data))  # our own bytes, from this process


def _stats(files: int, failed: int, sites: int, cards: list[dict[str, Any]]) -> Stats:
    # ``cards``: their summaries (model.spool.summary_of), which hold what this reads.
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
        solved=sum(1 for t in triggers if t["status"] in CLAIMED),
        verified=sum(1 for t in triggers if t["verified"]),
        unreachable=sum(1 for t in triggers if t["status"] == "unreachable"),
        unsolved=dict(sorted(unsolved.items())),
        statuses=dict(sorted(Counter(t["status"] for t in triggers).items())),
    )
