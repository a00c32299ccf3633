"""The cache: content-keyed results of the per-file pass and of per-card solving, on disk.

Keys hash the tool (version and code), the options that change the result and the input
itself (a file's git blob id and path, or a card's JSON), so a stale entry can never be read. An
entry that is missing, truncated, corrupt or of another shape is ignored and rewritten;
writes go through a temporary file and a rename, so concurrent runs never see half an entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import time
from dataclasses import dataclass
from typing import Any

from .model import FileFacts, FileFailure, Solved, from_data, to_data
from .options import Options
from .sources import read_open
from .version import VERSION as __version__


def code_digest(package: str) -> str:
    """A digest of the package's source (the ``.py`` files of it and its subpackages). A
    result is only as good as the code that made it, and an install from a git commit
    keeps its version number across fixes."""
    digest = hashlib.sha256()
    found = False
    try:
        for folder, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                found = True
                rel = os.path.relpath(os.path.join(folder, name), package).replace(os.sep, "/")
                with open(os.path.join(folder, name), "rb") as handle:
                    digest.update(rel.encode() + b"\0" + handle.read() + b"\0")
    except OSError:
        found = False
    return digest.hexdigest()[:16] if found else "source-unknown"  # else the version alone


UNUSED_DAYS = 14
_USED = "last-used"  # touched by every run that uses the folder
_CODE_FOLDER = re.compile(r"\d+(?:\.\w+)+(?:-(?:[0-9a-f]{16}|source-unknown))?")  # CODE of any version
_MARK = "raisedocs cache folder: delete it to reclaim its space\n"  # in _USED; pruning needs it
MAX_ENTRY_BYTES = 1 << 30  # an entry larger than this is not ours (or not worth reading)


def toolchain() -> str:
    """The Python running this (its parser, its builtin exception classes) and the versions
    of the libraries whose behaviour the output depends on (the parser, the templates)."""
    from importlib import metadata

    versions = [f"{sys.implementation.name} {'.'.join(map(str, sys.version_info[:3]))}"]
    for name in ("libcst", "jinja2", "markupsafe"):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} unknown")
    return "; ".join(versions)


# What a result depends on besides its input: this tool (its version and its code), the
# Python running it and the libraries (toolchain).
CODE = f"{__version__}-{code_digest(os.path.dirname(os.path.abspath(__file__)))}"
TOOLCHAIN = toolchain()
_SALT = f"{CODE}\0{TOOLCHAIN}"


@dataclass(frozen=True, slots=True)
class Linked:
    """One file's cards, linked and solved, as the JSON text of each (``spool.card_text``:
    one line, the permalink a slot) with a summary of each; and what linking them read,
    which must still hold for a later run to reuse them. ``cards`` is None when the entry was read without them."""

    sites: int  # raise sites in the file, selected as cards or not
    flags: tuple[tuple[str, str], ...]  # CLI flags the file declares
    parsers: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]  # FileFacts.parsers
    routes: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...]  # FileFacts.routes
    checks: tuple[tuple[str, int, str], ...]  # FileFacts.checks
    modules: dict[str, str | None]  # module name -> file key of the file providing it (None: no such module)
    # Module name -> its interface (FileFacts.interface), for the modules read whose file no card
    # names: a line of a file reaches a card only with the file's path (a helper's, a field's, a
    # handler's), so the entry also holds while such a module's interface does (an edit there
    # that only moves lines)
    shapes: dict[str, str]
    # Linking read keys of project-wide indexes (link.indexes): the digest of the tree's modules and
    # files then (_Linker.tree_key: while it is the same, nothing else is checked); None: it did not
    tree: str | None
    keys: dict[str, str]  # each index key read (``kind:key``) -> the digest of its items then
    suffixes: dict[str, str | None]  # shortened module name -> the module it matched
    flag_reads: dict[str, str | None]  # CLI destination -> the flag its examples used
    cards: list[str] | None
    summaries: list[dict[str, Any]]


def default_cache_dir() -> str:
    import platformdirs

    return platformdirs.user_cache_dir("raisedocs")


class Cache:
    """A directory of JSON entries; a disabled cache (``root`` None) stores nothing."""

    def __init__(self, root: str | None) -> None:
        self.base = root
        self.root = os.path.join(root, CODE) if root else None  # another version's entries are never read
        self.hits = 0
        self.misses = 0
        self._folders: set[str] = set()  # folders known to exist

    @staticmethod
    def for_options(options: Options) -> Cache:
        if not options.use_cache:
            return Cache(None)
        return Cache(options.cache_dir or default_cache_dir())

    def mark_used(self, now: float | None = None) -> None:
        """Note that this code's entries are in use, and delete the folders of other
        raisedocs versions or code that no run has used for ``UNUSED_DAYS`` (an install from
        a newer commit would otherwise leave each older one's folder behind). Only a folder
        named like one of this cache's that holds raisedocs' own marker is ever deleted;
        any failure is ignored."""
        if self.base is None or self.root is None:
            return
        now = time.time() if now is None else now
        try:
            os.makedirs(self.root, exist_ok=True)
            with open(os.path.join(self.root, _USED), "w", encoding="utf-8") as handle:
                handle.write(_MARK)
            names = os.listdir(self.base)
        except OSError:
            return
        for name in names:
            folder = os.path.join(self.base, name)
            if folder == self.root or not _CODE_FOLDER.fullmatch(name) or os.path.islink(folder):
                continue
            marker = os.path.join(folder, _USED)
            try:
                if _read_entry(marker) != _MARK.encode():
                    continue  # not a folder of this cache, whatever its name
                used = os.path.getmtime(marker)
            except OSError:
                continue
            if now - used > UNUSED_DAYS * 86400:
                shutil.rmtree(folder, ignore_errors=True)

    def _path(self, key: str) -> str:
        assert self.root is not None
        return os.path.join(self.root, key[:2], key + ".json")

    def _read(self, key: str) -> Any:
        """The entry's data, or None when it is missing, is not a regular file, or its
        checksum (over its key and its text) does not match."""
        if self.root is None:
            return None
        try:
            raw = _read_entry(self._path(key))
            if raw is None:
                return None
            digest, _, text = raw.partition(b"\n")
            if _checksum(key, text) != digest:
                return None  # truncated, corrupt, written by something else, or another key's
            return json.loads(text)
        except (OSError, ValueError, RecursionError):
            return None

    def _write(self, key: str, data: Any) -> None:
        if self.root is None:
            return
        path = self._path(key)
        folder = os.path.dirname(path)
        # ASCII JSON (lone surrogates survive as escapes) after a checksum line.
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        # One temporary name per process: a run writes from one thread per process, and a
        # leftover of a dead process with the same id is simply overwritten.
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            with open(tmp, "wb") as handle:
                handle.write(_checksum(key, text) + b"\n" + text)
            os.replace(tmp, path)
        except OSError:
            self._folders.discard(folder)
            if os.path.exists(tmp):
                os.remove(tmp)  # a cache that cannot be written only costs time

    # --- per-file results ---------------------------------------------------------------
    @staticmethod
    def file_key(path: str, blob_sha: str, options: Options) -> str:
        material = f"file\0{_SALT}\0{options.excerpt_lines}\0{','.join(options.source_roots)}\0{path}\0{blob_sha}"
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()

    def get_file(self, key: str) -> FileFacts | FileFailure | None:
        data = self._read(key)
        try:
            if isinstance(data, dict) and data.get("kind") == "facts":
                result = from_data(FileFacts, data["data"])
            elif isinstance(data, dict) and data.get("kind") == "failure":
                result = from_data(FileFailure, data["data"])
            else:
                result = None
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            result = None
        self._count(result)
        return result

    def put_file(self, key: str, result: FileFacts | FileFailure) -> None:
        kind = "facts" if isinstance(result, FileFacts) else "failure"
        self._write(key, {"kind": kind, "data": to_data(result)})

    # --- per-card solving -----------------------------------------------------------------
    @staticmethod
    def card_key(material: str) -> str:
        return hashlib.sha256(f"card\0{_SALT}\0{material}".encode("utf-8", "surrogatepass")).hexdigest()

    @staticmethod
    def solved_from(data: Any) -> Solved | None:
        """A Solved record from its JSON data, or None when the data has the wrong shape."""
        try:
            return from_data(Solved, data) if isinstance(data, dict) else None
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            return None

    # --- per path: what the last analysed version of a file left for the next one ---------
    @staticmethod
    def path_key(kind: str, path: str) -> str:
        """Key of a per-path entry: ``units`` (libcst results per definition) or
        ``solutions`` (card key -> solution, for the cards the file had when last solved)."""
        return hashlib.sha256(f"{kind}\0{_SALT}\0{path}".encode("utf-8", "surrogatepass")).hexdigest()

    def get_by_path(self, key: str) -> dict[str, Any]:
        """The entry as JSON data ({} when missing or corrupt); each value is checked when
        it is decoded, by its user."""
        data = self._read(key)
        self._count(data if isinstance(data, dict) else None)
        return data if isinstance(data, dict) else {}

    def put_by_path(self, key: str, entry: dict[str, Any]) -> None:
        self._write(key, entry)

    # --- per-module parts of the project-wide indexes (link.indexes) ----------------------
    @staticmethod
    def parts_key(file_key: str, context: str) -> str:
        """Key of a module's parts: its file's key, and ``context``, what else every part reads
        (the tree's top-level packages)."""
        return hashlib.sha256(f"parts\0{file_key}\0{context}".encode("utf-8", "surrogatepass")).hexdigest()

    def get_parts(self, key: str) -> dict[str, Any]:
        """Index kind -> the module's part with what computing it read, as JSON data ({} when
        missing or corrupt); each is checked when it is decoded, by its user."""
        data = self._read(key)
        return data if isinstance(data, dict) else {}

    def put_parts(self, key: str, entry: dict[str, Any]) -> None:
        self._write(key, entry)

    # --- per-file rendered cards (publish.render.file_pages) ------------------------------
    def get_pages(self, key: str) -> list[tuple[str, str, str, str | None]] | None:
        """A file's cards as rendered (id, search-index entry's text, page, JSON file or None), or
        None when missing or of another shape."""
        data = self._read(key)
        if not isinstance(data, list) or not all(
                isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and isinstance(row[1], str)
                and isinstance(row[2], str) and isinstance(row[3], (str, type(None))) for row in data):
            return None
        return [(card_id, entry, page, own) for card_id, entry, page, own in data]

    def put_pages(self, key: str, rendered: list[tuple[str, str, str, str | None]]) -> None:
        self._write(key, rendered)

    # --- per-file linked cards ----------------------------------------------------------
    @staticmethod
    def linked_key(file_key: str, options: Options) -> str:
        """Besides the file, linking reads the exception filter and the CLI command."""
        material = json.dumps(["linked", file_key, list(options.exceptions), options.command])
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()

    def get_linked(self, key: str, with_cards: bool = True) -> Linked | None:
        """The entry; without its cards' texts unless ``with_cards``: they are kept apart
        (``get_cards``), being most of it, and a run needs them one file at a time."""
        data = self._read(key)
        try:
            result = _linked_from(data) if isinstance(data, dict) else None
        except (KeyError, TypeError, ValueError, AttributeError):
            result = None
        if result is not None and with_cards:
            cards = self.get_cards(key, len(result.summaries))
            result = dataclasses.replace(result, cards=cards) if cards is not None else None
        self._count(result)
        return result

    def get_cards(self, key: str, count: int) -> list[str] | None:
        """The cards' texts of the linked entry ``key``, or None when missing or not ``count`` texts."""
        cards = self._read(_cards_key(key))
        return cards if isinstance(cards, list) and len(cards) == count and all(isinstance(c, str) for c in cards) else None

    def put_linked(self, key: str, linked: Linked) -> None:
        self._write(_cards_key(key), linked.cards)
        self._write(key, {
            "sites": linked.sites, "flags": linked.flags, "parsers": linked.parsers, "routes": linked.routes, "checks": linked.checks,
            "modules": linked.modules, "shapes": linked.shapes,
            "tree": linked.tree, "keys": linked.keys, "suffixes": linked.suffixes,
            "flag_reads": linked.flag_reads, "summaries": linked.summaries,
        })

    def _count(self, result: object) -> None:
        if result is None:
            self.misses += 1
        else:
            self.hits += 1


def _checksum(key: str, text: bytes) -> bytes:
    """The checksum line of an entry: bound to its key, so an entry copied over another
    key's file is not trusted."""
    return hashlib.sha256(key.encode("ascii") + b"\0" + text).hexdigest().encode()


def _read_entry(path: str) -> bytes | None:
    """A cache file's bytes; None when it is not a regular file (a FIFO would hang the run,
    a link to /dev/zero exhaust memory) or is past MAX_ENTRY_BYTES.

    Raises:
        OSError: it cannot be opened (missing, a symlink).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        return read_open(fd, info.st_size, MAX_ENTRY_BYTES)
    finally:
        os.close(fd)


def _texts(value: Any) -> dict[str, str]:
    """A mapping of texts to texts, as JSON gives it.

    Raises:
        ValueError: it is not one.
    """
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError("not a mapping of texts")
    return value


def _cards_key(key: str) -> str:
    return hashlib.sha256(f"cards\0{key}".encode("ascii")).hexdigest()


def _linked_from(data: dict[str, Any]) -> Linked | None:
    """A Linked entry without its cards' texts, or None when any part has the wrong shape."""
    def mapping(value: Any) -> dict[str, str | None]:
        if not isinstance(value, dict) or not all(isinstance(v, (str, type(None))) for v in value.values()):
            raise ValueError("not a mapping of names")
        return value

    summaries = data["summaries"]
    flags = tuple((dest, flag) for dest, flag in data["flags"])
    parsers = tuple((name, tuple(subs), tuple(callees), tuple(dests)) for name, subs, callees, dests in data["parsers"])
    if not all(isinstance(x, str) for p in parsers for x in (p[0], *p[1], *p[2], *p[3])):
        return None
    routes = tuple((callee, tuple(keywords), tuple(namespace) if namespace is not None else None) for callee, keywords,
                   namespace in data["routes"])
    if not all(isinstance(x, str) for r in routes for x in (r[0], *r[1], *(r[2] or ()))):
        return None
    checks = tuple((attribute, line, test) for attribute, line, test in data["checks"])
    if not all(isinstance(a, str) and isinstance(n, int) and isinstance(t, str) for a, n, t in checks):
        return None
    if not isinstance(data["sites"], int) or not all(isinstance(d, str) and isinstance(f, str) for d, f in flags):
        return None
    if not isinstance(summaries, list) or not all(
            isinstance(s, dict) and isinstance(s.get("line"), int) and isinstance(s.get("end_line"), int) and isinstance(s.get("id"), str)
            for s in summaries):
        return None
    return Linked(
        sites=data["sites"], flags=flags, parsers=parsers, routes=routes, checks=checks, modules=mapping(data["modules"]),
        shapes=_texts(data["shapes"]),
        tree=data.get("tree") if isinstance(data.get("tree"), str) else None, keys=_texts(data["keys"]), suffixes=mapping(data["suffixes"]),
        flag_reads=mapping(data["flag_reads"]), cards=None, summaries=summaries,
    )
