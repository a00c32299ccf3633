"""What a pydantic validator does before pydantic's own checks: the validators that run on the
raw value and call what the tool does not read (``ValidatorCalls``), and the module functions
such a call may be of that are known to let a value through (``passes_none``, ``refuses_nothing``).

A "before" model validator is handed the constructor's keywords as a dict. A call in it that
the tool does not read may refuse a value before pydantic's checks (vLLM's
``validate_cache_salt(data.get("cache_salt"))``), so a construction it runs on is not claimed
(link.constructors.unread_validators, Owner.refuses_first). What keeps such a call from running,
or makes it harmless, is read here, on the statements alone:

- ``helper(data.get("key"))`` of a helper that returns at once on None (``passes_none``): it
  runs on the value only where the keywords hold the key;
- a call after a top-level ``if <key absent>: return ...`` (``value = data.get("key")``, then
  ``if value is None: return data``; ``if "key" not in data``; ``if not isinstance(value, T)``):
  it runs only where the keywords hold the key;
- ``helper(data)`` of a helper that refuses nothing a dict may hold (``refuses_nothing``: no
  raise, and reads of the dict alone, as vLLM's ``resolve_return_mm_kwargs_alias``).
"""

from __future__ import annotations

import ast
import re

from ..model import ValidatorCalls
from .syntax import dotted_name, walk

# What a validator may call that the tool reads: a value's type and size, and a text's or mapping's reading methods
_READ_CALLS = frozenset({"isinstance", "issubclass", "len", "str", "int", "float", "bool", "type", "getattr", "hasattr", "callable",
                         "list", "tuple", "dict", "set", "frozenset", "super", "any", "all", "sorted", "min", "max", "abs", "repr"})
_READ_METHODS = frozenset({"get", "keys", "values", "items", "startswith", "endswith", "lower", "upper", "strip", "split", "copy",
                           "isdigit", "isidentifier", "format", "join", "replace", "setdefault", "pop", "append", "add",
                           # (a warning or a log line refuses nothing)
                           "warn", "warning", "info", "debug", "error", "exception", "warning_once", "info_once", "debug_once"})


_VALIDATOR_MODE = re.compile(r"mode\s*=\s*[\"'](\w+)")


def validator_mode(decorator: str) -> str:
    """The ``mode=`` a pydantic validator's decorator gives, as written ("after" where it gives none)."""
    found = _VALIDATOR_MODE.search(decorator)
    return found.group(1) if found else "after"


