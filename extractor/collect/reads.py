"""Reads on the way: what a function reads of its parameters before control reaches a raise.

For the raise at a line of a function, which parameters no statement reads before it
(``unread_params``: any value of theirs reaches the raise the same way), which only simple
statements of pure expressions read (``pure_reads``: a value under which each statement's
test holds reaches it the same way), and which are read only as attributes of a name
(``attribute_reads``). The ``if`` statements that leave the function before the raise
(``leaving_ifs``) and those whose false test skips their body (``skipped_ifs``) are read as
control that reaches the raise runs them. Only ``ast`` is read; nothing runs.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Iterator
from typing import TypeGuard

from ..model import RAISES
from .syntax import child_nodes, nodes_of, on_receiver, receiver_name, walk


def pure_reads(function: ast.FunctionDef | ast.AsyncFunctionDef, stack: tuple[ast.AST, ...],
               line: int, end: int | None = None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The parameters read before the raise at ``line`` (to ``end``) (in a function body without loops, ``try`` or
    ``with`` around it) only as part of the value of simple statements of pure expressions
    (``n = len(text)``, ``rows, cols = x.shape``, ``self.size = size``), each with a test per
    statement that is true where it runs without raising (``_pure_statement``): a value under
    which they all hold reaches the raise the same way. Any other read (a test, a call, a
    loop), or one of the locals they bind, leaves the parameter out; so does a store into an
    attribute of ``self`` that the function reads before the raise or in it (its message may
    print it), or that a call after the store may read (a method called on ``self``, ``self``
    passed on, ``super()``)."""
    inner = stack[stack.index(function) + 1:]
    if any(isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)) for n in inner):
        return ()
    names = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    way = _Way(function, end or line)
    leaving = leaving_ifs(function.body, line)
    skipped = skipped_ifs(function, line, names, leaving)
    work: list[ast.AST] = list(function.body)
    while work:
        node = work.pop()
        if getattr(node, "lineno", 0) >= line:
            continue
        if node in leaving:
            work.extend(_on_the_way(node))
        elif isinstance(node, ast.If) and node in skipped:  # (a test that is false where its body reads them: they are not read)
            way.pure.append((set(), {n.id for part in (node.test, *node.body) for n in walk(part) if isinstance(n, ast.Name)},
                             f"not ({ast.unparse(node.test)})"))
            work.extend(node.orelse)
        elif isinstance(node, ast.stmt) and (statement := _pure_statement(node)) is not None:
            way.note_pure(node, *statement)
        else:
            way.note(node)
            work.extend(child_nodes(node))
    return tuple((name, codes) for name in sorted(names - way.other) if (codes := way.codes(name)))


