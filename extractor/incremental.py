"""One run of the pipeline: the files a selection found -> their cards, spooled (collect
each file, link, solve), redoing only what an earlier run's results no longer cover.

The two expensive stages, the per-file pass and per-card solving, are pure functions of
their inputs: they are cached by content and run in a process pool, and their results are
put back in input order, so the output is the same for every job count.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
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
from .link.commands import command_checks, command_flags, command_parameters, command_records, command_routes, resolve_kwargs_flags
from .link.indexes import Part, Reads
from .link.project import Project
from .model import (
    CLAIMED,
    SCHEMA_ID,
    CallsMade,
    Catalog,
    Family,
    FileFacts,
    FileFailure,
    Generator,
    RaiseKind,
    Reason,
    SourceInfo,
    Stats,
    TriggerStatus,
    from_data,
    intern_strings,
    to_data,
)
from .model.spool import SpooledCatalog, with_permalink
from .options import Options, strict_from_env
from .pool import Mapper
from .publish.families import find_families
from .sources import SourceFile, read_contents
from .version import VERSION as __version__

Progress = Callable[[str, int, int], None]


@dataclasses.dataclass
class Shared:
    """What the two sides of a diff share in one process (``cli.diff``): each file's linked
    entry with its cards, by linked key; and each file's declarations and packed calls, by
    file key, so that a side run without a cache reads the files the other side analysed
    without collecting them again. Each run replaces them with its own."""

    linked: dict[str, Linked] = dataclasses.field(default_factory=dict)
    facts: dict[str, FileFacts] = dataclasses.field(default_factory=dict)
    calls: dict[str, bytes] = dataclasses.field(default_factory=dict)


def extract_selection(root: str, selection: Selection, mapper: Mapper, progress: Progress, shared: Shared | None) -> SpooledCatalog:
    """The catalog of the files ``selection`` found under ``root``, its cards spooled (see
    ``pipeline.extract_catalog``); ``shared`` as there. Incremental by construction: a file
    whose facts, and everything linking its cards read from other files, are as in an
    earlier run takes its cards from the cache; the others are collected (in parallel,
    cached by content), linked and solved.

    Raises:
        SourceError: a file changed during the run.
    """
    files = _Files(root, selection, shared)
    reused = files.reusable()
    failures = [*selection.failures, *files.collect([f for f in selection.files if f.path not in reused], mapper, progress)]
    analysed = sorted(p for p in files.keys if p in files.facts or p in reused)
    linker = _Linker(files, {p: reused[p] if p in reused else files.facts[p] for p in analysed})
    # The files with the most raise sites (about as many cards) first, so that no worker is
    # left alone with a big one at the end; each is linked as the pool takes it, so the
    # workers solve while this process links the rest.
    relink = sorted((p for p in analysed if not linker.still_holds(reused.get(p))), key=lambda path: (-files.site_count(path), path))
    cards = _Cards(files, linker, is_keeping_cards=shared is not None)
    entries: dict[str, Linked] = {}
    solving = mapper(tasks.solve_file, map(linker.work, relink), len(relink), tasks.lost_solving)
    for solved, (path, entry) in enumerate(zip(relink, solving), 1):
        entries[path] = cards.add(path, entry)
        progress("files solved", solved, len(relink))
    if linker.parts is not None:
        linker.parts.flush()
    for path in analysed:
        if path not in entries:
            entries[path] = cards.add(path, reused[path])
    if shared is not None:
        shared.linked = {files.linked_keys[path]: entries[path] for path in analysed}
        files.share(shared)
    linker.release()
    summaries = cards.summaries(analysed)
    failures.sort(key=lambda f: f.path)
    envelope = _envelope(selection, failures, sum(entries[p].sites for p in analysed), summaries)
    warn_unmatched(selection.options, len(summaries))
    return cards.arrange(analysed, summaries, envelope)


class _Files:
    """The facts of a run's files, by path: every file's declarations, held for the whole
    run (what linking asks about other files); a collected file's raise sites, packed, only
    until it is linked; the rest read again from the cache when needed."""

    def __init__(self, root: str, selection: Selection, shared: Shared | None = None) -> None:
        self.root = root
        self.shared = shared  # (the other side's facts and calls, until ``share`` puts this run's)
        self.options = options = selection.options
        self.cache = Cache.for_options(options)
        self.cache.mark_used()
        self.sources = {f.path: f for f in selection.files}
        self.keys = {f.path: Cache.file_key(f.path, f.blob_sha, options) for f in selection.files}
        self.linked_keys = {path: Cache.linked_key(key, options) for path, key in self.keys.items()}
        self.facts: dict[str, FileFacts] = {}
        self.packed: dict[str, tuple[int, bytes]] = {}
        self.calls: dict[str, bytes] = {}  # a kept file's calls (FileFacts.made), packed until the call graph reads them

    def reusable(self) -> dict[str, Linked]:
        """The linked entries an earlier run left, by path: the other side's of a diff in this
        process (Shared.linked), or cached. Read from the cache without their cards' texts
        (most of an entry) unless the run shares them: those go to the spool one file at a time."""
        known = self.shared.linked if self.shared is not None else {}
        found = {}
        for path, key in self.linked_keys.items():
            entry = known.get(key) or self.cache.get_linked(key, with_cards=self.shared is not None)
            if entry is not None:
                found[path] = entry
        return found

    def collect(self, files: list[SourceFile], mapper: Mapper, progress: Progress) -> list[FileFailure]:
        """Collect ``files``, keeping their facts; the files that could not be analysed."""
        failures = []
        for result in self._collected(files, mapper, progress):
            if isinstance(result, FileFailure):
                failures.append(result)
            else:
                self.packed[result.path] = (len(result.sites), _pack(self._keep(result).sites))
        return failures

    def _collected(self, files: list[SourceFile], mapper: Mapper, progress: Progress) -> Iterator[FileFacts | FileFailure]:
        """Each file's facts (or why it could not be analysed), from the cache or collected; the
        files to collect are read one at a time as the workers take them, largest first (so that
        no worker is left alone with a big one at the end)."""
        missing = []
        for source in files:
            found = self.cache.get_file(self.keys[source.path])
            if found is None:
                missing.append(source)
            else:
                yield found
        if not missing:
            return
        missing.sort(key=lambda source: (-source.size, source.path))
        work = ((source, self.keys[source.path], self.options) for source in self._contents(missing))
        for done, result in enumerate(mapper(tasks.collect, work, len(missing), tasks.lost_collecting), 1):
            yield result  # the worker has cached it
            progress("files", done, len(missing))

    def _contents(self, wanted: Iterable[SourceFile]) -> Iterator[SourceFile | FileFailure]:
        return read_contents(self.root, self.options.rev, wanted)

    def _keep(self, result: FileFacts) -> FileFacts:
        self.facts[result.path] = intern_strings(dataclasses.replace(result, sites=(), made=()))
        self.calls[result.path] = _pack(result.made)
        return result

    def _full(self, path: str) -> FileFacts:
        """A parsed file's facts from the cache, or collected again (the cache may have lost
        them; the same bytes parse the same way, so this is facts again, not a failure)."""
        found = self.cache.get_file(self.keys[path])
        if not isinstance(found, FileFacts):
            source = next(self._contents([self.sources[path]]))
            found = collect_file(source, self.options) if isinstance(source, SourceFile) else None
            if not isinstance(found, FileFacts):
                raise SourceError(f"{path} changed during the run; run again")
            self.cache.put_file(self.keys[path], found)
        return found

    def load(self, path: str) -> FileFacts:
        """A parsed file's declarations (its raise sites are ``whole``'s)."""
        if path not in self.facts:
            known = self.shared.facts.get(self.keys[path]) if self.shared is not None else None
            if known is not None:
                self.facts[path] = known
            else:
                self._keep(self._full(path))
        return self.facts[path]

    def calls_made(self, path: str) -> tuple[CallsMade, ...]:
        """A parsed file's calls (link.callgraph reads each once per run; let go after, unless
        the run shares them with the other side of a diff)."""
        if self.shared is None:
            packed = self.calls.pop(path, None)
        else:
            packed = self.calls.get(path) or self.shared.calls.get(self.keys[path])
        return _unpack(packed) if packed is not None else self._full(path).made

    def share(self, shared: Shared) -> None:
        """Put this run's declarations and calls in ``shared``, for the other side of a diff."""
        shared.facts = {self.keys[path]: facts for path, facts in self.facts.items()}
        kept = {key: shared.calls[key] for key in self.keys.values() if key in shared.calls}  # (the files this run read from it)
        shared.calls = {**kept, **{self.keys[path]: packed for path, packed in self.calls.items()}}

    def whole(self, path: str) -> FileFacts:
        """A parsed file's declarations and raise sites (its packed sites are let go); its calls
        are ``calls_made``'s."""
        declarations = self.load(path)
        sites = _unpack(self.packed.pop(path)[1]) if path in self.packed else self._full(path).sites
        return dataclasses.replace(declarations, sites=sites)

    def site_count(self, path: str) -> int:
        return self.packed[path][0] if path in self.packed else len(self._full(path).sites)


