"""Lookup: a pasted error message + catalog JSON data -> the cards whose message template matches it.

Works from JSON data alone (a loaded catalog.json), like ``render``: it never imports
libcst. Each card's message template becomes a regular expression (literal text escaped,
each hole as short as it can be) searched anywhere in the pasted text, so a message that
arrives wrapped in a traceback line or a pydantic ``ValidationError`` still matches. The search
places literal runs with ``str.find`` and never backtracks past a fixed budget of steps, so
a long paste against a template of many holes costs linear time, not a regex's cubic one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model import record
from .ranking import rank_key

# A template must hold a literal part this long (edges trimmed), or "{x}: {y}" would match anything.
MIN_LITERAL = 4

_WHITESPACE = re.compile(r"\s+")
# Where a trailing hole ends: the end of the text, or pydantic's " [type=value_error, ...]".
_WRAPPER_TAIL = " [type="
# Text that wrappers put right before a message: "ValueError: ", pydantic's "Value error, ".
_WRAPPER_HEAD = re.compile(r"\b\w*(?:Error|Exception|Exit|Warning|Interrupt)[:,] |Value error[:,] |Assertion failed[:,] ")
# Steps (placements of a literal or a hole) one card's search may take: far more than any real
# message needs; a template of many holes against a long paste stops here instead of taking minutes.
MATCH_STEPS = 20_000


@record
class Match:
    """A card whose message template matches the pasted text."""

    id: str
    score: float
    values: dict[str, str]  # placeholder expression -> the text it stands for
    card: dict[str, Any]
    # Fixes for the pasted values (solve.personal): {"inputs": ..., "fixes": [{"input", "from", "to", "part"}]}
    personal: dict[str, Any] | None = None
    note: str | None = None  # why the match is doubtful (a code: class_outside_tree, traceback_elsewhere)


@record
class _Pattern:
    """A message template compiled for search: literal runs and holes, in order."""

    items: tuple[tuple[str, str], ...]  # ("text", literal) or ("hole", group name)
    groups: tuple[tuple[str, str], ...]  # (group name, placeholder expression), first occurrence only
    literal_chars: int
    literals: tuple[str, ...]


def normalize_whitespace(text: str) -> str:
    """Collapse every whitespace run to one space, so line-wrapped pastes compare equal."""
    return _WHITESPACE.sub(" ", text).strip()


def _count_visible(text: str) -> int:
    return len(text) - sum(ch.isspace() for ch in text)


def _merge_texts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    merged: list[dict[str, Any]] = []
    for part in parts:
        if part["type"] == "text" and merged and merged[-1]["type"] == "text":
            merged[-1] = {"type": "text", "text": merged[-1]["text"] + part["text"]}
        else:
            merged.append(part)
    return merged


def _literal(parts: list[dict[str, Any]], index: int) -> str:
    """A text part with whitespace runs collapsed, trimmed where it starts or ends the message."""
    text = _WHITESPACE.sub(" ", parts[index]["text"])
    text = text.lstrip() if index == 0 else text
    return text.rstrip() if index == len(parts) - 1 else text


def compile_template(parts: list[dict[str, Any]]) -> _Pattern | None:
    """A card's message parts as a search pattern; None when no literal run is long enough."""
    parts = _merge_texts(parts)
    literals = tuple(_literal(parts, i) for i, p in enumerate(parts) if p["type"] == "text")
    if not any(len(literal.strip()) >= MIN_LITERAL for literal in literals):
        return None
    items: list[tuple[str, str]] = []
    groups: list[tuple[str, str]] = []
    seen: dict[tuple[str, str | None, str | None], str] = {}
    for index, part in enumerate(parts):
        if part["type"] == "text":
            if literal := _literal(parts, index):
                items.append(("text", literal))
            continue
        # The same expression rendered the same way shows the same text each time.
        key = (part["expr"], part.get("conversion"), part.get("format_spec"))
        name = seen.get(key)
        if name is None:
            name = seen[key] = f"h{len(seen)}"
            if part["expr"] not in {expr for _, expr in groups}:
                groups.append((name, part["expr"]))
        items.append(("hole", name))
    return _Pattern(
        items=tuple(items),
        groups=tuple(groups),
        literal_chars=sum(_count_visible(literal) for literal in literals),
        literals=tuple(literal for literal in literals if literal),
    )


@record
class _Found:
    """Where a pattern matched: its span and each hole's text."""

    start: int
    end: int
    holes: dict[str, str]


