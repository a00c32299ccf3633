"""raisedocs: turn a Python repository into an error catalog, one card per raise site."""

from __future__ import annotations

__version__ = "0.1.0"

from .pipeline import extract  # noqa: E402

__all__ = ["__version__", "extract"]