def _runs_first(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a validator runs on the raw value, before pydantic's own checks of it: ``mode=``
    "before", "wrap" or "plain", or ``pre=True`` (an "after" one runs on values those checks
    passed: a value they refuse never reaches it)."""
    for decorator in function.decorator_list:
        if validator_mode(ast.unparse(decorator)) in ("before", "wrap", "plain"):
            return True
        if any(given.arg == "pre" and isinstance(given.value, ast.Constant) and given.value.value is True
               for given in (decorator.keywords if isinstance(decorator, ast.Call) else ())):
            return True
    return False


def _validated_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The fields a field validator names (``@field_validator("a", "b")``); () for a model's."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and (dotted_name(decorator.func) or "").rsplit(".", 1)[-1] in ("field_validator", "validator"):
            return tuple(a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return ()


def unread_validator(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ValidatorCalls | None:
    """A validator that runs first (``_runs_first``) and whose body calls something the tool does
    not read, calls in its own ``raise`` statements (the exception it builds) aside: with how each
    such call is kept from refusing a value (``ValidatorCalls.keyed``) where every one is; None
    where it calls nothing unread."""
    if not _runs_first(function):
        return None
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]]
    raw = params[1] if len(params) > 1 else None  # (the raw input: the parameter after ``cls``)
    if raw is not None and raw in _stored(function.body):
        raw = None  # (``data = ...`` rebinds it: its keys are no longer the keywords')
    aliases: dict[str, str] = {}
    gate: str | None = None
    found: list[tuple[str, str] | None] = []
    for stmt in function.body:
        calls = _unread_calls(stmt, params)
        found.extend((gate, "") if gate is not None else _guarded(stmt, call, raw, aliases) or _kept(call, raw, aliases)
                     for call in calls)
        if gate is None and raw is not None:
            _alias(stmt, raw, aliases)
            gate = _gate(stmt, raw, aliases)
    if not found:
        return None
    keyed = tuple(k for k in found if k is not None) if None not in found else ()
    return ValidatorCalls(method=function.name, fields=_validated_names(function), keyed=keyed)


def _unread_calls(stmt: ast.stmt, params: list[str]) -> list[ast.Call]:
    """The calls of a statement the tool does not read (a ``raise``'s aside)."""
    nodes = list(walk(stmt))
    raised = {id(n) for node in nodes if isinstance(node, ast.Raise) for n in walk(node)}
    found = []
    for node in nodes:
        if not isinstance(node, ast.Call) or id(node) in raised:
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in params:
            continue  # (a "wrap" validator's ``handler(value)``: pydantic's own checks)
        if isinstance(func, ast.Name) and func.id in _READ_CALLS or isinstance(func, ast.Attribute) and func.attr in _READ_METHODS:
            continue
        found.append(node)
    return found


def _kept(call: ast.Call, raw: str | None, aliases: dict[str, str]) -> tuple[str, str] | None:
    """``(key, helper)`` for ``helper(data.get("key"))`` (or an alias of that value), ``("",
    helper)`` for ``helper(data)``; None for any other call."""
    callee = dotted_name(call.func)
    argument = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if callee is None or argument is None or raw is None:
        return None
    if isinstance(argument, ast.Name) and argument.id == raw:
        return "", callee
    key = _key_of(argument, raw, aliases)
    return (key, callee) if key is not None else None


def _guarded(stmt: ast.stmt, call: ast.Call, raw: str | None, aliases: dict[str, str]) -> tuple[str, str] | None:
    """``(key, "")`` where the call runs only if the keywords hold the key: it stands in the body
    of an ``if`` (or a conditional expression) whose test is false without the key, or after
    such a test in an ``and`` (``isinstance(params, dict) and helper(data.get("messages"))`` of
    ``params = data.get("kv_transfer_params")``); None otherwise."""
    if raw is None:
        return None
    rebound = _stored([stmt])  # (a name the statement binds again may no longer hold the key's value)
    aliases = {name: key for name, key in aliases.items() if name not in rebound}
    parents = {id(child): node for node in walk(stmt) for child in ast.iter_child_nodes(node)}
    node: ast.AST = call
    while id(node) in parents:
        parent = parents[id(node)]
        tests: list[ast.expr] = []
        if (isinstance(parent, ast.If) and node in parent.body) or (isinstance(parent, ast.IfExp) and node is parent.body):
            tests = [parent.test]
        elif isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And) and isinstance(node, ast.expr):
            tests = parent.values[:parent.values.index(node)]
        key = next((k for test in tests if (k := _present(test, raw, aliases)) is not None), None)
        if key is not None:
            return key, ""
        node = parent
    return None


def _key_of(node: ast.expr, raw: str, aliases: dict[str, str]) -> str | None:
    """The key of ``data.get("key")`` (``data.get("key", None)``), or of a name bound to it."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == raw and not node.keywords):
        return None
    if len(node.args) not in (1, 2) or (len(node.args) == 2 and not _is_none(node.args[1])):
        return None
    key = node.args[0]
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _alias(stmt: ast.stmt, raw: str, aliases: dict[str, str]) -> None:
    """Record ``value = data.get("key")``; a name bound otherwise (anywhere in the statement) is
    no alias any more."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and (key := _key_of(stmt.value, raw, aliases)) is not None:
        aliases[stmt.targets[0].id] = key
        return
    for name in _stored([stmt]):
        aliases.pop(name, None)


def _stored(statements: list[ast.stmt]) -> set[str]:
    """The names the statements bind (assignments, loop targets, ``with ... as``, walrus)."""
    return {node.id for stmt in statements for node in walk(stmt) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _gate(stmt: ast.stmt, raw: str, aliases: dict[str, str]) -> str | None:
    """The key without which ``stmt``, ``if <test>: return ...``, leaves the validator: its test is
    true where the keywords lack the key."""
    if not isinstance(stmt, ast.If) or stmt.orelse or len(stmt.body) != 1 or not isinstance(stmt.body[0], ast.Return):
        return None
    return _absent(stmt.test, raw, aliases)


def _absent(test: ast.expr, raw: str, aliases: dict[str, str]) -> str | None:
    """A key whose absence makes ``test`` true: ``v is None``, ``not v``, ``not isinstance(v, T)``
    (``v`` the key's value, None where it is absent), ``"key" not in data``, or an ``or`` of one."""
    return _without(test, raw, aliases, True)


def _present(test: ast.expr, raw: str, aliases: dict[str, str]) -> str | None:
    """A key without which ``test`` is false: ``v``, ``v is not None``, ``isinstance(v, T)``,
    ``"key" in data``, or an ``and`` holding one."""
    return _without(test, raw, aliases, False)


def _without(test: ast.expr, raw: str, aliases: dict[str, str], makes: bool) -> str | None:
    """A key whose absence makes ``test`` evaluate to ``makes``: an ``or`` (``and`` for false) of
    one, its negation, ``v is None`` or ``"key" not in data`` (true), ``v``, ``isinstance(v, T)``
    (T not letting None through), ``v is not None`` or ``"key" in data`` (false)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or if makes else ast.And):
        return next((key for value in test.values if (key := _without(value, raw, aliases, makes)) is not None), None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _without(test.operand, raw, aliases, not makes)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, ast.Is if makes else ast.IsNot) and _is_none(right):
            return _key_of(test.left, raw, aliases)
        if isinstance(op, ast.NotIn if makes else ast.In) and _is_name(right, raw) and isinstance(test.left, ast.Constant):
            return test.left.value if isinstance(test.left.value, str) else None
        return None
    if makes:
        return None  # (a key's value or a type test: false where it is absent)
    if isinstance(test, ast.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2 and not _names_none(test.args[1]):
        return _key_of(test.args[0], raw, aliases)
    return _key_of(test, raw, aliases)


def _names_none(types: ast.expr) -> bool:
    """Whether an ``isinstance`` type argument may let None through (``type(None)``, ``NoneType``)."""
    return any(isinstance(n, ast.Name) and n.id == "NoneType" or isinstance(n, ast.Constant) and n.value is None
               or isinstance(n, ast.Call) and dotted_name(n.func) == "type" for n in walk(types))


def passes_none(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function returns at once, having done nothing, when its first parameter is None:
    its first statement (after the docstring) is ``if <test true for None>: return <constant>``
    (``p is None``, ``not p``, ``not isinstance(p, list)``: ``_absent``), or its whole body is one
    ``if`` with no ``else`` whose test is ``p is not None and ...`` (or ``p and ...``)."""
    args = [*function.args.posonlyargs, *function.args.args]
    body = _statements(function)
    if not args or not body or not isinstance(body[0], ast.If):
        return False
    name, test = args[0].arg, body[0].test
    only = body[0].body[0] if len(body[0].body) == 1 else None
    if isinstance(only, ast.Return) and (only.value is None or isinstance(only.value, ast.Constant)) \
            and _absent(test, "", {name: name}) is not None:
        return True
    first = test.values[0] if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else test
    return len(body) == 1 and not body[0].orelse and (_compares_none(first, name, ast.IsNot) or _is_name(first, name))


def _statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The function's body without its docstring."""
    first = function.body[0] if function.body else None
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    return function.body[1:] if docstring else function.body


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _compares_none(test: ast.expr, name: str, op: type[ast.cmpop]) -> bool:
    """``name is None`` (op ``ast.Is``) or ``name is not None`` (``ast.IsNot``)."""
    return isinstance(test, ast.Compare) and _is_name(test.left, name) and len(test.ops) == 1 and isinstance(test.ops[0], op) \
        and _is_none(test.comparators[0])


# What a function given a dict may do and refuse nothing: test and read it, build new dicts from it
_SAFE_NODES = (ast.Name, ast.Constant, ast.BoolOp, ast.And, ast.Or, ast.Not, ast.Load, ast.Store, ast.Dict, ast.Return, ast.If,
               ast.Assign, ast.Pass, ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.In, ast.NotIn)  # (``in``: see _safe)


def refuses_nothing(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function of one parameter refuses nothing it is given as a dict: no raise, and
    every expression a test or read of that dict (``isinstance``, ``.get``, ``"k" in data``),
    a constant, a name or a dict built from them (``{**data, "k": "v"}``), as vLLM's
    ``resolve_return_mm_kwargs_alias``."""
    args = [*function.args.posonlyargs, *function.args.args]
    if len(args) != 1 or function.args.vararg or function.args.kwarg or function.args.kwonlyargs:
        return False
    name = args[0].arg
    body = _statements(function)
    return bool(body) and all(_safe(node, name) for stmt in body for node in walk(stmt))


def _safe(node: ast.AST, name: str) -> bool:
    if isinstance(node, _SAFE_NODES) or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.Compare):  # (``in`` only of the dict itself: of another value it may raise)
        return all(isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) or isinstance(op, (ast.In, ast.NotIn))
                   and isinstance(right, ast.Name) and right.id == name for op, right in zip(node.ops, node.comparators))
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == name and node.attr == "get"
    if isinstance(node, ast.Call):
        return dotted_name(node.func) == "isinstance" or dotted_name(node.func) == f"{name}.get"
    return isinstance(node, (ast.Tuple, ast.keyword))
