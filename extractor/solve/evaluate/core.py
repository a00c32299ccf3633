"""The evaluator's core: an ``ast`` expression -> a function of the environment, built once per tree."""

from __future__ import annotations

import ast
import struct
from collections.abc import Callable, Mapping
from typing import Any

from ...collect.declarations import dotted_name
from ...model import Reason
from ...model.pytext import try_parse_expression
from ..values import UnknownValue
from .errors import EvalError, TooLarge, Unknown, ValueFailure
from .limits import start_evaluation

# What the evaluated code may raise of its own (``struct.error``: of ``struct.unpack``, which the allow-list holds)
VALUE_ERRORS = (TypeError, ValueError, ArithmeticError, LookupError, AttributeError, struct.error)


def parse_expr(code: str) -> ast.expr:
    """Parse one expression, stripped (model.pytext's shared tree: the search evaluates the
    same guard many times; never change it).

    Raises:
        EvalError: the code is not a single Python expression.
    """
    tree = try_parse_expression(code.strip())
    if tree is None:
        raise EvalError(f"not an expression: {code!r}")
    return tree


Fn = Callable[[Mapping[str, Any]], Any]


class _Memo:
    """A compiled function kept on its tree; pickles as nothing, so a tree sent to another
    process is compiled again there instead of failing to pickle."""

    __slots__ = ("fn",)

    def __init__(self, fn: Fn | None = None) -> None:
        self.fn = fn

    def __reduce__(self) -> tuple:
        return (_Memo, ())


def compiled(node: ast.AST) -> Fn:
    """``node`` as a function of the environment, built once per tree (the search
    evaluates the same guard thousands of times). Evaluation follows the allow-list
    exactly as an interpreter would: a node outside it raises when, and only when, it is
    reached (``x or <unsupported>`` is True for a true ``x``)."""
    memo = getattr(node, _MEMO, None)
    if memo is not None and memo.fn is not None:
        return memo.fn
    fn = _compile(node)
    setattr(node, _MEMO, _Memo(fn))  # (an attribute of our own on ``ast``'s node)
    return fn


_MEMO = "_raisedocs_fn"


_MISSING = object()


def _compile(node: ast.AST) -> Fn:
    builder = BUILDERS.get(type(node), _unsupported)
    inner = builder(node)
    key = _code_key(node)
    if key is None:
        return inner

    def bound_or_computed(env: Mapping[str, Any]) -> Any:
        # A dotted input or an opaque atom bound in the environment wins over computing it.
        value = env.get(key, _MISSING)
        return inner(env) if value is _MISSING else value

    return bound_or_computed


def _code_key(node: ast.AST) -> str | None:
    """The environment key a node may be bound under (dotted input, or opaque atom code)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return dotted_name(node)
    if isinstance(node, (ast.Call, ast.Subscript)):
        return ast.unparse(node)
    return None


# Node type -> its builder: the allow-list (filled by ``expressions``). A node outside it
# compiles to a function that refuses when it is reached.
BUILDERS: dict[type, Callable[[Any], Fn]] = {}


def _unsupported(node: ast.AST) -> Fn:
    def refuse(env: Mapping[str, Any]) -> Any:
        raise EvalError(f"unsupported: {type(node).__name__}")

    return refuse


class LazySource:
    """A node's source for a refusal's message, unparsed on first use only: the search
    may refuse the same node thousands of times, and most nodes are never refused."""

    __slots__ = ("node", "text")

    def __init__(self, node: ast.AST) -> None:
        self.node = node
        self.text: str | None = None

    def __str__(self) -> str:
        if self.text is None:
            self.text = ast.unparse(self.node)
        return self.text


def evaluate(code: str, env: Mapping[str, Any]) -> Any:
    """Evaluate one expression over ``env``.

    Raises:
        EvalError: outside the allow-list, or the values do not support the operation.
    """
    return evaluate_tree(parse_expr(code), env)


def evaluate_tree(tree: ast.AST | None, env: Mapping[str, Any]) -> Any:
    """``evaluate`` of an already parsed expression (None: one that does not parse)."""
    if tree is None:
        raise EvalError("not an expression")
    start_evaluation()
    try:
        return compiled(tree)(env)
    except RecursionError as exc:
        raise EvalError("too deep") from exc
    except UnknownValue as exc:
        raise Unknown(str(exc)) from exc
    except MemoryError as exc:  # a last guard: the limits refuse such values before they are built
        raise TooLarge("out of memory") from exc
    except VALUE_ERRORS as exc:
        # The operation is allowed but these plain values do not support it.
        raise EvalError(f"{type(exc).__name__}: {exc}") from exc


def predicate(tree: ast.AST, refusals: set[Reason] | None = None) -> Callable[[Mapping[str, Any]], bool | None]:
    """``tree`` as a test over environments: True or False, None where it cannot be
    evaluated. Built once; the search calls it for every assignment it tries. A value past
    the limits adds its code to ``refusals``: the caller can say why nothing was found."""
    try:
        fn = compiled(tree)
    except RecursionError:
        return lambda env: None
    failures = (EvalError, RecursionError, *VALUE_ERRORS)

    def holds(env: Mapping[str, Any]) -> bool | None:
        start_evaluation()
        try:
            return bool(fn(env))
        except TooLarge:
            if refusals is not None:
                refusals.add(TooLarge.code)
            return None
        except UnknownValue:
            if refusals is not None:
                refusals.add(Unknown.code)
            return None
        except MemoryError:
            if refusals is not None:
                refusals.add(TooLarge.code)
            return None
        except failures:
            return None

    return holds


FAILS = "fails"  # outcome(): the plain values make the expression raise (``'' <= 0``: TypeError)


def outcome(tree: ast.AST) -> Callable[[Mapping[str, Any]], bool | str | None]:
    """``predicate``, telling apart an expression these plain values make raise (``FAILS``:
    the real code would raise there too) from one the evaluator cannot decide (None)."""
    try:
        fn = compiled(tree)
    except RecursionError:
        return lambda env: None

    def result(env: Mapping[str, Any]) -> bool | str | None:
        start_evaluation()
        try:
            return bool(fn(env))
        except (ValueFailure, *VALUE_ERRORS):
            return FAILS
        except (EvalError, UnknownValue, RecursionError, MemoryError):
            return None

    return result
