"""The evaluator's statements: a generated validator's body (``if``/``raise``/``return``) -> what it raises."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...collect.declarations import dotted_name
from ..values import UnknownValue
from .core import VALUE_ERRORS, compiled
from .errors import EvalError, TooLarge
from .limits import start_evaluation


@dataclass(frozen=True, slots=True)
class Raised:
    """What a generated validator raised: the class name and the rendered message."""

    exception: str
    message: str


def run_validator(source: str, kwargs: Mapping[str, Any]) -> Raised | None:
    """Interpret a generated validator (``def f(...): if cond: raise E(msg)``) on ``kwargs``.

    Raises:
        EvalError: the source has a statement or expression outside the allow-list.
    """
    env = dict(kwargs)
    start_evaluation()
    try:
        return _run_block(_validator_body(source), env)
    except (RecursionError, UnknownValue, *VALUE_ERRORS) as exc:
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc
    except MemoryError as exc:
        raise TooLarge("out of memory") from exc


@lru_cache(maxsize=64)
def _validator_body(source: str) -> list[ast.stmt]:
    """The function body of a validator, parsed once: a card runs its validator on the
    trigger and on every fix, and the compiled tests stay on the cached tree."""
    module = ast.parse(source)
    return next(n for n in module.body if isinstance(n, ast.FunctionDef)).body


def _run_block(body: list[ast.stmt], env: Mapping[str, Any]) -> Raised | None:
    for stmt in body:
        if isinstance(stmt, ast.If):
            branch = stmt.body if compiled(stmt.test)(env) else stmt.orelse
            result = _run_block(branch, env)
            if result is not None:
                return result
        elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
            name = dotted_name(stmt.exc.func) or "?"
            args = stmt.exc.args
            message = compiled(args[0])(env) if args else ""
            return Raised(exception=name, message=str(message))
        elif isinstance(stmt, (ast.Pass, ast.Expr)) and (not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Constant)):
            continue
        elif isinstance(stmt, ast.Return) and stmt.value is None:
            return None
        else:
            raise EvalError(f"unsupported statement: {type(stmt).__name__}")
    return None
