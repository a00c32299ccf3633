"""Pairing the cards of two releases: which new card is which old one, made only where the
evidence says they are one raise (publish.diff classifies the pairs).

A place is a function (``<module>`` at module level) in a file, the file as the new release
names it (``diff.renamed_files``). Cards pair:

1. within one place: first the same exception with the same message (placeholders' names
   ignored: ``Unknown mode {m!r}`` is ``Unknown mode {mode!r}``), in order; then the most
   alike, by message, own test and class (``_alike``), best first; then the same exception at
   the same ordinal (the card's id: a reworded message keeps it) when the two raises are still
   alike enough that the place alone does not make the pair;
2. within a renamed definition, the same way: a function gone from the old release and one new
   in the new whose bodies (the cards' excerpts, the names replaced) are the same or nearly so,
   with the same name (leading underscores aside) in another file or another class, or another
   name in the same file. A class whose methods all moved so is one renamed class;
3. in one file, the same class and message (placeholders' names ignored) raised from another
   function.

Everything else is added or removed: no pair rests on a message alone across files, nor on two
raises merely sharing a class. Works on catalog JSON alone, so catalogs of different tool
versions compare.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from typing import Any

from ..model import DefinitionKind, DefinitionRename, PartRole

Card = dict[str, Any]
Place = tuple[str, str]  # (path as the new release names it, qualified function or "<module>")

_ALIKE = 0.6  # how alike two raises of one place must be to pair when their class or ordinal differs
_SAME_ORDINAL = 0.45  # how alike the same class at the same ordinal must be (the id alone is not enough)
_SAME_STATEMENT = 0.9  # how alike two raise statements must be to say the same (a class renamed with a leading underscore)
_BODY = 0.8  # how alike two definitions' bodies must be to be one definition renamed
_MOST_NAMESAKES = 8  # definitions of the same name in other files scored, per old definition
_HOLE = re.compile(r"\{[^{}]*\}")
_STATEMENT = 120  # characters of a raise statement kept


@dataclasses.dataclass
class Pairing:
    """The pairs (old id, new id) the evidence allows, and the definitions renamed."""

    pairs: list[tuple[str, str]]
    definitions: list[DefinitionRename]


def pair_cards(old: list[Card], new: list[Card], renamed: dict[str, str]) -> Pairing:
    """Pair two releases' cards (``renamed``: old path -> new path of the files that moved)."""
    old_places, new_places = _places(old, renamed), _places(new, {})
    common = sorted(old_places.keys() & new_places.keys())
    pairs = [pair for place in common for pair in _pair_place(old_places[place], new_places[place])]
    moves = _renamed_definitions({p: c for p, c in old_places.items() if p not in new_places},
                                 {p: c for p, c in new_places.items() if p not in old_places})
    pairs.extend(pair for o, n in moves for pair in _pair_place(old_places[o], new_places[n]))
    used = {i for pair in pairs for i in pair}
    pairs.extend(_same_template_in_file([c for c in old if c["id"] not in used], [c for c in new if c["id"] not in used], renamed))
    return Pairing(pairs, _definitions(moves, old_places, new_places))


def _places(cards: list[Card], renamed: dict[str, str]) -> dict[Place, list[Card]]:
    places: dict[Place, list[Card]] = defaultdict(list)
    for card in sorted(cards, key=lambda c: (c["line"], c["id"])):
        path: str = card["path"]
        places[(renamed.get(path, path), card["function"] or "<module>")].append(card)
    return dict(places)


# --- what a card says -------------------------------------------------------------------------


def statement(card: Card) -> str | None:
    """The raise as written, on one line, from the card's excerpt (None without one)."""
    excerpt = card.get("excerpt")
    if not excerpt:
        return None
    start = excerpt["start_line"]
    lines = excerpt["text"].splitlines()[card["line"] - start: card.get("end_line", card["line"]) - start + 1]
    text = " ".join(" ".join(lines).split())
    return text if len(text) <= _STATEMENT else text[: _STATEMENT - 3] + "..."


def _said(card: Card) -> str | None:
    """What the raise says: its message template, else its statement."""
    return card["message"]["template"] or card["message"].get("source") or statement(card)


def _shape(card: Card) -> str | None:
    """The message with its placeholders' names left out (``Unknown mode {}``)."""
    said = _said(card)
    return _HOLE.sub("{}", said) if said is not None else None


def _ratio(a: str | None, b: str | None) -> float:
    if a is None or b is None or a == b:
        return float(a == b)
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _own_test(card: Card) -> str:
    """The raise's own test: its guard without the earlier raises' tests negated, which every
    later raise of a function repeats (and so makes them all look alike)."""
    own = [part["code"] for part in card["guard"].get("parts", ()) if part["role"] == PartRole.OWN]
    return " and ".join(own) if own else card["guard"]["code"]


