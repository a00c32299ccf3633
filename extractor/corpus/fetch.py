"""Fetch: a project of the list -> what it resolves to (version, commit) and, on a worker, its files.

``resolve`` runs on the coordinator and is cheap: it pins what the list leaves open (the
latest release, a branch's commit, a folder's content digest), so that a project built at
the same pin is skipped. ``materialize`` runs on a worker: it downloads a PyPI release (a
pure wheel first, else the sdist), checks its sha256 against the index's, and unpacks it
(``archives``), never running ``setup.py`` or a build backend; a git project is read from
its object store by ``extract --rev``, a folder as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from ..errors import SourceError
from ..git import resolve_rev, run_git
from ..model.codes import BuildFailure, ProjectKind
from ..options import Options
from ..sources import read_tree
from .archives import Limits, unpack
from .projects import BuildError, Project

PYPI = "https://pypi.org"


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchSettings:
    """Where PyPI is, and how much one download may be."""

    index: str = PYPI  # serves /pypi/NAME/json and /pypi/NAME/VERSION/json (PyPI's JSON API)
    max_download_bytes: int = 256 << 20
    limits: Limits = field(default_factory=Limits)
    timeout: float = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolved:
    """What a project is pinned to: a release's version, or a commit's or folder's sha."""

    version: str | None = None
    sha: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tree:
    """The files to extract: ``path``, and for a git project the commit to read there."""

    path: str
    rev: str | None = None
    artifact: str | None = None  # the downloaded file's name and sha256, ``name sha256:hex``


def resolve(project: Project, settings: FetchSettings) -> Resolved:
    """Pin the project.

    Raises:
        BuildError: the package, repository, revision or folder cannot be found.
    """
    if project.kind == ProjectKind.PYPI:
        return Resolved(version=project.pin or _latest(project.source, settings))
    if project.kind == ProjectKind.GIT:
        return Resolved(sha=_commit(project))
    return Resolved(sha=folder_digest(project.source))


def _latest(name: str, settings: FetchSettings) -> str:
    version = _release_json(name, None, settings).get("info", {}).get("version")
    if not isinstance(version, str) or not version:
        raise BuildError(BuildFailure.NOT_FOUND, f"PyPI gives no version of {name}")
    return version


def _commit(project: Project) -> str:
    rev = project.pin or "HEAD"
    if os.path.isdir(project.source):
        try:
            return resolve_rev(project.source, rev)
        except SourceError as exc:
            raise BuildError(BuildFailure.NOT_FOUND, str(exc)) from None
    if re.fullmatch(r"[0-9a-f]{40}", rev):
        return rev
    try:
        listed = run_git(".", "ls-remote", "--end-of-options", project.source, rev).decode()
    except SourceError as exc:
        raise BuildError(BuildFailure.NOT_FOUND, str(exc)) from None
    shas = [line.split()[0] for line in listed.splitlines() if line.strip()]
    if not shas:
        raise BuildError(BuildFailure.NOT_FOUND, f"{project.source} has no revision {rev}")
    return shas[0]


def folder_digest(folder: str) -> str:
    """A digest of the Python files an extract of ``folder`` reads (paths and blob shas).

    Raises:
        BuildError: ``folder`` is not a folder.
    """
    if not os.path.isdir(folder):
        raise BuildError(BuildFailure.NOT_FOUND, f"no folder {folder}")
    files, failures = read_tree(folder, Options())
    digest = hashlib.sha256()
    for path, blob in sorted([(f.path, f.blob_sha) for f in files] + [(f.path, "?") for f in failures]):
        digest.update(f"{path}\0{blob}\0".encode())
    return "tree-" + digest.hexdigest()[:40]


def materialize(project: Project, resolved: Resolved, workdir: str, settings: FetchSettings) -> Tree:
    """The project's files, under ``workdir`` for a download.

    Raises:
        BuildError: the release has nothing to read, the download fails or is refused.
    """
    if project.kind == ProjectKind.FOLDER:
        return Tree(path=project.source)
    if project.kind == ProjectKind.GIT:
        return Tree(path=_repository(project, workdir), rev=resolved.sha)
    chosen = choose_file(release_files(project.source, resolved.version or "", settings))
    if chosen is None:
        raise BuildError(BuildFailure.NO_DISTRIBUTION, f"{project.source} {resolved.version} has no wheel or sdist")
    archive = os.path.join(workdir, "download")
    digest = download(chosen["url"], archive, chosen.get("digests", {}).get("sha256"), settings)
    tree = os.path.join(workdir, f"{project.key}-{resolved.version}")  # (the catalog names its root by it)
    os.mkdir(tree)
    unpack(archive, tree, settings.limits)
    os.unlink(archive)
    is_wheel = str(chosen["filename"]).endswith(".whl")
    return Tree(path=tree if is_wheel else _top(tree), artifact=f"{chosen['filename']} sha256:{digest}")


