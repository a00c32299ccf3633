"""Output: rendered files -> a docs folder, replaced atomically so a failed run keeps the old one."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable
from typing import Any, BinaryIO

from ..errors import OutputError

MANIFEST = ".raisedocs-manifest"  # every file raisedocs wrote in the folder, one path per line
# What the folder was rendered from: the render identity, the SHA-256 of its first file (the
# catalog) and of all its files, so an unchanged folder is recognised without rendering it.
STATE = ".raisedocs-state"
_MANIFEST_HEAD = "raisedocs manifest 1: the files raisedocs wrote here; it replaces the folder only while it holds nothing else"
_STAGING_MARK = ".raisedocs-staging"  # in a folder being built; a dead run's leftover is removed
_STAGING = re.compile(r"\.raisedocs-(\d+)-[A-Za-z0-9_]+")
# What raisedocs wrote before it kept a manifest: a catalog folder of this shape is still its own.
_LEGACY = re.compile(r"catalog\.json|index\.md|errors/[0-9a-f]{16}\.(?:md|json)")


def manifest_text(paths: Iterable[str]) -> str:
    return "\n".join([_MANIFEST_HEAD, *sorted(paths)]) + "\n"


def _contents(folder: str) -> list[str]:
    """Every entry under ``folder`` that is not a folder (files, links, FIFOs...), relative."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        where = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        prefix = "" if where == "." else where + "/"
        found.extend(prefix + name for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))])
    return found


