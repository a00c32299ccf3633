"""Diffing: two catalogs (JSON data) -> CatalogDiff, every change in exactly one category.

Cards are matched by id first; the rest are paired by location and by the similarity of
their templates and guards, so a reworded message is one "message changed", not a removal
and an addition. Works from JSON alone: catalogs of different tool versions compare.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..model import CardRef, CatalogDiff, Change, ConditionChange, FileFailure
from .conditions import condition_changes, fold_cascades

CATEGORIES = ("added", "removed", "message_changed", "guard_changed", "exception_changed", "moved", "now_fails", "fixed_failure")
_PAIR_THRESHOLD = 0.6
_MOST_ELSEWHERE = 8  # candidates in other files with the same function and message, per card


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


def _candidates(lonely_old: list[dict[str, Any]], lonely_new: list[dict[str, Any]], renamed: dict[str, str]) -> Iterator[tuple[dict[str,
    Any], dict[str, Any]]]:
    """The pairs the evidence allows: the same place (path, a renamed file's new path, and
    function), the same message in the same file, or the same message in the same function
    of another file. Each is a dictionary lookup, so pairing stays linear in the cards."""
    by_place: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    by_file_text: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    by_function_text: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for new in lonely_new:
        by_place[(new["path"], new["function"])].append(new)
        if (text := _text(new)) is not None:
            by_file_text[(new["path"], text)].append(new)
            if new["function"] is not None:
                by_function_text[(new["function"], text)].append(new)
    for old in lonely_old:
        path, text = renamed.get(old["path"], old["path"]), _text(old)
        found = by_place.get((path, old["function"]), [])
        if text is not None:
            found = [*found, *by_file_text.get((path, text), ()), *by_function_text.get((old["function"], text), ())[:_MOST_ELSEWHERE]]
        seen: set[str] = set()
        for new in found:
            if new["id"] not in seen:
                seen.add(new["id"])
                yield old, new


def _score(old: dict[str, Any], new: dict[str, Any], renamed: dict[str, str]) -> float:
    """Similarity in [0, 1]; anything below the pairing threshold is returned as 0."""
    same_path = renamed.get(old["path"], old["path"]) == new["path"]
    places = 0.1 * (old["function"] == new["function"]) + 0.1 * same_path
    matcher = _matcher(_text(old), _text(new))
    bound = matcher if isinstance(matcher, float) else matcher.quick_ratio()  # an upper bound of ratio()
    if 0.6 * bound + 0.2 + places < _PAIR_THRESHOLD:
        return 0.0  # even identical guards would not lift it to the threshold
    text = matcher if isinstance(matcher, float) else matcher.ratio()
    return 0.6 * text + 0.2 * _ratio(old["guard"]["code"], new["guard"]["code"]) + places


def _twin_key(card: dict[str, Any], path: str) -> tuple:
    return (path, card["function"], card["line"], _text(card), card["guard"]["code"])


def _breaking(old: dict[str, Any], new: dict[str, Any], relation: str) -> bool | None:
    """Whether ``except <old class>`` stops catching the error; None where the new class's
    bases are not in the catalog (defined outside the tree), so nobody can tell."""
    if relation == "subclass":
        return False
    if relation == "unrelated" and not new["exception"]["ancestors"] and "BaseException" not in _classes(new):
        return None
    return True


def _classify(old: dict[str, Any], new: dict[str, Any], conditions: list[ConditionChange]) -> Change:
    """One category for a matched pair: exception, then message, then guard, then place.
    ``conditions``: the guard's changes left once cascades are folded (see conditions)."""
    old_ref, new_ref = _ref(old), _ref(new)
    guard = old["guard"]["code"] + " -> " + new["guard"]["code"] if old["guard"]["code"] != new["guard"]["code"] else None
    unchanged = Change(kind="unchanged", conditions=tuple(conditions), old=old_ref, new=new_ref)
    if _classes(old) != _classes(new):
        classes = f"{', '.join(sorted(_classes(old)))} -> {', '.join(sorted(_classes(new)))}"
        relation = _relation(old, new)
        return replace(unchanged, kind="exception_changed", detail=f"{relation}: {classes}", breaking=_breaking(old, new, relation))
    if _text(old) != _text(new):
        return replace(unchanged, kind="message_changed")
    if conditions:
        return replace(unchanged, kind="guard_changed", detail=guard)
    if (old["path"], old["function"], old["line"]) != (new["path"], new["function"], new["line"]):
        where = "path" if old["path"] != new["path"] else "function" if old["function"] != new["function"] else "line"
        return replace(unchanged, kind="moved", detail=where)
    return unchanged


