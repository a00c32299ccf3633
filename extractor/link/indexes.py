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
them has the same digest (``Indexes.digest``). A kind's ``view`` says which parts of an item
a digest covers (the call graph's leaves out the call's line: an edit that shifts a file's
lines changes no path, and the paths' order is the calls' order, which a shift keeps).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..model import FileFacts


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
    """The module a part is of, as its items are decoded."""

    module: str
    path: str
    shared: dict[str, Any]


@dataclass(frozen=True, slots=True)
class IndexKind:
    """One index: its name, how a module's part is computed, how an item is decoded (with its
    module's place), and what of an item its keys' digests cover."""

    name: str
    part: Callable[[Any, FileFacts], Part]  # (the project, a module's facts)
    decode: Callable[[Place, Any], Any]
    view: Callable[[Place, Any], Any] = lambda place, item: item


class PartStore(Protocol):
    """Where parts are kept between runs (incremental.py: the cache)."""

    def get(self, kind: str, module: str) -> Part | None:
        """The module's part of the index kind, where one is kept and what it read still holds."""

    def put(self, kind: str, module: str, part: Part, reads: Reads) -> None:
        """Keep the module's part of the index kind, with what computing it read."""


class Indexes:
    """A project's indexes, each built once, the first time a key of it is read."""

    def __init__(self, project: Indexed, store: PartStore | None) -> None:
        self.project = project
        self.store = store
        self._built: dict[str, dict[str, list[tuple[Place, Any]]]] = {}
        self._decoded: dict[tuple[str, str], list[Any]] = {}
        self._digests: dict[str, str] = {}
        self._kinds: dict[str, IndexKind] = {}

    def get(self, kind: IndexKind, key: str) -> list[Any]:
        """The items of ``key``, in the index's order; the key is recorded as read with its digest."""
        index = self._index(kind)
        qualified = f"{kind.name}:{key}"
        self.project.reads.keys[qualified] = self._digest(kind, index, key, qualified)
        found = self._decoded.get((kind.name, key))
        if found is None:
            found = self._decoded[(kind.name, key)] = [kind.decode(place, item) for place, item in index.get(key, ())]
        return found

    def digest(self, qualified: str) -> str | None:
        """The digest a key (``kind:key``) has in this run; None for an index kind not known here."""
        name, _, key = qualified.partition(":")
        kind = self._kinds.get(name) or _KINDS.get(name)
        if kind is None:
            return None
        return self._digest(kind, self._index(kind), key, qualified)

    def _digest(self, kind: IndexKind, index: dict[str, list[tuple[Place, Any]]], key: str, qualified: str) -> str:
        known = self._digests.get(qualified)
        if known is None:
            view = [kind.view(place, item) for place, item in index.get(key, ())]
            text = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
            known = self._digests[qualified] = hashlib.sha256(text.encode("ascii")).hexdigest()[:32]
        return known

    def _index(self, kind: IndexKind) -> dict[str, list[tuple[Place, Any]]]:
        built = self._built.get(kind.name)
        if built is None:
            self._kinds[kind.name] = kind
            built = self._built[kind.name] = {}
            project = self.project
            for module in sorted(project.providers):
                path = project.providers[module]
                part = self._part(kind, module, path)
                place = Place(module=module, path=path, shared=part.shared)
                for key, item in part.items:
                    built.setdefault(key, []).append((place, item))
            project.forget_answers()  # (one per name the tree's parts resolved: memory, not speed)
        return built

    def _part(self, kind: IndexKind, module: str, path: str) -> Part:
        """The module's part: kept by the store, or computed under a record of its own reads
        (the question that made the index build does not read what the parts did)."""
        project = self.project
        outer = project.record()
        try:
            kept = self.store.get(kind.name, module) if self.store is not None else None
            if kept is not None:
                return kept
            part = kind.part(project, project.facts_of(path))
            if self.store is not None:
                self.store.put(kind.name, module, part, project.reads)
            return part
        finally:
            project.reads = outer


_KINDS: dict[str, IndexKind] = {}


def register(kind: IndexKind) -> IndexKind:
    """Declare an index kind (at import of the link module that owns it), so that a key read in
    an earlier run can be checked before anything in this run reads that kind."""
    _KINDS[kind.name] = kind
    return kind
