"""What the path to a raise evaluates: the statements before it -> the values they compute, in the guard's names.

A statement on the way that fails keeps control from every raise after it: with ``remove =
''``, ``remove_formatted = f"{remove[0]}.{remove[1]}"`` raises IndexError before the test
that the trigger was solved for is even read. The values kept here are the simple
statements' (an assignment to names, an expression statement) made of pure expressions
only (names, literals, operators, pure builtins and text methods: ``scope.is_pure``), the
ones the restricted evaluator computes; the raise's own arguments join them (cstpass), and
solve holds a trigger under which one of them fails to be no trigger (triggers).
Also the expressions a short try body evaluates (``body_values``), whose raising the guard
models for the body's handlers; an absolute import of one module stands as
``importlib.util.find_spec(module)``, which is None where it is not installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .expressions import TAG
from .scope import dotted, is_pure
from .units import MAX_TRY_BODY

if TYPE_CHECKING:
    from .paths import PathModel


def evaluated_values(model: PathModel, stmt: cst.CSTNode) -> tuple[str, ...]:
    """The value ``stmt`` computes, as the guard reads it (its locals inlined), where it
    is a simple statement of a pure expression that reads some name; else nothing.
    Modelled once per statement (the function's raises share the model)."""
    found = model.evaluated.get(id(stmt))
    if found is None:
        found = ()
        value = sole_value(stmt)
        if value is not None and dotted(value) is None and is_pure(value, fresh=True) and _reads_a_name(value):
            with model.exprs.located(stmt):
                code = model.exprs.atom(value)
            if TAG not in code:  # (a local of several values: no name a trigger gives a value)
                found = (code,)
        model.evaluated[id(stmt)] = found
    return found


def _reads_a_name(node: cst.CSTNode) -> bool:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            return True
        stack.extend(current.children)
    return False


def body_values(body: cst.BaseSuite) -> list[tuple[cst.BaseExpression, cst.CSTNode]] | None:
    """The expressions a short try body evaluates, one per statement, in order (up to
    MAX_TRY_BODY statements, each a one-expression statement), each with its statement;
    else None."""
    lines = body.body
    if not 1 <= len(lines) <= MAX_TRY_BODY:
        return None
    found: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
    for line in lines:
        if not isinstance(line, cst.SimpleStatementLine) or (value := sole_value(line)) is None:
            return None
        found.append((value, line.body[0]))
    return found


def sole_value(line: cst.CSTNode) -> cst.BaseExpression | None:
    """The expression one statement evaluates (``x = int(text)``, ``return d[k]``, ``f(x)``),
    when nothing else in the statement can raise; else None."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if (module := imported_module(small)) is not None:  # (raising as paths.PathModel.raises reads it)
        return cst.Call(func=cst.parse_expression("importlib.util.find_spec"), args=[cst.Arg(cst.SimpleString(repr(module)))])
    value = getattr(small, "value", None)
    if isinstance(value, (cst.Yield, cst.Await)):
        return None  # what the caller sends in, not an expression over inputs
    if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets):
        return small.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        return small.value
    if isinstance(small, cst.Return) and small.value is not None:
        return small.value
    if isinstance(small, cst.Expr) and not isinstance(small.value, cst.Ellipsis):  # (``...``: a statement left out, units.unit_text)
        return small.value
    return None


def imported_module(small: cst.CSTNode) -> str | None:
    """The module an absolute import of one module names (``import h2``, ``from h2 import
    Config``: ``h2``); None for any other statement. Such a statement raises
    ModuleNotFoundError, an ImportError, where no module of that name is installed."""
    if isinstance(small, cst.Import) and len(small.names) == 1:
        return dotted(small.names[0].name)
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        return dotted(small.module)
    return None
