"""The process environment as a guard reads it: one mapping of str to str, ``os.environ``.

``os.getenv(K, d)`` is ``os.environ.get(K, d)`` (the standard library defines it so), and
every value a trigger assumes is a string or absent: a variable set to ``0`` does not
exist, ``"0"`` does. The values tried for a variable are those the guard compares it
with, read through the conversions code applies to it (``int(...)``, ``.lower()``), and a
few plain ones ("", "0", "1", "x", "true").
"""

from __future__ import annotations

import ast
import copy
from functools import lru_cache
from typing import Any, TypeGuard

from ..collect.declarations import dotted_name
from ..collect.purity import BUILTIN_NAMES
from ..collect.syntax import walk
from ..model.markdown import code_span
from ..model.pytext import try_parse_expression
from .evaluate import parse_expr

ENVIRON = "os.environ"
_PLAIN = ("", "0", "1", "x", "true")
_MAX_VALUES = 12


def reading(code: str, lazy: tuple[tuple[str, str], ...] = ()) -> ast.expr:
    """``code`` parsed as the solver reads it (``read_guard``).

    Raises:
        EvalError: the code is not a Python expression.
    """
    return read_guard(code, lazy)[0]


@lru_cache(maxsize=4096)
def read_guard(code: str, lazy: tuple[tuple[str, str], ...] = ()) -> tuple[ast.expr, bool]:
    """``code`` parsed as the solver reads it: attributes computed on reading replaced by
    their code (``lazy``: CardContext.names.named's "lazy" entries), the environment as
    ``os.environ`` (shared: never change the result); and whether it reads the environment.

    Raises:
        EvalError: the code is not a Python expression.
    """
    return with_environ_reads(with_lazy_reads(parse_expr(code), dict(lazy)))


def with_environ_reads(tree: ast.expr) -> tuple[ast.expr, bool]:
    """``tree`` with ``os.getenv(...)`` as ``os.environ.get(...)`` (a copy: parsed trees are
    shared, model.pytext), and whether it reads the environment."""
    if any(_is_getenv(n) for n in walk(tree)):
        tree = copy.deepcopy(tree)
        for node in walk(tree):
            if _is_getenv(node):
                environ = ast.Attribute(value=ast.Name(id="os", ctx=ast.Load()), attr="environ", ctx=ast.Load())
                node.func = ast.Attribute(value=environ, attr="get", ctx=ast.Load())
        return tree, True
    return tree, any(isinstance(n, (ast.Attribute, ast.Name)) and dotted_name(n) == ENVIRON for n in walk(tree))


def _is_getenv(node: ast.AST) -> TypeGuard[ast.Call]:
    """``os.getenv(K)`` or ``os.getenv(K, default)``, positionally (as ``os.environ.get`` takes them)."""
    return isinstance(node, ast.Call) and dotted_name(node.func) == "os.getenv" and not node.keywords and 1 <= len(node.args) <= 2


def with_lazy_reads(tree: ast.expr, lazy: dict[str, str]) -> ast.expr:
    """``tree`` with each attribute a module computes on reading it (collect.lazy: ``envs.X``)
    replaced by the code computing it, where that code reads only ``os`` and builtins (any
    other name would be the other module's, not the guard's)."""
    bodies: dict[str, ast.expr] = {}
    for chain, code in lazy.items():
        body = try_parse_expression(code)  # (shared: only copies of it go into the tree)
        if body is None:
            continue
        if all(n.id == "os" or n.id in BUILTIN_NAMES for n in walk(body) if isinstance(n, ast.Name)):
            bodies[chain] = body
    if not bodies:
        return tree

    class Reads(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            chain = dotted_name(node)
            return copy.deepcopy(bodies[chain]) if chain in bodies else self.generic_visit(node)

    if not any(isinstance(n, ast.Attribute) and dotted_name(n) in bodies for n in walk(tree)):
        return tree
    return Reads().visit(copy.deepcopy(tree))  # (a copy: parsed trees are shared, model.pytext)


def environ_candidates(tree: ast.expr) -> list[dict[str, str]]:
    """Environments to try: none set, then each variable the guard reads alone, at each
    value worth trying (variables read together are set together by the search's joins)."""
    values: dict[str, list[str]] = {}
    compared = _compared_strings(tree)
    for node in walk(tree):
        _, key = _environ_read(node)
        if key is not None:
            found = values.setdefault(key, [])
            for value in [*compared, *_PLAIN]:
                if value not in found and len(found) < _MAX_VALUES:
                    found.append(value)
    out: list[dict[str, str]] = [{}]
    for key, found in sorted(values.items()):
        out.extend({key: value} for value in found)
    if len(values) > 1:  # every variable at once, at its first value: guards that need them all
        out.append({key: found[0] for key, found in sorted(values.items())})
    return out


def environ_setup(tree: ast.expr, environ: dict[str, str]) -> str | None:
    """Python that gives the process the environment a trigger assumes: each variable it
    sets, and each other one the guard reads unset; None where the guard reads a variable
    by a name it computes (the example could not unset it)."""
    keys: set[str] = set(environ)
    for node in walk(tree):
        reads, key = _environ_read(node)
        if reads and key is None:
            return None
        if key is not None:
            keys.add(key)
    lines = ["import os"]
    for key in sorted(keys):
        lines.append(f"os.environ[{key!r}] = {environ[key]!r}" if key in environ else f"os.environ.pop({key!r}, None)")
    return "\n".join(lines)


def environment_words(environ: dict[str, str]) -> str:
    """An assumed environment in words, as the card templates say it (``_macros.assumed``)."""
    if not environ:
        return "none of the environment variables it reads is set"
    return " and ".join(f"the environment variable {code_span(key)} is {code_span(repr(value))}" for key, value in sorted(environ.items()))


def _environ_read(node: ast.AST) -> tuple[bool, str | None]:
    """Whether ``node`` reads a variable of the environment (``os.environ.get(K ...)``,
    ``os.environ[K]``, ``K in os.environ``), and which (None: a name it computes)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and dotted_name(node.func.value) == ENVIRON:
        return True, _text(node.args[0]) if node.args else None
    if isinstance(node, ast.Subscript) and dotted_name(node.value) == ENVIRON:
        return True, _text(node.slice)
    if _tests_key(node):
        return True, _text(node.left)
    return False, None


def _tests_key(node: ast.AST) -> TypeGuard[ast.Compare]:
    """``K in os.environ`` or ``K not in os.environ``."""
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
        and dotted_name(node.comparators[0]) == ENVIRON


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _compared_strings(tree: ast.expr) -> list[str]:
    """The texts an environment value may be compared with: string constants of comparisons
    (and their elements), in both cases, and numbers as text with their neighbours."""
    found: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, str):
            texts = [value, value.lower(), value.upper()]
        elif isinstance(value, int):
            texts = [str(value), str(value + 1), str(value - 1)]
        elif isinstance(value, float):
            texts = [repr(value), repr(value + 1), repr(value - 1)]
        else:
            return
        found.extend(t for t in texts if t not in found)

    for node in walk(tree):
        if isinstance(node, ast.Compare) and not _tests_key(node):  # (a variable's name is not a value for it)
            for side in (node.left, *node.comparators):
                elements = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                for element in elements:
                    if isinstance(element, ast.Constant):
                        add(element.value)
    return found
