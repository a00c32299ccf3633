"""Project-wide indexes, built from one part per module and read key by key.

Three questions need the whole tree: the calls into a function (link.callgraph), the classes
deriving from a class and the calls of a raising helper (link.helpers). Each is an index,
key -> items, whose items each module contributes on its own: its **part**, a list of (key,
item) in the module's order, each item JSON data (decoded by the index's kind when a key is
read). A part is computed under a record of its own reads (the modules its names resolved
through, and the keys of other indexes it read), so a store (incremental: the cache) can keep
it with them and give it back to a later run while they hold: after one file is edited, only
the parts of that module, and of the modules whose resolution read it, are computed again.

A question reads the index by key (``Indexes.get``), which records the key with a digest of
its items (``Reads.keys``, qualified as ``kind:key``): a card's linking then depends on the
keys it asked about, not on every module of the tree, and holds in a later run while each of
them has the same digest (``Indexes.digest``). A key's digest is made of what each module's
part gives it (``contributions``: the modules in order, each with the digest of its items
there), so a store keeps those with the part, and a later run builds the index from them
alone: it reads a part's items only for the keys a question asks about. A kind's ``view`` says
which parts of an item a digest covers (the call graph's leaves out the call's line: an edit
that shifts a file's lines changes no path, and the paths' order is the calls' order, which a
shift keeps).
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..model import FileFacts

# Keys whose decoded items are kept (read again, a key is decoded again): past this many the
# table starts again (memory: on three packages of 3.7M lines, the entries' searches read 15,220 keys).
MAX_DECODED = 10_000
# Modules whose part is kept unpickled, the most recently read (the keys a card's search reads
# come from the same few modules: on vLLM, 7,092 reads of 1,527 parts).
RECENT_PARTS = 256


@dataclass(slots=True)
class Reads:
    """What linking consulted: module name -> path of the file providing it (None: no such
    module), suffix match -> the module it found (None: none or ambiguous), and the keys of
    project-wide indexes it read, ``kind:key`` -> the digest of their items (one entry per key
    asked about, not one name per module of the tree)."""

    modules: dict[str, str | None] = field(default_factory=dict)
    suffixes: dict[str, str | None] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)


class Indexed(Protocol):
    """What the indexes need of the project (link.project.Project)."""

    providers: dict[str, str]
    reads: Reads

    def record(self) -> Reads: ...

    def facts_of(self, path: str) -> FileFacts: ...

    def forget_answers(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Part:
    """What one module contributes to an index: (key, item) pairs, and the table its items
    share (the call graph's callers' records: one per calling function, not per call)."""

    items: tuple[tuple[str, Any], ...]
    shared: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Place:
    """The module a part is of, as its items are decoded (``decoded``: what a kind's decoding
    keeps of its shared table, decoded once)."""

    module: str
    path: str
    shared: dict[str, Any]
    decoded: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IndexKind:
    """One index: its name, how a module's part is computed, how an item is decoded (with its
    module's place), what of an item its keys' digests cover (as JSON data), and how a part is
    written as JSON data for a store (a part may hold records while it is in memory; ``decode``
    and ``view`` take an item in either form)."""

    name: str
    part: Callable[[Any, FileFacts], Part]  # (the project, a module's facts)
    decode: Callable[[Place, Any], Any]
    view: Callable[[Place, Any], Any] = lambda place, item: item
    encode: Callable[[Part], Part] = lambda part: part


class PartStore(Protocol):
    """Where parts are kept between runs (incremental.py: the cache)."""

    def contributions(self, kind: str, module: str) -> dict[str, str] | None:
        """What the module's kept part of the index kind gives each key, as the digest of its
        items there (``contributions``), where one is kept and what it read still holds."""

    def part(self, kind: str, module: str) -> Part | None:
        """The items of the module's kept part (once ``contributions`` said it holds)."""

    def put(self, kind: str, module: str, part: Part, reads: Reads, contributions: dict[str, str]) -> None:
        """Keep the module's part of the index kind, with what computing it read."""


