"""raisedocs: turn a Python repository into an error catalog, one card per raise site."""

from __future__ import annotations

__version__ = "0.1.0"

from .pipeline import extract  # noqa: E402
from .publish.diff import diff_catalogs  # noqa: E402
from .publish.explain import load_catalog  # noqa: E402
from .publish.render import render_docs  # noqa: E402

__all__ = ["__version__", "diff_catalogs", "extract", "load_catalog", "render_docs"]
