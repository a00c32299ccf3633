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

A call is one the function reaches first (``is_first``) where it is the call a statement
enters first (``f(...)``, ``return f(...)``, ``x = f(...)``, ``if not f(...):``, ``g(f(x))``'s
``f``: ``_statement_call``) and every statement before it on the way is one that can neither
leave the function nor fail: the docstring,
``pass``, ``global``/``nonlocal``, a name bound to a literal, a parameter or an empty container
(``used = set()``, ``out: list[int] = []``), or only annotated (``count: int``); or an ``if``
whose test reads the parameters only (names, attribute chains, builtins, a text's or mapping's
reading methods: ``_test_reads``), kept with the call
(``MadeCall.exits``). The call may stand in such an ``if``'s body (``if mode == "fast": return
_fast(x)``: reached where the test holds) or its ``else``; an ``if`` before it is passed where
its test is false, its body not run whatever it does (``if size < 1: raise ...``; ``if x is None:
x = default``), and an ``assert size`` where it holds. Anything else (a loop, another call, an
attribute read outside a test) may raise or return first, so no later call is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet

from ..model import Argument, CallsMade, MadeCall
from .declarations import SourceText, call_style, dotted_name, function_params
from .syntax import Function, child_nodes, walk

MAX_CALLS = 48  # per function
MAX_ARGUMENT = 160  # characters of one argument's code
_SELF = ("self", "cls")
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def calls_made(defs: Iterable[tuple[str, Function, str | None]], src: SourceText, kinds: Mapping[str, str],
               instances: Mapping[str, str] | None = None) -> tuple[CallsMade, ...]:
    """For each function of ``defs`` (qualname, node, owner class qualname or None; not nested
    ones) that makes a call linking may resolve, those calls; ``kinds``: the names the module
    binds at its top level, each with its kind (def, class, import, var: a variable is called
    by its name alone, as an alias of a class, or through its attributes where ``instances``
    gives the class it is an object of: ``_default_decoder.decode(s)``, ``module_instances``)."""
    bound = {name for name, kind in kinds.items() if kind != "var"}
    aliases = {name for name, kind in kinds.items() if kind == "var"}
    found = []
    for qualname, node, owner in defs:
        calls, is_cut = _calls(node, src, bound, aliases, instances or {}, is_method=owner is not None)
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


def _calls(node: Function, src: SourceText, bound: AbstractSet[str], aliases: AbstractSet[str], instances: Mapping[str, str], *,
           is_method: bool) -> tuple[tuple[MadeCall, ...], bool]:
    params = _param_names(node)
    heads = (set(bound) - params) | (set(_SELF) if is_method else set())
    plain = set(aliases) - params
    typed = _annotated(node, src)
    kept: list[tuple[ast.Call, str, str | None, tuple[str, ...]]] = []
    own: dict[str, bool] = {}  # (a module object's name the function binds itself, asked once per name)
    for call, caught in sorted(_own_calls(node), key=lambda c: (c[0].lineno, c[0].col_offset)):
        callee = dotted_name(call.func)
        if callee is None:
            continue
        head, _, rest = callee.partition(".")
        receiver = typed.get(head) if rest and "." not in rest else None
        if receiver is None and rest and "." not in rest and head in instances and head not in params:
            if head not in own:
                own[head] = _stores(node, head)
            receiver = None if own[head] else instances[head]  # (the module's object of that class: its method runs)
        if head in heads or callee in plain or receiver is not None:
            kept.append((call, callee, receiver, caught))
    firsts = _first_calls(node, bound | aliases) if kept else {}  # (no call linking resolves: no way to walk)
    found: list[MadeCall] = []
    count = 0
    for call, callee, receiver, caught in kept:
        count += 1
        if count <= MAX_CALLS:
            first = firsts.get(id(call))
            found.append(MadeCall(callee=callee, line=call.lineno, arguments=_arguments(call, src) if first is not None else None,
                                  is_first=first is not None, receiver=receiver, exits=first[0] if first is not None else (),
                                  unread=first[1] if first is not None else (), caught=caught))
    return tuple(found), count > MAX_CALLS


def module_instances(assigned: Mapping[str, list[ast.expr | str | None]], kinds: Mapping[str, str]) -> dict[str, str]:
    """The module's variables bound once, to a call of a name it binds as a class or imports
    and that is named as a class (``_default_decoder = JSONDecoder(object_hook=None)``), each
    with that name as written: a call of the variable's method (``json.loads``'
    ``_default_decoder.decode(s)``) runs the class's method, where linking resolves the name to
    a class of the tree. A function's result (``logger = init_logger(__name__)``) is none: its
    calls would only crowd the function's record (``MAX_CALLS``)."""
    found: dict[str, str] = {}
    for name, values in assigned.items():
        value = values[0] if len(values) == 1 and kinds.get(name) == "var" else None
        callee = dotted_name(value.func) if isinstance(value, ast.Call) else None
        if callee is not None and kinds.get(callee.split(".", 1)[0]) in ("class", "import") and len(callee) <= MAX_ARGUMENT \
                and callee.rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
            found[name] = callee
    return found


