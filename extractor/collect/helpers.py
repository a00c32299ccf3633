"""Raising helpers, the ``ast`` half: one file's definitions and call statements -> the
functions every path through which raises (``Helper``), and the call statements that may
call one (``HelperCall``; each is also analysed as a site, kind helper_call).

``def fail(self, message): raise BadParameter(message)`` is where a library raises, and each
``self.fail(f"{value!r} is not a valid integer.")`` is where its message is written. A
function is a helper when every path through its body ends at one statement, its tail: its
only raise, or a call statement that may be of another helper (``def _fail(msg):
fail(msg)``; link.helpers follows it). What the file alone cannot say (whether an inherited
``self.fail`` or an imported ``fail`` is a helper) is decided by linking: the call
statements recorded here are those whose callee may be one, judged by name:

- ``self.name(...)``/``cls.name(...)``: a method of the file that may be a helper, or, where the
  call ends a branch (an ``if``, ``else``, ``except`` or ``case`` block), a name no class of the
  file defines as a method (it may be inherited from another file's class);
- ``name(...)``: a module-level function of the file that may be a helper, or a name a
  module-level ``from ... import`` binds from the project's own package (relative, or under the
  same top-level package).

Only call statements (``f(...)`` alone, or ``return f(...)``) inside a function count: a helper
raises, so its result is never used. A function is not a helper when it is a generator or a
coroutine, is decorated (but for ``staticmethod``/``classmethod``), is abstract, is nested in
another function, or ends at ``raise NotImplementedError``: a stub that subclasses override.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .declarations import dotted_name
from .scope import EXIT_CALLS
from .syntax import Function, child_nodes
from .units import COMPOUND, SCOPES, children

_SELF = ("self", "cls")
_KEPT_DECORATORS = frozenset({"staticmethod", "classmethod"})
_NO_RETURN = frozenset({"NoReturn", "Never"})


@dataclass(frozen=True, slots=True)
class HelperDef:
    """A function of the file that may be a raising helper: its definition and tail statement."""

    qualname: str
    owner: str | None  # the class whose direct method it is
    node: Function
    tail: ast.stmt
    annotated: bool


def call_of(stmt: ast.stmt) -> ast.Call | None:
    """The call a call statement makes (``f(...)`` or ``return f(...)``), else None."""
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Return)) else None
    return value if isinstance(value, ast.Call) else None


def callee_of(stmt: ast.stmt) -> str | None:
    """A call statement's callee as a dotted name (``self.fail``), else None."""
    call = call_of(stmt)
    return dotted_name(call.func) if call is not None else None


def is_annotated_no_return(node: Function) -> bool:
    """Whether the function's return annotation is ``NoReturn``/``Never`` (``t.NoReturn``, quoted)."""
    if node.returns is None:
        return False
    returns = node.returns
    if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
        name = returns.value.strip().rsplit(".", 1)[-1]
    else:
        name = (dotted_name(returns) or "").rsplit(".", 1)[-1]
    return name in _NO_RETURN


def helper_defs(defs: Iterable[tuple[str, Function, str | None]]) -> list[HelperDef]:
    """The functions (qualname, node, owner class qualname or None for a module-level one)
    whose every path ends at one tail statement; nested functions are not given."""
    found = []
    for qualname, node, owner in defs:
        if isinstance(node, ast.AsyncFunctionDef) or not _plain_decorators(node):
            continue
        tail = _tail(node)
        if tail is not None:
            found.append(HelperDef(qualname=qualname, owner=owner, node=node, tail=tail, annotated=is_annotated_no_return(node)))
    return found


def _plain_decorators(node: Function) -> bool:
    return all(isinstance(d, ast.Name) and d.id in _KEPT_DECORATORS for d in node.decorator_list)


def _tail(node: Function) -> ast.stmt | None:
    """The one statement every path through the function ends at (a raise, or a call statement
    last in its block), where its body holds no other raise, no return of a value other than
    such a call, no yield and no exit call."""
    ends = _ends(node.body)
    if ends is None or len(ends) != 1:
        return None
    tail = ends[0]
    raises = [s for s in _own_statements(node.body) if isinstance(s, ast.Raise)]
    if len(raises) > 1 or (raises and tail is not raises[0]):
        return None
    if isinstance(tail, ast.Raise) and (tail.exc is None or _raised_name(tail.exc) in ("NotImplementedError", "NotImplemented")):
        return None  # a bare re-raise; a stub
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_nodes(node.body)):
        return None  # a generator or coroutine: a call runs nothing yet
    return tail


def _raised_name(exc: ast.expr) -> str:
    target = exc.func if isinstance(exc, ast.Call) else exc
    return (dotted_name(target) or "").rsplit(".", 1)[-1]


