"""Sites: a raise's ``ast`` stack -> what the whole file shows of it and its unit's text does not.

``file._site`` adds these to the facts the libcst pass reads in the unit's text
(``units.unit_text``, ``RaiseFacts``):

- the branches its definition stands under (``defined_under``: Guard.context);
- the loops on the way to it: what they read, which the evaluator does not run
  (``loops_read``: Guard.looped);
- the card's source excerpt: the definition around it, clipped to the lines that lead to it
  (``excerpt_of``: Location.excerpt).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from ..model import Context, ContextKind, Excerpt, Guard
from .declarations import cut_text, dotted_name
from .units import first_line


def defined_under(guard: Guard, stack: tuple[ast.stmt, ...], holder: ast.stmt | None) -> Guard:
    """``guard`` with a context entry for each ``if`` branch, ``except`` handler or try ``else``
    of the module or a class body the raise's function stands in (``if _os.name == "nt": def
    WINFUNCTYPE``; a method under ``if hasattr(os, 'sendfile'):`` in its class): the definition
    exists only where that ran when the module was imported, which the guard of a call does not
    model (solve.status: no trigger is claimed)."""
    if holder is None:
        return guard  # (a module-level raise: its unit's own tests are the guard)
    found: list[Context] = []
    for node, inner in pairwise(stack):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            break  # (what the function itself tests is the guard's)
        if isinstance(node, ast.If) and "TYPE_CHECKING" not in (test := ast.unparse(node.test)):
            found.append(Context(kind=ContextKind.DEFINED_IF, code=f"if {test}" if inner in node.body else f"if not ({test})"))
        elif isinstance(node, (ast.Try, ast.TryStar)) and inner in node.orelse:
            found.append(Context(kind=ContextKind.DEFINED_IF, code="else of a try statement (its body raised nothing)"))
        elif isinstance(node, (ast.Try, ast.TryStar)) and (handler := next((h for h in node.handlers if inner in h.body), None)):
            found.append(Context(kind=ContextKind.DEFINED_IF,
                                 code="except" + (f" {ast.unparse(handler.type)}" if handler.type is not None else "")))
    return replace(guard, context=(*found, *guard.context)) if found else guard


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def loops_read(stack: Sequence[ast.AST], node: ast.AST) -> tuple[str, ...]:
    """The names and attribute chains read by the loops that run before ``node`` on its
    path, in its function (``stack``: its ancestors, outermost first): each statement before
    the next step down, in each block on the way. A bare ``self`` or ``cls`` is left out (a
    method called on the object reads no attribute of it there)."""
    start = max((i for i, n in enumerate(stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), default=0)
    path = [*stack[start:], node]
    found: set[str] = set()
    for parent, child in pairwise(path):
        for block in _blocks(parent):
            if child in block:
                for stmt in block[: block.index(child)]:
                    if isinstance(stmt, _LOOPS):
                        found.update(_chains(stmt))
                break
    return tuple(sorted(found - {"self", "cls"}))


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    blocks = [getattr(node, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(node, name, None), list)]
    return blocks + [h.body for h in getattr(node, "handlers", ())] + [c.body for c in getattr(node, "cases", ())]


def _chains(loop: ast.AST) -> set[str]:
    found: set[str] = set()
    stack: list[ast.AST] = [loop]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Name, ast.Attribute)) and (chain := dotted_name(current)) is not None:
            found.add(chain)
            if isinstance(current, ast.Name):
                continue
        if not isinstance(current, _FUNCTIONS):
            stack.extend(ast.iter_child_nodes(current))
    return found


def excerpt_of(span: ast.stmt, node: ast.stmt, lines: list[str], limit: int) -> Excerpt:
    """The enclosing definition, clipped to ``limit`` lines that keep the raise in view: what
    leads to it (the tests of its guard stand before it), and ``_AFTER_RAISE`` lines after it."""
    first = first_line(span)
    last = span.end_lineno or span.lineno
    raise_first, raise_last = node.lineno, node.end_lineno or node.lineno
    limit = max(limit, raise_last - raise_first + 1)
    if last - first + 1 > limit:
        lowest = first
        last = min(last, raise_last + _AFTER_RAISE)
        first = max(lowest, min(raise_first, last - limit + 1))
        last = min(span.end_lineno or span.lineno, first + limit - 1)
    return Excerpt(start_line=first, text="\n".join(cut_text(line, _MAX_EXCERPT_LINE) for line in lines[first - 1 : last]))


_AFTER_RAISE = 3  # lines of a clipped excerpt after the raise
_MAX_EXCERPT_LINE = 1_000  # characters of one excerpt line; a longer one is cut, with a marker