class _Linker:
    """Links a file's cards against the whole project, and says whether what linking an
    earlier run's cards read still holds."""

    def __init__(self, files: _Files, declared: dict[str, Linked | FileFacts]) -> None:
        """``declared``: the CLI declarations of each analysed file (its cached entry's, or its facts')."""
        self.files = files
        self.options = options = files.options
        self.providers = providers = {module_name(path, options.source_roots): path for path in declared}  # a later path wins a module name
        self.provider_key = {module: files.keys[path] for module, path in providers.items()}
        self.parts = _Parts(files.cache, self, files.root) if options.use_cache else None
        self.project = Project(providers, files.load, files.calls_made, self.parts)
        self.flags = _project_flags(options, self.project, declared)
        # What a project-wide answer read: every module name and the content of its file
        self.tree_key = hashlib.sha256(json.dumps(sorted(self.provider_key.items())).encode()).hexdigest()
        self.is_strict = options.is_strict or strict_from_env()

    def still_holds(self, entry: Linked | None) -> bool:
        """Whether what linking a file's cards read is unchanged: each module it looked at is
        provided by the same file content (or is still absent), each shortened module name
        matches the same module, each key of a project-wide index it read has the same items
        (unless no file of the tree changed), each CLI flag its examples name is the same."""
        return (
            entry is not None
            and self.reads_hold(entry.modules, entry.suffixes, entry.shapes)
            and all(self.flags.get(dest) == flag for dest, flag in entry.flag_reads.items())
            and (entry.tree == self.tree_key or self.keys_hold(entry.keys))
        )

    def reads_hold(self, modules: dict[str, str | None], suffixes: dict[str, str | None], shapes: dict[str, str]) -> bool:
        """Whether each module is provided by the same file content (or is still absent), or
        has the same interface where ``shapes`` holds one (Linked.shapes), and each shortened
        module name matches the same module."""
        return all(self.provider_key.get(module) == key or (module in shapes and self.interface(module) == shapes[module])
                   for module, key in modules.items()) and self.suffixes_hold(suffixes)

    def interface(self, module: str) -> str | None:
        """The module's interface (FileFacts.interface); None where no file provides it."""
        path = self.providers.get(module)
        return self.files.load(path).interface if path is not None else None

    def suffixes_hold(self, suffixes: dict[str, str | None]) -> bool:
        """Whether each shortened module name matches the same module."""
        return all(self.project.suffix_match(name) == found for name, found in suffixes.items())

    def keys_hold(self, keys: dict[str, str]) -> bool:
        """Whether each index key has the same digest (link.indexes)."""
        return all(self.project.indexes.digest(key) == digest for key, digest in keys.items())

    def module_keys(self, modules: Iterable[str]) -> dict[str, str | None]:
        """Module name -> the key of the file providing it (None: no such module)."""
        return {module: self.provider_key.get(module) for module in sorted(modules)}

    def release(self) -> None:
        """Let go of what linking held: the project's tables and answers, the indexes' parts, and
        the files' declarations. They hold one another in reference cycles (the project and its
        indexes, this linker and its store of parts), which the run's collector, switched off
        (pipeline._no_cyclic_gc), would keep to the end of the process: the cards' summaries and
        the pages are made in that memory instead."""
        self.project.release()
        self.files.facts.clear()
        self.files.calls.clear()
        self.files.packed.clear()

    def work(self, path: str) -> tasks.FileWork:
        """Link a file's cards: the work of solving them, with the entry they complete."""
        self.project.record()
        whole = self.files.whole(path)
        drafts, flag_reads = link_file(self.project, whole, self.flags, self.options)
        done = self.project.record()
        raises = sum(1 for s in whole.sites if s.raised.statement.kind != RaiseKind.HELPER_CALL)  # (not the helper calls)
        # (the modules read but the file's own, as candidates: solve_file keeps those no card names)
        paths = {module: self.providers[module] for module in sorted(done.modules) if module in self.providers and module != whole.module}
        entry = Linked(
            sites=raises, flags=whole.flags, parsers=whole.parsers, routes=whole.routes, checks=whole.checks, cards=None, summaries=[],
            modules=self.module_keys(done.modules), shapes={module: shape for module in paths if (shape := self.interface(module))},
            tree=self.tree_key if done.keys else None, keys=dict(sorted(done.keys.items())),
            suffixes=dict(sorted(done.suffixes.items())), flag_reads=dict(sorted(flag_reads.items())),
        )
        return tasks.FileWork(path, self.files.linked_keys[path], entry, drafts, self.options, self.is_strict, paths)