class _Way:
    """What the statements on the way to a raise read (pure_reads): each pure statement's
    targets, the names it reads and its test; the names anything else reads; and, for the
    stores into ``self.a``, where each is and where the object may be read whole after it."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, end: int) -> None:
        self.pure: list[tuple[set[str], set[str], str]] = []  # (targets, names read, test) of each pure statement
        self.other: set[str] = set()  # the names anything else reads (a test, a call, a loop)
        self.stored: dict[str, int] = {}  # ``self.a`` -> the line of its (last) store by a pure statement
        self.escapes: list[int] = []  # the lines where a call may read any attribute of ``self``
        nodes = nodes_of(function)
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
        attributes = [n for n in nodes if _on_self(n) and id(n) not in called]  # (``self.a`` read or stored, not called)
        self.read = {f"self.{n.attr}" for n in attributes if isinstance(n.ctx, ast.Load) and n.lineno <= end}
        self.whole = {id(n.value) for n in attributes}

    def note_pure(self, node: ast.stmt, value: ast.expr, test: str) -> None:
        bound = getattr(node, "targets", [getattr(node, "target", None)])
        targets = {n.id for t in bound if not _on_self(t) for n in walk(t) if isinstance(n, ast.Name)}
        for target in filter(_on_self, bound):
            targets.add(key := f"self.{target.attr}")
            self.stored[key] = max(self.stored.get(key, 0), node.lineno)
        for inner in walk(value):
            self._note_self(inner)
        self.pure.append((targets, {n.id for n in walk(value) if isinstance(n, ast.Name)}, test))

    def note(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name) and type(node.ctx) is not ast.Del:  # (``del unused``: no read of its value)
            self.other.add(node.id)
        self._note_self(node)

    def _note_self(self, node: ast.AST) -> None:
        """A use of ``self`` other than reading one of its attributes (``self.m()``, ``f(self)``), or a ``super()`` call."""
        whole = isinstance(node, ast.Name) and node.id == "self" and id(node) not in self.whole
        if whole or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"):
            self.escapes.append(getattr(node, "lineno", 0))

    def codes(self, name: str) -> tuple[str, ...]:
        """The tests of the pure statements that read the parameter, where nothing else reads
        what it flows into (the locals and attributes of ``self`` pure statements bind from it)."""
        flows, grew = {name}, True
        while grew:
            more = {t for targets, read, _ in self.pure if read & flows for t in targets} - flows
            flows, grew = flows | more, bool(more)
        if flows & self.other or any(t in self.read or any(at >= self.stored[t] for at in self.escapes)
                                     for t in flows if t in self.stored):
            return ()
        return tuple(code for _, read, code in sorted(self.pure, key=lambda p: p[2]) if name in read)


def _on_self(node: ast.AST | None) -> TypeGuard[ast.Attribute]:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _pure_statement(stmt: ast.stmt) -> tuple[ast.expr, str] | None:
    """``x = <pure>`` (``x: T = <pure>``, ``m, k = <pure>``, ``self.a = <pure>``) as its value
    and a test that is true where the statement runs without raising: ``not __raises__(<pure>,
    (Exception,))``, or ``len(tuple(<pure>)) == 2`` for an unpacking; None for another statement."""
    targets: list[ast.expr] = list(stmt.targets) if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    value = getattr(stmt, "value", None) if targets else None
    if value is None or len(targets) != 1 or not all(_is_pure_node(n) for n in walk(value)):
        return None
    target = targets[0]
    if isinstance(target, ast.Name) or _on_self(target):
        return value, f"not {RAISES}({ast.unparse(value)}, (Exception,))"
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return value, f"len(tuple({ast.unparse(value)})) == {len(target.elts)}"
    return None


_PURE_AST = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
             ast.IfExp, ast.Tuple, ast.JoinedStr, ast.FormattedValue, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
             ast.expr_context)
_PURE_CALLS = frozenset({"abs", "bool", "float", "int", "len", "max", "min", "repr", "round", "str", "sum", "tuple", "isinstance"})
_PURE_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "startswith", "endswith", "replace", "count", "find",
                           "isdigit", "isalpha", "isalnum", "isspace"})


def _is_pure_node(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return False
        func = node.func
        return (isinstance(func, ast.Name) and func.id in _PURE_CALLS) or (isinstance(func, ast.Attribute) and func.attr in _PURE_METHODS)
    return isinstance(node, _PURE_AST)


def unread_params(function: ast.FunctionDef | ast.AsyncFunctionDef, stack: tuple[ast.AST, ...], line: int) -> tuple[str, ...]:
    """Parameters no statement reads before the raise: whatever value they have, control
    reaches the raise just the same. Inside a loop a later line of the loop may run first
    (on an earlier turn); what follows the loop cannot."""
    inner = stack[stack.index(function) + 1:]
    loop = next((n for n in inner if isinstance(n, (ast.For, ast.AsyncFor, ast.While))), None)
    loop_end = (loop.end_lineno or line) if loop is not None else line
    names = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    leaving = leaving_ifs(function.body, line)
    work: list[ast.AST] = list(function.body)
    while work and names:
        node = work.pop()
        start = getattr(node, "lineno", 0)
        if start > loop_end or (start == line and isinstance(node, ast.Raise)):
            continue  # the raise itself, or after it (and its loop): cannot run before it
        if isinstance(node, _NESTED):
            names -= free_names(node)
            continue
        if isinstance(node, ast.Name) and type(node.ctx) is not ast.Del:  # (``del unused``: no read of its value)
            names.discard(node.id)
        work.extend(_on_the_way(node) if node in leaving else child_nodes(node))
    return tuple(sorted(names))


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def free_names(definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a nested definition may read of the scope around it: those its decorators,
    defaults and annotations read, and those its body reads that are not its own parameters
    (``def match(prefix): return prefix in layers`` reads ``layers``, not ``prefix``)."""
    args = definition.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
    outer: list[ast.AST] = [*getattr(definition, "decorator_list", []), *args.defaults, *filter(None, args.kw_defaults),
                            *filter(None, [a.annotation for a in every]), *filter(None, [getattr(definition, "returns", None)])]
    body: list[ast.AST] = list(definition.body) if isinstance(definition.body, list) else [definition.body]
    return _names_read(outer) | (_names_read(body) - {a.arg for a in every})