def _repository(project: Project, workdir: str) -> str:
    if os.path.isdir(project.source):
        return project.source  # read only: extract --rev reads its object store
    target = os.path.join(workdir, "repo.git")
    try:  # a bare clone checks nothing out and runs no hook of the repository's
        run_git(workdir, "clone", "--bare", "--quiet", "--end-of-options", project.source, target)
    except SourceError as exc:
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, str(exc)) from None
    return target


def choose_file(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The release file to read: a pure-Python wheel, else the sdist, else any wheel (its
    Python files are as readable); in each, the first the index lists."""
    def rank(entry: dict[str, Any]) -> int:
        name = str(entry.get("filename", ""))
        if name.endswith(".whl"):
            return 0 if name.endswith("-none-any.whl") else 2
        return 1 if name.endswith((".tar.gz", ".zip", ".tgz", ".tar.bz2")) else 9
    ranked = sorted((rank(f), i) for i, f in enumerate(files) if not f.get("yanked"))
    return files[ranked[0][1]] if ranked and ranked[0][0] < 9 else None


def release_files(name: str, version: str, settings: FetchSettings) -> list[dict[str, Any]]:
    """The files of one release, as PyPI's JSON API lists them: its version's document, else
    (an index that serves only the project's document, as some mirrors do) its ``releases``.

    Raises:
        BuildError: the project or the version does not exist, or the index cannot be read.
    """
    try:
        return list(_release_json(name, version, settings).get("urls") or [])
    except BuildError as exc:
        if exc.code != BuildFailure.NOT_FOUND:
            raise
    releases = _release_json(name, None, settings).get("releases") or {}
    if version not in releases:
        raise BuildError(BuildFailure.NOT_FOUND, f"PyPI has no release {version} of {name}")
    return list(releases[version] or [])


def _release_json(name: str, version: str | None, settings: FetchSettings) -> dict[str, Any]:
    path = f"/pypi/{urllib.parse.quote(name)}/" + (f"{urllib.parse.quote(version)}/" if version else "") + "json"
    url = settings.index.rstrip("/") + path
    try:
        with urllib.request.urlopen(url, timeout=settings.timeout) as response:
            data = json.loads(response.read(16 << 20))
    except urllib.error.HTTPError as exc:
        code = BuildFailure.NOT_FOUND if exc.code == 404 else BuildFailure.DOWNLOAD_FAILED
        raise BuildError(code, f"{name}{' ' + version if version else ''}: PyPI answered {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, f"{name}: cannot read PyPI's JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, f"{name}: PyPI's JSON is not an object")
    for entry in [*(data.get("urls") or []), *(f for files in (data.get("releases") or {}).values() for f in files or ())]:
        if isinstance(entry, dict) and isinstance(entry.get("url"), str):  # (a mirror may list them relative to the document)
            entry["url"] = urllib.parse.urljoin(url, entry["url"])
    return data


def download(url: str, target: str, sha256: str | None, settings: FetchSettings) -> str:
    """Download ``url`` to ``target``, at most ``settings.max_download_bytes``; its sha256.

    Raises:
        BuildError: the download fails, is too large, or does not match ``sha256``.
    """
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, f"not an http(s) URL: {url}")
    digest = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=settings.timeout) as response, open(target, "xb") as out:
            while chunk := response.read(1 << 20):
                size += len(chunk)
                if size > settings.max_download_bytes:
                    raise BuildError(BuildFailure.DOWNLOAD_TOO_LARGE, f"{url} is over {settings.max_download_bytes} bytes")
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, OSError) as exc:
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, f"{url}: {exc}") from None
    if sha256 and digest.hexdigest() != sha256.lower():
        raise BuildError(BuildFailure.DOWNLOAD_FAILED, f"{url}: sha256 {digest.hexdigest()} is not the index's {sha256}")
    return digest.hexdigest()


def _top(tree: str) -> str:
    """An sdist's one top folder (``name-1.0/``), else the tree itself."""
    names = os.listdir(tree)
    if len(names) == 1 and os.path.isdir(os.path.join(tree, names[0])):
        return os.path.join(tree, names[0])
    return tree
