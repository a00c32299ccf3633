"""The record decorator every model class uses, and the catalog's schema id."""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_ID = "raisedocs/catalog/1"
DIFF_SCHEMA_ID = "raisedocs/diff/1"  # what `raisedocs diff --format json` writes

record = dataclass(frozen=True, slots=True, kw_only=True)
