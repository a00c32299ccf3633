"""What a card quotes of a class's docstring: the class's own summary, and the entries of the fields its guard reads.

A card of a method quoted its whole class docstring before the source (vLLM 0.33: 170 lines
for a model's config; the stdlib's median is 4 lines, its 75th percentile 13). A docstring
of at most ``SHORT_LINES`` lines (a summary and a paragraph: it still fits beside the code on
one screen) is quoted whole; a longer one is API documentation that the class's own page
holds, so the card keeps its first paragraph (at most ``SHORT_LINES`` lines) and says it was
cut. The fields the guard reads are quoted on their own (``FieldDoc``): their string, or,
where a field has none, its entry in the class docstring's ``Args:``/``Attributes:``/
``Parameters`` section (Google, NumPy and Hugging Face styles), or a Sphinx
``:param name:``/``:ivar name:`` line.
"""

from __future__ import annotations

import re

SHORT_LINES = 12  # a class docstring of at most this many lines is quoted whole
_SECTION = re.compile(r"(?i)(args|arguments|parameters|params|attributes|fields|keyword args|keyword arguments|other parameters|members)"
                      r"\s*:?")
_UNDERLINE = re.compile(r"-{3,}")


def class_summary(doc: str | None) -> str | None:
    """The part of a class docstring a card quotes: all of a short one, else its first
    paragraph (at most ``SHORT_LINES`` lines) and a marker saying how long the whole is."""
    if doc is None:
        return None
    lines = doc.split("\n")
    if len(lines) <= SHORT_LINES:
        return doc
    end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    first = lines[:min(end, SHORT_LINES)]
    return "\n".join(first).rstrip() + f"\n… [cut: the first paragraph of a docstring of {len(lines)} lines]"


def field_entry(doc: str | None, name: str) -> str | None:
    """The entry that documents the field ``name`` in a class docstring, its continuation
    lines dedented (at most ``SHORT_LINES`` lines); None where the docstring has none."""
    if not doc:
        return None
    lines = doc.split("\n")
    sphinx = re.compile(rf"\s*:(?:param|ivar|cvar|var)(?:\s+[^:]+)?\s+{re.escape(name)}\s*:(.*)")
    entry = re.compile(rf"(\s*)\**{re.escape(name)}\**(?:\s*\(.*\))?\s*:(?!:)(.*)")
    section: int | None = None  # the indentation of the section header the lines stand in
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if _is_header(lines, i):
            section = indent
            continue
        found = sphinx.fullmatch(line)
        if found is None and section is not None and indent >= section:
            found = entry.fullmatch(line)
        if found is not None:
            return _entry(lines, i, found.group(found.lastindex or 0).strip())
    return None


def _is_header(lines: list[str], i: int) -> bool:
    text = lines[i].strip()
    if not _SECTION.fullmatch(text):
        return False
    return text.endswith(":") or (i + 1 < len(lines) and bool(_UNDERLINE.fullmatch(lines[i + 1].strip())))


def _entry(lines: list[str], start: int, head: str) -> str | None:
    """The entry at ``start``: what its line says after the colon, and the lines indented under it."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    body: list[str] = [head] if head else []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line.strip())
    text = "\n".join(body[:SHORT_LINES]).strip()
    return text or None
