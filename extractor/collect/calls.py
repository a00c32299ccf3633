"""Calls each function makes, the ``ast`` half of the project-wide call graph (link.callgraph).

``def b32decode(s, casefold=False, map01=None): return _b32decode(_b32alphabet, s, casefold, map01)``
records one call of ``_b32decode`` with its four arguments as code, which is the first thing
the function does: linking reads it backwards, from a raise in ``_b32decode`` to the public
function a user calls, and the arguments say what the user's values become on the way.

Only what linking can resolve is kept: a call whose callee is a dotted name starting at a
name the module binds (a definition, a class, an import; a module variable by its name alone, which may be
an alias of a class), at ``self``/``cls`` in a method, or at an annotated parameter
(``client.send(...)`` of ``client: Client``: ``MadeCall.receiver``). Calls on locals, results and builtins are left out. A function keeps at
most ``MAX_CALLS`` calls (``is_cut`` where it made more), an argument at most
``MAX_ARGUMENT`` characters of code (a longer one, or a star argument, leaves the call's
arguments unknown). Only a path of first calls is modelled (link.callgraph.entry_calls): the
arguments are kept for the first call alone, and the parameters, decorators and call style
for the functions that make one. Nested functions and lambdas are not entered: their calls run when
they are called, not when the function is.

A call is the one the function reaches first (``is_first``) where it is the callee of a
top-level statement (``f(...)``, ``return f(...)``, ``x = f(...)``, ``a, b = f(...)``) and every
statement before it is one that can neither leave the function nor fail: the docstring,
``pass``, ``global``/``nonlocal``, a name bound to a literal, a parameter or an empty container
(``used = set()``); or an early exit whose test reads the parameters only, ``if size < 1: raise
ValueError(...)`` (``return``) or ``assert size``, kept with the call (``MadeCall.exits``): the call
is reached where each such test is false. Anything else (a loop, another call, an attribute
read outside a test) may raise or return first, so no later call is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from ..model import Argument, CallsMade, MadeCall
from .declarations import SourceText, call_style, dotted_name, function_params
from .syntax import Function, child_nodes

MAX_CALLS = 48  # per function
MAX_ARGUMENT = 160  # characters of one argument's code
_SELF = ("self", "cls")
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def calls_made(defs: Iterable[tuple[str, Function, str | None]], src: SourceText, kinds: Mapping[str, str]) -> tuple[CallsMade, ...]:
    """For each function of ``defs`` (qualname, node, owner class qualname or None; not nested
    ones) that makes a call linking may resolve, those calls; ``kinds``: the names the module
    binds at its top level, each with its kind (def, class, import, var: a variable is called
    by its name alone, as an alias of a class, never through its attributes)."""
    bound = {name for name, kind in kinds.items() if kind != "var"}
    aliases = {name for name, kind in kinds.items() if kind == "var"}
    found = []
    for qualname, node, owner in defs:
        calls, is_cut = _calls(node, src, bound, aliases, is_method=owner is not None)
        if not calls:
            continue
        if not any(c.is_first for c in calls):
            found.append(CallsMade(function=qualname, owner=owner, calls=calls, is_cut=is_cut))
            continue
        text = "\n".join(src.lines[node.lineno - 1 : node.end_lineno])
        style = call_style(node, may_yield="yield" in text or not text.isascii())
        decorators = tuple(src.flat(d) for d in node.decorator_list)
        found.append(CallsMade(function=qualname, owner=owner, params=function_params(node, src), decorators=decorators,
                               call_style=style, calls=calls, is_cut=is_cut))
    return tuple(found)


def _calls(node: Function, src: SourceText, bound: AbstractSet[str], aliases: AbstractSet[str], *,
           is_method: bool) -> tuple[tuple[MadeCall, ...], bool]:
    first, exits = _first_call(node, bound | aliases)
    unread = _unread_before(node, first) if first is not None else ()
    params = _param_names(node)
    heads = (set(bound) - params) | (set(_SELF) if is_method else set())
    plain = set(aliases) - params
    typed = _annotated(node, src)
    found: list[MadeCall] = []
    count = 0
    for call in sorted(_own_calls(node), key=lambda c: (c.lineno, c.col_offset)):
        callee = dotted_name(call.func)
        if callee is None:
            continue
        head, _, rest = callee.partition(".")
        receiver = typed.get(head) if rest and "." not in rest else None
        if head not in heads and callee not in plain and receiver is None:
            continue
        count += 1
        if count <= MAX_CALLS:
            is_first = call is first
            found.append(MadeCall(callee=callee, line=call.lineno, arguments=_arguments(call, src) if is_first else None,
                                  is_first=is_first, receiver=receiver, exits=exits if is_first else (),
                                  unread=unread if is_first else ()))
    return tuple(found), count > MAX_CALLS


def _annotated(node: Function, src: SourceText) -> dict[str, str]:
    """The parameters (but ``self``/``cls``) annotated, with their annotations as written (a
    method called on one, ``client.send(...)``, is looked for on the class it names)."""
    args = node.args
    found = {}
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.annotation is not None and arg.arg not in _SELF:
            text = src.flat(arg.annotation)
            if len(text) <= MAX_ARGUMENT:
                found[arg.arg] = text
    return found


def _own_calls(node: Function) -> Iterable[ast.Call]:
    """The calls in the function's body (its decorators, defaults and annotations run at
    definition), not in nested definitions or lambdas."""
    work: list[ast.AST] = list(node.body)
    while work:
        current = work.pop()
        if isinstance(current, ast.Call):
            yield current
        if not isinstance(current, _NESTED):
            work.extend(child_nodes(current))


def _arguments(call: ast.Call, src: SourceText) -> tuple[Argument, ...] | None:
    """The call's arguments as code (keyword None: positional); None where one is starred or too long."""
    out: list[tuple[str | None, ast.expr]] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            return None
        out.append((None, arg))
    for kw in call.keywords:
        if kw.arg is None:
            return None
        out.append((kw.arg, kw.value))
    codes = []
    for keyword, value in out:
        code = src.flat(value)
        if len(code) > MAX_ARGUMENT or "\n" in code:
            return None
        codes.append(Argument(code=code, keyword=keyword))
    return tuple(codes)


