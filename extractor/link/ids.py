"""Ids: a site's place (path, function, exception) -> the card's stable 16-hex id (model.card.ID_RULE)."""

from __future__ import annotations

import hashlib
from collections import defaultdict


def id_key(path: str, site_function: str | None, exception: str) -> str:
    """What places a site across edits: its file, its function and the exception as the card
    shows it (``ExceptionRef.display``). Never its line or its message, so that a card keeps
    its id when its message is reworded or its line moves within the function."""
    return "\0".join((path, site_function or "<module>", exception))


def assign_ids(keys: list[str]) -> list[str]:
    """16-hex ids, one per key in source order: the key and its ordinal among the sites of that
    key (the first ``ValueError`` of a function is 1, its second 2, wherever they stand)."""
    seen: dict[str, int] = defaultdict(int)
    ids: list[str] = []
    for key in keys:
        seen[key] += 1
        ids.append(hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "surrogatepass")).hexdigest()[:16])
    return ids
