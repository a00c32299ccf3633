"""Callers in the same file: where a function that holds a raise is called from.

A raise in a private helper (``BaseEventLoop._check_closed``) is reached through the
functions that call it (``call_soon``, ``run_forever``): the card names them. Found without
walking every expression of the file: one regular expression finds the candidate calls in
the text (``self.name(`` or ``cls.name(`` for a method, ``name(`` for a module-level
function), and each candidate is confirmed on the ``ast`` of the definition around it, so a
name in a comment or a string is never taken for a call. A method counts as called only
through ``self`` or ``cls`` in a method of its own class; a function only by its plain name
(an alias, ``functools.partial`` or a call from another module is not seen).
"""

from __future__ import annotations

import ast
import bisect
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from ..model import Argument, Call, CallSite, FunctionCalls, Handler, HandlerOutcome
from .declarations import dotted_name
from .noreturn import EXIT, NoReturns
from .syntax import Function, walk
from .units import DEFS, SCOPES

MAX_CALLERS = 24  # per function: the card shows a few, and how many in all
MAX_CALLS = 64  # per function, with their handlers: past it, no claim that every call catches
MAX_LAST = 100  # characters of a handler's last statement kept
MAX_LEVELS = 3  # the functions that hold a raise, their private callers, and theirs


def in_file_callers(text: str, tree: ast.Module, defs: Sequence[tuple[str, Function]],
                    wanted: Iterable[tuple[str, str | None]]) -> tuple[tuple[str, tuple[CallSite, ...]], ...]:
    """For each ``(function qualname, owner class qualname or None)`` of ``wanted`` (a direct
    method of the owner, or a module-level function), the definitions of the file that call
    it (None: module-level code), each with the line of its first call, by line."""
    found: dict[str, dict[str | None, int]] = {}
    for target, calls in _find_calls(text, tree, defs, wanted).items():
        for caller, line, _, _ in calls:
            if caller != target and len(callers := found.setdefault(target, {})) < MAX_CALLERS:
                callers.setdefault(caller, line)
    return tuple((target, tuple(CallSite(function=caller, line=line)
                                for caller, line in sorted(callers.items(), key=lambda item: (item[1], item[0] or ""))))
                 for target, callers in sorted(found.items()) if callers)


def in_file_calls(text: str, tree: ast.Module, defs: Sequence[tuple[str, Function]], classes: Iterable[str],
                  wanted: Iterable[tuple[str, str | None]]) -> tuple[FunctionCalls, ...]:
    """Every call of each function of ``wanted`` (as ``in_file_callers`` finds them), with the
    ``except`` clauses around it; then the same for their private callers (whose callers may
    catch what passes through them), up to ``MAX_LEVELS`` levels up."""
    owners = set(classes)
    nodes = dict(defs)
    never = NoReturns(tree, defs, owners)
    lines = text.split("\n")  # (ast numbers lines at \n; a \r before it is stripped)
    words = Counter(re.findall(r"\w+", text))  # each name's whole-word mentions, counted in one pass
    done: dict[str, FunctionCalls] = {}
    level = sorted(set(wanted), key=str)
    for _ in range(MAX_LEVELS):
        found = _find_calls(text, tree, defs, level)
        upward: set[tuple[str, str | None]] = set()
        for target, _owner in level:
            calls = [c for c in found.get(target, ()) if c[0] != target]  # (a recursive call: the error is on its way already)
            mentions = words[target.rsplit(".", 1)[-1]]
            node = nodes.get(target)
            done[target] = FunctionCalls(
                function=target, calls=tuple(Call(caller=caller, line=line, handlers=_handlers(scope, line, lines, caller, never),
                                                  arguments=call_arguments(node), surely=_surely_run(scope, node))
                                             for caller, line, scope, node in calls[:MAX_CALLS]),
                is_complete=len(calls) <= MAX_CALLS and mentions == 1 + len(found.get(target, ())),
                is_decorated=node is not None and any(_registers(d) for d in node.decorator_list),
            )
            for caller, _, _, _ in calls[:MAX_CALLS]:
                if caller is not None and caller not in done and _is_private(caller):
                    head = caller.rpartition(".")[0]
                    upward.add((caller, head if head in owners else None))
        level = sorted(upward, key=str)
        if not level:
            break
    return tuple(done[target] for target in sorted(done))


