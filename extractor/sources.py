"""Reading sources: a folder -> SourceFile records. The only module that touches the file system for input."""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import io
import logging
import os
import re
import stat
import tokenize
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import SourceError
from .git import BlobReader, run_git
from .model import FileFailure
from .options import SILENT_EXCLUDES, Options, is_test_path

log = logging.getLogger("raisedocs")


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """One Python file: its repo-relative POSIX path, its git blob id, its size and its raw
    bytes (None until read for collection: see ``read_contents``; a run never holds every
    file's bytes at once)."""

    path: str
    data: bytes | None
    blob_sha: str
    size: int = 0

    @staticmethod
    def from_bytes(path: str, data: bytes) -> SourceFile:
        return SourceFile(path=path, data=data, blob_sha=git_blob_sha(data), size=len(data))


def git_blob_sha(data: bytes) -> str:
    """The id git gives these bytes, so folder and commit reads share cache keys."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class DecodeError(ValueError):
    """The bytes are not text in the encoding Python would use for them."""


def decode_source(data: bytes) -> str:
    """Decode as CPython does: BOM, then a PEP 263 declaration, else UTF-8.

    Raises:
        DecodeError: unknown or conflicting declaration, or bytes invalid in it.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        message = str(exc.msg if hasattr(exc, "msg") else exc)
        if message == "invalid or missing encoding declaration":
            message = "not valid UTF-8 and no encoding declared"
        raise DecodeError(message) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DecodeError(f"cannot decode as {encoding} at byte {exc.start}: {exc.reason}") from None
    except LookupError as exc:
        raise DecodeError(f"unknown encoding: {encoding}: {exc}") from None


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split into lines the way Python's tokenizer counts them (\\n, \\r\\n, \\r only)."""
    if "\r" not in text:  # the common case, in C
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        return lines
    lines = []
    start = 0
    for match in _LINE_END.finditer(text):
        lines.append(text[start : match.start()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def _matches(rel: str, patterns: tuple[str, ...]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in patterns)


def _is_inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def read_tree(root: str, options: Options) -> tuple[list[SourceFile], list[FileFailure]]:
    """Every ``.py`` file under ``root``, sorted by path, plus the files that could not be read.

    Symlinked directories are not followed (no loops); a symlinked file is read only when it
    resolves inside ``root``, so a hostile tree cannot pull host files into the catalog.

    Raises:
        SourceError: ``root`` does not exist or is not a directory.
    """
    if not os.path.exists(root):
        raise SourceError(f"path does not exist: {root}")
    real_root = os.path.realpath(root)
    if os.path.isfile(real_root):
        if not root.endswith(".py"):
            raise SourceError(f"not a folder or a Python (.py) file: {root}")
        return _read_single(root, options)
    if not os.path.isdir(real_root):
        raise SourceError(f"not a directory: {root}")
    files: list[SourceFile] = []
    failures: list[FileFailure] = []
    matched: set[str] = set()

    def unlistable(exc: OSError) -> None:
        rel = os.path.relpath(exc.filename or real_root, real_root).replace(os.sep, "/")
        failures.append(FileFailure(path=rel + "/", stage="read", error=f"cannot list folder: {exc.strerror or type(exc).__name__}"))

    skipped: list[str] = []
    for dirpath, dirnames, filenames in os.walk(real_root, followlinks=False, onerror=unlistable):
        rel_dir = os.path.relpath(dirpath, real_root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        kept = [d for d in dirnames if not _matches(rel_dir + d, options.excluded_dirs)
                and not (options.use_default_excludes and os.path.isfile(os.path.join(dirpath, d, "pyvenv.cfg")))]
        skipped.extend(rel_dir + d for d in dirnames if d not in kept and d not in SILENT_EXCLUDES and not _matches(rel_dir + d,
                                                                                                                    options.exclude))
        dirnames[:] = sorted(kept)
        for name in sorted(filenames):
            rel = rel_dir + name
            if not name.endswith(".py") or _matches(rel, options.exclude) or (options.skip_tests and is_test_path(rel)):
                continue
            if options.include and not _included(rel, options.include, matched):
                continue
            result = _read_file(os.path.join(dirpath, name), rel, real_root)
            if isinstance(result, SourceFile):  # its id and size; the bytes are read again to collect it
                files.append(SourceFile(path=rel, data=None, blob_sha=result.blob_sha, size=result.size))
            else:
                failures.append(result)
    _warn_unmatched(options.include, matched)
    if skipped:
        shown = ", ".join(sorted(skipped)[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
        log.info("note: the default excludes left out %d folder%s (%s); --no-default-excludes reads them",
                    len(skipped), "" if len(skipped) == 1 else "s", shown)
    _, prefix = package_base(real_root)
    if prefix:  # (a package's own folder: its files named as Python imports them)
        files = [SourceFile(path=f"{prefix}/{f.path}", data=None, blob_sha=f.blob_sha, size=f.size) for f in files]
        failures = [FileFailure(path=f"{prefix}/{f.path}", stage=f.stage, error=f.error) for f in failures]
    files.sort(key=lambda f: f.path)
    failures.sort(key=lambda f: f.path)
    return files, failures


_MAX_PACKAGE_DEPTH = 16  # packages around a root folder that name its modules


def package_base(real_root: str) -> tuple[str, str]:
    """Where a tree's paths start, and the prefix the root's own paths take there. A root
    folder that is a package (it holds ``__init__.py``), with the packages around it, names
    its modules as Python imports them: ``arrow/util.py``, module ``arrow.util``, where
    ``util.py`` would be a module ``util`` no import finds. Any other folder is its own start,
    with no prefix; a file's is its folder's."""
    folder = os.path.dirname(real_root) if os.path.isfile(real_root) else real_root
    parts: list[str] = []
    while len(parts) < _MAX_PACKAGE_DEPTH and os.path.basename(folder).isidentifier() \
            and os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    return folder, "/".join(reversed(parts))


def source_roots(paths: list[str]) -> tuple[str, ...]:
    """The folders of a ``src`` or ``lib`` layout: a top folder of that name holding sources
    and not itself a package (no ``__init__.py``)."""
    present = set(paths)
    return tuple(r for r in ("src", "lib") if f"{r}/__init__.py" not in present and any(p.startswith(r + "/") for p in paths))


def _included(rel: str, patterns: tuple[str, ...], matched: set[str]) -> bool:
    """Whether an --include pattern selects ``rel``; notes the patterns that did."""
    name = rel.rsplit("/", 1)[-1]
    hits = [p for p in patterns if fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p)]
    matched.update(hits)
    return bool(hits)


def _warn_unmatched(patterns: tuple[str, ...], matched: set[str]) -> None:
    for pattern in (p for p in patterns if p not in matched):
        log.warning("warning: --include %r matched no .py file", pattern)


def _read_single(root: str, options: Options) -> tuple[list[SourceFile], list[FileFailure]]:
    real = os.path.realpath(root)
    _, prefix = package_base(real)  # (a module of a package: ``arrow/util.py``)
    name = f"{prefix}/{os.path.basename(root)}" if prefix else os.path.basename(root)
    result = _read_file(root, name, os.path.dirname(real))
    return ([result], []) if isinstance(result, SourceFile) else ([], [result])


MAX_FILE_BYTES = 10_000_000  # a larger .py file is listed under failures, not read


def read_open(fd: int, size: int, limit: int) -> bytes:
    """What the open regular file ``fd`` holds: ``size`` bytes as fstat gave them, or more if it
    grew since, up to ``limit`` + 1 (a caller sees that it is past ``limit``). Read by the size
    found, not by the limit: a buffer of the limit's size would be mapped for every read.

    Raises:
        OSError: it cannot be read.
    """
    chunks = []
    total = 0
    wanted = min(size, limit) + 1
    while total <= limit:
        chunk = os.read(fd, wanted)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        wanted = min(limit + 1 - total, 1 << 20)  # (it grew since fstat: read on, to the limit)
    return b"".join(chunks)


def _read_file(full: str, rel: str, real_root: str) -> SourceFile | FileFailure:
    """The file's bytes, or why not. Only regular files are read, and only up to
    MAX_FILE_BYTES: a FIFO, a device or a file that grows while read never stalls the run."""
    try:
        if os.path.islink(full) and not _is_inside(os.path.realpath(full), real_root):
            return FileFailure(path=rel, stage="read", error="symlink points outside the analysed tree")
        # O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return FileFailure(path=rel, stage="read", error=f"not a regular file ({_kind(info.st_mode)})")
            if info.st_size > MAX_FILE_BYTES:
                return FileFailure(path=rel, stage="read", error=f"larger than the {MAX_FILE_BYTES:,}-byte limit ({info.st_size:,} bytes)")
            data = read_open(fd, info.st_size, MAX_FILE_BYTES)
        finally:
            os.close(fd)
        if len(data) > MAX_FILE_BYTES:
            return FileFailure(path=rel, stage="read", error=f"larger than the {MAX_FILE_BYTES:,}-byte limit (grew while read)")
        return SourceFile.from_bytes(rel, data)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return FileFailure(path=rel, stage="read", error="symlink loop")
        if exc.errno == errno.ENOENT:
            return FileFailure(path=rel, stage="read", error="broken symlink")
        return FileFailure(path=rel, stage="read", error=exc.strerror or type(exc).__name__)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def read_pyproject(root: str, sha: str | None = None) -> dict[str, Any]:
    """The analysed repo's pyproject.toml (in commit ``sha`` when given) as data; {} when it
    has none or it does not parse."""
    try:
        if sha is not None:
            raw = run_git(root, "cat-file", "blob", f"{sha}:pyproject.toml")
        else:
            with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
                raw = handle.read()
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, SourceError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def read_distribution_name(root: str) -> str | None:
    """The ``Name:`` of a distribution's metadata at the folder's top: an unpacked sdist's
    ``PKG-INFO`` or an unpacked wheel's single ``*.dist-info/METADATA``; None when there is none."""
    try:
        infos = [e for e in os.listdir(root) if e.endswith(".dist-info")]
    except OSError:
        return None
    candidates = [os.path.join(root, "PKG-INFO")] + ([os.path.join(root, infos[0], "METADATA")] if len(infos) == 1 else [])
    for path in candidates:
        try:
            with open(path, "rb") as handle:
                head = handle.read(16_384).decode("utf-8", "replace")
        except OSError:
            continue
        found = re.search(r"^Name:[ \t]*(\S+)[ \t]*$", head.split("\n\n", 1)[0], re.MULTILINE)
        if found:
            return found.group(1)
    return None


def sole_package(paths: list[str], roots: tuple[str, ...] = ()) -> str | None:
    """The tree's one top-level package (below its source ``roots``, ``src/`` say), else None."""
    paths = [p.removeprefix(next((f"{r}/" for r in roots if p.startswith(f"{r}/")), "")) for p in paths]
    present = set(paths)
    packages = {p.split("/", 1)[0] for p in paths if "/" in p and f"{p.split('/', 1)[0]}/__init__.py" in present}
    return packages.pop() if len(packages) == 1 else None


# --- git: read a commit straight from the object store ------------------------------------


def read_commit(repo: str, sha: str, options: Options) -> tuple[list[SourceFile], list[FileFailure]]:
    """Every ``.py`` blob of commit ``sha``, without touching the work tree or the index."""
    # Relative to ``repo``: a sub-folder of a repository reads just that sub-tree.
    listing = run_git(repo, "ls-tree", "-r", "-z", "--long", sha)
    wanted: list[tuple[str, str, int]] = []
    failures: list[FileFailure] = []
    # A folder holding pyvenv.cfg is a virtualenv, left out by default like the named excludes.
    excluded_dir: dict[str, bool] = {
        path.rsplit("/", 1)[0]: True for path in _listed_paths(listing) if path.endswith("/pyvenv.cfg") and options.use_default_excludes
    }
    matched: set[str] = set()
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, blob, size = meta.decode().split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if not path.endswith(".py") or not _selected_path(path, options, excluded_dir, matched):
            continue
        if mode == "120000":
            failures.append(FileFailure(path=path, stage="read", error="symlink (not followed in a git tree)"))
        elif kind == "blob" and size.isdigit() and int(size) > MAX_FILE_BYTES:
            failures.append(FileFailure(path=path, stage="read",
                                        error=f"larger than the {MAX_FILE_BYTES:,}-byte limit ({int(size):,} bytes)"))
        elif kind == "blob":
            wanted.append((path, blob, int(size) if size.isdigit() else 0))
    _warn_unmatched(options.include, matched)
    # Blob contents are read only for the files that are analysed again (``with_contents``):
    # a re-run over a cached commit reads the tree listing and the cache, nothing else.
    files = [SourceFile(path=path, data=None, blob_sha=blob, size=size) for path, blob, size in wanted]
    files.sort(key=lambda f: f.path)
    failures.sort(key=lambda f: f.path)
    return files, failures


def _listed_paths(listing: bytes) -> Iterator[str]:
    for entry in listing.split(b"\0"):
        if entry:
            yield entry.partition(b"\t")[2].decode("utf-8", "surrogateescape")


def _selected_path(path: str, options: Options, excluded_dir: dict[str, bool], matched: set[str]) -> bool:
    """Whether a path of a commit is analysed; ``excluded_dir`` memoizes folder decisions
    (a tree lists each folder once per file in it)."""
    parts = path.split("/")
    for index in range(1, len(parts)):
        folder = "/".join(parts[:index])
        excluded = excluded_dir.get(folder)
        if excluded is None:
            excluded = excluded_dir[folder] = _matches(folder, options.excluded_dirs)
        if excluded:
            return False
    if _matches(path, options.exclude) or (options.skip_tests and is_test_path(path)):
        return False
    return not options.include or _included(path, options.include, matched)


def read_contents(root: str, rev: str | None, files: Iterable[SourceFile]) -> Iterator[SourceFile | FileFailure]:
    """Each file with its bytes, one at a time and in the given order: from the folder (a
    file whose bytes changed since it was listed is a failure: its cache key would lie), or
    from the object store of the git repository at ``root`` through one ``git cat-file``.

    Raises:
        SourceError: git fails.
    """
    if rev is None:
        real_root = os.path.realpath(root)
        base, _ = package_base(real_root)  # (where the paths start: above a package's own folder)
        inside = os.path.dirname(real_root) if os.path.isfile(real_root) else real_root
        for source in files:
            found = _read_file(os.path.join(base, *source.path.split("/")), source.path, inside) if source.data is None else source
            if isinstance(found, SourceFile) and found.blob_sha != source.blob_sha:
                found = FileFailure(path=source.path, stage="read", error="changed while the run read it")
            yield found
        return
    with BlobReader(root) as blobs:
        for source in files:
            yield source if source.data is not None else SourceFile(path=source.path, data=blobs.read(source.blob_sha),
                                                                    blob_sha=source.blob_sha, size=source.size)