def diff_catalogs(old: dict[str, Any], new: dict[str, Any], labels: tuple[str, str] | None = None) -> CatalogDiff:
    """Every added, removed or changed error between two catalogs, deterministic in order.
    ``labels`` (the sides as given) tell apart two sides whose sources have one name."""
    old_cards = {c["id"]: c for c in old["errors"]}
    new_cards = {c["id"]: c for c in new["errors"]}
    renamed = renamed_files({c["path"] for c in old["errors"]}, {c["path"] for c in new["errors"]})
    matched = [(card_id, card_id) for card_id in sorted(old_cards.keys() & new_cards.keys())]
    lonely_old = [old_cards[i] for i in sorted(old_cards.keys() - new_cards.keys())]
    lonely_new = [new_cards[i] for i in sorted(new_cards.keys() - old_cards.keys())]
    used_old: set[str] = set()
    used_new: set[str] = set()
    # Twins first: the same raise under a new id (its file renamed), paired without scoring,
    # so a renamed folder costs a lookup per card, not a score per pair in each function.
    twins: dict[tuple, list[str]] = defaultdict(list)
    for card in lonely_new:
        twins[_twin_key(card, card["path"])].append(card["id"])
    for card in lonely_old:
        found = twins.get(_twin_key(card, renamed.get(card["path"], card["path"])), [])
        if len(found) == 1 and found[0] not in used_new:
            used_old.add(card["id"])
            used_new.add(found[0])
            matched.append((card["id"], found[0]))
    scored = (
        (score, o["id"], n["id"]) for o, n in _candidates([c for c in lonely_old if c["id"] not in used_old],
                                                          [c for c in lonely_new if c["id"] not in used_new], renamed)
        if (score := _score(o, n, renamed)) >= _PAIR_THRESHOLD
    )
    for _, old_id, new_id in sorted(scored, key=lambda p: (-p[0], p[1], p[2])):
        if old_id not in used_old and new_id not in used_new:
            used_old.add(old_id)
            used_new.add(new_id)
            matched.append((old_id, new_id))
    moves = _module_moves(renamed)
    if moves:  # a class whose module moved with its file is the same class
        old_cards = {i: _renamed_classes(card, moves) for i, card in old_cards.items()}
    folded = fold_cascades({n: (new_cards[n], condition_changes(old_cards[o], new_cards[n])) for o, n in matched})
    changes = [c for o, n in matched if (c := _classify(old_cards[o], new_cards[n], folded[n])).kind != "unchanged"]
    changes.extend(Change(kind="removed", old=_ref(c)) for c in lonely_old if c["id"] not in used_old)
    changes.extend(Change(kind="added", new=_ref(c)) for c in lonely_new if c["id"] not in used_new)
    changes.extend(_failure_changes(old, new))
    changes.sort(key=_order)
    moved_with = {(c.old.path, c.new.path) for c in changes if c.old is not None and c.new is not None and c.old.path != c.new.path}
    names = (_source(old), _source(new))
    if labels is not None and names[0] == names[1]:
        names = (f"{names[0]} ({labels[0]})", f"{names[1]} ({labels[1]})")
    return CatalogDiff(old=names[0], new=names[1], changes=tuple(changes),
                       renamed=tuple(sorted(p for p in renamed.items() if p in moved_with)))