def _ends(body: Sequence[ast.stmt]) -> list[ast.stmt] | None:
    """The statements every path through ``body`` ends at (a raise, or a call statement last
    in its block, which may call a helper); None where some path leaves otherwise or runs on."""
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Raise):
            return [stmt]
        if (call := call_of(stmt)) is not None and (index == len(body) - 1 or isinstance(stmt, ast.Return)):
            return None if (dotted_name(call.func) or "") in EXIT_CALLS else [stmt]
        if isinstance(stmt, ast.If) and stmt.orelse:
            first, other = _ends(stmt.body), _ends(stmt.orelse)
            if first is not None and other is not None:
                return first + other
        if _may_leave(stmt):
            return None
    return None


def _may_leave(stmt: ast.stmt) -> bool:
    """Whether a statement may end the function otherwise than by raising: a ``return``, or
    a call of an exit function, anywhere in it (not in nested definitions)."""
    for node in _own_statements([stmt]):
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and dotted_name(node.value.func) in EXIT_CALLS:
            return True
    return False


def _own_statements(stmts: Sequence[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement among and inside ``stmts``, not inside nested definitions."""
    work = list(stmts)
    while work:
        stmt = work.pop()
        yield stmt
        if isinstance(stmt, COMPOUND) and not isinstance(stmt, SCOPES):
            work.extend(children(stmt))


def _own_nodes(stmts: Sequence[ast.stmt]) -> Iterable[ast.AST]:
    """Every node of the statements, not inside nested definitions or lambdas."""
    work: list[ast.AST] = list(stmts)
    while work:
        node = work.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            work.extend(child_nodes(node))


@dataclass(frozen=True, slots=True)
class Callees:
    """The callees whose call statements the libcst pass reads as possible helper calls: every
    call of ``anywhere``; a call of ``in_branch`` only where it ends a branch (``if``, ``else``,
    ``except``, ``case``: ``is_branch_end``), which is where code calls a helper it inherits
    (a test's hundreds of ``self.assertEqual(...)`` calls are not read)."""

    anywhere: frozenset[str] = frozenset()
    in_branch: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.anywhere or self.in_branch)


def is_branch_end(stmt: ast.stmt, parent: ast.stmt | None) -> bool:
    """Whether ``stmt`` is the last statement of a branch of ``parent``: its ``if`` or ``else``
    block, one of its ``except`` blocks, one of its ``case`` blocks."""
    if isinstance(parent, ast.If):
        return parent.body[-1] is stmt or bool(parent.orelse) and parent.orelse[-1] is stmt
    if isinstance(parent, (ast.Try, ast.TryStar)):
        return any(h.body[-1] is stmt for h in parent.handlers)
    if isinstance(parent, ast.Match):
        return any(c.body[-1] is stmt for c in parent.cases)
    return False


def candidate_callees(calls: Sequence[tuple[str, bool]], helpers: Sequence[HelperDef], methods: set[str], has_bases: bool,
                      imported: Iterable[str]) -> tuple[Callees, list[HelperDef]]:
    """The callees of ``calls`` (the file's call statements in functions: callee, whether it ends
    a branch) that may be raising helpers (see the module's docstring), and the helpers of
    ``helpers`` that may be ones: those ending at a raise, and those ending at a call of such a
    callee. ``methods``: every method name the file's classes define; ``has_bases``: whether some
    class of the file derives from another class; ``imported``: the names module-level imports
    bind from the project's own package."""
    chosen = [h for h in helpers if isinstance(h.tail, ast.Raise)]
    while True:
        found = _callees(calls, chosen, methods, has_bases, set(imported))
        more = [h for h in helpers if h not in chosen and callee_of(h.tail) in found.anywhere]
        if not more:
            return found, chosen
        chosen.extend(more)


def _callees(calls: Sequence[tuple[str, bool]], helpers: Sequence[HelperDef], methods: set[str], has_bases: bool,
             imported: set[str]) -> Callees:
    own_methods = {h.qualname.rsplit(".", 1)[-1] for h in helpers if h.owner is not None}
    plain = {h.qualname for h in helpers if h.owner is None} | imported
    anywhere, in_branch = set(), set()
    for callee, branch_end in calls:
        if not callee.isascii():
            continue  # (``ast`` gives names NFKC-normalized, libcst as written: the two passes must agree)
        head, _, rest = callee.partition(".")
        if head in _SELF and rest and "." not in rest:
            if rest in own_methods:
                anywhere.add(callee)
            elif has_bases and rest not in methods and branch_end:
                in_branch.add(callee)
        elif not rest and head in plain:
            anywhere.add(callee)
    return Callees(anywhere=frozenset(anywhere), in_branch=frozenset(in_branch - anywhere))


def own_package_imports(imports: Iterable[tuple[str, str]], module: str) -> list[str]:
    """The local names of ``imports`` (``(local, dotted target)`` of the module-level imports)
    bound to a name under the module's own top-level package (relative imports among them)."""
    top = module.split(".", 1)[0]
    # (a capitalized name is a class: calling it builds an object, it is no helper)
    return [local for local, target in imports if "." in target and target.split(".", 1)[0] == top and not local[:1].isupper()]
