"""Paste: what a user pasted (a message, or a whole traceback) -> the cards it points at, best first.

A traceback says more than its message. Its ``File "...", line N`` frames name the very
line that raised, and its last line names the exception's class:

- a frame inside the catalog's tree on a card's lines is that card, for certain (score 1);
- the innermost frame of the tree on no card's line means the error was raised below it,
  in compiled code or in a library outside the catalog: template matches from elsewhere are
  then doubtful, and the answer says where it came from instead of guessing;
- the class keeps template matches of an unrelated class out of first place, and finds the
  cards of a class whose raises carry no template (``json.JSONDecodeError``).

``render_match`` writes one match as ``raisedocs explain`` prints it.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any

from ..model import CLAIMED, record
from .explain import Match, match_message, one_per_family, rank

_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:, in (\S+))?')
# The last line of a traceback: "json.decoder.JSONDecodeError: Expecting value: ..."
_EXCEPTION_LINE = re.compile(r"^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Warning|Interrupt))(?::\s?(.*))?$")
CLASS_ONLY_SCORE = 0.3  # a card found by its exception class alone, its message unknown
DOUBTFUL = 0.5  # a template match whose class or place the traceback contradicts keeps this share


@record
class Paste:
    """What a pasted text says beyond its message."""

    frames: tuple[tuple[str, int, str | None], ...]  # (file, line, function), outermost first
    exception: str | None  # the class as printed ("json.decoder.JSONDecodeError")
    message: str | None  # the text after "Class: " on the traceback's last line


@record
class Origin:
    """Where a traceback says the error came from, when no card of the catalog raised it."""

    path: str
    line: int
    function: str | None


def read_paste(text: str) -> Paste:
    frames = tuple((m.group(1), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(text))
    exception = message = None
    for line in reversed([line.strip() for line in text.splitlines() if line.strip()]):
        found = _EXCEPTION_LINE.match(line)
        if found is not None:
            exception, message = found.group(1), found.group(2)
            break
    return Paste(frames=frames, exception=exception, message=message)


def _in_tree(file: str, entries: list[dict[str, Any]]) -> str | None:
    """The catalog path a frame's file is (the longest card path it ends with)."""
    posix = file.replace("\\", "/")
    best = None
    for path in {e["path"] for e in entries}:
        if (posix == path or posix.endswith("/" + path)) and (best is None or len(path) > len(best)):
            best = path
    return best


def _class_fits(entry: dict[str, Any], exception: str) -> bool:
    name = exception.rsplit(".", 1)[-1]
    classes = entry["exception"].get("classes") or ()
    names = {c.rsplit(".", 1)[-1] for c in classes} | {entry["exception"]["display"].rsplit(".", 1)[-1]}
    shown = entry.get("shown")
    if shown:  # the class a framework wraps the error in (a pasted traceback ends in it)
        names.add(shown["exception"].rsplit(".", 1)[-1])
    return name in names


def match_paste(text: str, index: dict[str, Any], limit: int) -> tuple[list[Match], Origin | None]:
    """The cards ``text`` points at, best first (at most ``limit``), and, where its traceback
    ends in no card of the catalog, the innermost frame of the catalog's tree it passed."""
    entries = index["entries"] if "entries" in index else index["errors"]
    paste = read_paste(text)
    site, origin = _site_of(paste, entries)
    matches = match_message(text, index, max(limit, 10))
    if paste.exception is not None:
        matches = [m if _class_fits(m.card, paste.exception) else replace(m, score=round(m.score * DOUBTFUL, 4)) for m in matches]
    if origin is not None:  # raised below a line of the tree where no card stands: nothing here raised it
        matches = [replace(m, score=round(m.score * DOUBTFUL, 4), note="traceback_elsewhere") for m in matches]
    elif not paste.frames:  # a bare message: a class from outside the tree may be raised there too
        tree = {_module_of(e["path"]) for e in entries}
        matches = [replace(m, score=round(m.score * DOUBTFUL, 4), note="class_outside_tree") if _outside(m.card,
                                                                                                         tree) else m for m in matches]
    matches = _pydantic_fits(text, matches)
    if site is not None:  # the frame is certain; other cards stay only where the class agrees
        others = [m for m in matches if m.id != site["id"] and (paste.exception is None or _class_fits(m.card, paste.exception))]
        matches = [Match(id=site["id"], score=1.0, values=_values(site, matches), card=site), *others]
    elif paste.exception is not None and not matches:
        matches = [Match(id=e["id"], score=CLASS_ONLY_SCORE, values={}, card=e)
                   for e in entries if _class_fits(e, paste.exception) and not e["message"].get("template")]
    matches.sort(key=lambda m: (site is None or m.id != site["id"], *rank(m)))  # (a frame of the traceback: shown, so first)
    return one_per_family(matches)[:limit], origin


# pydantic's ValidationError text: "1 validation error for Model", then per error its loc
# ("prefetch.size") and, indented, its message with " [type=greater_than_equal, ...]".
_PYDANTIC_TITLE = re.compile(r"\b\d+ validation errors? for ([A-Za-z_][\w.]*)")
_PYDANTIC_TYPE = " [type="
FIELD_FITS = 0.95  # a field constraint's match whose pasted ValidationError names its field and error type
# ... and another model: pydantic's title may differ from the class name (a configured title, a
# generic's parameters), so it stays a candidate, below a card of the model it names
OTHER_MODEL = 0.6


