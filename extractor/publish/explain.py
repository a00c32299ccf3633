"""Lookup: a pasted error message + catalog JSON data -> the cards whose message template matches it.

Works from JSON data alone (a loaded catalog.json), like ``render``: it never imports
libcst. Each card's message template becomes a regular expression (literal text escaped,
each hole a lazy group) searched anywhere in the pasted text, so a message that arrives
wrapped in a traceback line or a pydantic ``ValidationError`` still matches.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from ..errors import CatalogError
from ..model import SCHEMA_ID, record
from ..model.schema import validate_catalog

CATALOG_FILE = "catalog.json"

# A template must hold a literal part this long (edges trimmed), or "{x}: {y}" would match anything.
MIN_LITERAL = 4

_WHITESPACE = re.compile(r"\s+")
# Where a trailing hole ends: the end of the text, or pydantic's " [type=value_error, ...]".
_WRAPPER_TAIL = r"(?=\s\[type=|$)"
# Text that wrappers put right before a message: "ValueError: ", pydantic's "Value error, ".
_WRAPPER_HEAD = re.compile(r"^.*(?:\b\w*(?:Error|Exception|Exit|Warning|Interrupt)|Value error|Assertion failed)[:,] ")


@record
class Match:
    """A card whose message template matches the pasted text."""

    id: str
    score: float
    values: dict[str, str]  # placeholder expression -> the text it stands for
    card: dict[str, Any]


@record
class _Pattern:
    """A message template compiled for search: the regex and what each group stands for."""

    regex: re.Pattern[str]
    groups: tuple[tuple[str, str], ...]  # (group name, placeholder expression), first occurrence only
    literal_chars: int
    literals: tuple[str, ...]


def locate_catalog(path: str) -> str:
    """The catalog file a path names: the file itself, or ``catalog.json`` in a docs folder."""
    return os.path.join(path, CATALOG_FILE) if os.path.isdir(path) else path


def load_catalog(path: str) -> dict[str, Any]:
    """Read and check a catalog.json (or the one in a docs folder).

    Raises:
        CatalogError: the file is missing, unreadable, not JSON, or not a raisedocs catalog.
    """
    file = locate_catalog(path)
    if not os.path.exists(file):
        raise CatalogError(f"catalog not found: {file}")
    try:
        # Opened without blocking and checked: a FIFO named catalog.json must not stall the run.
        with os.fdopen(os.open(file, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise CatalogError(f"catalog {file} is not a regular file")
            data = json.loads(handle.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"cannot read catalog {file}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise CatalogError(f"catalog {file} is not JSON: {exc}") from exc
    except RecursionError:
        raise CatalogError(f"catalog {file} is nested too deeply to be a raisedocs catalog") from None
    found = data.get("schema") if isinstance(data, dict) else None
    if found != SCHEMA_ID:
        raise CatalogError(f"{file} is not a raisedocs catalog: schema is {found!r}, expected {SCHEMA_ID!r}")
    try:
        validate_catalog(data)
    except CatalogError as exc:
        raise CatalogError(f"{file}: {exc}") from exc
    return data


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
    pieces: list[str] = []
    groups: list[tuple[str, str]] = []
    seen: dict[tuple[str, str | None, str | None], str] = {}
    for index, part in enumerate(parts):
        if part["type"] == "text":
            pieces.append(re.escape(_literal(parts, index)))
            continue
        # The same expression rendered the same way shows the same text each time.
        key = (part["expr"], part.get("conversion"), part.get("format_spec"))
        if key in seen:
            pieces.append(f"(?P={seen[key]})")
            continue
        name = seen[key] = f"h{len(seen)}"
        if part["expr"] not in {expr for _, expr in groups}:
            groups.append((name, part["expr"]))
        pieces.append(f"(?P<{name}>.*?)" + (_WRAPPER_TAIL if index == len(parts) - 1 else ""))
    return _Pattern(
        regex=re.compile("".join(pieces)),
        groups=tuple(groups),
        literal_chars=sum(_count_visible(literal) for literal in literals),
        literals=tuple(literal for literal in literals if literal),
    )


def _score(pattern: _Pattern, found: re.Match[str], text: str) -> float:
    """Share of the text's visible characters the template's literals cover; a match of the
    whole text halves the remaining gap."""
    coverage = min(1.0, pattern.literal_chars / max(1, _count_visible(text)))
    if found.span() == (0, len(text)):
        coverage += (1.0 - coverage) / 2
    return round(coverage, 4)


def _captured_values(pattern: _Pattern, found: re.Match[str], starts_with_hole: bool) -> dict[str, str]:
    values = {expr: found.group(name) for name, expr in pattern.groups}
    if starts_with_hole and pattern.groups:
        # A leading hole starts at the text's first character: drop the wrapper's head.
        name, expr = pattern.groups[0]
        values[expr] = _WRAPPER_HEAD.sub("", found.group(name))
    return values


def try_match_card(card: dict[str, Any], text: str) -> Match | None:
    """The match of one card against normalized text, or None."""
    parts = card["message"].get("parts")
    if not parts:
        return None
    pattern = compile_template(parts)
    if pattern is None or not all(literal in text for literal in pattern.literals):
        return None
    found = pattern.regex.search(text)
    if found is None:
        return None
    values = _captured_values(pattern, found, parts[0]["type"] == "hole")
    return Match(id=card["id"], score=_score(pattern, found, text), values=values, card=card)


def match_message(text: str, catalog_data: dict[str, Any], limit: int) -> list[Match]:
    """The cards whose message template occurs in ``text``, best first, at most ``limit``.

    Ordered by score (descending), then path, line and id, so the result is deterministic.
    """
    normalized = normalize_whitespace(text)
    if not normalized:
        return []
    matches = [m for m in (try_match_card(card, normalized) for card in catalog_data["errors"]) if m is not None]
    matches.sort(key=lambda m: (-m.score, m.card["path"], m.card["line"], m.id))
    return matches[:limit]


def _trigger_lines(card: dict[str, Any]) -> list[str]:
    trigger = card.get("trigger")
    if not trigger or trigger.get("status") != "solved":
        return []
    # Trigger inputs are plain values; show them as the Python literals they stand for.
    return ["Trigger:", *(f"  {name} = {value!r}" for name, value in trigger["inputs"].items())]


def _fix_lines(card: dict[str, Any]) -> list[str]:
    fixes = card.get("fixes") or []
    return ["Fixes:", *(f"  - {fix['description']}" for fix in fixes)] if fixes else []


def render_match(match: Match, catalog_dir: str) -> str:
    """One match as the text ``raisedocs explain`` prints (no trailing newline)."""
    card = match.card
    lines = [
        f"{card['exception']['display']} · {card['path']}:{card['line']} · card {match.id} (score {match.score:.2f})",
        card["message"]["template"],
        *(f"  {expr} = {value}" for expr, value in match.values.items()),
        f"When: {card['guard']['code']}",
        *_trigger_lines(card),
        *_fix_lines(card),
    ]
    markdown = os.path.join(catalog_dir, "errors", f"{match.id}.md")
    if os.path.isfile(markdown):
        lines.append(f"Card: {markdown}")
    return "\n".join(lines)
