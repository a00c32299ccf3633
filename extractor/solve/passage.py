"""The way to a raise under a trigger: what the path and the raise's arguments evaluate -> whether one fails first.

A trigger makes the guard true, but control must also get through every statement before
the raise, and the raise must build its exception: ``remove_formatted =
f"{remove[0]}.{remove[1]}"`` with ``remove = ''`` raises IndexError before the test the
trigger was solved for, and ``raise self.error(msg, len(name) + offset)`` with ``offset =
None`` raises TypeError on the raise's own line (``CardContext.passage.evaluates``:
``collect.paths``). Only a failure the restricted evaluator sees on these plain values
counts (``evaluate.FAILS``: the real code raises there too); what it cannot compute is no
evidence either way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .evaluate import FAILS, EvalError, evaluate, outcome, parse_expr
from .messages import expression_refs

_NOT_ITERABLE = (type(None), bool, int, float, complex)


def _split(code: str) -> tuple[str, str]:
    """``("**", "x")`` for a star argument ``**x``; ``("", code)`` otherwise."""
    for star in ("**", "*"):
        if code.startswith(star):
            return star, code[len(star):]
    return "", code


def fails(code: str, env: Mapping[str, Any]) -> bool:
    """Whether evaluating ``code`` (a star argument: unpacking it) surely raises under ``env``."""
    star, expr = _split(code)
    try:
        tree = parse_expr(expr)
    except EvalError:
        return False
    if not star:
        return outcome(tree)(env) == FAILS or any(outcome(part)(env) == FAILS for part in _surely_evaluated(tree))
    try:
        value = evaluate(expr, env)
    except EvalError:
        return outcome(tree)(env) == FAILS
    if star == "**":
        return isinstance(value, (*_NOT_ITERABLE, str, bytes, list, tuple, set, frozenset))  # ``**`` takes a mapping
    return isinstance(value, _NOT_ITERABLE)


def _surely_evaluated(tree: ast.expr) -> Iterator[ast.expr]:
    """The sub-expressions of ``tree`` that Python evaluates whenever it evaluates ``tree`` (the
    arguments of a call the evaluator cannot make among them: ``"\\n".join(difflib.ndiff([str(x)
    for x in expected], ...))`` iterates ``expected`` first), not those a test may skip (an
    ``if``-expression's branches, an ``and``'s later operands, a chained comparison's later ones,
    a comprehension's body, a lambda's)."""
    work: list[ast.AST] = [tree]
    while work:
        node = work.pop()
        if node is not tree and isinstance(node, ast.expr) and not isinstance(node, (ast.Name, ast.Constant)):
            yield node
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.IfExp):
            work.append(node.test)
        elif isinstance(node, ast.BoolOp):
            work.append(node.values[0])
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            work.append(node.generators[0].iter)
        elif isinstance(node, ast.Compare):
            work.extend([node.left, node.comparators[0]])  # (``a < b < c``: ``c`` only where ``a < b``)
        else:
            work.extend(ast.iter_child_nodes(node))


def unpacked_values(name: str, codes: Iterable[str]) -> list[Any]:
    """A value ``name`` takes first where the raise unpacks it: ``{}`` for ``**name``, ``[]`` for ``*name``."""
    return [{}] if f"**{name}" in codes else [[]] if f"*{name}" in codes else []


def first_failing(codes: Iterable[str], env: Mapping[str, Any]) -> str | None:
    """The first of ``codes`` that fails under ``env``; None when none surely does."""
    return next((code for code in codes if fails(code, env)), None)


def names_read(codes: Iterable[str], params: set[str]) -> list[str]:
    """The names and attribute chains the codes read (a star argument's too), in order."""
    return expression_refs([_split(code)[1] for code in codes], params)


def loop_reads(inputs: Iterable[str], chains: tuple[str, ...]) -> bool:
    """Whether a loop on the way to the raise (Guard.looped: the ``chains`` it reads) reads one
    of ``inputs``: the evaluator does not run it, and it may fail first on the value, or
    change it (optparse's ``for attr in self.ATTRS: if attr in attrs``, with ``attrs = 1``).
    ``self.a`` reads ``self.a.b``; ``self.a.b`` reads part of ``self.a``."""
    return any(chain == name or name.startswith(chain + ".") or chain.startswith(name + ".") for name in inputs for chain in chains)
