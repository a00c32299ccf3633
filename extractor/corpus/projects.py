"""Projects: the corpus list's lines -> one ``Project`` each (where it comes from, its key).

One project per line; ``#`` starts a comment. A line is:

- a PyPI requirement, ``click==8.1.7`` or ``click`` (the latest release);
- a git repository and a revision, ``URL@rev`` or ``PATH@rev`` (``git+`` is allowed before a URL);
- a local folder, ``PATH``.

Relative paths are read from the list's folder. A project's key (its folder in the state and
the prefix of its cards' ids) is the normalised PyPI name, else the repository's or folder's
name; two lines with one key are an error of the list.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..errors import RaisedocsError
from ..model.codes import BuildFailure, ProjectKind


class BuildError(Exception):
    """One project cannot be built: a code and a one-line detail (the state records both)."""

    def __init__(self, code: BuildFailure, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = " ".join(detail.split())[:300]


class ListError(RaisedocsError):
    """The corpus list cannot be read, or a line of it names no project."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """One project of the list: ``source`` is the PyPI name, the repository (URL or absolute
    path) or the absolute folder; ``pin`` the version or revision asked for, if any."""

    key: str
    kind: ProjectKind
    source: str
    pin: str | None
    line: str


_REQUIREMENT = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:\[[^\]]*\])?\s*(?:==\s*([A-Za-z0-9.+!_-]+))?")
_URL = re.compile(r"(?:git\+)?(?:https?|ssh|git|file)://\S+")
_KEY = re.compile(r"[^a-z0-9]+")


def normalize(name: str) -> str:
    """A key from a name: PEP 503's normalised form (lower case, runs of ``-_.`` one ``-``)."""
    return _KEY.sub("-", name.lower()).strip("-") or "project"


def read_list(path: str) -> list[Project]:
    """The projects of the list file at ``path``, in its order.

    Raises:
        ListError: the file cannot be read, a line names no project, or two lines one key.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ListError(f"cannot read the project list {path}: {exc}") from None
    base = os.path.dirname(os.path.abspath(path))
    projects: dict[str, Project] = {}
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip() if not _URL.match(raw.strip()) else raw.strip()
        if not text:
            continue
        project = parse_line(text, base)
        if project is None:
            raise ListError(f"{path}:{number}: not a PyPI requirement (name==version), URL@rev, PATH@rev or folder: {text!r}")
        if project.key in projects:
            raise ListError(f"{path}:{number}: {project.key!r} is listed twice (also as {projects[project.key].line!r})")
        projects[project.key] = project
    return list(projects.values())


def parse_line(text: str, base: str) -> Project | None:
    """The project one line names (paths relative to ``base``), or None."""
    if _URL.fullmatch(text):
        url, at, rev = text.removeprefix("git+").rpartition("@")
        repo, rev = (url, rev) if at and "/" not in rev else (text.removeprefix("git+"), "")
        return Project(key=normalize(_last_part(repo)), kind=ProjectKind.GIT, source=repo, pin=rev or None, line=text)
    path, at, rev = text.rpartition("@")
    if at and os.path.isdir(os.path.join(base, path)) and rev:
        repo = os.path.normpath(os.path.join(base, path))
        return Project(key=normalize(_last_part(repo)), kind=ProjectKind.GIT, source=repo, pin=rev, line=text)
    if os.sep in text or text.startswith(".") or os.path.isdir(os.path.join(base, text)) and not _REQUIREMENT.fullmatch(text):
        folder = os.path.normpath(os.path.join(base, text))
        return Project(key=normalize(os.path.basename(folder)), kind=ProjectKind.FOLDER, source=folder, pin=None, line=text)
    match = _REQUIREMENT.fullmatch(text)
    if match is None:
        return None
    return Project(key=normalize(match.group(1)), kind=ProjectKind.PYPI, source=match.group(1), pin=match.group(2), line=text)


def _last_part(repo: str) -> str:
    return repo.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