def _param_names(node: Function) -> set[str]:
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return names


def _first_call(node: Function, shadowed: AbstractSet[str]) -> tuple[ast.Call | None, tuple[tuple[str, str, tuple[str, ...]], ...]]:
    """The call of the first top-level statement the function surely reaches, where that
    statement is a call (see the module's docstring), and the early exits before it; else None."""
    params = _param_names(node)
    body: Sequence[ast.stmt] = node.body
    exits: list[tuple[str, str, tuple[str, ...]]] = []
    for index, stmt in enumerate(body):
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue  # the docstring
        call = _statement_call(stmt)
        if call is not None:
            return call, tuple(exits)
        found = _early_exit(stmt, params - set(_SELF))
        if found is not None:
            exits.append(found)
        elif not _is_harmless(stmt, params, shadowed):
            return None, ()
    return None, ()


def _unread_before(node: Function, first: ast.Call) -> tuple[str, ...]:
    """The parameters (but ``self``/``cls``) that no statement before the first call's reads."""
    read: set[str] = set()
    for stmt in node.body:
        if any(n is first for n in ast.walk(stmt)):
            break
        read.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
    return tuple(sorted(_param_names(node) - read - set(_SELF)))


_MAX_EXIT = 200  # characters of an early exit's test


def _early_exit(stmt: ast.stmt, params: AbstractSet[str]) -> tuple[str, str, tuple[str, ...]] | None:
    """``if test: raise ...`` or ``if test: return ...`` (no ``else``), or ``assert test``, whose
    test reads only the parameters (names and attribute chains, no call): (the test under which
    control leaves, "raise" or "return", what it reads); else None."""
    test: ast.expr
    if isinstance(stmt, ast.Assert):
        test, kind = ast.UnaryOp(op=ast.Not(), operand=stmt.test), "raise"
    elif isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and isinstance(stmt.body[0], (ast.Raise, ast.Return)):
        test, kind = stmt.test, "raise" if isinstance(stmt.body[0], ast.Raise) else "return"
    else:
        return None
    reads = _test_reads(test, params)
    code = ast.unparse(test)
    return (code, kind, reads) if reads is not None and len(code) <= _MAX_EXIT else None


def _test_reads(test: ast.expr, params: AbstractSet[str]) -> tuple[str, ...] | None:
    """The parameters' names and attribute chains a test reads (the whole chain: ``p.a.b``, not
    ``p``), where it reads nothing else that is bound (a builtin such as ``len`` or ``isinstance``
    is fine) and calls no method; else None."""
    inner = {id(node.value) for node in ast.walk(test) if isinstance(node, ast.Attribute)}  # (a chain's own parts)
    reads: list[str] = []
    for node in ast.walk(test):
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS, ast.NamedExpr, ast.Await)):
            return None
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _TEST_BUILTINS):
            return None
        if id(node) in inner or not isinstance(node, (ast.Attribute, ast.Name)):
            continue
        chain = dotted_name(node)
        root = chain.split(".", 1)[0] if chain is not None else None
        if chain is not None and root in params:
            reads.append(chain)
        elif root not in _TEST_BUILTINS and root not in ("None", "True", "False"):
            return None  # (a module name, a local: its value is not the caller's)
    return tuple(sorted(set(reads)))


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TEST_BUILTINS = frozenset({"len", "isinstance", "int", "float", "str", "bool", "abs", "min", "max", "tuple", "list"})


def _statement_call(stmt: ast.stmt) -> ast.Call | None:
    plain = isinstance(stmt, (ast.Expr, ast.Return)) or isinstance(stmt, ast.Assign) and all(_is_names(t) for t in stmt.targets)
    value = getattr(stmt, "value", None) if plain else None
    return value if isinstance(value, ast.Call) else None


def _is_names(target: ast.expr) -> bool:
    """Whether an assignment target binds names only (``x``, ``a, b``)."""
    return isinstance(target, ast.Name) or isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts)


_EMPTY = frozenset({"set", "list", "dict", "tuple", "frozenset"})


def _is_harmless(stmt: ast.stmt, params: set[str], shadowed: AbstractSet[str]) -> bool:
    """Whether a statement can neither leave the function nor raise: ``pass``, ``global``, a
    name (not a parameter) bound to a literal, a parameter or an empty container (``set()``,
    where neither the module nor a parameter binds ``set``)."""
    if isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal)):
        return True
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in params for t in stmt.targets):
        value = stmt.value  # (a parameter rebound no longer holds the caller's value)
        is_param = isinstance(value, ast.Name) and value.id in params
        return isinstance(value, ast.Constant) or is_param or _is_empty(value, shadowed | params)
    return False


def _is_empty(value: ast.expr, shadowed: AbstractSet[str]) -> bool:
    """``[]``, ``{}``, ``()``, ``set()`` and the like."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY - shadowed and not value.args \
        and not value.keywords