def _stores(node: Function, name: str) -> bool:
    """Whether the function binds ``name`` itself (a local, or the module's through ``global``)."""
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.Global) and name in n.names
               for n in walk(node))


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


def _own_calls(node: Function) -> Iterable[tuple[ast.Call, tuple[str, ...]]]:
    """The calls in the function's body (its decorators, defaults and annotations run at
    definition), not in nested definitions or lambdas; each with the classes the handlers
    around it catch (MadeCall.caught)."""
    work: list[tuple[ast.AST, tuple[str, ...]]] = [(stmt, ()) for stmt in node.body]
    while work:
        current, caught = work.pop()
        if isinstance(current, ast.Call):
            yield current, caught
        if isinstance(current, _NESTED):
            continue
        if isinstance(current, (ast.Try, ast.TryStar)):
            inner = (*caught, *(name for handler in current.handlers for name in _stops(handler)))
            work.extend((stmt, inner) for stmt in current.body)
            work.extend((child, caught) for child in (*current.handlers, *current.orelse, *current.finalbody))
        else:
            work.extend((child, caught) for child in child_nodes(current))


def _stops(handler: ast.ExceptHandler) -> tuple[str, ...]:
    """The classes (dotted, as written) an ``except`` clause catches and does not raise again
    (none where its body holds ``raise`` or ``raise <its name>``, or hands what it caught to a
    call that may raise it: ``self._abort(error)``); ``BaseException`` for a bare ``except:``;
    none it cannot name (``except errors:`` of a tuple)."""
    nodes = list(walk(handler))
    raising = {id(n.exc) for n in nodes if isinstance(n, ast.Raise)}  # (``raise Other(err)``: a new exception, not this one)
    if any(isinstance(n, ast.Raise) and (n.exc is None or isinstance(n.exc, ast.Name) and n.exc.id == handler.name)
           or handler.name and id(n) not in raising and _hands_on(n, handler.name) for n in nodes):
        return ()
    if handler.type is None:
        return ("BaseException",)
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(name for t in types if (name := dotted_name(t)) is not None)


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


# Calls that never raise the exception they are given: they log it or read its text
_READS_ONLY = frozenset({"str", "repr", "format", "print", "isinstance", "type", "getattr", "hasattr", "len", "logger", "logging",
                         "log", "_logger", "LOGGER", "warnings"})


def _hands_on(node: ast.AST, name: str) -> bool:
    """Whether ``node`` is a call given the caught exception ``name`` as an argument, of a
    function that may raise it (not one of ``_READS_ONLY``, by the callee's first name)."""
    if not isinstance(node, ast.Call) or (dotted_name(node.func) or "").split(".", 1)[0] in _READS_ONLY:
        return False
    return any(isinstance(a, ast.Name) and a.id == name for a in (*node.args, *(k.value for k in node.keywords)))


def _param_names(node: Function) -> set[str]:
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return names


Exit = tuple[str, str, tuple[str, ...]]  # (a test, how it stands on the way: "raise", "return", "skip" or "branch", what it reads)


def _first_calls(node: Function, shadowed: AbstractSet[str]) -> dict[int, tuple[tuple[Exit, ...], tuple[str, ...]]]:
    """The calls of the statements the function surely reaches first on some way (see the
    module's docstring), by id: each with the tests on its way and the parameters (but
    ``self``/``cls``) that nothing before it reads."""
    params = _param_names(node)
    body: list[ast.stmt] = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    found: dict[int, tuple[tuple[Exit, ...], tuple[str, ...]]] = {}
    stored: set[str] = set()
    for n in walk(node):
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                stored.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            stored.update(n.names)
    _walk_to_calls(_Way(params, shadowed, found, stored), body, [], set())
    return found


class _Way:
    """What walking a function's body to its first calls reads and adds to (``_walk_to_calls``)."""

    def __init__(self, params: set[str], shadowed: AbstractSet[str], found: dict[int, tuple[tuple[Exit, ...], tuple[str, ...]]],
                 stored: AbstractSet[str] = frozenset()) -> None:
        self.params = params
        self.tested = params - set(_SELF)  # (what a test may read)
        self.shadowed = shadowed
        # The module's names a test may read too (``GROUP_SIZE``, ``torch.bfloat16``): those the
        # function never binds (``stored``); linking gives their values, or keeps the call unreached.
        self.module = frozenset(shadowed) - params - stored
        self.found = found


