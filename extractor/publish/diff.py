"""Diffing: two catalogs (JSON data) -> CatalogDiff, every change in exactly one category.

Cards are matched by id first; the rest are paired by location and by the similarity of
their templates and guards, so a reworded message is one "message changed", not a removal
and an addition. Works from JSON alone: catalogs of different tool versions compare.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ..model import CardRef, CatalogDiff, Change, FileFailure

CATEGORIES = ("added", "removed", "message_changed", "guard_changed", "exception_changed", "moved", "now_fails", "fixed_failure")
_PAIR_THRESHOLD = 0.6


def _ref(card: dict[str, Any]) -> CardRef:
    return CardRef(
        id=card["id"], path=card["path"], line=card["line"], function=card["function"],
        exception=card["exception"]["display"], template=card["message"]["template"],
    )


def _classes(card: dict[str, Any]) -> set[str]:
    return set(card["exception"]["classes"]) or {card["exception"]["display"]}


def _relation(old: dict[str, Any], new: dict[str, Any]) -> str:
    """How the new exception class relates to the old one, from the hierarchy in the catalog."""
    old_classes, new_classes = _classes(old), _classes(new)
    if old_classes & set(new["exception"]["ancestors"]):
        return "subclass"
    if new_classes & set(old["exception"]["ancestors"]):
        return "superclass"
    return "unrelated"


def _matcher(a: str | None, b: str | None) -> difflib.SequenceMatcher | float:
    """The ratio where it is trivial (a missing text, equal texts), else a matcher for it."""
    if a is None or b is None:
        return 1.0 if a == b else 0.0
    return 1.0 if a == b else difflib.SequenceMatcher(None, a, b, autojunk=False)


def _ratio(a: str | None, b: str | None) -> float:
    found = _matcher(a, b)
    return found if isinstance(found, float) else found.ratio()


def _text(card: dict[str, Any]) -> str | None:
    return card["message"]["template"] if card["message"]["template"] is not None else card["message"].get("source")


def _candidates(lonely_old: list[dict[str, Any]], lonely_new: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """The pairs that can score above 0: same path and function, or same message text.
    (Scoring every pair was quadratic in the unmatched cards of a release.)"""
    by_place: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    by_text: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for new in lonely_new:
        by_place[(new["path"], new["function"])].append(new)
        by_text[_text(new)].append(new)
    for old in lonely_old:
        seen: set[str] = set()
        for new in (*by_place.get((old["path"], old["function"]), ()), *by_text.get(_text(old), ())):
            if new["id"] not in seen:
                seen.add(new["id"])
                yield old, new


def _score(old: dict[str, Any], new: dict[str, Any]) -> float:
    """Similarity in [0, 1]; anything below the pairing threshold is returned as 0."""
    same_place = old["path"] == new["path"] and old["function"] == new["function"]
    same_text = _text(old) == _text(new)
    if not same_place and not same_text:
        return 0.0
    places = 0.1 * (old["function"] == new["function"]) + 0.1 * (old["path"] == new["path"])
    matcher = _matcher(_text(old), _text(new))
    bound = matcher if isinstance(matcher, float) else matcher.quick_ratio()  # an upper bound of ratio()
    if 0.6 * bound + 0.2 + places < _PAIR_THRESHOLD:
        return 0.0  # even identical guards would not lift it to the threshold
    text = matcher if isinstance(matcher, float) else matcher.ratio()
    return 0.6 * text + 0.2 * _ratio(old["guard"]["code"], new["guard"]["code"]) + places


def _classify(old: dict[str, Any], new: dict[str, Any]) -> Change:
    """One category for a matched pair: exception, then message, then guard, then place."""
    old_ref, new_ref = _ref(old), _ref(new)
    if _classes(old) != _classes(new):
        classes = f"{', '.join(sorted(_classes(old)))} -> {', '.join(sorted(_classes(new)))}"
        return Change(kind="exception_changed", old=old_ref, new=new_ref, detail=f"{_relation(old, new)}: {classes}")
    if _text(old) != _text(new):
        return Change(kind="message_changed", old=old_ref, new=new_ref)
    if old["guard"]["code"] != new["guard"]["code"]:
        return Change(kind="guard_changed", old=old_ref, new=new_ref, detail=old["guard"]["code"] + " -> " + new["guard"]["code"])
    if (old["path"], old["function"], old["line"]) != (new["path"], new["function"], new["line"]):
        where = "path" if old["path"] != new["path"] else "function" if old["function"] != new["function"] else "line"
        return Change(kind="moved", old=old_ref, new=new_ref, detail=where)
    return Change(kind="unchanged", old=old_ref, new=new_ref)


def diff_catalogs(old: dict[str, Any], new: dict[str, Any]) -> CatalogDiff:
    """Every added, removed or changed error between two catalogs, deterministic in order."""
    old_cards = {c["id"]: c for c in old["errors"]}
    new_cards = {c["id"]: c for c in new["errors"]}
    changes: list[Change] = []
    for card_id in sorted(old_cards.keys() & new_cards.keys()):
        change = _classify(old_cards[card_id], new_cards[card_id])
        if change.kind != "unchanged":
            changes.append(change)
    lonely_old = [old_cards[i] for i in sorted(old_cards.keys() - new_cards.keys())]
    lonely_new = [new_cards[i] for i in sorted(new_cards.keys() - old_cards.keys())]
    pairs = sorted(
        ((score, o["id"], n["id"]) for o, n in _candidates(lonely_old, lonely_new) if (score := _score(o, n)) >= _PAIR_THRESHOLD),
        key=lambda p: (-p[0], p[1], p[2]),
    )
    used_old: set[str] = set()
    used_new: set[str] = set()
    for score, old_id, new_id in pairs:
        if score < _PAIR_THRESHOLD or old_id in used_old or new_id in used_new:
            continue
        used_old.add(old_id)
        used_new.add(new_id)
        change = _classify(old_cards[old_id], new_cards[new_id])
        if change.kind != "unchanged":
            changes.append(change)
    changes.extend(Change(kind="removed", old=_ref(c)) for c in lonely_old if c["id"] not in used_old)
    changes.extend(Change(kind="added", new=_ref(c)) for c in lonely_new if c["id"] not in used_new)
    changes.extend(_failure_changes(old, new))
    changes.sort(key=_order)
    return CatalogDiff(old=_source(old), new=_source(new), changes=tuple(changes))


def _failure_changes(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """A file that stops parsing is one change, not the loss of all its errors."""
    old_failed = {f["path"]: f for f in old["failures"]}
    new_failed = {f["path"]: f for f in new["failures"]}
    out = [
        Change(kind="now_fails", failure=FileFailure(path=p, stage=new_failed[p].get("stage", "parse"), error=new_failed[p]["error"]))
        for p in sorted(new_failed.keys() - old_failed.keys())
    ]
    out.extend(
        Change(kind="fixed_failure", failure=FileFailure(path=p, stage=old_failed[p].get("stage", "parse"), error=old_failed[p]["error"]))
        for p in sorted(old_failed.keys() - new_failed.keys())
    )
    return out


def _order(change: Change) -> tuple:
    ref = change.new or change.old
    place = (ref.path, ref.line, ref.id) if ref is not None else (change.failure.path if change.failure else "", 0, "")
    return (CATEGORIES.index(change.kind), *place)


def _source(catalog: dict[str, Any]) -> str:
    source = catalog["source"]
    return f"{source['root']}@{source['rev'][:10]}" if source.get("rev") else source["root"]


def counts(result: CatalogDiff) -> dict[str, int]:
    found = {kind: 0 for kind in CATEGORIES}
    for change in result.changes:
        found[change.kind] += 1
    return found
