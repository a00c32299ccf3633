"""Archives: a downloaded wheel or sdist (hostile bytes) -> its files under one folder, or a refusal.

Nothing in an archive is trusted. A member that would land outside the folder (``../``, an
absolute path, a drive letter), a link of any kind, a device or a FIFO is refused, and so is
the whole archive: a package that ships one is not read in part. Limits on the members'
count, on each member's and the total unpacked size, and on the compression ratio stop zip
bombs before their bytes are written. Only regular files are written, never executed.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from ..model.codes import BuildFailure
from .projects import BuildError


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How much an archive may unpack to."""

    max_files: int = 20_000
    max_member_bytes: int = 64 << 20
    max_total_bytes: int = 512 << 20
    max_ratio: int = 200  # unpacked bytes per compressed byte, over the whole archive


@dataclass(frozen=True, slots=True)
class Member:
    """One archive member as the archive declares it: its path and size, and how to read it."""

    name: str
    size: int
    is_file: bool
    is_dir: bool
    open: object  # () -> IO[bytes]


def unpack(archive: str, dest: str, limits: Limits = Limits()) -> int:
    """Unpack the zip (wheel) or tar (sdist) ``archive`` into the empty folder ``dest``; the
    number of files written.

    Raises:
        BuildError: the archive is refused (a member outside ``dest``, a link, a device, a
            limit passed) or cannot be read; ``dest`` is then left empty.
    """
    try:
        with _open(archive) as opened:
            members = list(_zip_members(opened) if isinstance(opened, zipfile.ZipFile) else _tar_members(opened))
            _check(members, os.path.getsize(archive), limits)
            return _write(members, dest, limits)
    except BuildError:
        _empty(dest)
        raise
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as exc:
        _empty(dest)
        raise BuildError(BuildFailure.ARCHIVE_UNREADABLE, f"{os.path.basename(archive)}: {exc}") from None


def _open(archive: str) -> zipfile.ZipFile | tarfile.TarFile:
    if zipfile.is_zipfile(archive):
        return zipfile.ZipFile(archive)
    if tarfile.is_tarfile(archive):
        return tarfile.open(archive)
    raise BuildError(BuildFailure.ARCHIVE_UNREADABLE, f"{os.path.basename(archive)} is neither a zip nor a tar archive")


def _zip_members(archive: zipfile.ZipFile) -> Iterator[Member]:
    for info in archive.infolist():
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no Unix mode recorded (a plain file or folder)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {info.filename!r} is not a regular file or folder")
        yield Member(info.filename, info.file_size, not info.is_dir(), info.is_dir(), lambda info=info: archive.open(info))


def _tar_members(archive: tarfile.TarFile) -> Iterator[Member]:
    for info in archive:
        if not (info.isfile() or info.isdir()):
            kind = "link" if info.issym() or info.islnk() else "device or special file"
            raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {info.name!r} is a {kind}")
        yield Member(info.name, info.size, info.isfile(), info.isdir(), lambda info=info: archive.extractfile(info))


def safe_path(name: str) -> str:
    """The member's path relative to the folder, POSIX.

    Raises:
        BuildError: the path is absolute, has a drive, or climbs out with ``..``.
    """
    if "\0" in name or "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {name!r} has an absolute or non-POSIX path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {name!r} would land outside its folder")
    return posixpath.join(*parts)


def _check(members: list[Member], compressed: int, limits: Limits) -> None:
    """Refuse the archive on its declared sizes and paths, before anything is written."""
    files = [m for m in members if m.is_file]
    if len(files) > limits.max_files:
        raise BuildError(BuildFailure.ARCHIVE_TOO_LARGE, f"{len(files)} files (the limit is {limits.max_files})")
    total = 0
    for member in members:
        safe_path(member.name)
        if member.size > limits.max_member_bytes:
            raise BuildError(BuildFailure.ARCHIVE_TOO_LARGE, f"member {member.name!r} unpacks to {member.size} bytes")
        total += member.size
    if total > limits.max_total_bytes or total > max(compressed, 1) * limits.max_ratio + (1 << 20):
        raise BuildError(BuildFailure.ARCHIVE_TOO_LARGE, f"{total} bytes unpacked from {compressed} (a zip bomb?)")


def _write(members: list[Member], dest: str, limits: Limits) -> int:
    """Write the regular files, reading no more than each one declares (a lying header
    cannot grow a file past its declared size)."""
    root = os.path.realpath(dest)
    written = 0
    for member in members:
        target = os.path.join(root, *safe_path(member.name).split("/"))
        if os.path.commonpath([root, os.path.realpath(os.path.dirname(target))]) != root:
            raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {member.name!r} would land outside its folder")
        if member.is_dir:
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            raise BuildError(BuildFailure.ARCHIVE_REFUSED, f"member {member.name!r} is written twice")
        _copy(member, target)
        written += 1
    return written


def _copy(member: Member, target: str) -> None:
    source: IO[bytes] | None = member.open()  # type: ignore[operator]
    if source is None:
        raise BuildError(BuildFailure.ARCHIVE_UNREADABLE, f"member {member.name!r} has no data")
    with source, open(target, "xb") as out:
        data = source.read(member.size + 1)
        if len(data) > member.size:
            raise BuildError(BuildFailure.ARCHIVE_TOO_LARGE, f"member {member.name!r} holds more than it declares")
        out.write(data)


def _empty(folder: str) -> None:
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