_META = ("modules", "suffixes", "keys", "contributions")  # what the tree's state keeps of a part: all but its items


class _Parts:
    """The parts of the project-wide indexes (link.indexes), kept in the cache: each module's
    parts (what computing them read, the contributions, the items) under its file's key, and
    one state of the tree's last run with every module's file key, interface and parts but
    their items (one read builds the indexes; a module's items are read only where a question
    needs them). A module the state does not hold at its file's key falls back to its own entry.

    A part's reads of other modules are kept as their interfaces (``FileFacts.interface``): a
    part holds module and function names, never another module's lines, so an edit that only
    moves lines in a module computes no other module's part again."""

    def __init__(self, cache: Cache, linker: _Linker, root: str) -> None:
        self.cache = cache
        self.linker = linker
        tops = sorted({name.split(".", 1)[0] for name in linker.providers})  # (what every call graph part reads: Project.tops)
        context = hashlib.sha256(json.dumps(tops).encode()).hexdigest()
        self.keys = {module: Cache.parts_key(key, context) for module, key in linker.provider_key.items()}
        self.state_key = Cache.path_key("indexes", f"{root}\0{context}")
        self._state: dict[str, Any] | None = None
        self.entries: dict[str, dict[str, Any]] = {}
        self.held: dict[str, dict[str, Any]] = {}  # module -> kind -> what computing its part read, and its contributions
        self.interfaces: dict[str, str | None] = {}
        self.changed: set[str] = set()

    def _entry(self, module: str) -> dict[str, Any]:
        found = self.entries.get(module)
        if found is None:
            found = self.entries[module] = self.cache.get_parts(self.keys[module])
        return found

    def _meta(self, kind: str, module: str) -> Any:
        """What the state (or else the module's own entry) says of the module's part."""
        kinds = self._kept(module)[0]
        return kinds[kind] if kind in kinds else self._entry(module).get(kind)

    def interface(self, module: str) -> str | None:
        """The module's interface (None: no file provides it): the state's, where it is of the
        same file, else its own entry's (a tree whose state is not kept yet), else its facts'."""
        if module not in self.interfaces:
            self.interfaces[module] = None if module not in self.linker.providers else \
                self._kept(module)[1] or self._own_interface(module) or self.linker.interface(module)
        return self.interfaces[module]

    def _own_interface(self, module: str) -> str | None:
        own = self._entry(module).get("interface")
        return own if isinstance(own, str) else None

    def contributions(self, kind: str, module: str) -> dict[str, str] | None:
        data = self._meta(kind, module)
        if not isinstance(data, dict):
            return None
        try:
            found = data["contributions"]
            if not isinstance(found, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
                return None
            if not all(self.interface(name) == interface for name, interface in data["modules"].items()) \
                    or not self.linker.suffixes_hold(data["suffixes"]) or not self.linker.keys_hold(data["keys"]):
                return None
        except (KeyError, TypeError, ValueError, AttributeError):  # (missing, or of another shape)
            return None
        self.held.setdefault(module, {})[kind] = {field: data[field] for field in _META}
        return found

    def part(self, kind: str, module: str) -> Part | None:
        data = self._entry(module).get(kind)
        if not isinstance(data, dict):
            return None
        try:
            items, shared = data["items"], data["shared"]
            if not isinstance(shared, dict) or not all(isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)
                                                       for row in items):
                return None  # (of another shape)
            return Part(items=tuple((key, item) for key, item in items), shared=shared)
        except (KeyError, TypeError, ValueError, AttributeError):  # (missing, or of another shape)
            return None

    def put(self, kind: str, module: str, part: Part, reads: Reads, contributions: dict[str, str]) -> None:
        meta = {"modules": {name: self.interface(name) for name in sorted(reads.modules)}, "suffixes": dict(sorted(reads.suffixes.items())),
                "keys": dict(sorted(reads.keys.items())), "contributions": contributions}
        self._entry(module)[kind] = {**meta, "items": part.items, "shared": part.shared}
        self._entry(module)["interface"] = self.interface(module)
        self.held.setdefault(module, {})[kind] = meta
        self.changed.add(module)

    def _kept(self, module: str) -> tuple[dict[str, Any], str | None]:
        """What the state says of the module's parts and its interface, where it is of the same
        file (the kinds this run did not build stay as they were)."""
        if self._state is None:
            self._state = self.cache.get_parts(self.state_key)
        kept = self._state.get(module)
        if isinstance(kept, list) and len(kept) == 3 and kept[0] == self.linker.provider_key[module] and isinstance(kept[1], dict):
            return kept[1], kept[2] if isinstance(kept[2], str) else None
        return {}, None

    def flush(self) -> None:
        """Write the entries of the modules whose parts were computed again, and the tree's
        state where it no longer says what this run found."""
        for module in sorted(self.changed):
            self.cache.put_parts(self.keys[module], self.entries[module])
        state = {}
        for module, key in sorted(self.linker.provider_key.items()):
            kinds, interface = self._kept(module)
            state[module] = [key, {**kinds, **self.held.get(module, {})}, self.interfaces.get(module, interface)]
        if self.held and state != self._state:
            self.cache.put_parts(self.state_key, state)
        self.changed.clear()


