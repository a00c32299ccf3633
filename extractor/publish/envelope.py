"""The envelope of a catalog file: everything but its cards, read from the end of the file.

``check`` needs a docs folder's recorded options and ``extract`` its totals, not its cards
(tens of megabytes on a large tree): catalog.json is written so that they can be read alone.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from ..model import SCHEMA_ID
from .explain import locate_catalog

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