def _find_calls(text: str, tree: ast.Module, defs: Sequence[tuple[str, Function]],
                wanted: Iterable[tuple[str, str | None]]) -> dict[str, list[tuple[str | None, int, ast.AST, ast.Call]]]:
    """Each function of ``wanted`` -> its calls confirmed on the ``ast``, in text order: the
    qualname of the definition holding the call (None: module-level code), the call's line,
    that definition's node (or the module-level statement), and the call (the first of the line)."""
    methods: dict[str, list[tuple[str, str]]] = {}
    functions: dict[str, str] = {}
    for qualname, owner in wanted:
        head, _, name = qualname.rpartition(".")
        if owner is not None and head == owner:
            methods.setdefault(name, []).append((qualname, owner))
        elif owner is None and not head:
            functions[name] = qualname
    if not methods and not functions:
        return {}
    alternatives = []
    if methods:
        alternatives.append(rf"(?<![\w.])(?:self|cls)\s*\.\s*(?P<method>{'|'.join(map(re.escape, sorted(methods)))})\s*\(")
    if functions:
        alternatives.append(rf"(?<![\w.])(?P<function>{'|'.join(map(re.escape, sorted(functions)))})\s*\(")
    defs = sorted(defs, key=lambda d: d[1].lineno)
    starts = [d.lineno for _, d in defs]
    confirmed: dict[int, dict[tuple[int, str], ast.Call]] = {}  # id of a definition (or statement) -> its (line, called name) -> call
    found: dict[str, list[tuple[str | None, int, ast.AST, ast.Call]]] = {}
    line, offset = 1, 0
    for match in re.finditer("|".join(alternatives), text):
        line += text.count("\n", offset, match.start())
        offset = match.start()
        method = match.groupdict().get("method")
        name = method or match.group("function")
        caller, scope = _enclosing(defs, starts, tree, line)
        if scope is None or (node := _calls(scope, confirmed).get((line, name))) is None:
            continue
        targets = [q for q, owner in methods.get(name, ()) if caller is not None and caller.startswith(owner + ".")] \
            if method else [functions[name]]
        for target in targets:
            found.setdefault(target, []).append((caller, line, scope, node))
    return found


def _is_private(qualname: str) -> bool:
    name = qualname.rsplit(".", 1)[-1]
    return name.startswith("_") and not name.endswith("__")


_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "cache", "lru_cache", "cached_property", "property", "wraps",
                               "abstractmethod", "override", "overload"})


def _registers(decorator: ast.expr) -> bool:
    """Whether a decorator may hand the function to code that calls it elsewhere (anything but
    the method kinds, caches and the like)."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name not in _PLAIN_DECORATORS


def _handlers(scope: ast.AST, line: int, lines: list[str], caller: str | None, never: NoReturns) -> tuple[Handler, ...]:
    """The ``except`` clauses of the try statements of ``scope`` (not of definitions nested
    in it) whose body holds ``line``, innermost try first, each try's clauses in order."""
    tries: list[ast.Try | ast.TryStar] = []
    todo: list[ast.AST] = list(scope.body) if isinstance(scope, DEFS) else [scope]
    while todo:
        node = todo.pop()
        if isinstance(node, SCOPES) or not isinstance(node, ast.stmt) or not node.lineno <= line <= (node.end_lineno or 0):
            continue
        if isinstance(node, (ast.Try, ast.TryStar)) and node.body[0].lineno <= line <= (node.body[-1].end_lineno or 0):
            tries.append(node)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                todo.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])
    tries.sort(key=lambda t: -t.body[0].lineno)
    return tuple(_handler(h, lines, scope, caller, never) for t in tries for h in t.handlers)