def _project_flags(options: Options, project: Project, declared: dict[str, Linked | FileFacts]) -> dict[str, str]:
    """CLI destination -> its flag, over the files' declarations."""
    flags = resolve_kwargs_flags(cli_flags((path, d.flags) for path, d in declared.items()))
    if not options.command:
        return flags
    # Only the flags the command's own parser declares, where the tree shows it ...
    flags, modules = command_flags(options.command, flags, {path: d.parsers for path, d in declared.items()}, project)
    # ... and where the command's code hands their values on (the CLI map's route entries),
    # with the records whose fields the flags set (its json and fields entries)
    flags = {**flags, **command_routes({path: d.routes for path, d in declared.items()}, modules, project)}
    # ... and the tests its code puts their values to on the way (the CLI map's check entries)
    flags = {**flags, **command_checks({path: d.checks for path, d in declared.items()}, modules, project)}
    pairs = {path: d.flags for path, d in declared.items()}
    return {**flags, **command_records(pairs, flags, modules, project), **command_parameters(pairs, modules, project)}


class _Cards:
    """The run's cards, written to a spool file by file as they are solved or reused."""

    def __init__(self, files: _Files, linker: _Linker, *, is_keeping_cards: bool) -> None:
        """``is_keeping_cards``: whether the entries returned keep their cards' texts (for ``Shared``)."""
        self.files = files
        self.linker = linker
        self.is_keeping_cards = is_keeping_cards
        self.spool = SpooledCatalog()
        self.places: dict[str, list[tuple[int, int]]] = {}
        self.packed: dict[str, bytes] = {}  # each file's card summaries, packed until the run has let go of linking (``summaries``)

    def add(self, path: str, entry: Linked) -> Linked:
        """The file's cards written to the spool (with their permalinks), and their summaries
        packed (``summaries``); the entry kept without either, and without what linking read
        (cached already: only a later run checks it), unless the run keeps its entries (``Shared``)."""
        entry, texts = self._texts(path, entry)
        links = (permalink(self.files.options, path, s["line"], s["end_line"]) for s in entry.summaries)
        self.places[path] = self.spool.add(with_permalink(text, link) for text, link in zip(texts, links))
        self.packed[path] = _pack(tuple(entry.summaries))
        if self.is_keeping_cards:
            return entry
        return dataclasses.replace(entry, cards=None, modules={}, shapes={}, keys={}, suffixes={}, flag_reads={}, summaries=[])

    def summaries(self, paths: list[str]) -> list[dict[str, Any]]:
        """The cards' summaries in the order of ``paths``, each file's let go as it is read, their
        strings interned. (A summary is a dozen small containers: the 59,356 cards of a 10M-line
        tree hold 151 MiB of them as objects, 7 MiB packed.)"""
        return [intern_strings(summary) for path in paths for summary in _unpack(self.packed.pop(path))]

    def _texts(self, path: str, entry: Linked) -> tuple[Linked, list[str]]:
        """The entry and its cards' texts; a reused entry's are read now, one file at a time."""
        if entry.cards is not None:
            return entry, entry.cards
        texts = self.files.cache.get_cards(self.files.linked_keys[path], len(entry.summaries))
        if texts is not None:
            return entry, texts
        entry = tasks.solve_file(self.linker.work(path))  # gone since (another run pruning the cache): made again
        assert entry.cards is not None  # solving fills them
        return entry, entry.cards

    def arrange(self, paths: list[str], summaries: list[dict[str, Any]], envelope: dict[str, Any]) -> SpooledCatalog:
        """The spool, its cards in the order of ``paths``."""
        self.spool.arrange([place for path in paths for place in self.places[path]], summaries, envelope)
        return self.spool