def _names_read(nodes: list[ast.AST]) -> set[str]:
    found: set[str] = set()
    work = list(nodes)
    while work:
        node = work.pop()
        if isinstance(node, _NESTED):
            found |= free_names(node)
        elif isinstance(node, ast.Name) and type(node.ctx) is not ast.Del:
            found.add(node.id)
        else:
            work.extend(child_nodes(node))
    return found


def attribute_reads(function: ast.FunctionDef | ast.AsyncFunctionDef, stack: tuple[ast.AST, ...],
                    raise_node: ast.stmt) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The parameters that the function reads, on the way to the raise and in the raise itself,
    only as attributes of a name (``args.port``, ``getattr(args, "port", None)``), each with those
    names: an object with just those attributes runs the way as the caller's would (an
    ``argparse.Namespace``; only parameters annotated with one are read). A parameter used any
    other way (passed on, called, subscripted, a method called on it) is left out; so are all of
    them inside a loop (a later line of it may run first)."""
    inner = stack[stack.index(function) + 1:]
    # (only a parameter annotated with a namespace is built so: link.constructors._namespace)
    params = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
              if a.arg not in ("self", "cls") and a.annotation is not None and "Namespace" in ast.unparse(a.annotation)}
    if not params or any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for n in inner):
        return ()
    end = raise_node.end_lineno or raise_node.lineno
    read: dict[str, set[str]] = {name: set() for name in params}
    every = nodes_of(function)
    parents = {id(child): node for node in every for child in child_nodes(node)}
    for node in every:
        if not (isinstance(node, ast.Name) and node.id in read and node.lineno <= end) or node is function:
            continue
        name = _attribute_named(node, parents)
        if name is None:
            read.pop(node.id)  # (used some other way)
        else:
            read[node.id].add(name)
    return tuple((param, tuple(sorted(names))) for param, names in sorted(read.items()) if names)


def receiver_calls(function: ast.FunctionDef | ast.AsyncFunctionDef, stack: tuple[ast.AST, ...], raise_node: ast.stmt) -> tuple[str, ...]:
    """The methods a method calls on its receiver before the raise (``self.fill()``,
    ``super().fill()``: by name), and "*" where it passes the receiver on whole (``f(self)``):
    on a line before the raise, or anywhere in a loop around it (a later line may run first).
    () for a function without a receiver."""
    this = receiver_name(function)
    if this is None:
        return ()
    inner = stack[stack.index(function) + 1:]
    loop = next((n for n in inner if isinstance(n, (ast.For, ast.AsyncFor, ast.While))), None)
    end = max(raise_node.lineno, (loop.end_lineno or 0) if loop is not None else 0)
    found: set[str] = set()
    nodes = [n for n in nodes_of(function) if (at := getattr(n, "lineno", 0)) < raise_node.lineno or (loop is not None and at <= end)]
    # (the receiver as a call's argument or a bound value: what receives it may change it; ``return self`` does not)
    handed = {id(value) for n in nodes for value in _handed_values(n)}
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and on_receiver(node.func.value, this):
            found.add(node.func.attr)
        elif isinstance(node, ast.Name) and node.id == this and id(node) in handed:
            found.add("*")
    return tuple(sorted(found))


def _handed_values(node: ast.AST) -> list[ast.AST]:
    """The values ``node`` hands on: a call's arguments, an assignment's value, a container's elements."""
    if isinstance(node, ast.Call):
        return [*(a.value if isinstance(a, ast.Starred) else a for a in node.args), *(k.value for k in node.keywords)]
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
        return [node.value] if node.value is not None else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return list(node.values)
    return []