def _alike(old: Card, new: Card) -> float:
    """How alike two raises are, in [0, 1]: their messages, own tests and classes. A raise
    without a reconstructed message says the same as another only where their statements are
    (nearly) the same: ``raise StoreError`` is not ``raise KeyError``, however alike the texts."""
    same_class = old["exception"]["display"] == new["exception"]["display"]
    templated = bool(old["message"]["template"]) and bool(new["message"]["template"])
    if templated:
        said = _ratio(_shape(old), _shape(new))
    else:
        said = float(_said(old) is not None and _ratio(_said(old), _said(new)) >= _SAME_STATEMENT)
    return 0.6 * said + 0.3 * _ratio(_own_test(old), _own_test(new)) + 0.1 * same_class


# --- within a place ---------------------------------------------------------------------------


def _pair_place(old: list[Card], new: list[Card]) -> list[tuple[str, str]]:
    """The pairs of one place's cards (each list in line order)."""
    pairs: list[tuple[str, str]] = []
    waiting: dict[tuple, deque[Card]] = defaultdict(deque)
    for card in new:
        waiting[(card["exception"]["display"], _shape(card))].append(card)
    left_old = []
    for card in old:
        same = waiting.get((card["exception"]["display"], _shape(card)))
        if same:
            pairs.append((card["id"], same.popleft()["id"]))
        else:
            left_old.append(card)
    paired = {n for _, n in pairs}
    left_new = [c for c in new if c["id"] not in paired]
    pairs.extend(_best_first((_alike(o, n), o["id"], n["id"]) for o in left_old for n in left_new))
    paired_old, paired_new = {o for o, _ in pairs}, {n for _, n in pairs}
    left_old = [c for c in left_old if c["id"] not in paired_old]
    left_new = [c for c in left_new if c["id"] not in paired_new]
    pairs.extend(_by_ordinal(old, new, left_old, left_new))
    return pairs


def _ordinals(cards: list[Card]) -> dict[str, tuple[str, int]]:
    """Card id -> (its class as shown, its ordinal among the place's raises of that class)."""
    seen: dict[str, int] = defaultdict(int)
    found = {}
    for card in cards:
        display = card["exception"]["display"]
        seen[display] += 1
        found[card["id"]] = (display, seen[display])
    return found


def _by_ordinal(old: list[Card], new: list[Card], left_old: list[Card], left_new: list[Card]) -> Iterator[tuple[str, str]]:
    """The same class at the same ordinal (a reworded message keeps its card's id), where the
    two raises are alike enough that the place alone does not make the pair."""
    new_at = {_ordinals(new)[c["id"]]: c for c in left_new}
    old_ordinals = _ordinals(old)
    for card in left_old:
        match = new_at.get(old_ordinals[card["id"]])
        if match is not None and _alike(card, match) >= _SAME_ORDINAL:
            yield card["id"], match["id"]


def _best_first(scored: Iterable[tuple[float, Any, Any]], threshold: float = _ALIKE) -> list[tuple[Any, Any]]:
    """Pairs of the scores at or above ``threshold``, the best first, each side used once."""
    pairs: list[tuple[Any, Any]] = []
    used_old: set[Any] = set()
    used_new: set[Any] = set()
    for _, o, n in sorted((s for s in scored if s[0] >= threshold), key=lambda s: (-s[0], s[1], s[2])):
        if o not in used_old and n not in used_new:
            used_old.add(o)
            used_new.add(n)
            pairs.append((o, n))
    return pairs


# --- renamed definitions ----------------------------------------------------------------------


def _leaf(place: Place) -> str:
    return place[1].rsplit(".", 1)[-1]


def _public(place: Place) -> str:
    """The definition's name without the underscores that make it private (``_parse`` is a
    namesake of ``parse``: a function made private keeps its body)."""
    return _leaf(place).lstrip("_")


def _owner(place: Place) -> str:
    return place[1].rsplit(".", 1)[0] if "." in place[1] else ""


def _renamed_definitions(gone: dict[Place, list[Card]], fresh: dict[Place, list[Card]]) -> list[tuple[Place, Place]]:
    """(old place, new place) of the definitions renamed: the same name (underscores aside) in
    another file or class, or another name in the same file, with a body as alike as ``_BODY``."""
    by_leaf: dict[str, list[Place]] = defaultdict(list)
    by_file: dict[str, list[Place]] = defaultdict(list)
    for place in sorted(fresh):
        by_leaf[_public(place)].append(place)
        by_file[place[0]].append(place)

    def scored() -> Iterator[tuple[float, Place, Place]]:
        for place in sorted(gone):
            if place[1] == "<module>":
                continue
            for candidate in dict.fromkeys([*by_leaf.get(_public(place), ())[:_MOST_NAMESAKES], *by_file.get(place[0], ())]):
                if candidate[1] != "<module>":
                    yield _body_alike(gone[place], fresh[candidate], place, candidate), place, candidate

    return _best_first(scored(), _BODY)


