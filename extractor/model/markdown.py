"""Markdown quoting: a value from the analysed tree -> Markdown that shows it and does nothing else.

Every string on a card comes from the analysed repository (messages, docstrings, code, file
names, values) and may hold HTML, link syntax or backticks. Each is written in the one form
its place needs: a code span or a fenced block (delimited by a backtick run longer than any
inside, so nothing can close it early), or escaped text (no raw HTML, entity, link or
autolink survives). Fix descriptions in catalog.json are Markdown too, so solving uses these
as well as rendering.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_BACKTICKS = re.compile(r"`+")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What Markdown would act on in text: a backslash escape, an entity, the start of raw HTML or
# an autolink, and the ``]`` that makes brackets a link, image or link definition (``](``,
# ``][``, ``] [`` in Python-Markdown, ``]:``). Anything else stays as written, so the source
# reads naturally (``[B, H, N]`` is left alone: with no definition it is no link).
_ACTIVE = re.compile(r"\\(?=[!-/:-@\[-`{-~])|&(?=[A-Za-z#])|<(?=[A-Za-z/!?])|\](?=[(:\[]|\s\[)")
_ESCAPED = {"\\": "\\\\", "&": "&amp;", "<": "&lt;", "]": "\\]"}
_SAFE_URL = re.compile(r"https?://", re.IGNORECASE)


def _longest_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def code_span(value: object) -> str:
    """``value`` as an inline code span (line breaks shown as spaces)."""
    text = _LINE_BREAK.sub(" ", str(value))
    if not text:
        return "` `"
    fence = "`" * (_longest_run(text) + 1)
    # A span that starts or ends with a backtick, or with spaces on both sides, needs a
    # space of padding inside its delimiters (CommonMark strips one from each side).
    pad = " " if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: object, language: str = "") -> str:
    """``text`` as a fenced code block, fenced longer than any backtick run inside it."""
    body = str(text)
    fence = "`" * max(3, _longest_run(body) + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def escape_text(value: object) -> str:
    """``value`` as Markdown text: shown as written, with no HTML, link or entity in effect.
    Its own code spans (a docstring's ```x > 0```) stay as they are: nothing acts inside one."""
    text = str(value)
    out: list[str] = []
    at = 0
    for span_start, span_end in _code_spans(text):
        out.append(_ACTIVE.sub(lambda m: _ESCAPED[m.group()], text[at:span_start]))
        out.append(text[span_start:span_end])
        at = span_end
    out.append(_ACTIVE.sub(lambda m: _ESCAPED[m.group()], text[at:]))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where CommonMark sees code spans: a backtick run closed by the next run of the same length."""
    spans = []
    runs = list(_BACKTICKS.finditer(text))
    index = 0
    while index < len(runs):
        opening = runs[index]
        closing = next((j for j in range(index + 1, len(runs)) if len(runs[j].group()) == len(opening.group())), None)
        if closing is None:
            index += 1
            continue
        spans.append((opening.start(), runs[closing].end()))
        index = closing + 1
    return spans


def escape_line(value: object) -> str:
    """``value`` as text on one line (a list item, a link's text)."""
    return _LINE_BREAK.sub(" ", escape_text(value))


def escape_cell(value: object) -> str:
    """``value`` as the text of a table cell (one line, no column break)."""
    return escape_line(value).replace("|", "\\|")


def safe_url(url: object) -> str | None:
    """An http(s) URL with the characters that would end a Markdown link percent-encoded;
    None for any other scheme (``javascript:``, ``data:``)."""
    text = str(url or "")
    if not _SAFE_URL.match(text):
        return None
    return quote(text, safe="/:#?&=%~@!$*+,;'")