def _attribute_named(node: ast.Name, parents: dict[int, ast.AST]) -> str | None:
    """The attribute a read of ``node`` names (``node.a``, not called; ``getattr(node, "a"[, d])``), else None."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Attribute) and parent.value is node and isinstance(parent.ctx, ast.Load):
        above = parents.get(id(parent))
        return None if isinstance(above, ast.Call) and above.func is parent else parent.attr
    read = getattr_read(parent) if isinstance(parent, ast.Call) else None
    return read[1] if read is not None and read[0] is node else None


def getattr_read(node: ast.Call) -> tuple[ast.expr, str] | None:
    """``getattr(x, "a")`` or ``getattr(x, "a", d)`` of a name a plain attribute spells: (x, "a"); else None."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "getattr") or node.keywords or not 2 <= len(node.args) <= 3:
        return None
    base, name = node.args[0], node.args[1]
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None
    text = name.value
    if not text.isidentifier() or keyword.iskeyword(text) or (text.startswith("__") and text.endswith("__")):
        return None
    return base, text


def leaving_ifs(body: list[ast.stmt], line: int) -> set[ast.If]:
    """The ``if`` statements before the raise at ``line`` whose body ends by leaving the
    function (``return``, ``raise``), or whose ``else`` holds the raise, reached through ``if``
    statements only (no loop, ``try`` or ``with`` around them that could catch, repeat or
    resume). Where such a body runs, the function leaves before the raise, or takes the other
    branch: control that reaches the raise never ran it, so what it reads is not on the way
    (ssl's ``_dnsname_match`` reads ``hostname`` only in ``if not
    wildcards: return dn.lower() == hostname.lower()``, before the raise for ``dn='**'``)."""
    # (the raise may be in its ``else``; where it is, the body never runs on the way, however it ends:
    # ``if a: x = w13 ... else: raise``)
    return {stmt for stmt, in_body in _ifs_before(body, line)
            if not in_body and (isinstance(stmt.body[-1], (ast.Return, ast.Raise)) or _holds(stmt.orelse, line))}


def _holds(block: list[ast.stmt], line: int) -> bool:
    return bool(block) and block[0].lineno <= line <= (block[-1].end_lineno or line)


def _ifs_before(body: list[ast.stmt], line: int) -> Iterator[tuple[ast.If, bool]]:
    """Each ``if`` statement that starts before ``line``, reached from ``body`` through ``if``
    statements only, and whether its body holds ``line``."""
    work = [stmt for stmt in body if isinstance(stmt, ast.If)]
    while work:
        stmt = work.pop()
        if stmt.lineno > line:
            continue
        work.extend(s for s in (*stmt.body, *stmt.orelse) if isinstance(s, ast.If))
        yield stmt, _holds(stmt.body, line)


def skipped_ifs(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int, params: set[str], leaving: set[ast.If]) -> set[ast.If]:
    """The other ``if`` statements before the raise at ``line``, reached through ``if``
    statements only, whose body does not hold the raise and whose test is a pure expression
    of parameters no statement before it rebinds, not of their attributes or items (``if
    max_len > 1:``, ``if scale is not None:``): where the test is
    false, the body does not run, and what it reads is no read on the way (pure_reads
    records the test, negated, for each parameter the ``if`` reads)."""
    found: set[ast.If] = set()
    bindings: list[tuple[int, str]] | None = None
    for stmt, in_body in _ifs_before(function.body, line):
        # (an attribute or item may be stored, or a method may change it, on the way: names only)
        if in_body or stmt in leaving or not all(_is_pure_node(n) and not isinstance(n, (ast.Attribute, ast.Subscript))
                                                 for n in walk(stmt.test)):
            continue
        read = {n.id for n in walk(stmt.test) if isinstance(n, ast.Name)}
        if not read or not read <= params | _PURE_CALLS:
            continue
        bindings = _bindings(function) if bindings is None else bindings
        if not any(name in read for at, name in bindings if at < stmt.lineno):
            found.add(stmt)
    return found


def _bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[int, str]]:
    """``(line, name)`` of each name a statement of the function binds or deletes (nested scopes too)."""
    found = []
    for node in walk(function):
        if isinstance(node, ast.Name) and type(node.ctx) is not ast.Load:
            found.append((node.lineno, node.id))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not function:
            found.append((node.lineno, node.name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend((node.lineno, (a.asname or a.name).split(".")[0]) for a in node.names)
    return found


def _on_the_way(stmt: ast.If) -> list[ast.AST]:
    """What of a leaving ``if`` (leaving_ifs) runs on the way to the raise: its test and its ``else``."""
    return [stmt.test, *stmt.orelse]