def search_pattern(pattern: _Pattern, text: str, steps: int = MATCH_STEPS) -> _Found | None:
    """The leftmost match of ``pattern`` in ``text``, each hole as short as it can be (what a
    regular expression of lazy groups and back references would find), or None; also None
    when the search would take more than ``steps``."""
    items = pattern.items
    holes = [value for kind, value in items if kind == "hole"]
    if len(set(holes)) == len(holes):
        return _first_placement(items, text)
    budget = [steps]
    if items[0][0] == "hole":
        # A leading hole can start anywhere; without a repeated hole, at 0 if anywhere.
        for start in range(len(text) + 1):
            if budget[0] <= 0:
                return None
            found = _place(items, 0, text, start, {}, budget, start)
            if found is not None:
                return found
        return None
    literal = items[0][1]
    start = text.find(literal)
    while start != -1 and budget[0] > 0:
        budget[0] -= 1
        found = _place(items, 1, text, start + len(literal), {}, budget, start)
        if found is not None:
            return found
        start = text.find(literal, start + 1)
    return None


def _first_placement(items: tuple[tuple[str, str], ...], text: str) -> _Found | None:
    """The match of a template whose holes all differ, in linear time: each literal at its
    first occurrence after the one before (a hole is then as short as it can be, and no later
    start can succeed where the first occurrence of the first literal fails)."""
    start = at = 0
    holes: dict[str, str] = {}
    pending: str | None = None  # a hole waiting for the next literal to end it
    for index, (kind, value) in enumerate(items):
        if kind == "hole":
            if pending is not None:
                holes[pending] = ""  # a hole right before another one is empty
            pending = value
            continue
        found = text.find(value, at)
        if found == -1 or (pending is None and index > 0 and found != at):
            return None
        if index == 0:
            start = found
        if pending is not None:
            holes[pending] = text[at:found]
            pending = None
        at = found + len(value)
    if pending is not None:  # a trailing hole runs to a wrapper's tail or the end
        tail = text.find(_WRAPPER_TAIL, at)
        end = tail if tail != -1 else len(text)
        holes[pending] = text[at:end]
        at = end
    return _Found(start=start, end=at, holes=holes)


def _place(items: tuple[tuple[str, str], ...], index: int, text: str, at: int, holes: dict[str, str],
           budget: list[int], start: int) -> _Found | None:
    """Depth first over the placements of ``items[index:]`` from position ``at``."""
    if index == len(items):
        return _Found(start=start, end=at, holes=dict(holes))
    kind, value = items[index]
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    if kind == "text":  # right after another placed item: it must start here
        return _place(items, index + 1, text, at + len(value), holes, budget, start) if text.startswith(value, at) else None
    if value in holes:  # a hole seen before shows the same text again
        if not text.startswith(holes[value], at):
            return None
        return _place(items, index + 1, text, at + len(holes[value]), holes, budget, start)
    for end in _hole_ends(items, index, text, at, budget):
        holes[value] = text[at:end]
        found = _place(items, index + 1, text, end, holes, budget, start)
        if found is not None:
            return found
        del holes[value]
    return None


def _hole_ends(items: tuple[tuple[str, str], ...], index: int, text: str, at: int, budget: list[int]) -> Iterator[int]:
    """Where a new hole starting at ``at`` may end, shortest first."""
    if index == len(items) - 1:  # a trailing hole runs to a wrapper's tail or the end
        tail = text.find(_WRAPPER_TAIL, at)
        yield tail if tail != -1 else len(text)
        return
    kind, value = items[index + 1]
    if kind == "text":  # up to an occurrence of the next literal
        end = text.find(value, at)
        while end != -1 and budget[0] > 0:
            budget[0] -= 1
            yield end
            end = text.find(value, end + 1)
        return
    for end in range(at, len(text) + 1):  # a hole right before another hole
        if budget[0] <= 0:
            return
        budget[0] -= 1
        yield end


def _score(pattern: _Pattern, found: _Found, text: str) -> float:
    """Share of the text's visible characters the template's literals cover; a match of the
    whole text halves the remaining gap."""
    coverage = min(1.0, pattern.literal_chars / max(1, _count_visible(text)))
    if (found.start, found.end) == (0, len(text)):
        coverage += (1.0 - coverage) / 2
    return round(coverage, 4)


def _captured_values(pattern: _Pattern, found: _Found, starts_with_hole: bool) -> dict[str, str]:
    values = {expr: found.holes[name] for name, expr in pattern.groups}
    if starts_with_hole and pattern.groups:
        # A leading hole starts at the text's first character: drop the wrapper's head.
        name, expr = pattern.groups[0]
        heads = list(_WRAPPER_HEAD.finditer(found.holes[name]))
        values[expr] = found.holes[name][heads[-1].end():] if heads else found.holes[name]
    return values