def _walk_to_calls(way: _Way, body: Sequence[ast.stmt], exits: list[Exit], read: set[str], depth: int = 0) -> None:
    """Walk ``body`` in order while its statements can only go on, leave under a test of the
    parameters, or branch on one: a call statement ends the way (``way.found``: with the tests
    ``exits`` on it, and the parameters nothing on it reads); an ``if`` whose test reads the
    parameters only is entered ("branch": its call is reached where the test holds), and passed
    where the test is false ("skip": its body then does not run) or where its body leaves
    ("raise", "return")."""
    for stmt in body:
        test = _branch_test(stmt, way.tested, way.module) if depth < _MAX_BRANCHES else None
        if test is None:
            found_exit = _early_exit(stmt, way.tested, way.module) if isinstance(stmt, ast.Assert) else None  # (an ``if`` past the depth)
            call = _statement_call(stmt) if found_exit is None else None
            if call is not None:
                way.found[id(call)] = (tuple(exits), tuple(sorted(way.tested - read)))
                return
            if found_exit is not None:
                exits.append(found_exit)
            elif not _is_harmless(stmt, way.params, way.shadowed):
                return
            read.update(n.id for n in walk(stmt) if isinstance(n, ast.Name))
            continue
        assert isinstance(stmt, ast.If)
        tested = read | {n.id for n in walk(stmt.test) if isinstance(n, ast.Name)}
        _walk_to_calls(way, stmt.body, [*exits, (test[0], "branch", test[1])], set(tested), depth + 1)
        _walk_to_calls(way, stmt.orelse, [*exits, (test[0], "skip", test[1])], set(tested), depth + 1)
        if stmt.orelse:
            return  # (past an if with an else, either block may have run)
        # Past it, its test is false (its body did not run), or its body left: ``if size < 1: raise ...``
        last = stmt.body[-1]
        exits.append((test[0], "raise" if isinstance(last, ast.Raise) else "return" if isinstance(last, ast.Return) else "skip", test[1]))
        read.update(tested)


_MAX_BRANCHES = 4  # ifs nested on the way to a call


def _branch_test(stmt: ast.stmt, params: AbstractSet[str], module: AbstractSet[str] = frozenset()) -> tuple[str, tuple[str, ...]] | None:
    """An ``if``'s test that reads the parameters only (``_test_reads``): its code and what it reads."""
    if not isinstance(stmt, ast.If):
        return None
    reads = _test_reads(stmt.test, params, module)
    code = ast.unparse(stmt.test)
    return (code, reads) if reads is not None and len(code) <= _MAX_EXIT else None


_MAX_EXIT = 200  # characters of an early exit's test


def _early_exit(stmt: ast.Assert, params: AbstractSet[str],
                module: AbstractSet[str] = frozenset()) -> tuple[str, str, tuple[str, ...]] | None:
    """``assert test`` whose test reads only the parameters (``_test_reads``): (the test under
    which control leaves, "raise", what it reads); else None."""
    test = ast.UnaryOp(op=ast.Not(), operand=stmt.test)
    reads = _test_reads(test, params, module)
    code = ast.unparse(test)
    return (code, "raise", reads) if reads is not None and len(code) <= _MAX_EXIT else None


def _test_reads(test: ast.expr, params: AbstractSet[str], module: AbstractSet[str] = frozenset()) -> tuple[str, ...] | None:
    """The parameters' names and attribute chains a test reads (the whole chain: ``p.a.b``, not
    ``p``), where it reads nothing else that is bound (a builtin such as ``len`` or ``isinstance``
    is fine, and so are the ``module``'s names, whose values linking gives) and calls no method
    but one that reads a text or mapping (``_TEST_METHODS``); else None."""
    for node in walk(test):
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS, ast.NamedExpr, ast.Await)):
            return None
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _TEST_BUILTINS) \
                and not (isinstance(node.func, ast.Attribute) and node.func.attr in _TEST_METHODS):
            return None
    reads: list[str] = []
    for chain in read_chains(test):
        root = chain.split(".", 1)[0] if chain is not None else None
        if chain is not None and root in params:
            reads.append(chain)
        elif root not in _TEST_BUILTINS and root not in ("None", "True", "False") and root not in module:
            return None  # (a module name, a local: its value is not the caller's)
    return tuple(sorted(set(reads)))