def _digest_of(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


def contributions(kind: IndexKind, place: Place, part: Part) -> dict[str, str]:
    """Key -> the digest of what the part gives it (its items' views, in order)."""
    views: dict[str, list[Any]] = {}
    for key, item in part.items:
        views.setdefault(key, []).append(kind.view(place, item))
    return {key: _digest_of(found) for key, found in views.items()}


class Indexes:
    """A project's indexes, each built once, the first time a key of it is read. An index
    holds, per key, the modules that give it items with the digest of those; the items
    themselves are read (or computed) only for the keys a question asks about."""

    def __init__(self, project: Indexed, store: PartStore | None) -> None:
        self.project = project
        self.store = store
        self._built: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self._held: dict[tuple[str, str], bytes] = {}  # (kind, module) -> its part's table and items by key, pickled
        self._decoded: dict[tuple[str, str], list[Any]] = {}
        # (kind, module) -> its place and items, as ``_items`` gives them: the RECENT_PARTS last read
        self._recent: OrderedDict[tuple[str, str], tuple[Place, dict[str, list[Any]]]] = OrderedDict()
        self._digests: dict[str, str] = {}
        self._kinds: dict[str, IndexKind] = {}

    def release(self) -> None:
        """Let go of every index (at the end of linking)."""
        for table in (self._built, self._held, self._decoded, self._digests, self._recent):
            table.clear()

    def get(self, kind: IndexKind, key: str) -> list[Any]:
        """The items of ``key``, in the index's order; the key is recorded as read with its digest."""
        index = self._index(kind)
        qualified = f"{kind.name}:{key}"
        self.project.reads.keys[qualified] = self._digest(index, key, qualified)
        found = self._decoded.get((kind.name, key))
        if found is None:
            found = []
            for module, _ in index.get(key, ()):
                place, items = self._items(kind, module)
                found.extend(kind.decode(place, item) for item in items.get(key, ()))
            if len(self._decoded) >= MAX_DECODED:
                self._decoded.clear()
            self._decoded[(kind.name, key)] = found
        return found

    def digest(self, qualified: str) -> str | None:
        """The digest a key (``kind:key``) has in this run; None for an index kind not known here."""
        name, _, key = qualified.partition(":")
        kind = self._kinds.get(name) or _KINDS.get(name)
        if kind is None:
            return None
        return self._digest(self._index(kind), key, qualified)

    def _digest(self, index: dict[str, list[tuple[str, str]]], key: str, qualified: str) -> str:
        known = self._digests.get(qualified)
        if known is None:
            known = self._digests[qualified] = _digest_of(index.get(key, ()))
        return known

    def _index(self, kind: IndexKind) -> dict[str, list[tuple[str, str]]]:
        built = self._built.get(kind.name)
        if built is None:
            self._kinds[kind.name] = kind
            built = self._built[kind.name] = {}
            for module in sorted(self.project.providers):
                found = self._kept(kind, module)
                if found is None:
                    found = self._computed(kind, module)
                for key, digest in found.items():
                    built.setdefault(key, []).append((module, digest))
            self.project.forget_answers()  # (one per name the tree's parts resolved: memory, not speed)
        return built

    @contextmanager
    def _own_reads(self) -> Iterator[Reads]:
        """A record of reads apart from the question's that made the index build (a part's
        reads are its own, kept with it; checking a kept part's reads reads nothing of the question's)."""
        outer = self.project.record()
        try:
            yield self.project.reads
        finally:
            self.project.reads = outer

    def _kept(self, kind: IndexKind, module: str) -> dict[str, str] | None:
        """The contributions of the module's part the store keeps, its reads still holding."""
        if self.store is None:
            return None
        with self._own_reads():
            return self.store.contributions(kind.name, module)

    def _computed(self, kind: IndexKind, module: str) -> dict[str, str]:
        """Compute the module's part under a record of its own reads, keep it, and give its contributions."""
        with self._own_reads() as reads:
            part = kind.part(self.project, self.project.facts_of(self.project.providers[module]))
            place, _ = self._hold(kind, module, part)
            found = contributions(kind, place, part)
            if self.store is not None:
                self.store.put(kind.name, module, kind.encode(part), reads, found)
            return found

    def _hold(self, kind: IndexKind, module: str, part: Part) -> tuple[Place, dict[str, list[Any]]]:
        """Hold the part, pickled (a question reads the items of a few keys, and the call
        graph's parts, as records, were the largest thing a run holds); give its place and its
        items by key."""
        items: dict[str, list[Any]] = {}
        for key, item in part.items:
            items.setdefault(key, []).append(item)
        self._held[(kind.name, module)] = pickle.dumps((part.shared, items), protocol=pickle.HIGHEST_PROTOCOL)
        return self._place(module, part.shared), items

    def _place(self, module: str, shared: dict[str, Any]) -> Place:
        return Place(module=module, path=self.project.providers[module], shared=shared)

    def _items(self, kind: IndexKind, module: str) -> tuple[Place, dict[str, list[Any]]]:
        """The module's place and items by key: computed this run, or read from the store
        (computed again where the store no longer has them)."""
        recent = self._recent.get((kind.name, module))
        if recent is not None:
            self._recent.move_to_end((kind.name, module))
            return recent
        held = self._held.get((kind.name, module))
        if held is not None:
            shared, items = pickle.loads(held)
            recent = self._recent[(kind.name, module)] = (self._place(module, shared), items)
            if len(self._recent) > RECENT_PARTS:
                self._recent.popitem(last=False)
            return recent
        part = self.store.part(kind.name, module) if self.store is not None else None
        if part is None:
            self._computed(kind, module)
            return self._items(kind, module)
        return self._hold(kind, module, part)


_KINDS: dict[str, IndexKind] = {}


def register(kind: IndexKind) -> IndexKind:
    """Declare an index kind (at import of the link module that owns it), so that a key read in
    an earlier run can be checked before anything in this run reads that kind."""
    _KINDS[kind.name] = kind
    return kind
