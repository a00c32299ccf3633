"""Ranking: the order in which a reader meets cards, one key for the index, the site and search.

``rank_key`` reads a card as catalog.json holds it, its summary (``model.spool.summary_of``)
or its search-index entry (``search_index.index_entry``, which keeps the rank it computed),
and puts first the cards users hit: ``Standing.USER`` (reached from a public entry), then
``INTERNAL``; the cards whose message was not reconstructed follow in the same order, then
``CAUGHT`` (always caught by the library itself: users do not see them), and last
``NO_MESSAGE`` (raised without a message: little to read and nothing to search by). Ties
keep the caller's own order (path and line in the index, the score in search).

Reached from a public entry: where a card lists its public entries (``entries``: the public
functions and commands whose calls reach the raise), it is reached when that list is not
empty. Without it, what the card itself shows stands in: its module is public (no part of
its path private, ``_x``, and none a test folder or test file), and its function is public
(no part of its qualified name private; a dunder is public), or a public function (or
module-level code) of its file calls it, or the command line reaches it (an argparse
``parser.error`` call, or a framework that runs the code and shows what it raises).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import CaughtVisibility, RaiseKind, Standing

ORDER = tuple(Standing)  # the standings in the order a reader meets them
_TEST_FOLDERS = frozenset({"test", "tests", "testing"})


def rank_key(card: Mapping[str, Any]) -> int:
    """The card's rank, lower first (a search-index entry holds it as ``rank``): users' (0)
    and internal (1) cards whose message is known, the same whose message was not
    reconstructed (2, 3), the cards the library always catches (4), and last those raised
    without a message (5)."""
    kept = card.get("rank")
    if isinstance(kept, int):
        return kept
    found = standing(card)
    if found in (Standing.CAUGHT, Standing.NO_MESSAGE):
        return ORDER.index(found) + 2
    return ORDER.index(found) + (0 if _template(card) else 2)


def standing(card: Mapping[str, Any]) -> Standing:
    """Where a card stands for a reader (see the module's docstring)."""
    if _template(card) == "":
        return Standing.NO_MESSAGE
    caught = card.get("caught")
    if (caught.get("visibility") if isinstance(caught, Mapping) else caught) == CaughtVisibility.HIDDEN:
        return Standing.CAUGHT
    return Standing.USER if is_reached(card) else Standing.INTERNAL


def is_reached(card: Mapping[str, Any]) -> bool:
    """Whether a public entry reaches the card (see the module's docstring)."""
    entries = card.get("entries")
    if isinstance(entries, Mapping):
        return bool(entries.get("paths"))  # (link.callgraph looked: its paths, or a reason none reaches it)
    if card.get("kind") == RaiseKind.PARSER_ERROR or card.get("shown"):
        return True  # the command line reaches it
    if not is_public_module(card["path"]):
        return False
    if card.get("kind") == RaiseKind.FIELD_CONSTRAINT:
        owner = (card.get("constraint") or {}).get("owner") or ""
        return is_public_name(owner.rsplit(".", 1)[-1])
    function = card.get("function")
    if function is None or is_public_name(function):
        return True  # module-level code runs when a user imports the module
    return any(caller.get("function") is None or is_public_name(caller["function"]) for caller in card.get("callers") or ())


def is_public_module(path: str) -> bool:
    """Whether a file is a public module: no part of its path private (``_x``; ``__init__.py``
    and ``__main__.py`` are the package's own), none a test folder, and no test file."""
    *folders, name = path.split("/")
    stem = name.removesuffix(".py")
    if any(part.startswith("_") or part in _TEST_FOLDERS for part in folders):
        return False
    if stem.startswith("test_") or stem.endswith("_test") or stem in ("conftest", *_TEST_FOLDERS):
        return False
    return not stem.startswith("_") or stem in ("__init__", "__main__")


def is_public_name(qualname: str) -> bool:
    """Whether a qualified name is public: none of its parts private (``_x``); a dunder
    (``__init__``, ``__call__``) is public, ``<locals>`` is passed over."""
    return all(not part.startswith("_") or (part.startswith("__") and part.endswith("__"))
               for part in qualname.split(".") if part != "<locals>")


def _template(card: Mapping[str, Any]) -> str | None:
    template: str | None = (card.get("message") or {}).get("template")
    return template


def ranked(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cards in rank order; a stable sort: equal ranks keep their order."""
    return sorted(cards, key=rank_key)


def module_rank(path: str) -> int:
    """A module's place among the index's modules and packages: public modules first."""
    return 0 if is_public_module(path if path.endswith(".py") else path + "/x.py") else 1