def _envelope(selection: Selection, failures: list[FileFailure], sites: int, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The catalog's data but its cards."""
    options = selection.options
    read_failures = sum(1 for f in failures if f.stage == "read")
    envelope = to_data(Catalog(
        schema=SCHEMA_ID,
        generator=Generator(name="raisedocs", version=__version__),
        source=SourceInfo(root=selection.name, repo_url=options.repo_url, rev=options.rev),
        stats=_stats(len(selection.files) + read_failures, len(failures), sites, summaries),
        failures=tuple(failures),
        errors=(),
        options=run_options(selection),
        families=tuple(from_data(Family, family) for family in find_families(summaries)),
    ))
    del envelope["errors"]
    return envelope


def _pack(records: tuple[Any, ...]) -> bytes:
    """Raise sites, calls or card summaries as compressed bytes (a fifth of their size as objects,
    or less), until used."""
    return zlib.compress(pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL), 1)


def _unpack(data: bytes) -> tuple[Any, ...]:
    return pickle.loads(zlib.decompress(data))  # our own bytes, from this process


def _stats(files: int, failed: int, sites: int, cards: list[dict[str, Any]]) -> Stats:
    # ``cards``: their summaries (model.spool.summary_of), which hold what this reads.
    """Honest totals: what was found, and how much of it was reconstructed and solved."""
    unsolved: dict[str, int] = {}
    triggers = [card["trigger"] for card in cards if card["trigger"] is not None]
    for trigger in triggers:
        if trigger["status"] == TriggerStatus.UNSOLVED:
            reason = (trigger["reason"] or Reason.UNKNOWN).split(":")[0]  # (a code that carries a value: the code alone)
            unsolved[reason] = unsolved.get(reason, 0) + 1
    return Stats(
        files=files,
        files_failed=failed,
        raise_sites=sites,
        cards=len(cards),
        templates=sum(1 for card in cards if card["message"]["template"] is not None),
        solved=sum(1 for t in triggers if t["status"] in CLAIMED),
        verified=sum(1 for t in triggers if t["verified"]),
        unreachable=sum(1 for t in triggers if t["status"] == TriggerStatus.UNREACHABLE),
        unsolved=dict(sorted(unsolved.items())),
        statuses=dict(sorted(Counter(t["status"] for t in triggers).items())),
    )
