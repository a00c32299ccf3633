"""raisedocs: turn a Python repository into an error catalog, one card per raise site.

The public API, one function per thing a caller does with a catalog:

- ``extract(root, options)``: analyse a tree (or a commit) into a ``Catalog`` record;
- ``load_catalog(path)``: read a catalog.json (or a docs folder's) as JSON data;
- ``render(catalog_data)``: the files of a docs folder, as (relative path, text) pairs;
- ``diff_catalogs(old_data, new_data)``: the changes between two catalogs;
- ``explain(text, catalog_data, limit)``: the cards whose message matches a pasted error.
"""

from __future__ import annotations

from .pipeline import extract
from .publish.diff import diff_catalogs
from .publish.explain import load_catalog
from .publish.explain import match_message as explain
from .publish.render import render_docs
from .publish.render import render_docs as render
from .version import VERSION as __version__

__all__ = ["__version__", "diff_catalogs", "explain", "extract", "load_catalog", "render", "render_docs"]
