"""Settings: one frozen Options object carries every knob of a run."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "env",
    ".env",
    ".tox",
    ".nox",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    "site-packages",
    "*.egg-info",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Every setting of a run; stages take this instead of long parameter lists."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    use_default_excludes: bool = True
    exceptions: tuple[str, ...] = ()
    excerpt_lines: int = 40
    repo_url: str | None = None
    rev: str | None = None
    repo_name: str | None = None
    command: str | None = None
    jobs: int = 1
    use_cache: bool = False
    cache_dir: str | None = None
    is_strict: bool = False

    @property
    def excluded_dirs(self) -> tuple[str, ...]:
        return (DEFAULT_EXCLUDES if self.use_default_excludes else ()) + self.exclude


def strict_from_env() -> bool:
    """``RAISEDOCS_STRICT=1`` turns per-file and per-site gaps into errors (used by tests)."""
    return os.environ.get("RAISEDOCS_STRICT", "") not in ("", "0")