_HOLE_TYPES = {
    "int": re.compile(r"[-+]?\d[\d,_]*"),
    "number": re.compile(r"[-+]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)"),
    "bool": re.compile(r"True|False"),
}


def _typed_holes_fit(kept: dict[str, Any] | None, found: _Found) -> bool:
    """Each typed hole (search_index.hole_types) shows text of its type: an int input's hole
    never matches ``abc``."""
    types = (kept or {}).get("types") or {}
    return all(_HOLE_TYPES[kind].fullmatch(found.holes.get(name, "").strip()) for name, kind in types.items() if name in found.holes)


def try_match_card(card: dict[str, Any], text: str) -> Match | None:
    """The match of one card (or search index entry) against normalized text, or None: its
    message, or a form a framework shows it in (``Card.shown``: pydantic's or ``@strict``'s
    wrapped text, click's ``Error: ...`` line), whichever covers more of the text."""
    best = None
    for kept, parts in _forms(card):
        found = _try_form(card, kept, parts, text)
        if found is not None and (best is None or found.score > best.score):
            best = found
    return best


def _forms(card: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | None, list[dict[str, Any]] | None]]:
    """Each searchable form of a card as (compiled pattern, None) for an index entry, or (None, parts) for a card."""
    if "pattern" in card:  # an entry of a search index: the patterns are kept compiled
        yield card["pattern"], None
        for kept in (card.get("shown") or {}).get("patterns", ()):
            yield kept, None
        return
    yield None, card["message"].get("parts")
    shown = card.get("shown") or {}
    for key in ("message", "terminal"):
        if shown.get(key) and shown[key].get("parts"):
            yield None, shown[key]["parts"]


def _try_form(card: dict[str, Any], kept: dict[str, Any] | None, parts: list[dict[str, Any]] | None, text: str) -> Match | None:
    if kept is not None:
        text = _open_end(kept["items"], text)
        if not all(literal in text for literal in kept["literals"]):
            return None  # (most entries stop here, before a pattern is built)
        pattern: _Pattern | None = _Pattern(
            items=tuple((kind, value) for kind, value in kept["items"]), groups=tuple((name, expr) for name, expr in kept["groups"]),
            literal_chars=kept["literal_chars"], literals=tuple(kept["literals"]),
        )
        opens_with_hole = kept["opens_with_hole"]
    elif parts:
        pattern, opens_with_hole = compile_template(parts), parts[0]["type"] == "hole"
        text = _open_end(pattern.items, text) if pattern is not None else text
    else:
        return None
    if pattern is None or not all(literal in text for literal in pattern.literals):
        return None
    found = search_pattern(pattern, text)
    if found is None or not _typed_holes_fit(kept, found):
        return None
    values = _captured_values(pattern, found, opens_with_hole)
    return Match(id=card["id"], score=_score(pattern, found, text), values=values, card=card)


def _open_end(items: Any, text: str) -> str:
    """``text`` with the trailing space it lost given back, where a template ends in a hole
    after a literal that ends in spaces: the message of an empty last value ends in those
    spaces, which a paste (stripped) has lost ("... but found " -> "... but found")."""
    if len(items) < 2 or items[-1][0] != "hole" or items[-2][0] != "text":
        return text
    literal = items[-2][1]
    trimmed = literal.rstrip()
    return text + literal[len(trimmed):] if trimmed != literal and text.endswith(trimmed) else text


def match_message(text: str, catalog_data: dict[str, Any], limit: int) -> list[Match]:
    """The cards whose message template occurs in ``text``, best first, at most ``limit``;
    ``catalog_data`` is a catalog, or a search index (``search_index``) whose entries stand
    for its cards.

    Ordered by ``rank``: the errors users hit first (publish.ranking), then by score
    (descending), path, line and id, so the result is deterministic.
    """
    normalized = normalize_whitespace(text)
    if not normalized:
        return []
    cards = catalog_data["entries"] if "entries" in catalog_data else catalog_data["errors"]
    matches = [m for m in (try_match_card(card, normalized) for card in cards) if m is not None]
    matches.sort(key=rank)
    return one_per_family(matches)[:limit]


def one_per_family(matches: list[Match]) -> list[Match]:
    """The matches, a family of identical checks (publish.families; an index entry's ``family``)
    by its first match alone: its card lists the others."""
    seen: set[str] = set()
    out = []
    for match in matches:
        family = match.card.get("family")
        if family is None or family not in seen:
            out.append(match)
            if family is not None:
                seen.add(family)
    return out


def rank(match: Match) -> tuple[int, float, str, int, str]:
    """The order of matches: by publish.ranking's key (the errors users hit first, those
    raised without a message last), then by score, path, line and id."""
    return rank_key(match.card), -match.score, match.card["path"], match.card["line"], match.id
