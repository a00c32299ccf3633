"""Which of the values the class assigns to its state reach the raise (link.state lists them).

A value whose source is a literal (``True``, ``None``, ``0``, ``'closed'``, ``()``: read by
``ast.literal_eval``, an allow-list of literal forms), or a constant the condition itself
names (``self.mode = WRITE`` where it tests ``self.mode == WRITE``: the value linking gave
that name), or a module constant whose literal source linking found (StateWrite.constant),
is put in place of the attribute, the trigger's other values kept, and the card's condition
evaluated: True, False, or None where it cannot say (another value it reads is unknown). Any
other value (a call, another name) is not evaluated.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..model import Domain, StateWrite
from ..model.pytext import literal_or
from .problem import Problem

_UNREAD = object()


def reached(state: tuple[StateWrite, ...], problem: Problem, env: dict[str, Any]) -> tuple[StateWrite, ...]:
    """``state`` with ``reaches`` set where the condition decides it under ``env``."""
    out = []
    for write in state:
        source = write.store.value
        value = problem.constants[source] if source in problem.constants else literal_or(write.constant or source, _UNREAD)
        # (a value the trigger assumes for a test of the attribute, ``isinstance(self.output, Exception)``, is
        # left out: with the attribute given, the test is evaluated, not assumed)
        mentions = re.compile(rf"(?<![\w.]){re.escape(write.input)}(?!\w)")
        trial = {name: v for name, v in env.items() if name == write.input or not mentions.search(name)}
        reaches = None if value is _UNREAD else problem.holds({**problem.constants, **trial, write.input: value})
        out.append(replace(write, reaches=reaches))
    return tuple(out)


_TYPED = ("bool", "int", "float", "str")


def state_types(state: tuple[StateWrite, ...], domains: dict[str, Domain]) -> dict[str, Domain]:
    """The domains of the attributes whose every assignment in the class is a literal of one
    builtin type (``self._closed = False`` in ``__init__``, ``True`` in ``close``): that type,
    where nothing else declares one. An assignment of a value not shown (a call, ``+=``) may
    give any type: then none."""
    writes: dict[str, list[Any]] = {}
    for write in state:
        writes.setdefault(write.input, []).append(literal_or(write.constant or write.store.value, _UNREAD))
    out = {}
    for name, values in writes.items():
        domain = domains.get(name)
        kinds = {type(v).__name__ for v in values}
        if domain is None or domain.types or domain.choices is not None or _UNREAD in values or len(kinds) != 1:
            continue
        (kind,) = kinds
        if kind in _TYPED:
            out[name] = replace(domain, types=(kind,))
    return out
