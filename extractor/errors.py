"""Whole-run failures: the only exceptions the library lets reach its caller."""

from __future__ import annotations


class RaisedocsError(Exception):
    """Base of every whole-run failure; the CLI prints it on one line and exits 2."""


class SourceError(RaisedocsError):
    """The analysed path or revision cannot be read."""


class OutputError(RaisedocsError):
    """The output location cannot be written."""


class CatalogError(RaisedocsError):
    """A catalog file cannot be read or does not match the schema."""