def read_chains(test: ast.expr) -> Iterator[str | None]:
    """Each name or attribute chain an expression reads, whole (``p.a.b``, not ``p``), a method's
    receiver for its call (``p`` of ``p.get(...)``); None for a chain that is no dotted name
    (``x[0].a``). A called plain name is one too (``len``)."""
    inner = {id(node.value) for node in walk(test) if isinstance(node, ast.Attribute)}  # (a chain's own parts)
    methods = {id(node.func) for node in walk(test) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    for node in walk(test):
        if isinstance(node, (ast.Attribute, ast.Name)) and id(node) not in inner:
            yield dotted_name(node.value if isinstance(node, ast.Attribute) and id(node) in methods else node)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TEST_BUILTINS = frozenset({"len", "isinstance", "int", "float", "str", "bool", "abs", "min", "max", "tuple", "list", "dict", "set",
                            "frozenset", "bytes", "callable", "hasattr"})
# Methods of a text or a mapping that read it only (``mode.lower() == "fast"``, ``options.get("role")``): the evaluator's too
_TEST_METHODS = frozenset({"get", "keys", "lower", "upper", "strip", "startswith", "endswith", "isdigit", "isidentifier"})


def _statement_call(stmt: ast.stmt) -> ast.Call | None:
    """The call a statement enters first (``_entered_first``) in what it evaluates first: an
    expression statement's, ``return``'s or an assignment's value (before its targets), an
    ``if``'s, ``while``'s or ``assert``'s test (``if not _validate(x): return``), a ``for``'s
    iterable, a ``with``'s first item."""
    if isinstance(stmt, (ast.Expr, ast.Return, ast.Assign, ast.AnnAssign)):
        first = stmt.value
    elif isinstance(stmt, (ast.If, ast.While, ast.Assert)):
        first = stmt.test
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        first = stmt.iter
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        first = stmt.items[0].context_expr
    else:
        return None
    return _entered_first(first) if first is not None else None


def _entered_first(node: ast.expr) -> ast.Call | None:
    """The call an expression enters first: one whose callee and arguments call nothing
    (``_check(x)`` of ``not _check(x)``, ``h(x)`` of ``g(h(x), y)``), where all the expression
    evaluates before it are names, constants and attribute chains (``self.scale * _check(x)``),
    which cannot call or fail on the caller's values; None where it enters none so, or
    evaluates anything else first. Only the parts surely evaluated count: an ``and``'s first
    operand, a conditional's test, a comparison's first two operands."""
    if isinstance(node, ast.Call):
        parts = [node.func, *node.args, *(k.value for k in node.keywords)]
        if not any(_calls_something(part) for part in parts):
            return node  # (its arguments may be any code that calls nothing: linking judges them)
    else:
        parts = _evaluated_first(node)
    for part in parts:
        if _calls_something(part):
            return _entered_first(part)
        if not _plain_read(part):
            return None
    return None


def _evaluated_first(node: ast.expr) -> list[ast.expr]:
    """The parts of an expression that Python surely evaluates, in its order (none for a kind
    not modelled: a lambda, a comprehension, an ``await``)."""
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Compare):
        return [node.left, node.comparators[0]]
    if isinstance(node, ast.BoolOp):
        return node.values[:1]
    if isinstance(node, ast.IfExp):
        return [node.test]
    if isinstance(node, (ast.Attribute, ast.Starred)):
        return [node.value]
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    return []


def _calls_something(node: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) for n in walk(node))


def _plain_read(node: ast.expr) -> bool:
    """A name, a constant or an attribute chain on a name (``self.scale``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


_EMPTY = frozenset({"set", "list", "dict", "tuple", "frozenset"})


def _is_harmless(stmt: ast.stmt, params: set[str], shadowed: AbstractSet[str]) -> bool:
    """Whether a statement can neither leave the function nor raise: ``pass``, ``global``, a
    name (not a parameter) bound to a literal, a parameter or an empty container (``set()``,
    where neither the module nor a parameter binds ``set``), annotated or not (``out: list[int]
    = []``: a local's annotation is never evaluated)."""
    if isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal)):
        return True
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in params for t in stmt.targets):
        value: ast.expr | None = stmt.value  # (a parameter rebound no longer holds the caller's value)
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id not in params:
        value = stmt.value
    else:
        return False
    if value is None:
        return True  # (``count: int`` binds nothing)
    is_param = isinstance(value, ast.Name) and value.id in params
    return isinstance(value, ast.Constant) or is_param or _is_empty(value, shadowed | params)


def _is_empty(value: ast.expr, shadowed: AbstractSet[str]) -> bool:
    """``[]``, ``{}``, ``()``, ``set()`` and the like."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY - shadowed and not value.args \
        and not value.keywords
