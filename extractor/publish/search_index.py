"""Search index: catalog data -> what ``explain`` needs to match a pasted message, and nothing else.

A catalog of a large tree is tens of megabytes; reading it whole costs seconds. The index
keeps, per card, its message template compiled for search (``explain.compile_template``),
its exception, place, guard, trigger and fixes, and records the SHA-256 of the catalog.json
it was built from. ``extract`` writes it beside catalog.json (``search-index.json``); for any
other catalog (a plain file, an old folder) ``open_index`` builds it once and keeps it in the
user cache, keyed by that digest. A stale index (the digest differs) is never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import CatalogError
from ..model import Card, dumps_compact
from ..model.serialize import complete
from .catalog_file import load_catalog, locate_catalog, read_catalog_bytes
from .explain import compile_template
from .families import with_family
from .ranking import rank_key

INDEX_FILE = "search-index.json"
INDEX_SCHEMA = "raisedocs-search-index/4"


def index_entry(card: dict[str, Any]) -> dict[str, Any]:
    """The part of one card that matching and the text answer read."""
    exception = card["exception"]
    message = card["message"]
    trigger = card.get("trigger") or {}
    constraint = card.get("constraint")
    # (a field constraint's: explain checks the pasted ValidationError names its field and type)
    extra = {"constraint": {key: constraint[key] for key in ("owner", "field", "error_type")}} if constraint else {}
    entry = {
        "id": card["id"],
        "exception": {key: exception.get(key) for key in ("display", "classes")},
        "path": card["path"],
        "line": card["line"],
        "end_line": card["end_line"],
        "function": card.get("function"),
        "message": {"template": message.get("template")},
        "pattern": _kept(card, message.get("parts")),
        "guard": {"code": card["guard"]["code"]},
        "trigger": {"status": trigger.get("status"), "inputs": trigger.get("inputs", {})},
        "fixes": [{"description": fix["description"]} for fix in card.get("fixes") or []],
        **({"caught": caught["visibility"]} if (caught := card.get("caught")) else {}),
        "rank": rank_key(card),  # publish.ranking's: search puts the errors users hit first
        **extra,
    }
    shown = card.get("shown")
    if shown:  # what the caller sees, where a framework wraps or prints the error: its forms match too
        forms = [shown[key]["parts"] for key in ("message", "terminal") if shown.get(key) and shown[key].get("parts")]
        kept = [found for parts in forms if (found := _kept(card, parts)) is not None]
        entry["shown"] = {"exception": shown["exception"], "patterns": kept}
    return entry


def _kept(card: dict[str, Any], parts: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """A template's parts compiled for search as the index keeps them; None: no parts, or no literal long enough."""
    pattern = compile_template(parts) if parts else None
    if pattern is None or not parts:
        return None
    return {
        "items": pattern.items, "groups": pattern.groups, "literal_chars": pattern.literal_chars, "literals": pattern.literals,
        "opens_with_hole": parts[0]["type"] == "hole", "types": hole_types(card, pattern.groups),
    }


_TYPES = {("int",): "int", ("float",): "number", ("float", "int"): "number", ("int", "float"): "number", ("bool",): "bool"}
# A hole of a typed input shows text of that type (a number, True/False) unless its format says otherwise.
_PLAIN_FORMATS = {None, "", "d", ",", "_"}


