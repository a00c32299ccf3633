"""Checks on the way: the raises of the file's own functions that a card's function calls
before its raise, restated over the caller's values.

``def _validate(q): if q.ndim != 3: raise ValueError(...)`` called as ``_validate(q)`` before
``if not q.is_cuda: raise RuntimeError(...)``: a trigger of the second raise is verified only
where ``q.ndim != 3`` is shown false under its values (solve.checks.CHECK_ON_THE_WAY). Each
raise of the callee (outside an ``except`` clause) is restated by putting the call's arguments
in place of its parameters, and the module constants it reads in place of their names
(``earlier_checks``). A restatement that reads what the call does not pass (the callee's own
locals, a parameter without a value) is ``UNKNOWN``: it is never shown false. A raise that
reads none of the values the call passes (``_check_system_limits()``) is left out: like any
call on the way that is given none of the trigger's values, the call is taken to pass.

Only calls of the same file (collect.callers: their lines and arguments) that stand as whole
statements directly in the function's body (so that the raise after them runs only after
them), and one level deep: the callee's own calls are not followed. A call under a test
(``if strict: fail(...)``) is a raising helper's, which its own card covers (HELPER_ON_THE_WAY).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping, Sequence

from ..model import Argument, Card, ContextKind, FunctionCalls, Param
from ..model.pytext import try_parse_expression

UNKNOWN = ""  # a restatement that cannot be written over the caller's values
MAX_CHECKS = 16  # restated raises kept per card


def earlier_checks(card: Card, calls: Mapping[str, FunctionCalls], cards: Mapping[str | None, Sequence[Card]],
                   params: Mapping[str, tuple[Param, ...]]) -> tuple[str, ...]:
    """The raises of the file's functions that the card's function calls before the card's
    line, each restated over the call's arguments (UNKNOWN where it cannot be): ``calls``, the
    file's calls of each function; ``cards``, the file's cards by function; ``params``, the
    functions' parameters."""
    function = card.at.function
    own = {p.name for p in params.get(function or "", ())}
    found: list[str] = []
    for target in sorted(calls):
        if target == function or target not in params:
            continue
        callee = {p.name for p in params[target]}
        for call in calls[target].calls:
            if call.caller != function or call.line >= card.at.line or call.handlers or not call.surely:
                continue
            bound = _bound(params[target], call.arguments, is_method="." in target)
            found.extend(code for other in cards.get(target, ()) if all(c.kind != ContextKind.EXCEPT for c in other.statement.guard.context)
                         and (code := restated(other, bound, callee, own)) is not None)
    return tuple(dict.fromkeys(found))[:MAX_CHECKS]


def _bound(params: tuple[Param, ...], arguments: tuple[Argument, ...] | None,
           is_method: bool) -> tuple[dict[str, str], dict[str, str]] | None:
    """The callee's parameters the call passes -> the code it passes (``self`` of
    ``self.check(...)`` too: the same object), and those it leaves -> their declared defaults;
    None where the arguments are not known (a starred one), the callee takes ``*args`` or
    ``**kwargs``, or the call passes more positional arguments than it takes."""
    if arguments is None or any(p.kind in ("star", "starstar") for p in params):
        return None
    own = list(params)
    passed: dict[str, str] = {}
    if is_method and own and own[0].name in ("self", "cls"):
        passed[own[0].name] = own[0].name
        own = own[1:]
    positional = [a.code for a in arguments if a.keyword is None]
    if len(positional) > len(own):
        return None
    passed.update((p.name, code) for p, code in zip(own, positional))
    passed.update((a.keyword, a.code) for a in arguments if a.keyword is not None)
    return passed, {p.name: p.default for p in own if p.name not in passed and p.default is not None}


def restated(card: Card, bound: tuple[dict[str, str], dict[str, str]] | None, callee: set[str], caller: set[str]) -> str | None:
    """The card's guard over the caller's values (``bound``: ``_bound``'s), its module
    constants written in, the module's other names it reads (``sys.platform``) as they are;
    UNKNOWN where it reads anything else of the callee's (a local), or a module name that is a
    parameter of the caller (``caller``) too; None where it reads none of the values the call
    passes (it decides the same for every trigger of the caller's raise: like any call on the
    way that is given none of them, it is taken to pass). ``callee``: the callee's parameters."""
    guard = card.statement.guard
    roots = {_root(i) for i in guard.inputs}
    # (a loop's iterable, which its element comes from, and what loops on the way read: read too)
    if bound is not None and not {*roots, *(_root(xs) for _, xs in guard.loops), *map(_root, guard.looped)} & set(bound[0]):
        return None
    tree = try_parse_expression(guard.code)
    globals_read = roots - callee
    if bound is None or tree is None or guard.opaque or guard.loops or guard.looped or globals_read & caller \
            or not roots <= {*bound[0], *bound[1], *globals_read}:
        return UNKNOWN
    values: dict[str, ast.expr] = {}
    for name, code in [*guard.constants, *bound[1].items(), *bound[0].items()]:
        parsed = try_parse_expression(code)
        if parsed is None:
            return UNKNOWN
        values[name] = parsed
    return ast.unparse(_Substitute(values).visit(copy.deepcopy(tree)))  # (the parsed tree is shared: try_parse_expression's cache)


def _root(chain: str) -> str:
    return chain.split(".", 1)[0].split("[", 1)[0]


class _Substitute(ast.NodeTransformer):
    """Each name of ``values`` read replaced by its expression."""

    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.values.get(node.id, node) if isinstance(node.ctx, ast.Load) else node
