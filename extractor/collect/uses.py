"""Uses: an unannotated parameter -> the type its function's own code evidently treats it as.

``value.startswith("x")``, ``value[0] == '"'``, ``re.match(PATTERN, value)``: the function
expects a str, and a trigger of ``value = 0`` would fail on the first such use instead of
reaching the raise. The solver tries values of the evident type first (a preference, never
a constraint: the trigger still has to satisfy the guard). Only distinctive evidence counts
(a method few other types have, a comparison with a literal), and only before the first
line that rebinds the name (after it, the name holds another value); a parameter the
function tests the type of (``isinstance``) or uses as two different types has none.
"""

from __future__ import annotations

import ast

from .declarations import dotted_name
from .syntax import Function, child_nodes

# Methods of str (and bytes) that few other types have; ``split``, ``replace``, ``find``,
# ``format`` and ``join`` count only with a text literal first (patterns, dates, elements and
# threads have them too).
_TEXT_METHODS = frozenset({
    "startswith", "endswith", "strip", "lstrip", "rstrip", "lower", "upper", "isdigit", "isalpha", "isalnum", "isspace",
    "splitlines", "partition", "rpartition", "removeprefix", "removesuffix", "zfill", "ljust", "rjust", "expandtabs",
    "capitalize", "swapcase", "istitle", "islower", "isupper", "isascii",
})
# Methods other types have too, but not with a text literal first: ``ip.split(":")``, ``s.replace("a", "b")``.
_TEXT_WITH_LITERAL = frozenset({"split", "rsplit", "replace", "find", "rfind", "index", "rindex", "count", "join", "format"})
_STR_METHODS = frozenset({"encode", "casefold", "isidentifier", "isnumeric", "isdecimal", "isprintable", "format_map"})
_BYTES_METHODS = frozenset({"decode"})
_LIST_METHODS = frozenset({"append", "extend", "insert", "sort", "reverse"})
_DICT_METHODS = frozenset({"items", "keys", "values", "setdefault", "popitem"})
# Calls whose argument at the index is a str (or bytes: the literals around it decide).
_TEXT_ARGUMENTS = {"re.match": 1, "re.fullmatch": 1, "re.search": 1, "re.split": 1, "re.findall": 1, "re.finditer": 1, "re.sub": 2,
                   "re.subn": 2, "os.path.join": 0, "os.path.basename": 0, "os.path.dirname": 0, "os.path.splitext": 0,
                   "os.path.expanduser": 0, "os.path.exists": 0, "os.path.isfile": 0, "os.path.isdir": 0, "os.path.islink": 0,
                   "os.path.lexists": 0, "os.path.abspath": 0, "os.path.realpath": 0, "os.path.normpath": 0}
_TYPE_TESTS = frozenset({"isinstance", "type", "hasattr", "callable", "issubclass"})
_SCOPE_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)



class ModuleFunctions:
    """The module-level functions of one file by name (a name defined once), each with its
    evident types, found on first use: gettext's ``c2py(plural)`` passes ``plural`` to
    ``_tokenize``, which gives it to ``re.finditer``, so ``plural`` is a str too."""

    def __init__(self, module: ast.Module) -> None:
        counts: dict[str, int] = {}
        for node in module.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.Import, ast.ImportFrom)):
                for name in _defined_names(node):
                    counts[name] = counts.get(name, 0) + 1
        self.functions = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and counts[n.name] == 1}
        self._types: dict[str, dict[str, str]] = {}

    def types(self, name: str) -> tuple[Function, dict[str, str]] | None:
        function = self.functions.get(name)
        if function is None:
            return None
        found = self._types.get(name)
        if found is None:
            found = self._types[name] = evident_types(function)  # (one level: not the callee's callees)
        return function, found


def _defined_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [(a.asname or a.name).split(".")[0] for a in node.names]


