"""Families: identical checks repeated across files -> one record, so the index lists them once.

A family is a set of cards that raise the same exception class (resolved where the catalog
says which: ``aifc.Error`` and ``wave.Error`` are two) with the same message template
(holes written ``{}``) under the same condition, its names normalised (each variable renamed
in order of appearance; attributes, calls and constants kept), in at least ``FAMILY_FILES``
files: vLLM 0.33 repeats ``if not modality.startswith("image"): raise ValueError("Only image
modality is supported")`` in 37 model files. Only checks count: a card with a condition and a
message (an unconditional raise, a ``NotImplementedError`` placeholder, a message-less or
unreconstructed one is no family's).

Cards are solved a file at a time, so families are found after: ``family_key`` is part of a
card's summary (a short digest, computed as its file is solved), and ``find_families`` groups
the summaries of the whole run (memory: one digest per card). The catalog's envelope holds the
result (``Catalog.families``: the JSON contract), from which the index collapses a family to
its first card and each member's page lists the family's sites (``family_pages``).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ..model.pytext import own_expression

FAMILY_FILES = 3  # a check repeated in at least this many files is a family
SHOWN_SITES = 25  # the sites a card lists of its family; the rest are counted
_HOLE = re.compile(r"\{[^{}]*\}")


def family_key(card: dict[str, Any]) -> str | None:
    """The digest identical checks share (see the module's docstring); None: no check."""
    template = (card.get("message") or {}).get("template")
    guard = (card.get("guard") or {}).get("code")
    if not template or not guard or guard == "True":
        return None
    shape = normalized_guard(guard)
    exception = card["exception"]
    classes = ",".join(exception.get("classes") or ()) or exception["display"]  # (aifc.Error is not wave.Error)
    parts = (classes, _HOLE.sub("{}", template), shape, card.get("kind") or "")
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


@lru_cache(maxsize=4096)  # (sibling raises share their guard)
def normalized_guard(code: str) -> str:
    """A guard's code with its variables renamed ``_0``, ``_1``, ... in order of appearance
    (``not modality.startswith('image')`` -> ``not _0.startswith('image')``); code that does not
    parse is kept as it is."""
    tree = own_expression(code)  # (renamed in place: not the shared tree)
    if tree is None:
        return code
    names: dict[str, str] = {}
    try:
        for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name)), key=lambda n: (n.lineno, n.col_offset)):
            node.id = names.setdefault(node.id, f"_{len(names)}")
        return ast.unparse(tree)
    except RecursionError:  # (deep code: kept as it is)
        return code


def find_families(summaries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The families among the cards' summaries (each with its ``family_key``), as
    ``Catalog.families`` data: ``{"id", "cards"}``, the members' ids in catalog order; the
    families ordered by their first card's place in the catalog."""
    members: dict[str, list[dict[str, Any]]] = {}
    for summary in summaries:
        key = summary.get("family_key")
        if key is not None:
            members.setdefault(key, []).append(summary)
    found = [(key, cards) for key, cards in members.items() if len({card["path"] for card in cards}) >= FAMILY_FILES]
    return [{"id": key, "cards": [card["id"] for card in cards]} for key, cards in found]


def family_sites(families: list[dict[str, Any]], summaries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Card id -> its family as a card's page shows it: ``{"id", "count", "files", "first",
    "sites"}``, ``sites`` the first ``SHOWN_SITES`` members (id, path, line, function)."""
    by_id = {summary["id"]: summary for summary in summaries}
    out: dict[str, dict[str, Any]] = {}
    for family in families:
        cards = [by_id[i] for i in family["cards"] if i in by_id]
        if not cards:
            continue
        shown = {"id": family["id"], "count": len(cards), "files": len({c["path"] for c in cards}), "first": cards[0]["id"],
                 "sites": [{key: card.get(key) for key in ("id", "path", "line", "function")} for card in cards[:SHOWN_SITES]]}
        out.update((card["id"], shown) for card in cards)
    return out


def folded(families: dict[str, dict[str, Any]], summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The summaries an index lists: a family's first card stands for it (with its ``family``),
    its other members are left out."""
    out = []
    for summary in summaries:
        family = families.get(summary["id"])
        if family is None:
            out.append(summary)
        elif family["first"] == summary["id"]:
            out.append({**summary, "family": family})
    return out


def with_family(entry: dict[str, Any], families: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A search-index entry with its card's family id, where it has one: search lists a family once."""
    family = families.get(entry["id"])
    return entry if family is None else {**entry, "family": family["id"]}
