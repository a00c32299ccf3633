"""Catalog data whose cards are kept as their JSON text, in memory or in a temporary file.

A large tree's catalog does not fit in memory as Python objects (a 10M-line tree has some
50,000 cards). The pipeline writes each card's JSON text (catalog.json's form: one line,
sorted keys) to a spool file as its file is solved, and keeps a small summary of
each card (what the index, related links and totals need). Rendering reads the texts back
one at a time; ``data()`` builds the whole catalog for the callers that want it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

from .card import Card
from .serialize import compact, complete, dumps_compact

# Where a card's text holds its permalink until the run knows it (a cached card is the same
# for every commit): a raw control character, which a JSON text holds nowhere else.
PERMALINK_SLOT = "\x00"


def card_text(card: dict[str, Any]) -> str:
    """A card's published JSON text on one line (``dumps_compact`` of its ``compact`` data:
    no field that holds its default), its permalink a slot that ``with_permalink`` fills."""
    published = {**compact(Card, card), "permalink": None}
    return "{" + ",".join(
        f'"{key}":' + (PERMALINK_SLOT if key == "permalink" else dumps_compact(published[key])[:-1]) for key in sorted(published)
    ) + "}"


def with_permalink(text: str, link: str | None) -> str:
    """A ``card_text`` with its permalink set (no permalink: none written, as for every
    field that holds its default)."""
    if link is None:
        slot = '"permalink":' + PERMALINK_SLOT
        return text.replace("," + slot, "", 1) if "," + slot in text else text.replace(slot + ",", "", 1).replace(slot, "", 1)
    return text.replace(PERMALINK_SLOT, dumps_compact(link)[:-1], 1)


def card_data(text: str) -> dict[str, Any]:
    """A card's JSON text (catalog.json's line) -> its data, every field given (``complete``)."""
    data: dict[str, Any] = complete(Card, json.loads(text))
    return data


def published_text(card: dict[str, Any]) -> str:
    """A card's data (complete or not) -> its line of catalog.json."""
    return dumps_compact(compact(Card, card))[:-1]


def summary_of(card: dict[str, Any]) -> dict[str, Any]:
    """What other pages need of a card: the index row, a related link's title, the totals."""
    trigger = card.get("trigger")
    return {
        "id": card["id"], "path": card["path"], "line": card["line"], "end_line": card["end_line"],
        "exception": {"display": card["exception"]["display"]},
        "message": {"template": card["message"]["template"], "reason": card["message"]["reason"]},
        "trigger": None if trigger is None else {k: trigger[k] for k in ("status", "reason", "verified")},
        "caught": (card.get("caught") or {}).get("visibility"),
        # What publish.ranking reads of a card to rank it, in the card's own shape.
        "function": card.get("function"), "kind": card.get("kind"), "shown": bool(card.get("shown")),
        "callers": [{"function": caller["function"]} for caller in card.get("callers") or ()],
        "constraint": {"owner": constraint["owner"]} if (constraint := card.get("constraint")) else None,
        **({"entries": _first_entry(card["entries"])} if "entries" in card else {}),
    }


def _first_entry(entries: dict[str, Any] | None) -> dict[str, Any] | None:
    """A card's public entries as its summary keeps them: the first path, where it has some
    (publish.ranking asks only whether a public entry reaches the card)."""
    return None if entries is None else {"paths": (entries.get("paths") or [])[:1]}


class CardCatalog:
    """A catalog as its envelope (everything but the cards), a summary per card and the
    cards' JSON texts (each on one line), in catalog order."""

    def __init__(self, envelope: dict[str, Any], summaries: list[dict[str, Any]]) -> None:
        self.envelope = envelope
        self.summaries = summaries

    def texts(self) -> Iterator[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def cards(self) -> Iterator[dict[str, Any]]:
        return (card_data(text) for text in self.texts())

    def data(self) -> dict[str, Any]:
        """The whole catalog as JSON data (every card decoded: as large as the catalog)."""
        return {**self.envelope, "errors": list(self.cards())}


class DataCatalog(CardCatalog):
    """Catalog data already in memory (a loaded catalog.json); each card is encoded once."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._cards = [complete(Card, card) for card in data["errors"]]
        super().__init__({k: v for k, v in data.items() if k != "errors"}, [summary_of(card) for card in self._cards])
        self._texts: list[str] | None = None

    def texts(self) -> Iterator[str]:
        if self._texts is None:
            self._texts = [published_text(card) for card in self._cards]
        return iter(self._texts)

    def cards(self) -> Iterator[dict[str, Any]]:
        return iter(self._cards)


class SpooledCatalog(CardCatalog):
    """Cards written to a temporary file as they are made, read back in catalog order."""

    def __init__(self) -> None:
        super().__init__({}, [])
        self._file = tempfile.TemporaryFile(prefix="raisedocs-cards-")  # noqa: SIM115 (the spool holds it; removed when closed)
        self._order: list[tuple[int, int]] = []

    def add(self, texts: Iterable[str]) -> list[tuple[int, int]]:
        """Write card texts; their places in the spool, to be put in order with ``arrange``."""
        places = []
        self._file.seek(0, 2)
        for text in texts:
            raw = text.encode("utf-8", "surrogatepass")
            places.append((self._file.tell(), len(raw)))
            self._file.write(raw)
        return places

    def arrange(self, places: list[tuple[int, int]], summaries: list[dict[str, Any]], envelope: dict[str, Any]) -> None:
        """The catalog order of the cards written, their summaries, and the envelope."""
        self._order, self.summaries, self.envelope = places, summaries, envelope

    def texts(self) -> Iterator[str]:
        self._file.flush()
        for offset, length in self._order:
            self._file.seek(offset)
            yield self._file.read(length).decode("utf-8", "surrogatepass")

    def close(self) -> None:
        self._file.close()
