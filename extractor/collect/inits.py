"""What a class's explicit ``__init__`` does with its parameters: the attributes it sets
straight from one, and what it passes on to the base constructor."""

from __future__ import annotations

import ast
import functools

from ..model import Param
from .syntax import walk


def init_facts(init: ast.FunctionDef | ast.AsyncFunctionDef | None,
               params: tuple[Param, ...]) -> tuple[tuple[Param, ...] | None, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The explicit ``__init__``'s (``init``, whose parameters are ``params``) parameters after self, the attributes it sets straight
    from one of them (``self.size = size`` at the top of its body, the parameter never
    rebound): what a caller sets by constructing the object; and what it passes on
    straight from one to the base constructor (``super().__init__(size=size)``: ("size",
    "size"); a positional one: ("#0", "size"))."""
    if init is None:
        return None, (), ()
    if not params or params[0].kind in ("star", "starstar", "keyword"):
        return None, (), ()  # no self to set attributes on
    this, params = params[0].name, params[1:]
    names = {p.name for p in params}
    # The names the body binds or deletes, walked for on first need.
    rebound = functools.cache(lambda: {n.id for n in walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))})
    sets: dict[str, str] = {}
    for stmt in init.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == this:
                if isinstance(value, ast.Name) and value.id in names and value.id not in rebound():
                    sets[target.attr] = value.id
                else:
                    sets.pop(target.attr, None)  # set from something else (last binding wins)
    passed: dict[str, str] = {}
    for stmt in init.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and _is_super_init(call.func):
            straight = lambda value: value.id if isinstance(value, ast.Name) and value.id in names and value.id not in rebound() else None
            for index, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    break
                if (param := straight(arg)) is not None:
                    passed[f"#{index}"] = param
            passed.update((k.arg, param) for k in call.keywords if k.arg is not None and (param := straight(k.value)) is not None)
    return params, tuple(sorted(sets.items())), tuple(sorted(passed.items()))


def _is_super_init(func: ast.expr) -> bool:
    """``super().__init__`` (no arguments to super)."""
    return (isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super" and not func.value.args)
