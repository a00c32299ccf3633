"""Settings: one frozen Options object carries every knob of a run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

EXCERPT_LINES = 30  # source lines shown around a raise
# Folders left out by default (a folder holding ``pyvenv.cfg``, a virtualenv, is too: by what
# it is, not by its name, so the standard library's own ``venv`` package is read).
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    "site-packages",
    "*.egg-info",
)
# Of those, the folders that never hold sources: leaving them out needs no note.
SILENT_EXCLUDES = frozenset({".git", ".hg", ".svn", "__pycache__"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Pinned:
    """The repository's name and forge URL (None: it had none) as a docs folder records
    them: what the run that wrote it showed on its cards."""

    name: str
    url: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Every setting of a run; stages take this instead of long parameter lists."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    use_default_excludes: bool = True
    exceptions: tuple[str, ...] = ()
    excerpt_lines: int = EXCERPT_LINES
    repo_url: str | None = None
    rev: str | None = None
    repo_name: str | None = None
    command: str | None = None
    jobs: int = 1
    use_cache: bool = False
    cache_dir: str | None = None
    is_strict: bool = False
    skip_tests: bool = False  # --no-tests: leave out test code (is_test_path)
    card_json: bool = False  # --card-json: also errors/<id>.json per card (catalog.json holds them all)
    # Read from the docs folder a run writes or checks, not given: the name and URL its run
    # showed, used where none is given (inputs.repo_name), so every clone writes the same docs.
    pinned: Pinned | None = None
    # Found in the tree, not given: the folders above its top-level packages (``src/``,
    # ``lib/`` layouts), left out of module names (sources.source_roots).
    source_roots: tuple[str, ...] = ()

    @property
    def excluded_dirs(self) -> tuple[str, ...]:
        return (DEFAULT_EXCLUDES if self.use_default_excludes else ()) + self.exclude

    def extract_command(self, source: str, docs_dir: str) -> str:
        """The ``raisedocs extract`` command line that writes these docs with these options."""
        import shlex

        words = ["raisedocs", "extract", source, "-o", docs_dir]
        if self.rev:
            words += ["--rev", self.rev]
        for flag, values in (("--include", self.include), ("--exclude", self.exclude), ("--exception", self.exceptions)):
            for value in values:
                words += [flag, value]
        if not self.use_default_excludes:
            words.append("--no-default-excludes")
        if self.skip_tests:
            words.append("--no-tests")
        if self.card_json:
            words.append("--card-json")
        if self.excerpt_lines != EXCERPT_LINES:
            words += ["--excerpt-lines", str(self.excerpt_lines)]
        for flag, given in (("--command", self.command), ("--repo-name", self.repo_name), ("--repo-url", self.repo_url)):
            if given:
                words += [flag, given]
        return " ".join(shlex.quote(w) for w in words)


def recorded_settings(catalog: dict[str, Any] | None) -> dict[str, Any]:
    """The Options fields a catalog's ``options`` record; {} for none.

    Its ``repo_name`` and ``repo_url``, the name and URL its run showed, are ``pinned``: used
    where no name or URL is given. A catalog that records no name (written before raisedocs
    recorded them) gives its URL as given, as it was read then."""
    recorded = (catalog or {}).get("options") or {}
    fields = Options.__dataclass_fields__
    settings = {k: tuple(v) if isinstance(v, list) else v for k, v in recorded.items() if k in fields and k != "pinned"}
    name = settings.pop("repo_name", None)
    if isinstance(name, str) and name:
        url = settings.pop("repo_url", None)
        settings["pinned"] = Pinned(name=name, url=url if isinstance(url, str) else None)
    return settings


def strict_from_env() -> bool:
    """``RAISEDOCS_STRICT=1`` turns per-file and per-site gaps into errors (used by tests)."""
    return os.environ.get("RAISEDOCS_STRICT", "") not in ("", "0")


# ``[tool.raisedocs]`` keys -> (Options field, the type its value must have)
SETTINGS = {
    "include": ("include", list), "exclude": ("exclude", list), "default-excludes": ("use_default_excludes", bool),
    "exceptions": ("exceptions", list), "excerpt-lines": ("excerpt_lines", int), "command": ("command", str),
    "repo-name": ("repo_name", str), "repo-url": ("repo_url", str), "no-tests": ("skip_tests", bool),
    "card-json": ("card_json", bool),
}

_TEST_DIRS = frozenset({"test", "tests", "testing"})


def is_test_path(path: str) -> bool:
    """Test code by the usual conventions: a ``test``/``tests``/``testing`` folder, ``test_*.py``,
    ``*_test.py``, ``conftest.py``, ``test.py``, ``tests.py``."""
    *folders, name = path.split("/")
    return (any(f in _TEST_DIRS for f in folders) or name.startswith("test_") or name.endswith("_test.py")
            or name in ("conftest.py", "tests.py", "test.py"))


def read_settings(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The ``[tool.raisedocs]`` table of pyproject data as Options fields, and a one-line
    warning for each key it does not know or whose value has the wrong type."""
    table = data.get("tool", {}).get("raisedocs", {}) if isinstance(data.get("tool"), dict) else {}
    found: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in sorted(table.items()) if isinstance(table, dict) else ():
        if key not in SETTINGS:
            warnings.append(f"[tool.raisedocs] {key}: not a raisedocs setting (known: {', '.join(sorted(SETTINGS))})")
            continue
        field, kind = SETTINGS[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is list:
            ok = ok and all(isinstance(item, str) for item in value)
        if not ok:
            warnings.append(f"[tool.raisedocs] {key}: expected {'a list of strings' if kind is list else kind.__name__}, got {value!r}")
            continue
        found[field] = tuple(value) if kind is list else value
    return found, warnings


def project_command(data: dict[str, Any]) -> str | None:
    """The command a CLI example starts with, from the analysed repo's pyproject data:
    ``[tool.raisedocs] command``, else the first console script ``[project.scripts]`` declares."""
    tool = data.get("tool")
    command = tool.get("raisedocs", {}).get("command") if isinstance(tool, dict) and isinstance(tool.get("raisedocs"), dict) else None
    if isinstance(command, str) and command.strip():
        return command.strip()
    project = data.get("project")
    scripts = project.get("scripts", {}) if isinstance(project, dict) else {}
    if isinstance(scripts, dict) and scripts:
        return min(scripts)
    return None


def project_name(data: dict[str, Any]) -> str | None:
    """``[project] name`` of the analysed repo's pyproject data, where it gives one."""
    project = data.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else None
