"""A class's own state: where its methods assign ``self.x`` (link.state shows them on the cards
whose guard reads such an attribute, which no caller sets directly).

Only statements are read, never expressions walked: an assignment statement (``=``, an
annotated one, ``+=``) whose target is an attribute of the method's first parameter, in the
method's body or in the blocks of its compound statements (nested definitions left out), and
the class body's own assignments (class attributes, what an instance reads until a method
assigns its own). ``setattr`` and stores through another name are not seen.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..model import AttributeStore

if TYPE_CHECKING:
    from .declarations import SourceText

MAX_VALUE = 80  # a longer value is shown as "a computed value": its source would crowd the card
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def attribute_stores(node: ast.ClassDef, src: SourceText) -> tuple[AttributeStore, ...]:
    """Every assignment of an attribute of the receiver in the class's methods, and each class
    attribute the body assigns, in source order."""
    found: list[AttributeStore] = []
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            receiver = _receiver(stmt)
            if receiver is not None:
                for inner, nested in _statements(stmt.body, False):
                    found.extend(_stores(inner, receiver, stmt.name, nested, src))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found.append(AttributeStore(attribute=target.id, method=None, line=stmt.lineno, value=_value(stmt.value, src)))
    return tuple(found)


def _receiver(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The first parameter of a method (``self``, or ``cls`` of a classmethod), None for a
    staticmethod or a method without one."""
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list):
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def _statements(body: list[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """The statements of a body and of its blocks, each with whether it sits in one (under an
    ``if``, loop, ``try``, ``with`` or ``match``), nested definitions left out."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt, nested
        for name in _BLOCKS:
            for block in getattr(stmt, name, ()):
                if isinstance(block, (ast.ExceptHandler, ast.match_case)):
                    yield from _statements(block.body, True)
                elif isinstance(block, ast.stmt):
                    yield from _statements([block], True)


def _stores(stmt: ast.stmt, receiver: str, method: str, nested: bool, src: SourceText) -> Iterator[AttributeStore]:
    whole: ast.expr | None  # the value the targets are bound to (None for ``+=``)
    if isinstance(stmt, ast.Assign):
        targets, whole = stmt.targets, stmt.value
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
        targets, whole = [stmt.target], stmt.value if isinstance(stmt, ast.AnnAssign) else None
    else:
        return
    for target in targets:
        one = isinstance(target, ast.Attribute)
        for part in [target] if one else getattr(target, "elts", ()):
            part = part.value if isinstance(part, ast.Starred) else part
            if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == receiver:
                value = _value(whole, src) if one and whole is not None else None  # (one of several, or ``+=``: no one value)
                yield AttributeStore(attribute=part.attr, method=method, line=stmt.lineno, value=value, conditional=nested)


def _value(value: ast.expr, src: SourceText) -> str | None:
    text = src.flat(value)
    return text if len(text) <= MAX_VALUE else None


def init_calls(node: ast.ClassDef) -> tuple[str, ...]:
    """The methods the class's own ``__init__`` calls on its receiver (``self._reset()``):
    what they assign, constructing the object assigns too."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    receiver = _receiver(init) if init is not None else None
    if init is None or receiver is None:
        return ()
    found: set[str] = set()
    work: list[ast.AST] = list(init.body)
    while work:
        current = work.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(current, ast.Call) and isinstance(current.func, ast.Attribute) and isinstance(current.func.value, ast.Name) \
                and current.func.value.id == receiver:
            found.add(current.func.attr)
        work.extend(ast.iter_child_nodes(current))
    return tuple(sorted(found))
