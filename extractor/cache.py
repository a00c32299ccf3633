"""The cache: content-keyed results of the per-file pass and of per-card solving, on disk.

Keys hash the tool version, the options that change the result and the input itself (a
file's git blob id and path, or a card's JSON), so a stale entry can never be read. An
entry that is missing, truncated, corrupt or of another shape is ignored and rewritten;
writes go through a temporary file and a rename, so concurrent runs never see half an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from . import __version__
from .model import FileFacts, FileFailure, Solved, from_data, to_data
from .options import Options


def default_cache_dir() -> str:
    import platformdirs

    return platformdirs.user_cache_dir("raisedocs")


class Cache:
    """A directory of JSON entries; a disabled cache (``root`` None) stores nothing."""

    def __init__(self, root: str | None) -> None:
        self.root = os.path.join(root, __version__) if root else None
        self.hits = 0
        self.misses = 0

    @staticmethod
    def for_options(options: Options) -> Cache:
        if not options.use_cache:
            return Cache(None)
        return Cache(options.cache_dir or default_cache_dir())

    def _path(self, key: str) -> str:
        assert self.root is not None
        return os.path.join(self.root, key[:2], key + ".json")

    def _read(self, key: str) -> Any:
        """The entry's data, or None when it is missing or its checksum does not match."""
        if self.root is None:
            return None
        try:
            with open(self._path(key), "rb") as handle:
                raw = handle.read()
            digest, _, text = raw.partition(b"\n")
            if hashlib.sha256(text).hexdigest().encode() != digest:
                return None  # truncated, corrupt, or written by something else
            return json.loads(text)
        except (OSError, ValueError):
            return None

    def _write(self, key: str, data: Any) -> None:
        if self.root is None:
            return
        path = self._path(key)
        # ASCII JSON (lone surrogates survive as escapes) after a checksum line.
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        tmp = None
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
            os.replace(tmp, path)
        except OSError:
            if tmp is not None and os.path.exists(tmp):
                os.remove(tmp)  # a cache that cannot be written only costs time

    # --- per-file results ---------------------------------------------------------------
    @staticmethod
    def file_key(path: str, blob_sha: str, options: Options) -> str:
        material = f"file\0{__version__}\0{options.excerpt_lines}\0{path}\0{blob_sha}"
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

    # --- per-card solving ---------------------------------------------------------------
    @staticmethod
    def card_key(material: str) -> str:
        return hashlib.sha256(f"card\0{__version__}\0{material}".encode("utf-8", "surrogatepass")).hexdigest()

    def get_solved(self, key: str) -> Solved | None:
        data = self._read(key)
        try:
            result = from_data(Solved, data) if isinstance(data, dict) else None
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            result = None
        self._count(result)
        return result

    def put_solved(self, key: str, solved: Solved) -> None:
        self._write(key, to_data(solved))

    def _count(self, result: object) -> None:
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
