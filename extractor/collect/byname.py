"""Attributes read by name: ``getattr(x, "a", d)`` in a guard reads ``x.a``.

``getattr(args, "grpc_port", None) is not None and args.grpc`` reads the attribute ``grpc_port``
of ``args`` as ``args.grpc_port`` would, but for an object without it, where it gives the
default. Any value the call gives, ``args.grpc_port`` gives too where the object has that
value (its default included). So the guard's inputs list ``args.grpc_port`` beside ``args.grpc``
(collect.paths; what linking reads of the argument: its declared field, its constructor's
keyword), and the solver reads its own copy of the guard with the attribute (solve.byname):
the trigger sets ``args.grpc_port = 0``, a caller's value like ``args.grpc``'s, instead of
assuming what the call returns. The card keeps the code as written.

Only a literal name that a plain attribute can spell is read so (``getattr(x, name)`` and
``getattr(x, "__dict__")`` are left as they are), on a dotted name (``cfg.model``, not a
call's result) whose root the guard's inputs already read: an attribute of a value no caller
passes stays what the trigger assumes.
"""

from __future__ import annotations

import ast
import copy

from ..model.pytext import try_parse_expression
from .declarations import dotted_name
from .reads import getattr_read


def by_name(code: str, roots: set[str]) -> tuple[str, list[str]]:
    """``code`` with each ``getattr`` read of a literal name on a dotted name rooted in
    ``roots`` as an attribute read, and the chains it reads so (``code`` and none where it has none)."""
    if "getattr(" not in code:
        return code, []
    tree = try_parse_expression(code)
    if tree is None:
        return code, []
    tree = copy.deepcopy(tree)  # (parsed trees are shared: model.pytext)
    chains: list[str] = []
    tree = _Reads(roots, chains).visit(tree)
    return (ast.unparse(tree), list(dict.fromkeys(chains))) if chains else (code, [])


class _Reads(ast.NodeTransformer):
    def __init__(self, roots: set[str], chains: list[str]) -> None:
        self.roots = roots
        self.chains = chains

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        attribute = getattr_read(node)
        chain = dotted_name(attribute[0]) if attribute is not None else None
        if attribute is None or chain is None or chain.split(".", 1)[0] not in self.roots:
            return node
        self.chains.append(f"{chain}.{attribute[1]}")
        return ast.Attribute(value=attribute[0], attr=attribute[1], ctx=ast.Load())
