"""Re-exports: ``from ._client import *`` and ``__all__`` -> the names a package binds, and
the public module a caller imports a definition from.

``httpx`` defines ``Client`` in ``httpx/_client.py`` and binds it in ``httpx/__init__.py``
by ``from ._client import *``: ``httpx.Client`` is that class (what a raise of
``httpx.UnsupportedProtocol`` names), and an example imports it ``from httpx``, never from
the private module. A star import binds the names of the module's literal ``__all__``,
else its public module-level names (Python's rule); a module whose ``__all__`` the tree
does not give as a literal binds nothing seen here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import FileFacts

if TYPE_CHECKING:
    from .project import Project

_MAX_STARS = 6  # star imports followed through (a package re-exporting a package's re-exports)


def star_target(project: Project, facts: FileFacts, name: str, depth: int = 0) -> str | None:
    """The absolute dotted name that one of the module's star imports binds ``name`` to (the
    last one that binds it wins); None where none is seen to."""
    if depth >= _MAX_STARS:
        return None
    for star in reversed(facts.star_imports):
        module = project.module(star)
        if module is None or module.module != star:
            continue  # outside the tree (or only a suffix match): what it binds is not known
        if module.exports is not None:
            if name not in module.exports:
                continue
        elif name.startswith("_") or "__all__" in module.module_names:
            continue
        if name in module.module_names:
            return f"{star}.{name}"
        found = star_target(project, module, name, depth + 1)
        if found is not None:
            return found
    return None


def public_module(project: Project, module: str, name: str) -> str | None:
    """The module a caller imports ``name`` (a top-level definition of ``module``) from: the
    module itself where no part of its name is private, else the shortest public package
    above it that binds the same definition (``httpx._client.Client`` -> ``httpx``); None
    where there is none."""
    parts = module.split(".")
    if all(_public(p) for p in parts):
        return module
    target = f"{module}.{name}"
    for cut in range(1, len(parts)):
        if not _public(parts[cut - 1]):
            break
        prefix = ".".join(parts[:cut])
        if project.lookup(f"{prefix}.{name}").qualname == target:
            return prefix
    return None


def entry_module(project: Project, module: str, function: str | None) -> str | None:
    """Where a caller imports the top-level definition of ``function`` (a qualname) from."""
    if not function or "<locals>" in function:
        return None
    return public_module(project, module, function.split(".", 1)[0])


def _public(name: str) -> bool:
    return not name.startswith("_")