def _pydantic_fits(text: str, matches: list[Match]) -> list[Match]:
    """Field constraint cards ranked by what a pasted ValidationError says: the field (the
    last part of the loc line right before the message) and the error type must be the
    card's (many fields share ``ge=1``'s message), the model's name lifts it to certain; where
    a card of the model it names fits, the others' models are other models (``ChatRequest``'s
    ``temperature`` pasted: not ``MessagesRequest``'s; a subclass's name, with no card of its
    own, leaves its base's card at FIELD_FITS)."""
    if _PYDANTIC_TYPE not in text:
        return matches
    flat = " ".join(text.split())
    title = _PYDANTIC_TITLE.search(flat)
    named = title.group(1).strip() if title is not None else None
    fits = {id(m): _fits_field(m.card, flat) for m in matches}
    some_named = any(fits[id(m)] and m.card["constraint"]["owner"].rsplit(".", 1)[-1] == named for m in matches)
    out = []
    for m in matches:
        constraint = m.card.get("constraint")
        if constraint is None:
            out.append(m)
        elif not fits[id(m)]:
            out.append(replace(m, score=round(m.score * DOUBTFUL, 4)))
        elif constraint["owner"].rsplit(".", 1)[-1] == named:
            out.append(replace(m, score=1.0, note=None))
        else:  # (ValidationError is always pydantic's, outside the tree: the field and type are the evidence)
            out.append(replace(m, score=OTHER_MODEL if some_named else max(m.score, FIELD_FITS), note=None))
    return out


def _fits_field(card: dict[str, Any], flat: str) -> bool:
    """Whether a field constraint card's field, message and error type stand together in the pasted text."""
    constraint = card.get("constraint")
    if constraint is None:
        return False
    head = (card["message"].get("template") or "").split("{", 1)[0].strip()
    return re.search(r"(?:^|[\s.])" + re.escape(constraint["field"]) + r" " + re.escape(head) + r".{0,200}?\[type="
                     + re.escape(constraint["error_type"]) + r"\b", flat) is not None


def _module_of(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _outside(entry: dict[str, Any], tree: set[str]) -> bool:
    """Whether the card's exception class is defined in a module outside the tree (builtins
    aside). The catalog names only the modules that raise, so a class's module counts as the
    tree's when its top-level package is one of theirs (``shop.errors`` beside ``shop.parse``)."""
    classes = entry["exception"].get("classes") or ()
    module = classes[0].rpartition(".")[0] if classes else ""
    return bool(module) and module != "builtins" and module.split(".")[0] not in {m.split(".")[0] for m in tree}


def _values(site: dict[str, Any], matches: list[Match]) -> dict[str, str]:
    return next((m.values for m in matches if m.id == site["id"]), {})


def _site_of(paste: Paste, entries: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, Origin | None]:
    """The card the innermost frame of the catalog's tree stands on; else that frame."""
    for file, line, function in reversed(paste.frames):
        path = _in_tree(file, entries)
        if path is None:
            continue
        on = [e for e in entries if e["path"] == path and e["line"] <= line <= e.get("end_line", e["line"])]
        if on:
            return min(on, key=lambda e: (e["line"], e["id"])), None
        return None, Origin(path=path, line=line, function=function)
    return None, None


def render_origin(origin: Origin) -> str:
    """The line ``explain`` prints when the traceback ends below a line where no card stands."""
    where = f"{origin.path}:{origin.line}" + (f" (in {origin.function})" if origin.function else "")
    return (f"raisedocs: the traceback's innermost frame in this catalog's tree is {where}, where no raise statement stands: "
            "the error was raised below it, in compiled code or a library outside the catalog")


def _trigger_lines(card: dict[str, Any]) -> list[str]:
    trigger = card.get("trigger")
    if not trigger or trigger.get("status") not in CLAIMED:
        return []
    # Trigger inputs are plain values; show them as the Python literals they stand for.
    return ["Trigger:", *(f"  {name} = {value!r}" for name, value in trigger["inputs"].items())]


_NOTES = {
    "class_outside_tree": (("Doubtful: the exception's class is defined outside this tree (a compiled module or another package),"
                            " where code the catalog does not cover may raise the same message."),),
    "traceback_elsewhere": ("Doubtful: the pasted traceback does not pass this line.",),
}


def _personal_lines(personal: dict[str, Any] | None) -> list[str]:
    if not personal or not personal["fixes"]:
        return []
    given = ", ".join(f"{name} = {value!r}" for name, value in personal["inputs"].items())
    return [f"For your values ({given}):",
            *(f"  - set `{f['input']}` to `{f['to']!r}` (you have `{f['from']!r}`), so that `{f['part']}` is false"
              for f in personal["fixes"])]


def _fix_lines(card: dict[str, Any]) -> list[str]:
    fixes = card.get("fixes") or []
    return ["Fixes:", *(f"  - {fix['description']}" for fix in fixes)] if fixes else []


def render_match(match: Match, catalog_dir: str) -> str:
    """One match as the text ``raisedocs explain`` prints (no trailing newline)."""
    card = match.card
    lines = [
        f"{card['exception']['display']} · {card['path']}:{card['line']} · card {match.id} (score {match.score:.2f})",
        card["message"]["template"] if card["message"].get("template") is not None
        else "(no message template: the raise builds its text at run time)",
        *(f"  {expr} = {value}" for expr, value in match.values.items()),
        *([f"The caller gets {card['shown']['exception']} (a framework runs this code and wraps or prints the error)"]
          if card.get("shown") and card["shown"]["exception"] not in (card["exception"].get("classes") or ()) else []),
        f"When: {card['guard']['code']}",
        *_NOTES.get(match.note or "", ()),
        *_personal_lines(match.personal),
        *_trigger_lines(card),
        *_fix_lines(card),
    ]
    markdown = os.path.join(catalog_dir, "errors", f"{match.id}.md")
    if os.path.isfile(markdown):
        lines.append(f"Card: {markdown}")
    return "\n".join(lines)
