"""What a run reads: the selected files, the options completed from the project, and one
digest of all of it, the input identity.

The output is a pure function of the input identity (the same files, options, raisedocs
code, templates, Python and libraries give byte-identical output), so a docs folder whose
state records this run's identity, and whose files are as written, is what this run would
write: ``extract -o`` leaves it as it is and ``check`` passes, without analysing anything.
This module imports nothing of the analysis, so that case costs reading the tree and
hashing the folder.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from typing import Any

from .cache import CODE, TOOLCHAIN
from .git import origin, resolve_rev, work_tree_head, work_tree_top
from .model import FileFailure, RunOptions
from .options import Options, project_command, project_name, read_settings
from .publish.identity import render_identity
from .sources import SourceFile, log, read_commit, read_distribution_name, read_pyproject, read_tree, sole_package, source_roots

# Options fields the input identity leaves out: those that change how a run goes, never what
# it writes, and ``pinned``, which writes only the name and URL it resolves to (digested as such).
RUN_ONLY = frozenset({"jobs", "use_cache", "cache_dir", "is_strict", "pinned"})


@dataclasses.dataclass(frozen=True)
class Selection:
    """The files a run analyses (contents not read yet), the files it could not read, its
    options completed from the repository, and the name its cards show."""

    files: list[SourceFile]
    failures: list[FileFailure]
    options: Options
    name: str

    @functools.cached_property
    def identity(self) -> str:
        """One digest of everything the output depends on (see the module docstring)."""
        options = {f.name: getattr(self.options, f.name) for f in dataclasses.fields(Options) if f.name not in RUN_ONLY}
        material = json.dumps([
            "raisedocs input 1", CODE, TOOLCHAIN, render_identity(), self.name, options,
            [[f.path, f.blob_sha] for f in self.files], [[f.path, f.stage, f.error] for f in self.failures],
        ], sort_keys=True)
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def select_sources(root: str, options: Options) -> Selection:
    """The files to analyse, the options completed from the repository, and the root's name.

    Raises:
        SourceError: ``root`` cannot be read, or ``options.rev`` names no commit.
    """
    if options.rev is not None:
        sha = resolve_rev(root, options.rev)
        project = read_pyproject(root, sha)
        options = with_settings(options, project)
        files, failures = read_commit(root, sha, options)
        command = options.command or project_command(project)
        url, remote_name = origin(root)
        options = dataclasses.replace(options, rev=sha, repo_url=repo_url(options, url), command=command)
    else:
        project = read_pyproject(root) if os.path.isdir(root) else {}
        options = with_settings(options, project)
        head = work_tree_head(root) if os.path.isdir(root) else None
        options = dataclasses.replace(options, repo_url=repo_url(options, None))
        if options.repo_url and head is not None:  # permalinks need a commit: the checkout's
            log.info(f"note: --repo-url without --rev: reading and pinning the checkout's HEAD ({head[:10]}), not its work tree")
            return select_sources(root, dataclasses.replace(options, rev=head))
        if options.repo_url:
            log.warning("warning: --repo-url without --rev gives no permalinks: cards link a commit only (pin one with --rev)")
        files, failures = read_tree(root, options)
        remote_name = origin(root)[1] if head is not None else None  # a folder inside a checkout is not named by it
        if options.command is None and os.path.isdir(root):
            options = dataclasses.replace(options, command=project_command(project))
    paths = [f.path for f in files]
    options = dataclasses.replace(options, source_roots=source_roots(paths))
    return Selection(files, failures, options, repo_name(root, options, project, paths, remote_name))


def repo_url(options: Options, found: str | None) -> str | None:
    """The repository's forge URL: the one given (``--repo-url``, ``[tool.raisedocs]
    repo-url``), else the one the docs folder records (``options.pinned``; None included:
    the docs had none), else ``found`` (``origin``'s, read for a commit)."""
    if options.repo_url:
        return options.repo_url
    return options.pinned.url if options.pinned is not None else found


UNNAMED = "unnamed"  # the name of a tree that gives none (a temporary folder of loose modules)


def repo_name(root: str, options: Options, project: dict[str, Any], paths: list[str], remote: str | None) -> str:
    """The name the cards show for the repository at ``root``: the one given (``--repo-name``,
    ``[tool.raisedocs] repo-name``), else the first proper one (``is_proper_name``) of, in order:

    1. the name the docs folder records (``options.pinned``), so that every clone writes the
       same docs whatever its remote and its folder are called;
    2. ``[project] name`` in pyproject.toml;
    3. the ``Name:`` of an unpacked distribution's metadata (a folder, not a commit);
    4. the name ``origin``'s URL ends with (``remote``: for a commit, or the top of a checkout);
    5. for a folder named ``src`` or ``lib`` (a wheel unpacked there), its one top-level package;
    6. the folder's name, unless the folder is temporary (``is_temporary``);
    7. the tree's one top-level package, below its source roots;
    8. the folder's name at the top of the git work tree holding it, unless temporary.

    Else ``UNNAMED``, with a note saying so.
    """
    if options.repo_name:
        return options.repo_name
    folder = os.path.realpath(root)

    def candidates() -> Iterator[str | None]:
        yield options.pinned.name if options.pinned is not None else None
        yield project_name(project)
        yield read_distribution_name(root) if options.rev is None and os.path.isdir(root) else None
        yield remote
        yield sole_package(paths) if os.path.basename(folder) in ("src", "lib") else None
        yield None if is_temporary(folder) else os.path.basename(folder).removesuffix(".git")
        yield sole_package(paths, options.source_roots)
        top = work_tree_top(root) if os.path.isdir(root) else None
        yield None if top is None or is_temporary(top) else os.path.basename(os.path.realpath(top))

    name = next((n for n in candidates() if is_proper_name(n)), None)
    if name is None:
        log.info(f"note: neither the tree, its remote nor its folder ({folder}) names the repository: "
                 f"cards show {UNNAMED!r}; give a name with --repo-name")
    return name or UNNAMED


# The names ``tempfile.mkdtemp`` (``tmp`` and 8 of [a-z0-9_]) and ``mktemp -d`` (``tmp.`` and 10 letters or digits) make
_TEMPORARY_NAME = re.compile(r"tmp[a-z0-9_]{8}|tmp\.[A-Za-z0-9]{10}")


def is_proper_name(name: str | None) -> bool:
    """Whether ``name`` can name a repository: not empty, ``.`` or ``..``, nor a temporary
    folder's name (``_TEMPORARY_NAME``)."""
    return bool(name and name.strip() and name not in (".", "..") and not _TEMPORARY_NAME.fullmatch(name))


def is_temporary(folder: str) -> bool:
    """Whether ``folder`` is temporary: the system's temporary folder, or a folder in it
    whose name starts with ``tmp``. (A name tempfile makes, anywhere, is not proper.)"""
    real, temp = os.path.realpath(folder), os.path.realpath(tempfile.gettempdir())
    return real == temp or (os.path.dirname(real) == temp and os.path.basename(real).startswith("tmp"))


_DEFAULTS = Options()


def with_settings(options: Options, project: dict[str, Any]) -> Options:
    """``options`` with the analysed project's ``[tool.raisedocs]`` settings for every field
    the run left at its default (what the command line gives wins)."""
    found, warnings = read_settings(project)
    for warning in warnings:
        log.warning("warning: %s", warning)
    changes = {k: v for k, v in found.items() if getattr(options, k) == getattr(_DEFAULTS, k)}
    return dataclasses.replace(options, **changes) if changes else options


def run_options(selection: Selection) -> RunOptions:
    """What ``check`` and ``diff`` need to run the same selection and rendering again, with
    the name and URL the cards show, which a later run into the same folder reuses."""
    options = selection.options
    return RunOptions(
        include=options.include, exclude=options.exclude, use_default_excludes=options.use_default_excludes,
        exceptions=options.exceptions, excerpt_lines=options.excerpt_lines, command=options.command,
        repo_name=selection.name, repo_url=options.repo_url, skip_tests=options.skip_tests,
        card_json=options.card_json,
    )


def unchanged_docs(docs_dir: str, selection: Selection) -> dict[str, Any] | None:
    """The envelope of ``docs_dir``'s catalog (all of it but the cards) when the folder is
    what a run of ``selection`` writes there, as it was written (output.is_output_of); else None."""
    from .publish.catalog_file import read_envelope
    from .publish.output import is_output_of

    if not is_output_of(docs_dir, selection.identity):
        return None
    envelope = read_envelope(docs_dir)
    if envelope is not None:
        warn_unmatched(selection.options, envelope["stats"]["cards"])
    return envelope


def warn_unmatched(options: Options, cards: int) -> None:
    """Say so when ``--exception`` kept no card (a misspelt class gives an empty catalog)."""
    if options.exceptions and not cards:
        log.warning("warning: --exception %s matched no card (a class, or a base class, as raised)", ", ".join(options.exceptions))