def _foreign(folder: str) -> list[str]:
    """The entries of ``folder`` raisedocs did not write: not in its manifest (or, in a folder
    written before manifests, not of a catalog's shape)."""
    present = _contents(folder)
    manifest = os.path.join(folder, MANIFEST)
    if os.path.isfile(manifest) and not os.path.islink(manifest):
        with open(manifest, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().split("\n")
        if lines and lines[0] == _MANIFEST_HEAD:
            ours = {*lines[1:], MANIFEST, STATE}
            return [rel for rel in present if rel not in ours]
    return [rel for rel in present if not _LEGACY.fullmatch(rel)]


def write_docs(files: Iterable[tuple[str, str | Iterable[str]]], outdir: str, identity: str | None = None,
               inputs: str | None = None) -> bool:
    """Write ``files`` (relative path, text or its chunks) as the whole content of ``outdir``;
    False when the folder already held exactly that and was left as it is.

    The new folder is built beside the old one and exchanged with it in one atomic rename,
    so ``outdir`` always exists and an interrupted run leaves the previous catalog whole.
    A folder is replaced only while it holds nothing but what raisedocs wrote there. With
    an ``identity`` (render.render_identity) the folder records what it was rendered from;
    when the first file (the catalog) is the one the folder was rendered from under the same
    identity, and no file of it changed since, the rest is not rendered at all. ``inputs``
    (inputs.Selection.identity) is recorded too, so that a later run of the same inputs
    knows the folder is its output before it analyses anything (``unchanged_for``).

    Raises:
        OutputError: ``outdir`` is a file, holds files raisedocs did not write, or cannot
            be written.
    """
    target = os.path.abspath(outdir)
    _check_replaceable(target, outdir)
    staging = _make_staging(os.path.dirname(target))
    try:
        with open(os.path.join(staging, _STAGING_MARK), "w", encoding="utf-8") as handle:
            handle.write("raisedocs: a docs folder being written\n")
        written: dict[str, bytes] = {}
        first: str | None = None
        folders = {staging}  # (made)
        for rel, content in files:
            written[rel] = _write_file(staging, rel, content, target, folders)
            if first is None:
                first = written[rel].hex()
                if identity is not None and _unchanged(target, identity, first) is not None:
                    shutil.rmtree(staging, ignore_errors=True)
                    if inputs is not None:
                        _record_inputs(target, inputs)
                    return False
        _finish_staging(staging, written, identity, first, inputs)
        _swap(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"cannot write {outdir}: {exc.strerror or exc}") from None
    except BaseException:  # (the files' maker failed or was interrupted: the old folder stays)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return True


def _check_replaceable(target: str, outdir: str) -> None:
    """Refuse an output path that is a file, or a folder holding files raisedocs did not write.

    Raises:
        OutputError: ``outdir`` (whose absolute path is ``target``) is a file or holds such files.
    """
    if os.path.lexists(target) and not os.path.isdir(target):
        raise OutputError(f"output path is a file: {outdir}")
    if os.path.isdir(target):
        foreign = _foreign(target)
        if foreign:
            more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
            listed = ", ".join(foreign[:3])
            raise OutputError(f"output folder holds files raisedocs did not write ({listed}{more}); refusing to replace it: {outdir}")


def _make_staging(parent: str) -> str:
    """A new staging folder in ``parent`` (made if missing), a dead run's leftovers removed.

    Raises:
        OutputError: ``parent`` cannot be written.
    """
    try:
        os.makedirs(parent, exist_ok=True)
        remove_stale_staging(parent)
        return tempfile.mkdtemp(prefix=f".raisedocs-{os.getpid()}-", dir=parent)
    except OSError as exc:
        raise OutputError(f"cannot write to {parent}: {exc.strerror}") from None


def _write_file(staging: str, rel: str, content: str | Iterable[str], previous: str | None, folders: set[str]) -> bytes:
    """Write one file (text or its chunks) under ``staging``; the SHA-256 of its bytes. A text
    that ``previous`` (the folder being replaced) holds byte for byte at ``rel`` in a regular
    file is linked from there instead: nothing is written, and removing the old folder frees
    nothing. ``folders``: those made under ``staging`` so far (added to)."""
    full = os.path.join(staging, *rel.split("/"))
    folder = os.path.dirname(full)
    if folder not in folders:
        os.makedirs(folder, exist_ok=True)
        folders.add(folder)
    if isinstance(content, str):
        raw = content.encode("utf-8", "backslashreplace")
        if previous is None or not _link_same(os.path.join(previous, *rel.split("/")), raw, full):
            with open(full, "wb") as handle:
                handle.write(raw)
        return hashlib.sha256(raw).digest()
    digest = hashlib.sha256()
    with open(full, "wb") as handle:
        for chunk in _chunks(content):
            raw = chunk.encode("utf-8", "backslashreplace")
            digest.update(raw)
            handle.write(raw)
    return digest.digest()


def _link_same(old: str, raw: bytes, full: str) -> bool:
    """Hard-link ``old`` at ``full`` where it is a regular file holding exactly ``raw`` (a short
    read counts as different: the file is written)."""
    try:
        fd = os.open(old, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size != len(raw) or os.read(fd, len(raw) + 1) != raw:
                return False
        finally:
            os.close(fd)
        os.link(old, full, follow_symlinks=False)
        if os.lstat(full).st_ino == info.st_ino:
            return True
        os.remove(full)  # (replaced since it was read: written instead)
    except OSError:  # (gone, unreadable, or a file system without hard links: written instead)
        pass
    return False


def _finish_staging(staging: str, written: dict[str, bytes], identity: str | None, first: str | None, inputs: str | None) -> None:
    """The staging folder's manifest and state (with an ``identity``), its mark removed: ready to swap in."""
    with open(os.path.join(staging, MANIFEST), "w", encoding="utf-8", newline="\n") as handle:
        handle.write(manifest_text(written))
    if identity is not None:
        with open(os.path.join(staging, STATE), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(_state_text({"render": identity, "first": first or "", "tree": _tree_digest(written), "input": inputs or "-"}))
    os.remove(os.path.join(staging, _STAGING_MARK))
    os.chmod(staging, 0o755)


_STATE_HEAD = "raisedocs state 2"
_STATE_KEYS = ("render", "first", "tree", "input")


def _state_text(state: dict[str, str]) -> str:
    return "\n".join([_STATE_HEAD, *(f"{key} {state[key]}" for key in _STATE_KEYS)]) + "\n"


def _read_state(folder: str) -> dict[str, str] | None:
    """The folder's state (see STATE); None where there is none, or of another shape."""
    try:
        with open(os.path.join(folder, STATE), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if lines[0] != _STATE_HEAD:
        return None
    state = dict(line.partition(" ")[::2] for line in lines[1:] if line)
    return state if all(key in state for key in _STATE_KEYS) else None


def _record_inputs(folder: str, inputs: str) -> None:
    """Record ``inputs`` in the state of a folder left as it is (it is this run's output)."""
    state = _read_state(folder)
    if state is not None and state["input"] != inputs:
        try:
            write_file_atomic(os.path.join(folder, STATE), _state_text({**state, "input": inputs}))
        except OutputError:
            pass  # a read-only folder is still up to date; the next run only does more work


def _unchanged(folder: str, identity: str, first: str) -> list[str] | None:
    """The files ``folder``'s manifest lists when it was rendered under ``identity`` from a
    first file of digest ``first`` and every one of them is still what was written; else None."""
    state = _read_state(folder)
    return _intact(folder, state) if state is not None and state["render"] == identity and state["first"] == first else None


def unchanged_for(folder: str, inputs: str) -> list[str] | None:
    """The files ``folder``'s manifest lists when a run of the input identity ``inputs``
    wrote it and every one of them is still what was written; else None."""
    state = _read_state(folder)
    return _intact(folder, state) if state is not None and state["input"] == inputs else None


def is_output_of(outdir: str, inputs: str) -> bool:
    """Whether ``outdir`` is what a run of the input identity ``inputs`` writes there, as
    it is: written by it, no file changed since, and nothing added (write_docs would refuse
    the folder then, and says why)."""
    return os.path.isdir(outdir) and unchanged_for(outdir, inputs) is not None and not _foreign(outdir)


def _intact(folder: str, state: dict[str, str]) -> list[str] | None:
    """The files the manifest lists, when each is still what the state's tree digest says."""
    try:
        with open(os.path.join(folder, MANIFEST), encoding="utf-8", errors="surrogateescape") as handle:
            listed = handle.read().split("\n")
    except OSError:
        return None
    if listed[0] != _MANIFEST_HEAD:
        return None
    digests: dict[str, bytes] = {}
    for rel in (p for p in listed[1:] if p):
        digest = _file_digest(os.path.join(folder, *rel.split("/")))
        if digest is None:
            return None
        digests[rel] = digest
    return list(digests) if state["tree"] == _tree_digest(digests) else None


def _tree_digest(digests: dict[str, bytes]) -> str:
    """One digest of files by path (in the manifest's order)."""
    tree = hashlib.sha256()
    for rel in sorted(digests):
        tree.update(rel.encode("utf-8", "surrogateescape") + b"\0" + digests[rel])
    return tree.hexdigest()


def _open_regular(path: str) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file, else None (opened without
    blocking: a FIFO there must not stall the run)."""
    try:
        handle = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb")
    except OSError:
        return None
    if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        return handle
    handle.close()
    return None


def _file_digest(path: str) -> bytes | None:
    handle = _open_regular(path)
    if handle is None:
        return None
    with handle:
        digest = hashlib.sha256()
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
        return digest.digest()


def remove_stale_staging(parent: str) -> None:
    """Remove what dead runs left in ``parent``: folders named like a run's staging folder,
    of a process that no longer exists, that hold raisedocs' staging mark or manifest."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        match = _STAGING.fullmatch(name)
        folder = os.path.join(parent, name)
        if match is None or is_alive(int(match.group(1))) or os.path.islink(folder) or not os.path.isdir(folder):
            continue
        if os.path.exists(os.path.join(folder, _STAGING_MARK)) or os.path.exists(os.path.join(folder, MANIFEST)):
            shutil.rmtree(folder, ignore_errors=True)


def is_alive(pid: int) -> bool:
    """Whether the process ``pid`` (of this machine) still exists."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _swap(staging: str, target: str) -> None:
    if not os.path.exists(target):
        os.rename(staging, target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # now the old catalog
        return
    # No atomic exchange here (not Linux, or a file system without it): two renames, with
    # a moment in between where ``target`` does not exist.
    retired = f"{staging}-old"
    os.rename(target, retired)
    os.rename(staging, target)
    shutil.rmtree(retired, ignore_errors=True)


def _exchange(a: str, b: str) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); False where
    the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), b)


def compare_docs(files: Iterable[tuple[str, str | Iterable[str]]], docs_dir: str, identity: str | None = None) -> dict[str, list[str]]:
    """Which files of ``docs_dir`` differ from ``files`` (stale), are absent (missing) or
    are not produced any more (orphaned). With an ``identity``, a folder whose state says it
    was rendered from the same first file (see write_docs) is compared without rendering.

    Raises:
        OutputError: ``docs_dir`` is not a folder.
    """
    present = _present(docs_dir)
    report: dict[str, list[str]] = {"stale": [], "missing": [], "orphaned": []}
    produced: list[str] = []

    def compare(rel: str, content: str | Iterable[str]) -> None:
        if rel not in present:
            report["missing"].append(rel)
        elif not _same(present[rel], content):
            report["stale"].append(rel)

    for rel, content in files:
        if not produced and identity is not None and rel in present:  # the catalog, compared as it streams
            digest = hashlib.sha256()
            same = _same(present[rel], content, digest)
            listed = _unchanged(docs_dir, identity, digest.hexdigest()) if same else None
            if listed is not None:
                report["orphaned"] = sorted(set(present) - {*listed, MANIFEST, STATE})
                return report
            produced.append(rel)
            if not same:
                report["stale"].append(rel)
            continue
        produced.append(rel)
        compare(rel, content)
    compare(MANIFEST, manifest_text(produced))
    report["orphaned"] = sorted(set(present) - {*produced, MANIFEST, STATE})
    report["stale"].sort()
    report["missing"].sort()
    return report


def compare_unchanged(docs_dir: str, inputs: str) -> dict[str, list[str]] | None:
    """``compare_docs``' report without rendering anything, when a run of the input
    identity ``inputs`` wrote ``docs_dir`` and none of its files changed since; else None
    (also for a ``docs_dir`` that is no folder: compare_docs says so)."""
    listed = unchanged_for(docs_dir, inputs)
    if listed is None:
        return None
    return {"stale": [], "missing": [], "orphaned": sorted(set(_present(docs_dir)) - {*listed, MANIFEST, STATE})}


def _present(docs_dir: str) -> dict[str, str]:
    """Every file under ``docs_dir``, relative path -> full path.

    Raises:
        OutputError: ``docs_dir`` is not a folder.
    """
    if not os.path.isdir(docs_dir):
        raise OutputError(f"not a docs folder: {docs_dir}")
    present: dict[str, str] = {}
    for dirpath, _, filenames in os.walk(docs_dir):
        for name in filenames:
            full = os.path.join(dirpath, name)
            present[os.path.relpath(full, docs_dir).replace(os.sep, "/")] = full
    return present


def _chunks(content: str | Iterable[str]) -> Iterable[str]:
    return (content,) if isinstance(content, str) else content


def _same(path: str, content: str | Iterable[str], digest: Any = None) -> bool:
    """Whether a regular file holds exactly ``content``, read chunk by chunk (a FIFO there must
    not stall ``check``, and a large catalog.json is never read whole); ``digest`` (a hashlib
    object) takes each chunk compared."""
    handle = _open_regular(path)
    if handle is None:
        return False
    with handle:
        for chunk in _chunks(content):
            raw = chunk.encode("utf-8", "backslashreplace")
            if digest is not None:
                digest.update(raw)
            if handle.read(len(raw)) != raw:
                return False
        return handle.read(1) == b""


def write_file_atomic(path: str, text: str) -> None:
    """Replace the file ``path`` with ``text`` in one rename: a reader sees the old file or the new.

    Raises:
        OutputError: the folder cannot be written.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".raisedocs-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temp, path)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
