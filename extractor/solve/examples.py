"""Examples: a trigger and a fix -> a before/after command line or Python snippet.

A command line is used only when every changed input maps to a flag the tree really
declares (argparse ``add_argument``, click ``option``, typer ``Option``); otherwise a
Python snippet builds the object or calls the function with the values.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

from ..model import Card, Example
from .domains import NO_VALUE

_CONSTRUCTING = {"constructor", "post_init", "pydantic_model_validator_after", "pydantic_model_validator_before",
                 "pydantic_model_validator_wrap", "pydantic_field_validator", "pydantic_root_validator"}


def _cli_value(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return shlex.quote(value)
    return None


def cli_line(prefix: str, changes: dict[str, Any], flags: dict[str, str]) -> str | None:
    words = [prefix]
    for name, value in changes.items():
        flag = flags.get(name.split(".")[-1])
        rendered = _cli_value(value)
        if flag is None or rendered is None:
            return None
        words.extend((flag, rendered))
    return " ".join(words)


def _constructor(owner: str, values: dict[str, Any], class_at: Callable[[str], str | None], prefix: str = "self") -> str | None:
    tree: dict[str, Any] = {}
    for name, value in values.items():
        parts = name.split(".")[1:]
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                return None
        node[parts[-1]] = ("value", value)

    def render(cls: str, node: dict[str, Any], path: str) -> str | None:
        args = []
        for key, child in node.items():
            if isinstance(child, tuple):
                args.append(f"{key}={child[1]!r}")
                continue
            sub = class_at(f"{path}.{key}")
            inner = render(sub, child, f"{path}.{key}") if sub else None
            if inner is None:
                return None
            args.append(f"{key}={inner}")
        return f"{cls}({', '.join(args)})"

    return render(owner, tree, prefix)


def python_snippet(card: Card, values: dict[str, Any], params: set[str], class_at: Callable[[str], str | None]) -> str | None:
    """Code that builds the object or calls the function with ``values`` (input -> value)."""
    fields = {k: v for k, v in values.items() if k.split(".")[0] in ("self", "cls") and "." in k}
    args = {k: v for k, v in values.items() if k in params and k not in ("self", "cls")}
    if len(fields) + len(args) != len(values):
        return None
    name = (card.function or "").rsplit(".", 1)[-1]
    owner = card.docs.owner.rsplit(".", 1)[-1] if card.docs.owner else None
    call_args = ", ".join(f"{k}={v!r}" for k, v in args.items())
    if owner is None:
        return f"{card.function}({call_args})" if card.function and "<locals>" not in card.function and not fields else None
    obj = _constructor(owner, fields, class_at)
    if obj is None:
        return None
    if set(card.entry) & _CONSTRUCTING and not args:
        return obj
    return f"{obj}.{name}({call_args})"


def build_example(card: Card, before: dict[str, Any], after: dict[str, Any], *, command: str | None,
                  flags: dict[str, str], required: dict[str, Any], class_at: Callable[[str], str | None]) -> Example | None:
    """Before (the trigger's changes) and after (the first fix's changes on top).

    ``required`` holds the function's parameters without a default, with the trigger's
    value where it has one; a Python call is written only when all have a value.
    """
    if command:
        first, second = cli_line(command, before, flags), cli_line(command, after, flags)
        if first and second:
            return Example(style="cli", before=first, after=second)
    if any(value is NO_VALUE for value in required.values()):
        return None
    params = set(required) | {k for k in {*before, *after} if "." not in k}
    first = python_snippet(card, {**required, **before}, params, class_at)
    second = python_snippet(card, {**required, **after}, params, class_at)
    if first and second:
        return Example(style="python", before=first, after=second)
    return None