def hole_types(card: dict[str, Any], groups: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """Group name -> "int", "number" or "bool" for each hole whose expression is an input of
    that declared type (its domain), rendered plainly: a typed hole of the search pattern."""
    domains = {d["input"]: tuple(d.get("types") or ()) for d in card.get("domains") or ()}
    parts = {p["expr"]: p for p in card["message"].get("parts") or () if p["type"] == "hole"}
    found = {}
    for name, expr in groups:
        kind = _TYPES.get(domains.get(expr, ()))
        part = parts.get(expr, {})
        if kind and part.get("conversion") in (None, "s", "r") and (part.get("format_spec") in _PLAIN_FORMATS or kind != "int"):
            found[name] = kind
    return found


def build_index(entries: Iterable[dict[str, Any]], catalog_sha256: str) -> dict[str, Any]:
    return {"schema": INDEX_SCHEMA, "catalog_sha256": catalog_sha256, "entries": list(entries)}


def dump_index(index: dict[str, Any]) -> str:
    """The index as compact JSON (sorted keys, one line): a machine file, read whole per lookup."""
    return dumps_compact(index)


def entry_text(entry: dict[str, Any]) -> str:
    """An entry as the index's JSON holds it (``index_chunks``)."""
    return dumps_compact(entry)[:-1]


def index_chunks(entry_texts: Iterable[str], catalog_sha256: str) -> Iterator[str]:
    """``dump_index(build_index(entries, catalog_sha256))`` in chunks, from the entries' ``entry_text``."""
    head = dumps_compact({"catalog_sha256": catalog_sha256, "entries": []})[:-3]  # ('{..."entries":[' with the keys' order)
    yield head
    for number, text in enumerate(entry_texts):
        yield text if number == 0 else "," + text
    yield "]," + dumps_compact({"schema": INDEX_SCHEMA})[1:]


def open_index(path: str, *, validate: bool = False, cache_dir: str | None = None) -> dict[str, Any]:
    """The search index of the catalog ``path`` names (a catalog.json or a docs folder).

    Raises:
        CatalogError: the catalog is missing, unreadable or not a raisedocs catalog.
    """
    file = locate_catalog(path)
    data = read_catalog_bytes(file)
    digest = hashlib.sha256(data).hexdigest()
    if not validate:
        for candidate in (os.path.join(os.path.dirname(file), INDEX_FILE), _cached(cache_dir, digest)):
            found = _read_index(candidate, digest) if candidate else None
            if found is not None:
                return found
    catalog = load_catalog(file, validate=validate, data=data)
    families = {card: {"id": family["id"]} for family in catalog.get("families") or () for card in family["cards"]}
    index = build_index([with_family(entry, families) for entry in _entries(file, catalog["errors"])], digest)
    _store(_cached(cache_dir, digest), index)
    return index


def _entries(file: str, cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The index entries of a catalog's cards; a card without the fields matching reads is a
    one-line error (the full check is ``--validate``)."""
    entries = []
    for number, card in enumerate(cards):
        try:
            entries.append(index_entry(card))
        except KeyError as exc:
            raise CatalogError(f"{file}: catalog does not match schema at errors/{number}: {exc} is missing") from None
        except (TypeError, AttributeError):
            raise CatalogError(f"{file}: catalog does not match schema at errors/{number}: a field has the wrong type") from None
    return entries


def _cached(cache_dir: str | None, digest: str) -> str | None:
    return os.path.join(cache_dir, "search-index", digest + ".json") if cache_dir else None


def _read_index(file: str, digest: str) -> dict[str, Any] | None:
    try:
        with open(file, encoding="utf-8") as handle:
            index = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None
    ok = isinstance(index, dict) and index.get("schema") == INDEX_SCHEMA and index.get("catalog_sha256") == digest
    return index if ok and isinstance(index.get("entries"), list) else None


def _store(file: str | None, index: dict[str, Any]) -> None:
    """Keep the index in the cache; a cache that cannot be written only costs the next lookup."""
    if file is None:
        return
    try:
        os.makedirs(os.path.dirname(file), exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(file), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dump_index(index))
        os.replace(temp, file)
    except OSError:
        return


def full_card(path: str, card_id: str, catalog: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole card ``card_id``: its own JSON file in the docs folder where there is one,
    else read from the catalog (``catalog``, loaded once by the caller, or the file)."""
    file = locate_catalog(path)
    own = os.path.join(os.path.dirname(file), "errors", card_id + ".json")
    try:
        with open(own, encoding="utf-8") as handle:
            card = json.load(handle)
        if isinstance(card, dict) and card.get("id") == card_id:
            return complete(Card, card)
    except (OSError, ValueError):
        pass
    if catalog is None:
        found = _card_line(file, card_id)
        if found is not None:
            return found
    data = catalog if catalog is not None else load_catalog(file)
    for card in data["errors"]:
        if card["id"] == card_id:
            return card
    raise CatalogError(f"card {card_id} is not in {file}")


def _card_line(file: str, card_id: str) -> dict[str, Any] | None:
    """The card read from its own line of catalog.json (render.catalog_json writes one card per
    line): a lookup never parses the whole catalog. None where the file is laid out otherwise."""
    try:
        data = read_catalog_bytes(file)
    except CatalogError:
        return None
    needle = f'"id":"{card_id}",'.encode()
    at = data.find(needle)
    while at != -1:  # (the id may also stand in another card's line, as a related card's)
        start, end = data.rfind(b"\n", 0, at) + 1, data.find(b"\n", at)
        line = data[start:end if end != -1 else len(data)]
        if line.startswith(b'{"'):  # (a card's line: render.catalog_json writes one per line)
            try:
                card = json.loads(line.rstrip(b",").decode("utf-8"))
            except ValueError:
                return None
            if isinstance(card, dict) and card.get("id") == card_id:
                return complete(Card, card)
        at = data.find(needle, end) if end != -1 else -1
    return None
