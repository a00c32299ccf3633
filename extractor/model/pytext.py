"""Values as Python text: what the cards and examples write for a value of the catalog's data."""

from __future__ import annotations

from typing import Any

REPEATED_FROM = 24  # items of a str or list of one repeated item that are written as a product


def repeated_text(value: Any) -> str | None:
    """``'a' * 1001``, ``[0] * 1001``: a long str of one character, or a long list of one
    plain item (``len(plural) > 1000``'s trigger, written once, not as a thousand characters
    three times on the card); None for anything else."""
    if type(value) is str and len(value) >= REPEATED_FROM and value == value[0] * len(value):
        return f"{value[0]!r} * {len(value)}"
    if type(value) is list and len(value) >= REPEATED_FROM and type(value[0]) in (int, str, bool, type(None)) \
            and all(type(v) is type(value[0]) and v == value[0] for v in value):
        return f"[{value[0]!r}] * {len(value)}"
    return None