def _handler(handler: ast.ExceptHandler, lines: list[str], scope: ast.AST, caller: str | None, never: NoReturns) -> Handler:
    kind = handler.type
    catches = ("BaseException",) if kind is None else tuple(ast.unparse(e) for e in kind.elts) if isinstance(kind, ast.Tuple) \
        else (ast.unparse(kind),)
    outcome, raises, shown = _outcome(handler, scope, caller, never)
    shown_text = _one_line(shown, lines) if shown is not None else None
    carries = False
    if outcome in (HandlerOutcome.RAISE_OTHER, HandlerOutcome.NO_RETURN, HandlerOutcome.EXITS):
        last = handler.body[-1]  # (a raise's exception, not its cause: what its message can hold)
        read = last.exc if isinstance(last, ast.Raise) and last.exc is not None else last
        carries = _reads(read, {handler.name} if handler.name else set())
    elif outcome == HandlerOutcome.KEEPS:
        carries = True
    call = handler.body[-1].value if isinstance(handler.body[-1], (ast.Expr, ast.Return)) else None
    ends_in_call = outcome in (HandlerOutcome.FALLBACK, HandlerOutcome.NO_RETURN) and isinstance(call, ast.Call)
    calls = dotted_name(call.func) if ends_in_call and isinstance(call, ast.Call) else None
    surfaces = outcome in _SURFACING or any(isinstance(s, ast.Raise) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                                                                        and never.of_call(s.value, caller) is not None)
                                            for s in _statements(handler.body))
    return Handler(line=handler.lineno, catches=catches, outcome=outcome, raises=raises, last=shown_text, carries=carries,
                   surfaces=surfaces, calls=calls)


_SURFACING = frozenset({HandlerOutcome.RAISE_OTHER, HandlerOutcome.NO_RETURN, HandlerOutcome.EXITS, HandlerOutcome.KEEPS})


def _one_line(node: ast.stmt, lines: list[str]) -> str:
    """The statement's text joined on one line (its lines stripped; no space inside brackets
    and no trailing comma where a line opened or closed one), cut to ``MAX_LAST``; a compound
    statement's first line only."""
    if hasattr(node, "body"):  # (a compound statement: its first line, then ``...``)
        first = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
        return _cut(first + " ..." if (node.end_lineno or node.lineno) > node.lineno else first)
    end = min(node.end_lineno or node.lineno, len(lines))
    text = ""
    for part in (lines[i].strip() for i in range(node.lineno - 1, end)):
        if not part or part.startswith("#"):
            continue
        if part[0] in ")]}":
            text = text.removesuffix(",")
        text += part if not text or text[-1] in "([{" or part[0] in ")]}" else " " + part
    return _cut(text)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LAST else text[:MAX_LAST - 3] + "..."


def _outcome(handler: ast.ExceptHandler, scope: ast.AST, caller: str | None,
             never: NoReturns) -> tuple[HandlerOutcome, str | None, ast.stmt | None]:
    """What the clause does instead, with what it raises and the statement to show: any ``raise``
    of what it caught makes it a re-raise (the error may still pass); else what its last
    statement does (a call that never returns included); else whether it keeps the error for
    a later raise of the function."""
    for node in _statements(handler.body):
        if isinstance(node, ast.Raise) and (node.exc is None or (isinstance(node.exc, ast.Name) and node.exc.id == handler.name)):
            return HandlerOutcome.RERAISE, None, None
    last = handler.body[-1]
    if isinstance(last, ast.Raise) and last.exc is not None:
        made = last.exc.func if isinstance(last.exc, ast.Call) else last.exc
        return HandlerOutcome.RAISE_OTHER, ast.unparse(made), last
    call = last.value if isinstance(last, (ast.Expr, ast.Return)) else None
    ending = never.of_call(call, caller) if isinstance(call, ast.Call) else None
    if ending is not None:
        return (HandlerOutcome.EXITS if ending == EXIT else HandlerOutcome.NO_RETURN), None, last
    simple = {ast.Return: HandlerOutcome.RETURN, ast.Continue: HandlerOutcome.CONTINUE, ast.Break: HandlerOutcome.BREAK}
    if type(last) in simple:
        return simple[type(last)], None, last if isinstance(last, ast.Return) else None
    if all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in handler.body):
        return HandlerOutcome.IGNORE, None, None
    kept = _keeps(handler, scope)
    if kept is not None:
        return HandlerOutcome.KEEPS, None, kept
    return HandlerOutcome.FALLBACK, None, last


