"""Purity: which calls give the same value when a guard reads them again, and which locals
the function may change in place (so that a fresh object bound to one, ``xs = sorted(xs)``,
is not the same value by the time the raise reads it).

Shared by the libcst pass (``scope.is_pure``, ``reaching``) and the ``ast`` side
(``first_changes``, computed on the whole unit: the text libcst parses is thinned, and
``xs.append(x)``, a statement that binds nothing, is left out of it; each raise sees
the changes before it, ``changed_by``).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable

BUILTIN_NAMES = frozenset(dir(builtins))

# Calls whose meaning is fixed by Python itself; anything else in a guard is an opaque call.
PURE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "bool", "callable", "dict", "float", "frozenset", "getattr", "hasattr",
        "int", "isinstance", "issubclass", "len", "list", "max", "min", "repr", "round", "set",
        "sorted", "str", "sum", "tuple", "type",
    }
)
# Builtins whose result is a fresh mutable object: re-reading the local is not re-calling them,
# unless nothing changes that object in between (``first_changes``).
MUTABLE_RESULTS = frozenset({"list", "dict", "set", "sorted"})
# Methods that leave their receiver as it was and take nothing they could change (``str``'s,
# which no common mutable type has under another meaning); ``split`` and its kin return a
# fresh list.
TEXT_METHODS = frozenset({
    "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "startswith", "endswith", "replace", "count",
    "split", "rsplit", "splitlines", "partition", "rpartition", "find", "rfind", "isdigit", "isdecimal",
    "isnumeric", "isalpha", "isalnum", "isidentifier", "isascii", "isspace", "isupper", "islower", "encode",
    "decode", "removeprefix", "removesuffix",
})
# ... and whose result is a mutable object a later statement may change: a fresh list
# (``split``), or what a mapping holds (``get``), which the guard reads as the caller's.
FRESH_METHODS = frozenset({"split", "rsplit", "splitlines", "get"})
_READING_METHODS = frozenset({"count", "index", "copy", "get", "keys", "values", "items", *TEXT_METHODS})
_FRESH_MARKS = tuple(f"{name}(" for name in (*MUTABLE_RESULTS, *FRESH_METHODS))
_DISPLAY_BOUND = re.compile(r"=\s*[\[{]")  # ``allowed = {"a": 1}``: a fresh display (scope.is_pure with fresh)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def attribute_stores(nodes: Iterable[ast.AST]) -> set[str]:
    """``name.attribute`` for each attribute of a plain name that ``nodes`` assign or delete
    (``x.a = v``, ``x.a += v``, ``del x.a``, ``setattr(x, "a", v)``, ``object.__setattr__(x,
    "a", v)``), nested definitions and lambdas left out."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and _is_setattr(node.func) \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            found.add(f"{node.args[0].id}.{node.args[1].value}")
        stack.extend(ast.iter_child_nodes(node))
    return found


def _is_setattr(func: ast.expr) -> bool:
    """``setattr`` or ``object.__setattr__``."""
    if isinstance(func, ast.Name):
        return func.id == "setattr"
    return isinstance(func, ast.Attribute) and func.attr == "__setattr__" and isinstance(func.value, ast.Name) and func.value.id == "object"


def first_changes(unit: ast.AST, text: str) -> dict[str, int]:
    """The plain names whose object some code of ``unit`` may change in place, each with the
    first line from which a change can have happened: a change's own line, or the first line
    of the outermost loop around it (a later turn runs it before an earlier line of the loop).
    A change is anything but reading the object, testing it, and passing it to a pure builtin
    (``len(xs)``) or a method that reads (``xs.count(x)``); a nested function or lambda that
    names it may do anything. A raise at line R sees the changes whose line is at most R
    (``changed_by``): code after it runs after it. Empty where ``text`` (the unit's) makes no
    fresh object to follow (the common case)."""
    if not any(mark in text for mark in _FRESH_MARKS) and not _DISPLAY_BOUND.search(text):
        return {}
    found: dict[str, int] = {}
    # (node, parent, grandparent, inside a nested scope, the first line of the outermost loop around it)
    stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None, bool, float]] = [(unit, None, None, False, float("inf"))]
    while stack:
        node, parent, grand, nested, loop = stack.pop()
        if isinstance(node, ast.Name):
            if nested or _changes(node, parent, grand):
                found[node.id] = int(min(found.get(node.id, node.lineno), node.lineno, loop))
            continue
        inner = nested or (node is not unit and isinstance(node, _SCOPES))
        if isinstance(node, _LOOPS):
            loop = min(loop, node.lineno)
        stack.extend((child, node, parent, inner, loop) for child in ast.iter_child_nodes(node))
    return found


def changed_by(changes: dict[str, int], line: int) -> frozenset[str]:
    """The names ``first_changes`` found changed by the time a raise ending at ``line`` runs."""
    return frozenset(name for name, first in changes.items() if first <= line)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _changes(node: ast.Name, parent: ast.AST | None, grand: ast.AST | None) -> bool:
    if isinstance(parent, ast.Attribute) and parent.value is node:
        if isinstance(grand, ast.Call) and grand.func is parent:
            return parent.attr not in _READING_METHODS  # a method that may change it
        return isinstance(parent.ctx, (ast.Store, ast.Del))  # an attribute stored on it
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, (ast.Store, ast.Del))  # ``xs[i] = v``, ``del xs[i]``, ``xs[i] += v``
    if isinstance(parent, ast.AugAssign):
        return parent.target is node  # ``xs += ys`` extends a list in place
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Yield, ast.YieldFrom)) \
            and isinstance(node.ctx, ast.Load):
        return True  # another name (or a container) holds the same object: ``ys = xs; ys.append(x)``
    call = parent if isinstance(parent, ast.Call) else grand if isinstance(parent, (ast.keyword, ast.Starred)) else None
    if isinstance(call, ast.Call) and call.func is not node:
        head = call.func
        name = head.id if isinstance(head, ast.Name) else None
        return name not in PURE_BUILTINS  # handed to code that may change it
    return False
