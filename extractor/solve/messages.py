"""A card's message for given values: its template's placeholders evaluated in the restricted evaluator."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from ..collect.declarations import dotted_name
from ..collect.purity import BUILTIN_NAMES
from ..collect.syntax import walk
from ..model import Card, Hole, MessageTemplate, Text
from .evaluate import EvalError, evaluate, format_value, parse_expr


def message_refs(message: MessageTemplate, params: set[str]) -> list[str]:
    """The names and attribute chains the message's placeholders read (builtins aside, unless
    a parameter is so named), in order: the values a rendered message needs."""
    return expression_refs([part.value or part.expr for part in message.parts or () if isinstance(part, Hole)], params)


def expression_refs(codes: Iterable[str], params: set[str]) -> list[str]:
    """The names and attribute chains the expressions ``codes`` read (builtins aside, unless a
    parameter is so named), in order."""
    refs: list[str] = []
    for code in codes:
        try:
            tree = parse_expr(code)
        except EvalError:
            continue
        inner = {id(n.value) for n in walk(tree) if isinstance(n, ast.Attribute)}
        called = {id(n.func) for n in walk(tree) if isinstance(n, ast.Call)}
        for node in walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in inner and id(node) not in called:
                name = dotted_name(node)
                if name is not None and name not in refs and (name not in BUILTIN_NAMES or name in params):
                    refs.append(name)
    return refs


def render_message(message: MessageTemplate, env: dict[str, Any]) -> str:
    """The message text for these values.

    Raises:
        EvalError: a placeholder reads something the evaluator does not allow.
    """
    out: list[str] = []
    for part in message.parts or ():
        if isinstance(part, Text):
            out.append(part.text)
        else:
            out.append(format_value(evaluate(part.value or part.expr, env), part.conversion, part.format_spec or ""))
    return "".join(out)


def shown_message(card: Card, message: str | None, env: dict[str, Any], own_str: bool = False) -> str | None:
    """The message as ``str(exc)`` shows it: a KeyError shows the repr of its one argument
    (``KeyError(key)`` with key 0 shows ``0``; ``KeyError(f"no {key}")`` shows ``'no 0'``)."""
    if own_str:
        return None  # the class's __str__ writes its own text (calendar.IllegalMonthError): not claimed
    if message is None or card.message.form == "key" or "KeyError" not in (*card.exception.classes, *card.exception.ancestors):
        return message  # (a "key" template is the repr already: link.messages)
    parts = card.message.parts or ()
    argument_itself = card.message.form.rsplit(":", 1)[-1] in ("parameter", "call")  # not a str built from it
    if argument_itself and len(parts) == 1 and isinstance(parts[0], Hole):
        try:
            return repr(evaluate(parts[0].value or parts[0].expr, env))  # the argument itself, not its text
        except EvalError:
            return None
    return repr(message)
