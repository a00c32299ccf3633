"""CLI flags: argparse, click and typer declarations -> ``(destination, --flag)`` pairs.

A boolean flag's text carries how it is written after a space: ``store_true`` (``--x`` sets
True), ``store_false``, ``optional`` (``--x``/``--no-x``, argparse's BooleanOptionalAction).
A flag whose keywords come from a mapping (vLLM's ``add_argument("--x", **kwargs["x"])``,
the mapping built by ``get_kwargs(Config)``) carries ``kwargs``, or ``kwargs-optional`` where
the tree builds such mappings with ``["action"] = argparse.BooleanOptionalAction``
(``BOOLEAN_KWARGS``, resolved by link.commands.resolve_kwargs_flags).
"""

from __future__ import annotations

import ast

from .declarations import call_name, dotted_name
from .syntax import walk

# The pseudo-destination recording that the tree builds flag keywords with
# ``kwargs[name]["action"] = argparse.BooleanOptionalAction`` (for its boolean fields).
BOOLEAN_KWARGS = "**"


def _long_flags(args: list[ast.expr]) -> list[str]:
    return [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]


def _dest_of(flags: list[str], names: list[str], keywords: list[ast.keyword]) -> str:
    for kw in keywords:
        if kw.arg == "dest" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    if names:
        return names[0]
    return flags[0][2:].replace("-", "_")


def cli_flags(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``(destination, --flag)`` pairs an argparse, click or typer declaration makes."""
    calls: list[tuple[ast.Call, str | None]]  # each declaring call, with the parameter it declares (typer)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and call_name(stmt.value) in ("add_argument", "add_option"):
        calls = [(stmt.value, None)]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        calls = _option_calls(stmt)
    else:
        return []
    found: list[tuple[str, str]] = []
    for call, param in calls:
        flags = _long_flags(call.args)
        if not flags:
            continue
        names = [param] if param else [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value,
            str) and a.value.isidentifier()]
        dest = _dest_of(flags, names, call.keywords)
        action = _boolean_action(call.keywords)
        if action is None and any(kw.arg is None for kw in call.keywords):
            action = "kwargs"  # the keywords of a mapping: whether it is boolean is the field's
        found.extend((dest, f"{flag} {action}" if action else flag) for flag in flags[:1])
    return found


def _option_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.Call, str | None]]:
    """click's ``@option(...)`` decorators, and typer's ``Option(...)`` calls in the parameters'
    defaults and ``Annotated`` annotations (each with its parameter)."""
    calls: list[tuple[ast.Call, str | None]] = [(d, None) for d in function.decorator_list if isinstance(d,
        ast.Call) and call_name(d) == "option"]
    params = function.args.args + function.args.kwonlyargs
    defaults: list[ast.expr | None] = [None] * (len(function.args.args) - len(function.args.defaults))
    defaults += [*function.args.defaults, *function.args.kw_defaults]
    for param, default in zip(params, defaults):
        for node in (default, getattr(param.annotation, "slice", None)):
            for call in walk(node) if node is not None else ():
                if isinstance(call, ast.Call) and call_name(call) == "Option":
                    calls.append((call, param.arg))
    return calls


def boolean_kwargs(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``[(BOOLEAN_KWARGS, "optional")]`` for ``kwargs[name]["action"] = argparse.BooleanOptionalAction``."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not (dotted_name(stmt.value) or "").endswith("BooleanOptionalAction"):
        return []
    target = stmt.targets[0]
    is_action = isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and target.slice.value == "action"
    return [(BOOLEAN_KWARGS, "optional")] if is_action else []


def _boolean_action(keywords: list[ast.keyword]) -> str | None:
    """How a boolean flag is written: ``store_true`` (``--x`` sets True), ``store_false``, or
    ``optional`` (``--x``/``--no-x``, argparse's BooleanOptionalAction); None for a flag that
    takes a value. The flag's text then carries it after a space (flags hold no spaces)."""
    for kw in keywords:
        value = kw.value
        if kw.arg == "action" and isinstance(value, ast.Constant) and value.value in ("store_true", "store_false"):
            return value.value
        if kw.arg == "action" and (dotted_name(value) or "").endswith("BooleanOptionalAction"):
            return "optional"
        if kw.arg == "is_flag" and isinstance(value, ast.Constant) and value.value is True:
            return "store_true"  # click
    return None


# Every CLI flag declaration (flags.cli_flags, flags.boolean_kwargs) calls one of these by name.
_FLAG_CALL_NAMES = ("add_argument", "add_option", "option", "Option")


def may_declare_flags(text: str) -> bool:
    """False only when no statement of ``text`` can declare a CLI flag: none of the call
    names appears (non-ASCII source may spell a name in other characters, NFKC)."""
    if not text.isascii():
        return True
    # str.find scans fast; the regex tries its word boundary at every position.
    for name in _FLAG_CALL_NAMES:
        start = text.find(name)
        while start >= 0:
            end = start + len(name)
            if (start == 0 or not _is_word(text[start - 1])) and (end == len(text) or not _is_word(text[end])):
                return True
            start = text.find(name, start + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"
