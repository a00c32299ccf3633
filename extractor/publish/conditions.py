"""What differs between two guards, as release notes say it: only the conditions that changed.

A guard is a list of parts (its own test, enclosing tests, earlier exits negated; see
``model.GuardPart``). Two guards are aligned part by part, and inside a pair of parts down
through ``and``, ``or`` and ``not`` to the atoms that differ (``size > 10`` -> ``size > 100``),
so a long guard with one changed comparison reads as that comparison.

Then cascades are folded: an earlier raise's test changed once appears again, negated, in the
guard of every later raise of the function. Each such change is reported at one card (the one
whose own test it is, else the first), with the ids of the others; a card left with no change
of its own is no longer a guard change. Works on the code strings alone, parsed by
``ast.parse`` (model.pytext: which reads and never runs them).
"""

from __future__ import annotations

import ast
import difflib
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..model import ConditionChange, PartRole
from ..model.pytext import try_parse_expression

Parts = list[tuple[str, str]]  # (role, code)
T = TypeVar("T")
R = TypeVar("R")
_SIMILAR = 0.6  # how alike two conditions must be to be one changed condition
_EXACT_UP_TO = 1000  # characters of two conditions compared exactly (ratio); quick_ratio past it
_SHOWN = 200  # characters of a condition release notes show
MOST_CONDITIONS = 5  # changed conditions release notes list for one error (the JSON has them all)


def _parts(card: dict[str, Any]) -> Parts:
    return [(part["role"], part["code"]) for part in card["guard"].get("parts", ())]


def _atoms(old: ast.expr, new: ast.expr, sources: tuple[str, str]) -> Iterator[tuple[str | None, str | None]]:
    """The smallest conditions that differ between two boolean expressions (parsed from
    ``sources``, whose text they are given in): pairs of ``and``/``or`` operands aligned,
    ``not`` looked through, anything else compared whole."""
    if ast.dump(old) == ast.dump(new):
        return

    def text(node: ast.expr | None, source: str) -> str | None:
        return None if node is None else ast.get_source_segment(source, node) or ast.unparse(node)

    if isinstance(old, ast.BoolOp) and isinstance(new, ast.BoolOp) and type(old.op) is type(new.op):
        yield from _aligned(old.values, new.values, ast.unparse, lambda a, b: _atoms(a, b, sources),
                            lambda a, b: (text(a, sources[0]), text(b, sources[1])))
    elif isinstance(old, ast.UnaryOp) and isinstance(new, ast.UnaryOp) and isinstance(old.op, ast.Not) and isinstance(new.op, ast.Not):
        yield from _atoms(old.operand, new.operand, sources)
    else:
        yield text(old, sources[0]), text(new, sources[1])


def _aligned(old: list[T], new: list[T], key: Callable[[T], str], pair: Callable[[T, T], Iterator[R]],
             lone: Callable[[T | None, T | None], R]) -> Iterator[R]:
    """Two sequences aligned: equal runs skipped; in a replaced run, an item and the most
    similar one (by ``key``) compared with ``pair``, any other item a removal
    ``lone(item, None)`` or an addition ``lone(None, item)``."""
    old_keys, new_keys = [key(i) for i in old], [key(i) for i in new]
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            # A replaced run: an item pairs with the most similar one after the last pair.
            start = j1
            for i in range(i1, i2):
                ratios = [(_similarity(old_keys[i], new_keys[j]), -j) for j in range(start, j2)]
                best = max(ratios, default=(0.0, 0))
                if best[0] < _SIMILAR:
                    yield lone(old[i], None)
                    continue
                found = -best[1]
                yield from (lone(None, b) for b in new[start:found])
                yield from pair(old[i], new[found])
                start = found + 1
            yield from (lone(None, b) for b in new[start:j2])