def _keeps(handler: ast.ExceptHandler, scope: ast.AST) -> ast.stmt | None:
    """The assignment of the handler that stores the caught error in a variable a raise of the
    function (outside the handler) reads, in its exception or its cause, directly or through a
    name assigned from it (``msg = f"failed: {error}"``); None where there is none."""
    if not handler.name:
        return None
    stores = [s for s in _statements(handler.body) if isinstance(s, ast.Assign) and _reads(s.value, {handler.name})]
    if not stores:
        return None
    inside = {id(s) for s in _statements(handler.body)}
    body: list[ast.stmt] = list(scope.body) if isinstance(scope, DEFS) else [scope] if isinstance(scope, ast.stmt) else []
    others = [s for s in _statements(body) if id(s) not in inside]
    for store in stores:
        names = {t.id for t in store.targets if isinstance(t, ast.Name)}
        names |= {t.id for s in others if isinstance(s, ast.Assign) and _reads(s.value, names)
                  for t in s.targets if isinstance(t, ast.Name)}
        if names and any(isinstance(s, ast.Raise) and _reads(s, names) for s in others):
            return store
    return None


def _reads(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` reads one of ``names``."""
    return bool(names) and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a block and of the blocks inside it, not of nested definitions."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, SCOPES):
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                todo.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])


def _enclosing(defs: Sequence[tuple[str, Function]], starts: list[int], tree: ast.Module, line: int) -> tuple[str | None, ast.stmt | None]:
    """The innermost definition whose body holds ``line`` (its qualname and node), else the
    top-level statement that does (None and the statement)."""
    index = bisect.bisect_right(starts, line) - 1
    while index >= 0:
        qualname, node = defs[index]
        body = node.body
        if body[0].lineno <= line <= (node.end_lineno or 0):  # (not its decorators, defaults or annotations)
            return qualname, node
        index -= 1
    statements = tree.body
    at = bisect.bisect_right([s.lineno for s in statements], line) - 1
    if at >= 0 and line <= (statements[at].end_lineno or 0):
        return None, statements[at]
    return None, None


def _calls(scope: ast.AST, confirmed: dict[int, dict[tuple[int, str], ast.Call]]) -> dict[tuple[int, str], ast.Call]:
    """The calls of ``self.name``/``cls.name`` and of plain names in a definition or statement,
    by line and name, each the first of its line (those of nested definitions too: the
    innermost one is found first)."""
    key = id(scope)
    if key not in confirmed:
        calls: dict[tuple[int, str], ast.Call] = {}
        for node in walk(scope):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                    at = (func.value.lineno, func.attr)
                elif isinstance(func, ast.Name):
                    at = (func.lineno, func.id)
                else:
                    continue
                if at not in calls or node.col_offset < calls[at].col_offset:
                    calls[at] = node
        confirmed[key] = calls
    return confirmed[key]


def _surely_run(scope: ast.AST, call: ast.Call) -> bool:
    """Whether the call is a whole statement, or a whole assigned value, directly in the body of
    its definition (``scope``): anything later in that definition runs after it."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) and stmt.value is call for stmt in scope.body)


MAX_ARGUMENT = 200  # characters of one argument's code kept with a call


def call_arguments(call: ast.Call) -> tuple[Argument, ...] | None:
    """The call's arguments as code (keyword None: positional), in order; None where one is
    starred or longer than MAX_ARGUMENT."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    found = [Argument(code=ast.unparse(value), keyword=keyword)
             for keyword, value in [*((None, a) for a in call.args), *((k.arg, k.value) for k in call.keywords)]]
    return tuple(found) if all(len(a.code) <= MAX_ARGUMENT for a in found) else None