def renamed_files(old_paths: set[str], new_paths: set[str]) -> dict[str, str]:
    """Old path -> new path for the files that seem to have moved. First a path whose
    longest tail found among the new paths (``a/b.py`` of ``x/a/b.py``) ends exactly one of
    them, and no other old path's; then the rest by the folder renames those imply
    (``x`` -> ``y``, the most common for a folder), the nearest folder first. Linear in the
    paths times their depth."""
    gone, fresh = sorted(old_paths - new_paths), set(new_paths - old_paths)
    by_tail: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for path in sorted(fresh):
        parts = tuple(path.split("/"))
        for k in range(1, len(parts) + 1):
            by_tail[parts[-k:]].append(path)
    claims: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path in gone:
        parts = tuple(path.split("/"))
        hits = next((by_tail[parts[-k:]] for k in range(len(parts), 0, -1) if parts[-k:] in by_tail), [])
        if len(hits) == 1:
            claims[hits[0]].append((path, len(parts) - _common_tail(parts, tuple(hits[0].split("/")))))
    found: dict[str, str] = {}
    folders: dict[str, Counter[str]] = defaultdict(Counter)
    for target, claimed in claims.items():
        if len(claimed) == 1:
            path, kept = claimed[0]
            found[path] = target
            folders["/".join(path.split("/")[:kept])][_head(target, len(path.split("/")) - kept)] += 1
    rules = {was: min(now, key=lambda n: (-now[n], n)) for was, now in folders.items()}
    taken = set(found.values())
    for path in gone:
        if path in found:
            continue
        names = path.split("/")
        for kept in range(len(names) - 1, -1, -1):
            folder = rules.get("/".join(names[:kept]))
            moved = "/".join(filter(None, [folder, *names[kept:]])) if folder is not None else None
            if moved is not None and moved in fresh and moved not in taken:
                found[path] = moved
                taken.add(moved)
                break
    return dict(sorted(found.items()))


def _module_moves(renamed: dict[str, str]) -> dict[str, str]:
    """Dotted module names the renamed files imply: the file's module and its folder's
    package (``shop.orders`` -> ``shoplib.orders``, ``shop`` -> ``shoplib``, so that
    ``shop.errors`` moves too), each by every tail, so that a src layout's names match."""
    moves: dict[str, str] = {}
    clashes: set[str] = set()
    for old, new in renamed.items():
        was, now = _dotted(old), _dotted(new)
        common = _common_tail(tuple(was), tuple(now))
        for was_name, now_name in ((was, now), (was[: len(was) - common], now[: len(now) - common])):
            for k in range(1, min(len(was_name), len(now_name)) + 1):
                a, b = ".".join(was_name[-k:]), ".".join(now_name[-k:])
                if a != b:
                    clashes.update([a] if moves.setdefault(a, b) != b else [])
    return {a: b for a, b in moves.items() if a not in clashes}


def _dotted(path: str) -> list[str]:
    parts = path.removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


def _renamed_classes(card: dict[str, Any], moves: dict[str, str]) -> dict[str, Any]:
    """The card with its exception's classes and ancestors named as after the moves."""
    def renamed(name: str) -> str:
        parts = name.split(".")
        return next((f"{moves[m]}.{'.'.join(parts[k:])}" for k in range(len(parts) - 1, 0, -1) if (m := ".".join(parts[:k])) in moves),
                    name)

    exception = card["exception"]
    if not any(renamed(name) != name for name in (*exception["classes"], *exception["ancestors"])):
        return card
    changed = {**exception, "classes": [renamed(n) for n in exception["classes"]],
               "ancestors": [renamed(n) for n in exception["ancestors"]]}
    return {**card, "exception": changed}


def _common_tail(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[-1 - k] == b[-1 - k]:
        k += 1
    return k


def _head(path: str, tail: int) -> str:
    """``path`` without its last ``tail`` components."""
    parts = path.split("/")
    return "/".join(parts[: len(parts) - tail])


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


def folder_moves(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A diff's renamed files (CatalogDiff data) by the folder rename they make, with how many
    of the moved errors each carried: ``vllm/`` -> ``vllm2/``, 1,950 files, 8,700 errors."""
    renamed = {old: new for old, new in data["renamed"]}
    carried = Counter(c["old"]["path"] for c in data["changes"]
                      if c["kind"] == "moved" and renamed.get(c["old"]["path"]) == c["new"]["path"])
    folders: dict[tuple[str, str], list[str]] = defaultdict(list)
    for old, new in renamed.items():
        kept = len(old.split("/")) - _common_tail(tuple(old.split("/")), tuple(new.split("/")))
        folders[(_head(old, len(old.split("/")) - kept), _head(new, len(old.split("/")) - kept))].append(old)
    return [
        {"old": was, "new": now, "files": len(paths), "errors": sum(carried[p] for p in paths)}
        for (was, now), paths in sorted(folders.items(), key=lambda item: (-len(item[1]), item[0]))
    ]


def counts(result: CatalogDiff) -> dict[str, int]:
    found = {kind: 0 for kind in CATEGORIES}
    for change in result.changes:
        found[change.kind] += 1
    return found
