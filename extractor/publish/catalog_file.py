"""Catalog files: a path -> the catalog.json it names, read whole as checked JSON data, or its envelope alone.

``check`` needs a docs folder's recorded options and ``extract`` its totals, not its cards
(tens of megabytes on a large tree): catalog.json is written so that they can be read alone
(``read_envelope``, from the end of the file).
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from ..errors import CatalogError
from ..model import SCHEMA_ID, Card
from ..model.base import READABLE_SCHEMA_IDS
from ..model.schema import validate_catalog
from ..model.serialize import complete

CATALOG_FILE = "catalog.json"


def locate_catalog(path: str) -> str:
    """The catalog file a path names: the file itself, or ``catalog.json`` in a docs folder."""
    return os.path.join(path, CATALOG_FILE) if os.path.isdir(path) else path


def read_catalog_bytes(file: str) -> bytes:
    """The bytes of a catalog file.

    Raises:
        CatalogError: the file is missing, unreadable or not a regular file.
    """
    if not os.path.exists(file):
        raise CatalogError(f"catalog not found: {file}")
    try:
        # Opened without blocking and checked: a FIFO named catalog.json must not stall the run.
        with os.fdopen(os.open(file, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise CatalogError(f"catalog {file} is not a regular file")
            return handle.read()
    except OSError as exc:
        raise CatalogError(f"cannot read catalog {file}: {exc}") from exc


def load_catalog(path: str, *, validate: bool = False, data: bytes | None = None) -> dict[str, Any]:
    """Read and check a catalog.json (or the one in a docs folder): its schema id always,
    and the whole document against the shipped JSON Schema with ``validate`` (seconds on a
    catalog of tens of megabytes; ``extract`` writes only valid ones).

    Raises:
        CatalogError: the file is missing, unreadable, not JSON, or not a raisedocs catalog.
    """
    file = locate_catalog(path)
    raw = data if data is not None else read_catalog_bytes(file)
    try:
        catalog = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CatalogError(f"cannot read catalog {file}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise CatalogError(f"catalog {file} is not JSON: {exc}") from exc
    except RecursionError:
        raise CatalogError(f"catalog {file} is nested too deeply to be a raisedocs catalog") from None
    found = catalog.get("schema") if isinstance(catalog, dict) else None
    if found not in READABLE_SCHEMA_IDS:
        raise CatalogError(f"{file} is not a raisedocs catalog: schema is {found!r}, expected {SCHEMA_ID!r}")
    if validate:
        try:
            validate_catalog(catalog)
        except CatalogError as exc:
            raise CatalogError(f"{file}: {exc}") from exc
    elif not isinstance(catalog.get("errors"), list) or not all(isinstance(card, dict) for card in catalog["errors"]):
        raise CatalogError(f"{file}: catalog does not match schema at errors: not a list of cards")
    for card in catalog["errors"]:
        complete(Card, card)  # (a field catalog.json leaves out holds its default)
    return catalog


# catalog.json's shape (render.catalog_json): the cards one per line, each other key after them.
_NO_CARDS = b'{"errors": [],\n'
_CARDS_START = b'{"errors": [\n'
_CARDS_END = b"\n],\n"  # no card's line holds a newline: only the end of the list does
_MOST_ENVELOPE = 1 << 26


def read_envelope(path: str) -> dict[str, Any] | None:
    """Everything of a catalog but its cards (``errors`` is left out), read from the end of
    the file without reading the cards; None where the file is missing or not of the shape
    raisedocs writes (``load_catalog`` then says why)."""
    try:
        with os.fdopen(os.open(locate_catalog(path), os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            head = handle.read(len(_NO_CARDS))
            rest: bytes | None
            if head == _NO_CARDS:
                rest = handle.read(_MOST_ENVELOPE)
            elif head.startswith(_CARDS_START):
                rest = _after_cards(handle, size)
            else:
                return None
        envelope = json.loads(b"{" + rest) if rest is not None else None
    except (OSError, ValueError, RecursionError):
        return None
    return envelope if isinstance(envelope, dict) and envelope.get("schema") == SCHEMA_ID and "errors" not in envelope else None


def _after_cards(handle: Any, size: int) -> bytes | None:
    """What follows the list of cards, read backwards from the end in growing blocks."""
    tail, block = b"", 1 << 16
    while len(tail) < min(size, _MOST_ENVELOPE):
        start = max(0, size - len(tail) - block)
        handle.seek(start)
        tail = handle.read(size - len(tail) - start) + tail
        found = tail.rfind(_CARDS_END)
        if found >= 0:
            return tail[found + len(_CARDS_END):]
        block *= 2
    return None
