"""raisedocs: turn a Python repository into an error catalog, one card per raise site.

The public API, one function per thing a caller does with a catalog:

- ``extract(root, options)``: analyse a tree (or a commit) into a ``Catalog`` record;
- ``load_catalog(path)``: read a catalog.json (or a docs folder's) as JSON data;
- ``render(catalog_data)``: the files of a docs folder, as (relative path, text) pairs;
- ``diff_catalogs(old_data, new_data)``: the changes between two catalogs;
- ``explain(text, catalog_data, limit)``: the cards whose message matches a pasted error.
"""

from __future__ import annotations

import importlib
from typing import Any

from .version import VERSION as __version__

# Imported on first use (PEP 562): ``raisedocs explain`` must not pay for libcst and the
# analysis stages it never runs.
_EXPORTS = {
    "extract": ("pipeline", "extract"),
    "diff_catalogs": ("publish.diff", "diff_catalogs"),
    "load_catalog": ("publish.catalog_file", "load_catalog"),
    "explain": ("publish.explain", "match_message"),
    "render_docs": ("publish.render", "render_docs"),
    "render": ("publish.render", "render_docs"),
}

__all__ = ["__version__", "diff_catalogs", "explain", "extract", "load_catalog", "render", "render_docs"]


def __getattr__(name: str) -> Any:
    found = _EXPORTS.get(name)
    if found is None:
        raise AttributeError(f"module 'extractor' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{found[0]}", __name__), found[1])
    globals()[name] = value
    return value
