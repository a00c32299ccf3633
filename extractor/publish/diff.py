"""Diffing: two catalogs (JSON data) -> CatalogDiff, every change in exactly one category.

publish.pairing says which new card is which old one, only on evidence (the same function, a
renamed definition, the same message in the same file); this module classifies each pair (a
reworded message, a changed condition, another exception class, a move) and lists the rest as
added or removed. Works from JSON alone: catalogs of different tool versions compare.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any

from ..model import CardRef, CatalogDiff, Change, ChangeKind, ConditionChange, FileFailure
from .conditions import condition_changes, fold_cascades
from .pairing import pair_cards, statement

CATEGORIES = tuple(ChangeKind)


def _ref(card: dict[str, Any]) -> CardRef:
    return CardRef(
        id=card["id"], path=card["path"], line=card["line"], function=card["function"],
        exception=card["exception"]["display"], template=card["message"]["template"],
        statement=statement(card) if not card["message"]["template"] else None,
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


def _text(card: dict[str, Any]) -> str | None:
    return card["message"]["template"] if card["message"]["template"] is not None else card["message"].get("source")


def _breaking(old: dict[str, Any], new: dict[str, Any], relation: str) -> bool | None:
    """Whether ``except <old class>`` stops catching the error; None where the new class's
    bases are not in the catalog (defined outside the tree), so nobody can tell."""
    if relation == "subclass":
        return False
    if relation == "unrelated" and not new["exception"]["ancestors"] and "BaseException" not in _classes(new):
        return None
    return True


def _classify(old: dict[str, Any], new: dict[str, Any], conditions: list[ConditionChange]) -> Change | None:
    """One category for a paired raise: exception, then message, then guard, then place; None
    where nothing changed. ``conditions``: the guard's changes left once cascades are folded
    (see conditions), each once."""
    conditions = list({(c.old, c.new): c for c in reversed(conditions)}.values())[::-1]  # (the first of a role-less twin)
    change = Change(kind=ChangeKind.MOVED, conditions=tuple(conditions), old=_ref(old), new=_ref(new))
    if _classes(old) != _classes(new):
        classes = f"{', '.join(sorted(_classes(old)))} -> {', '.join(sorted(_classes(new)))}"
        relation = _relation(old, new)
        return replace(change, kind=ChangeKind.EXCEPTION_CHANGED, detail=f"{relation}: {classes}", breaking=_breaking(old, new, relation))
    if _text(old) != _text(new):
        return replace(change, kind=ChangeKind.MESSAGE_CHANGED)
    if conditions:
        guard = old["guard"]["code"] + " -> " + new["guard"]["code"] if old["guard"]["code"] != new["guard"]["code"] else None
        return replace(change, kind=ChangeKind.GUARD_CHANGED, detail=guard)
    if (old["path"], old["function"], old["line"]) != (new["path"], new["function"], new["line"]):
        where = "path" if old["path"] != new["path"] else "function" if old["function"] != new["function"] else "line"
        return replace(change, detail=where)
    return None


def diff_catalogs(old: dict[str, Any], new: dict[str, Any], labels: tuple[str, str] | None = None) -> CatalogDiff:
    """Every added, removed or changed error between two catalogs, deterministic in order.
    ``labels`` (the sides as given) tell apart two sides whose sources have one name."""
    old_cards = {c["id"]: c for c in old["errors"]}
    new_cards = {c["id"]: c for c in new["errors"]}
    renamed = renamed_files({c["path"] for c in old["errors"]}, {c["path"] for c in new["errors"]})
    pairing = pair_cards(list(old_cards.values()), list(new_cards.values()), renamed)
    moves = _module_moves(renamed)
    if moves:  # a class whose module moved with its file is the same class
        old_cards = {i: _renamed_classes(card, moves) for i, card in old_cards.items()}
    folded = fold_cascades({n: (new_cards[n], condition_changes(old_cards[o], new_cards[n])) for o, n in pairing.pairs})
    changes = [c for o, n in pairing.pairs if (c := _classify(old_cards[o], new_cards[n], folded[n])) is not None]
    paired_old, paired_new = {o for o, _ in pairing.pairs}, {n for _, n in pairing.pairs}
    changes.extend(Change(kind=ChangeKind.REMOVED, old=_ref(c)) for i, c in sorted(old_cards.items()) if i not in paired_old)
    changes.extend(Change(kind=ChangeKind.ADDED, new=_ref(c)) for i, c in sorted(new_cards.items()) if i not in paired_new)
    changes.extend(_failure_changes(old, new))
    changes.sort(key=_order)
    moved_with = {(c.old.path, c.new.path) for c in changes if c.old is not None and c.new is not None and c.old.path != c.new.path}
    names = (_source(old), _source(new))
    if labels is not None and names[0] == names[1]:
        names = (f"{names[0]} ({labels[0]})", f"{names[1]} ({labels[1]})")
    return CatalogDiff(old=names[0], new=names[1], changes=tuple(changes),
                       renamed=tuple(sorted(p for p in renamed.items() if p in moved_with)), definitions=tuple(pairing.definitions))


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

    def failure(kind: ChangeKind, found: dict[str, Any]) -> Change:
        return Change(kind=kind, failure=FileFailure(path=found["path"], stage=found.get("stage", "parse"), error=found["error"]))

    out = [failure(ChangeKind.NOW_FAILS, new_failed[p]) for p in sorted(new_failed.keys() - old_failed.keys())]
    out.extend(failure(ChangeKind.FIXED_FAILURE, old_failed[p]) for p in sorted(old_failed.keys() - new_failed.keys()))
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


def release_groups(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A diff's changes (CatalogDiff data) by kind, as release notes list them: a raise that
    moved with its renamed function or class is told by the rename, not listed again."""
    covered = {(d["old_path"], old, d["new_path"], new) for d in data.get("definitions", ()) for old, new in d["functions"]}
    groups: dict[str, list[dict[str, Any]]] = {kind: [] for kind in CATEGORIES}
    for change in data["changes"]:
        old, new = change["old"], change["new"]
        place = (old["path"], old["function"] or "<module>", new["path"], new["function"] or "<module>") if old and new else None
        if change["kind"] != ChangeKind.MOVED or place not in covered:
            groups[change["kind"]].append(change)
    return groups


def counts(result: CatalogDiff) -> dict[str, int]:
    found: dict[str, int] = {kind: 0 for kind in CATEGORIES}
    for change in result.changes:
        found[change.kind] += 1
    return found