def _similarity(a: str, b: str) -> float:
    """difflib's ratio, from its cheap upper bounds where they already fall short (or where
    the texts are long: ratio is quadratic in them)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < _SIMILAR:
        return matcher.real_quick_ratio()
    bound = matcher.quick_ratio()
    return bound if bound < _SIMILAR or len(a) + len(b) > _EXACT_UP_TO else matcher.ratio()


def _part_changes(a: tuple[str, str], b: tuple[str, str]) -> Iterator[ConditionChange]:
    old_tree, new_tree = try_parse_expression(a[1]), try_parse_expression(b[1])
    if a[0] != b[0] or old_tree is None or new_tree is None:
        yield ConditionChange(role=a[0], old=a[1])
        yield ConditionChange(role=b[0], new=b[1])
    else:
        yield from (ConditionChange(role=b[0], old=o, new=n) for o, n in _atoms(old_tree, new_tree, (a[1], b[1])))


def _lone_part(old: tuple[str, str] | None, new: tuple[str, str] | None) -> ConditionChange:
    """The change of a part one side lacks (``old`` or ``new`` is given)."""
    if old is not None:
        return ConditionChange(role=old[0], old=old[1])
    assert new is not None  # (a part is on one side at least)
    return ConditionChange(role=new[0], new=new[1])


def condition_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ConditionChange]:
    """The changed conditions of two cards' guards, in the guards' order; [] when they are
    equal. A card without parts (a catalog of an older version) compares whole."""
    if old["guard"]["code"] == new["guard"]["code"]:
        return []
    old_parts, new_parts = _parts(old), _parts(new)
    if not old_parts or not new_parts:
        return [ConditionChange(role=PartRole.OWN, old=old["guard"]["code"], new=new["guard"]["code"])]
    return list(_aligned(old_parts, new_parts, lambda part: f"{part[0]}: {part[1]}", _part_changes, _lone_part))


def fold_cascades(changed: dict[str, tuple[dict[str, Any], list[ConditionChange]]]) -> dict[str, list[ConditionChange]]:
    """``changed``: new card id -> (new card, its condition changes). The same change in
    several cards of one function is kept at one of them, naming the others in ``also``."""
    groups: dict[tuple, list[tuple[tuple[int, int, str], str]]] = defaultdict(list)
    for card_id, (card, changes) in changed.items():
        for change in changes:
            rank = (0 if change.role == "own" else 1, card["line"], card_id)
            groups[(card["path"], card["function"], change.old, change.new)].append((rank, card_id))
    keeper: dict[tuple, str] = {}
    also: dict[tuple, tuple[str, ...]] = {}
    for key, holders in groups.items():
        holders.sort()
        keeper[key] = holders[0][1]
        also[key] = tuple(sorted({card_id for _, card_id in holders[1:]} - {holders[0][1]}))
    out: dict[str, list[ConditionChange]] = {}
    for card_id, (card, changes) in changed.items():
        keys = dict.fromkeys((card["path"], card["function"], c.role, c.old, c.new) for c in changes)  # once each, in order
        out[card_id] = [
            ConditionChange(role=role, old=old, new=new, also=also[(path, function, old, new)])
            for path, function, role, old, new in keys if keeper[(path, function, old, new)] == card_id
        ]
    return out


_ROLE = {PartRole.OWN: "", PartRole.OUTER: "enclosing test: ", PartRole.LEAVE: "earlier check: ", PartRole.EXIT: "earlier check: "}


def describe(change: dict[str, Any], function: str | None) -> list[tuple[str, str]]:
    """One changed condition (ConditionChange data) as a line of release notes, in pieces
    (``("text", ...)`` or ``("code", ...)``) that each format escapes its own way:
    ``size > 10`` -> ``size > 100``, a new condition, or one no longer tested."""
    label = _ROLE.get(change["role"], "")
    change = {**change, **{side: _shortened(change[side]) for side in ("old", "new")}}
    if change["old"] is not None and change["new"] is not None:
        pieces = [("text", label), ("code", change["old"]), ("text", " → "), ("code", change["new"])]
    elif change["new"] is not None:
        pieces = [("text", label + "new condition "), ("code", change["new"])]
    else:
        pieces = [("text", label + "no longer "), ("code", change["old"])]
    if change["also"]:
        count = len(change["also"])
        pieces.append(("text", f" (the same change in {count} other error{'s' if count > 1 else ''}" + (" of " if function else "")))
        pieces.extend([("code", function)] if function else [])
        pieces.append(("text", ", not listed again)"))
    return [piece for piece in pieces if piece[1]]


def _shortened(code: str | None) -> str | None:
    return code if code is None or len(code) <= _SHOWN else code[: _SHOWN - 3] + "..."
