"""Reading sources: a folder -> SourceFile records. The only module that touches the file system for input."""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import io
import os
import re
import sys
import tokenize
from dataclasses import dataclass

from .errors import SourceError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib
from .model import FileFailure
from .options import Options


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """One Python file: its repo-relative POSIX path and its raw bytes."""

    path: str
    data: bytes
    blob_sha: str

    @staticmethod
    def from_bytes(path: str, data: bytes) -> "SourceFile":
        return SourceFile(path=path, data=data, blob_sha=git_blob_sha(data))


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
    lines: list[str] = []
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
        return _read_single(root, options)
    if not os.path.isdir(real_root):
        raise SourceError(f"not a directory: {root}")
    files: list[SourceFile] = []
    failures: list[FileFailure] = []
    for dirpath, dirnames, filenames in os.walk(real_root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, real_root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not _matches(rel_dir + d, options.excluded_dirs))
        for name in sorted(filenames):
            rel = rel_dir + name
            if not name.endswith(".py") or _matches(rel, options.exclude):
                continue
            if options.include and not _matches(rel, options.include):
                continue
            result = _read_file(os.path.join(dirpath, name), rel, real_root)
            (files if isinstance(result, SourceFile) else failures).append(result)
    files.sort(key=lambda f: f.path)
    failures.sort(key=lambda f: f.path)
    return files, failures


def _read_single(root: str, options: Options) -> tuple[list[SourceFile], list[FileFailure]]:
    name = os.path.basename(root)
    result = _read_file(root, name, os.path.dirname(os.path.realpath(root)))
    return ([result], []) if isinstance(result, SourceFile) else ([], [result])


def _read_file(full: str, rel: str, real_root: str) -> SourceFile | FileFailure:
    try:
        if os.path.islink(full) and not _is_inside(os.path.realpath(full), real_root):
            return FileFailure(path=rel, stage="read", error="symlink points outside the analysed tree")
        with open(full, "rb") as handle:
            return SourceFile.from_bytes(rel, handle.read())
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return FileFailure(path=rel, stage="read", error="symlink loop")
        if exc.errno == errno.ENOENT:
            return FileFailure(path=rel, stage="read", error="broken symlink")
        return FileFailure(path=rel, stage="read", error=exc.strerror or type(exc).__name__)


def read_command(root: str) -> str | None:
    """The command a CLI example starts with, from the analysed repo's pyproject.toml:
    ``[tool.raisedocs] command``, else the first console script ``[project.scripts]`` declares."""
    path = os.path.join(root, "pyproject.toml")
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    command = data.get("tool", {}).get("raisedocs", {}).get("command")
    if isinstance(command, str) and command.strip():
        return command.strip()
    scripts = data.get("project", {}).get("scripts", {})
    if isinstance(scripts, dict) and scripts:
        return sorted(scripts)[0]
    return None