def evident_types(function: Function, module: ModuleFunctions | None = None) -> dict[str, str]:
    """Each parameter (not ``*args``/``**kwargs``) the body evidently uses as one type:
    ``str``, ``bytes``, ``list``, ``dict``, ``int`` or ``float`` (ordered against a number);
    with ``module``, also where it passes one straight to a function of the module that
    evidently uses its parameter as one."""
    args = function.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.annotation is None}
    if not params:
        return {}
    seen: list[tuple[str, str, int]] = []  # (parameter, kind, line of the use)
    rebound: dict[str, int] = {}  # parameter -> the first line that binds or deletes it
    excluded: set[str] = set()
    work: list[ast.AST] = list(function.body)
    while work:
        node = work.pop()
        # (isinstance of an ``ast`` class is as fast as comparing types: they are no ABCs)
        if isinstance(node, ast.Name):  # (a leaf: its context needs no visit)
            if type(node.ctx) is not ast.Load and node.id in params:
                rebound[node.id] = min(node.lineno, rebound.get(node.id, node.lineno))
            continue
        if isinstance(node, ast.Constant) or type(node) in _SCOPE_TYPES:
            continue  # a leaf, or a scope with its own names
        if isinstance(node, (ast.Call, ast.Compare, ast.BinOp)):
            seen.extend(_uses(node, params, excluded, module))
        work.extend(child_nodes(node))
    kinds: dict[str, set[str]] = {}
    for name, kind, line in seen:
        if name not in excluded and line < rebound.get(name, line + 1):
            kinds.setdefault(name, set()).add(kind)
    return {name: settled for name, found in sorted(kinds.items()) if (settled := _settled(found)) is not None}


def _uses(node: ast.Call | ast.Compare | ast.BinOp, params: set[str], excluded: set[str],
          module: ModuleFunctions | None) -> list[tuple[str, str, int]]:
    """``(parameter, kind, line)`` for each parameter ``node`` evidently uses as one type
    (``excluded`` gets those a type test reads)."""
    found: dict[str, set[str]] = {}
    if isinstance(node, ast.Call):
        _call(node, params, found, excluded)
        if module is not None:
            _passed(node, params, found, module)
    elif isinstance(node, ast.Compare):
        _compare(node, params, found)
    elif type(node.op) is ast.Add:
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if (name := _param(side, params)) is not None and (literal := _literal_kind(other)) is not None:
                found.setdefault(name, set()).add(literal)
    return [(name, kind, node.lineno) for name, kinds in found.items() for kind in kinds]


def _param(node: ast.AST, params: set[str]) -> str | None:
    return node.id if isinstance(node, ast.Name) and node.id in params else None


def _call(node: ast.Call, params: set[str], found: dict[str, set[str]], excluded: set[str]) -> None:
    func = node.func
    if isinstance(func, ast.Name) and func.id in _TYPE_TESTS:
        excluded.update(n for arg in node.args if (n := _param(arg, params)) is not None)
        return
    if isinstance(func, ast.Attribute) and (name := _param(func.value, params)) is not None:
        method = func.attr
        kind = ("text" if method in _TEXT_METHODS else "str" if method in _STR_METHODS else "bytes" if method in _BYTES_METHODS
                else "list" if method in _LIST_METHODS else "dict" if method in _DICT_METHODS else None)
        if kind is None and method in _TEXT_WITH_LITERAL and node.args:
            kind = _literal_kind(node.args[0])  # str or bytes, after the literal
        if kind is not None:
            found.setdefault(name, set()).add(kind)
        return
    dotted = dotted_name(func)
    index = _TEXT_ARGUMENTS.get(dotted) if dotted is not None else None
    if index is not None and index < len(node.args) and (name := _param(node.args[index], params)) is not None:
        found.setdefault(name, set()).add("text")