def _body(cards: list[Card]) -> str:
    """A definition's body as the catalog shows it: its cards' excerpts, each line once."""
    lines: dict[int, str] = {}
    for card in cards:
        excerpt = card.get("excerpt")
        if excerpt:
            lines.update((excerpt["start_line"] + k, text.strip()) for k, text in enumerate(excerpt["text"].splitlines()))
        else:
            lines[card["line"]] = f"{card['exception']['display']} {_said(card)} {card['guard']['code']}"
    return "\n".join(lines[k] for k in sorted(lines))


def _body_alike(old: list[Card], new: list[Card], was: Place, now: Place) -> float:
    """How alike two definitions' bodies are, the old one's names written as the new one's.
    Without excerpts (a catalog written without them) only the raises are known, too little
    to call two definitions of different names one: 0."""
    if _public(was) != _public(now) and not all(card.get("excerpt") for card in (*old, *new)):
        return 0.0
    text = _body(old)
    for a, b in ((_leaf(was), _leaf(now)), (_owner(was).rsplit(".", 1)[-1], _owner(now).rsplit(".", 1)[-1])):
        if a and b and a != b:
            text = re.sub(rf"\b{re.escape(a)}\b", b, text)
    matcher = difflib.SequenceMatcher(None, text, _body(new), autojunk=False)
    return matcher.ratio() if matcher.quick_ratio() >= _BODY else 0.0


def _definitions(moves: list[tuple[Place, Place]], old: dict[Place, list[Card]], new: dict[Place, list[Card]]) -> list[DefinitionRename]:
    """The renames to report, each once: a class whose methods that raise (two or more) all moved
    to another class (no method of the old class left, none of the new one before) is one class
    renamed; any other move is one function renamed."""
    classes: dict[tuple[str, str, str, str], list[tuple[Place, Place]]] = defaultdict(list)
    out = []
    old_owners = {(p[0], _owner(p)) for p in old}
    new_owners = {(p[0], _owner(p)) for p in new}
    for was, now in moves:
        owners = (was[0], _owner(was), now[0], _owner(now))
        kept = (was[0], _owner(was)) in new_owners or (now[0], _owner(now)) in old_owners
        if _leaf(was) == _leaf(now) and _owner(was) and _owner(now) and _owner(was) != _owner(now) and not kept:
            classes[owners].append((was, now))
        else:
            out.append(_rename(DefinitionKind.FUNCTION, (was[1], now[1]), [(was, now)], old, new))
    # (One method moved is a function moved: nothing says its class was renamed.)
    for (_, was_class, _, now_class), pairs in classes.items():
        out.extend([_rename(DefinitionKind.CLASS, (was_class, now_class), pairs, old, new)] if len(pairs) > 1 else
                   [_rename(DefinitionKind.FUNCTION, (w[1], n[1]), [(w, n)], old, new) for w, n in pairs])
    return sorted(out, key=lambda r: (r.old_path, r.old_name, r.new_path, r.new_name))


def _rename(kind: DefinitionKind, names: tuple[str, str], moves: list[tuple[Place, Place]], old: dict[Place, list[Card]],
            new: dict[Place, list[Card]]) -> DefinitionRename:
    was, now = moves[0]
    return DefinitionRename(
        kind=kind, old_path=old[was][0]["path"], old_name=names[0], new_path=now[0], new_name=names[1],
        errors=sum(len(new[n]) for _, n in moves), functions=tuple(sorted((w[1], n[1]) for w, n in moves)),
    )


# --- the same message in one file -------------------------------------------------------------


def _same_template_in_file(old: list[Card], new: list[Card], renamed: dict[str, str]) -> Iterator[tuple[str, str]]:
    """Raises of one class and one message (placeholders' names ignored) moved to another
    function of their file, paired in line order. Only a reconstructed message with text of its
    own counts; a class changed too is a removal and an addition (no exception change, and so
    no breaking one, pairs two functions that are not one renamed)."""
    def key(card: Card, path: str) -> tuple[str, str, str] | None:
        template = card["message"]["template"]
        shape = _HOLE.sub("{}", template) if template else None
        return (path, card["exception"]["display"], shape) if shape and shape.replace("{}", "").strip() else None

    waiting: dict[tuple[str, str, str], deque[Card]] = defaultdict(deque)
    for card in sorted(new, key=lambda c: (c["path"], c["line"], c["id"])):
        if (k := key(card, card["path"])) is not None:
            waiting[k].append(card)
    for card in sorted(old, key=lambda c: (c["path"], c["line"], c["id"])):
        path: str = card["path"]
        k = key(card, renamed.get(path, path))
        if k is not None and waiting.get(k):
            yield card["id"], waiting[k].popleft()["id"]
