"""What a class's ``__post_init__`` assigns: the fields whose value, once the object is
built, is what that method computed rather than what the caller passed (link.constructors)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..model import PostInitSet
from .purity import attribute_stores
from .syntax import walk

if TYPE_CHECKING:
    from .declarations import SourceText


def post_init_sets(node: ast.ClassDef, src: SourceText) -> tuple[PostInitSet, ...]:
    """What the class's own ``__post_init__`` assigns anywhere in its body (``self.x = ...``,
    ``self.x += ...``, ``setattr(self, "x", ...)``, ``object.__setattr__(self, "x", ...)``),
    nested definitions left out: once the object is built such an attribute holds what that
    computed, not the caller's value, except where every assignment of it sits in one
    top-level ``if`` with no ``else`` (``if self.size is None: self.size = 8``), which the
    caller's value leaves alone where the test is false."""
    posts = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__post_init__"]
    if not posts or not posts[-1].args.args:
        return ()
    this = posts[-1].args.args[0].arg
    tests: dict[str, ast.expr | None] = {}
    for stmt in posts[-1].body:
        assigned = _assigned_attributes(stmt, this)
        test = stmt.test if isinstance(stmt, ast.If) and not stmt.orelse and not _assigned_attributes(stmt.test, this) else None
        for attribute in assigned:
            tests[attribute] = test if attribute not in tests else None  # (assigned in two places: either may run)
    found = []
    for attribute, test in sorted(tests.items()):
        reads = () if test is None else tuple(sorted({
            f"self.{n.attr}" for n in walk(test) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == this}))
        plain = test is not None and this == "self" and all(n.id == this or n.id in _TEST_BUILTINS for n in walk(test) if isinstance(n, ast.Name))
        code = src.flat(test) if test is not None and plain else None
        found.append(PostInitSet(attribute=attribute, test=code, reads=reads if code is not None else ()))
    return tuple(found)


_TEST_BUILTINS = frozenset({"isinstance", "len", "bool", "int", "float", "str", "list", "tuple", "dict", "set"})


def _assigned_attributes(root: ast.AST, this: str) -> set[str]:
    prefix = this + "."
    return {chain.removeprefix(prefix) for chain in attribute_stores([root]) if chain.startswith(prefix)}