def _passed(node: ast.Call, params: set[str], found: dict[str, set[str]], module: ModuleFunctions) -> None:
    """A parameter given as an argument to a function of the module whose parameter there has an evident type."""
    if not isinstance(node.func, ast.Name) or node.func.id in params or (callee := module.types(node.func.id)) is None:
        return
    function, types = callee
    if not types:
        return
    positional = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    for index, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            break
        if (name := _param(arg, params)) is not None and index < len(positional) and (kind := types.get(positional[index])) is not None:
            found.setdefault(name, set()).add(kind)
    for keyword in node.keywords:
        if keyword.arg is not None and (name := _param(keyword.value, params)) is not None and (kind := types.get(keyword.arg)) is not None:
            found.setdefault(name, set()).add(kind)


def _compare(node: ast.Compare, params: set[str], found: dict[str, set[str]]) -> None:
    """``p == "x"``, ``p in ("a", "b")``, ``p in "abc"``, ``p[0] == '"'``, ``p[:2] == "0x"``:
    p is text of the literal's kind. (``"x" in p`` says nothing: a list holds strs too; an
    item compared with a longer str may be an argument of a list: ``args[0] == "-h"``.)"""
    left = node.left
    for op, right in zip(node.ops, node.comparators):
        pairs = ((left, right), (right, left)) if isinstance(op, (ast.Eq, ast.NotEq)) else \
            ((left, right),) if isinstance(op, (ast.In, ast.NotIn)) else ()
        contains = isinstance(op, (ast.In, ast.NotIn))
        for side, other in pairs:
            kind = _side_kind(side, other, contains, params)
            if kind is not None:
                found.setdefault(kind[0], set()).add(kind[1])
        if isinstance(op, _ORDER):  # ``p <= 0``, ``0.5 < p``: a number
            for side, other in ((left, right), (right, left)):
                if (name := _param(side, params)) is not None and isinstance(other, ast.Constant) and type(other.value) in (int, float):
                    found.setdefault(name, set()).add(type(other.value).__name__)
        left = right


def _side_kind(side: ast.AST, other: ast.AST, contains: bool, params: set[str]) -> tuple[str, str] | None:
    if (name := _param(side, params)) is not None:
        kind = _literal_kind(other) or (_elements_kind(other) if contains else None)
        return (name, kind) if kind is not None else None
    if not isinstance(side, ast.Subscript) or (name := _param(side.value, params)) is None:
        return None
    if isinstance(side.slice, ast.Slice):
        kind = None if contains else _literal_kind(other)
        return (name, kind) if kind is not None else None
    index = side.slice.operand if isinstance(side.slice, ast.UnaryOp) and isinstance(side.slice.op, ast.USub) else side.slice
    if not (isinstance(index, ast.Constant) and type(index.value) is int):  # ``p[0]``, ``p[-1]``
        return None
    if contains and isinstance(other, ast.Constant) and type(other.value) is str:
        return name, "str"  # ``p[0] in "+-"``
    items = other.elts if contains and isinstance(other, (ast.Tuple, ast.List, ast.Set)) and other.elts else [other] if not contains else []
    one_characters = items and all(isinstance(i, ast.Constant) and type(i.value) is str and len(i.value) == 1 for i in items)
    return (name, "str") if one_characters else None


def _literal_kind(node: ast.AST) -> str | None:
    """``str``/``bytes`` for a literal of that kind."""
    if isinstance(node, ast.JoinedStr):
        return "str"
    if isinstance(node, ast.Constant) and type(node.value) in (str, bytes):
        return type(node.value).__name__
    return None


def _elements_kind(node: ast.AST) -> str | None:
    """The kind of a tuple, list or set of literals all of one kind."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        kinds = {_literal_kind(e) for e in node.elts}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def _settled(kinds: set[str]) -> str | None:
    """One type, or None: ``text`` (a str or bytes method) goes with either, alone it is str."""
    if "text" in kinds and kinds & {"str", "bytes"}:
        kinds = kinds - {"text"}
    if kinds == {"int", "float"}:
        kinds = {"float"}  # compared with 0 and with 0.5
    if len(kinds) != 1:
        return None
    kind = next(iter(kinds))
    return "str" if kind == "text" else kind
