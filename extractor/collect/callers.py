"""Callers in the same file: where a function that holds a raise is called from.

A raise in a private helper (``BaseEventLoop._check_closed``) is reached through the
functions that call it (``call_soon``, ``run_forever``): the card names them. Found without
walking every expression of the file: one regular expression finds the candidate calls in
the text (``self.name(`` or ``cls.name(`` for a method, ``name(`` for a module-level
function), and each candidate is confirmed on the ``ast`` of the definition around it, so a
name in a comment or a string is never taken for a call. A method counts as called only
through ``self`` or ``cls`` in a method of its own class; a function only by its plain name
(an alias, ``functools.partial`` or a call from another module is not seen).
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable, Sequence

from ..model import CallSite
from .syntax import Function, walk

MAX_CALLERS = 24  # per function: the card shows a few, and how many in all


def in_file_callers(text: str, tree: ast.Module, defs: Sequence[tuple[str, Function]],
                    wanted: Iterable[tuple[str, str | None]]) -> tuple[tuple[str, tuple[CallSite, ...]], ...]:
    """For each ``(function qualname, owner class qualname or None)`` of ``wanted`` (a direct
    method of the owner, or a module-level function), the definitions of the file that call
    it (None: module-level code), each with the line of its first call, by line."""
    methods: dict[str, list[tuple[str, str]]] = {}
    functions: dict[str, str] = {}
    for qualname, owner in wanted:
        head, _, name = qualname.rpartition(".")
        if owner is not None and head == owner:
            methods.setdefault(name, []).append((qualname, owner))
        elif owner is None and not head:
            functions[name] = qualname
    if not methods and not functions:
        return ()
    alternatives = []
    if methods:
        alternatives.append(rf"(?<![\w.])(?:self|cls)\s*\.\s*(?P<method>{'|'.join(map(re.escape, sorted(methods)))})\s*\(")
    if functions:
        alternatives.append(rf"(?<![\w.])(?P<function>{'|'.join(map(re.escape, sorted(functions)))})\s*\(")
    defs = sorted(defs, key=lambda d: d[1].lineno)
    starts = [d.lineno for _, d in defs]
    confirmed: dict[int, set[tuple[int, str]]] = {}  # id of a definition (or statement) -> its (line, called name)
    found: dict[str, dict[str | None, int]] = {}
    line, offset = 1, 0
    for match in re.finditer("|".join(alternatives), text):
        line += text.count("\n", offset, match.start())
        offset = match.start()
        method = match.groupdict().get("method")
        name = method or match.group("function")
        caller, scope = _enclosing(defs, starts, tree, line)
        if scope is None or (line, name) not in _calls(scope, confirmed):
            continue
        targets = [q for q, owner in methods.get(name, ()) if caller is not None and caller.startswith(owner + ".")] \
            if method else [functions[name]]
        for target in targets:
            if target != caller and len(callers := found.setdefault(target, {})) < MAX_CALLERS:
                callers.setdefault(caller, line)
    return tuple((target, tuple(CallSite(function=caller, line=line)
                                for caller, line in sorted(callers.items(), key=lambda item: (item[1], item[0] or ""))))
                 for target, callers in sorted(found.items()))


def _enclosing(defs: Sequence[tuple[str, Function]], starts: list[int], tree: ast.Module, line: int) -> tuple[str | None, ast.stmt | None]:
    """The innermost definition whose body holds ``line`` (its qualname and node), else the
    top-level statement that does (None and the statement)."""
    index = bisect.bisect_right(starts, line) - 1
    while index >= 0:
        qualname, node = defs[index]
        body = node.body
        if body[0].lineno <= line <= (node.end_lineno or 0):  # (not its decorators, defaults or annotations)
            return qualname, node
        index -= 1
    statements = tree.body
    at = bisect.bisect_right([s.lineno for s in statements], line) - 1
    if at >= 0 and line <= (statements[at].end_lineno or 0):
        return None, statements[at]
    return None, None


def _calls(scope: ast.AST, confirmed: dict[int, set[tuple[int, str]]]) -> set[tuple[int, str]]:
    """The calls of ``self.name``/``cls.name`` and of plain names in a definition or statement,
    by line and name (those of nested definitions too: the innermost one is found first)."""
    key = id(scope)
    if key not in confirmed:
        calls = set()
        for node in walk(scope):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                    calls.add((func.value.lineno, func.attr))
                elif isinstance(func, ast.Name):
                    calls.add((func.lineno, func.id))
        confirmed[key] = calls
    return confirmed[key]

