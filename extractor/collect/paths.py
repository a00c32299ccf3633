"""Paths: the chain of libcst nodes from a function to one raise -> Guard.

``extract_guard`` walks the chain top-down. At each block it adds the fall-through
condition of every earlier sibling statement (``fallthrough``), at each branch the test
that selects it, and it records loops and handlers as context.

What the path evaluates (``evaluated_values``): the statements before the raise -> the
values they compute, in the guard's names. A statement on the way that fails keeps control
from every raise after it: with ``remove = ''``, ``remove_formatted =
f"{remove[0]}.{remove[1]}"`` raises IndexError before the test that the trigger was solved
for is even read. The values kept here are the simple statements' (an assignment to names,
an expression statement) made of pure expressions only (names, literals, operators, pure
builtins and text methods: ``scope.is_pure``), the ones the restricted evaluator computes;
the raise's own arguments join them (cstpass), and solve holds a trigger under which one of
them fails to be no trigger (triggers). Also the expressions a short try body evaluates
(``body_values``), whose raising the guard models for the body's handlers; an absolute
import of one module stands as ``importlib.util.find_spec(module)``, which is None where it
is not installed.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from ..model import RAISES, And, Compare, Context, ContextKind, Guard, GuardNode, GuardPart, Opaque, PartRole, Reason, Truthy
from .attributes import waits
from .byname import by_name
from .declarations import LOOP_WRAPPERS
from .exits import catching, handler_types, may_exit, only_leaves
from .expressions import TAG, ExprModel, resolve, untagged
from .guards import (
    FALSE,
    MAX_FUNCTION_GUARD_NODES,
    MAX_GUARD_CHARS,
    MAX_GUARD_NODES,
    TRUE,
    ConditionModel,
    atoms_of,
    conj,
    disj,
    guard_size,
    map_atoms,
    negate,
    render_guard,
)
from .reaching import unpacked_length
from .scope import EXIT_CALLS, Scope, dotted, is_pure, raw_code, strip_parens
from .units import MAX_TRY_BODY

_BLOCKS = (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)
_TERMINATORS = (cst.Raise, cst.Return, cst.Continue, cst.Break)
_CATCH_MISSING_MODULE = frozenset({"ModuleNotFoundError", "ImportError", "Exception", "BaseException"})


class PathModel:
    """Fall-through and branch conditions for the statements of one function.

    One model serves every raise of the function: each statement's fall-through and each
    test is modelled once (a function of n checks in a row would otherwise cost n^2),
    and replays the approximations it made for every raise whose path passes it."""

    def __init__(self, scope: Scope) -> None:
        self.spent_nodes = 0  # guard nodes of the function's raises so far (MAX_FUNCTION_GUARD_NODES)
        self.exprs = ExprModel(scope)
        self.name = scope.function.name.value if isinstance(scope.function, cst.FunctionDef) else None
        self.conditions = ConditionModel(self.exprs)
        self.approximations: dict[str, None] = {}
        # Keyed by node identity: the nodes live as long as the unit's tree, as does the model.
        self._fallthrough: dict[int, tuple[GuardNode, tuple[str, ...]]] = {}
        self._tests: dict[int, GuardNode] = {}
        self._modelled_handlers: set[int] = set()  # handlers whose try body's raising is in the guard
        self.loops: list[tuple[str, str]] = []  # (targets "x" or "k, v", iterable input) of the loops the current raise is in
        self.evaluates: list[str] = []  # values the statements before the current raise compute (evaluated_values)
        self.evaluated: dict[int, tuple[str, ...]] = {}  # per statement
        self.unmodelled = False  # a statement before the current raise that may fail in ways nothing models (plain_statement)
        self._plain: dict[int, bool] = {}  # per statement

    def loop_element(self, loop: cst.For) -> tuple[str, str] | None:
        """``(x, xs)`` for ``for x in xs`` where ``xs`` is an input (a parameter or an attribute
        of one) and ``x`` a name bound by this loop alone: the raise is then reached on a list
        of one element ``x``, nothing else of the loop in the way. None for any other loop."""
        if loop.asynchronous is not None:
            return None
        targets = _targets(loop)
        source = _iterated(loop.iter)
        iterable = dotted(source) if source is not None else None
        scope = self.exprs.scope
        if targets is None or source is None or iterable is None or scope.classify(iterable.split(".", 1)[0]) != "input" \
                or any(t in scope.params for t in targets):
            return None
        if raw_code(self.exprs.inline_at(source, loop)) != iterable:
            return None  # rebound before the loop: no longer the argument
        if source is not loop.iter:
            iterable = raw_code(loop.iter)  # a pure form over the input (solve.elements)
        if any(len(scope.bindings.get(t, ())) != 1 for t in targets):
            return None  # bound elsewhere too: at the raise it may not be the element
        return ", ".join(targets), iterable

    def is_plain(self, stmt: cst.CSTNode) -> bool:
        """``plain_statement(stmt)``, decided once per statement (the function's raises share it)."""
        found = self._plain.get(id(stmt))
        if found is None:
            found = self._plain[id(stmt)] = plain_statement(stmt)
        return found

    # --- how control enters an except handler --------------------------------------
    def handler_reached(self, stmt: cst.Try | cst.TryStar, handler: cst.ExceptHandler) -> GuardNode | None:
        """The condition under which ``handler`` runs, where the try body is a few statements
        each evaluating one expression: for some statement, every earlier one completes
        (``not __raises__(E, (BaseException,))``) and it raises one of the handler's classes
        and none of an earlier handler's. None where the body is anything else."""
        values = body_values(stmt.body)
        if values is None or isinstance(stmt, cst.TryStar):
            return None
        return self._reached(stmt, handler, values)

    def _reached(self, stmt: cst.Try, handler: cst.ExceptHandler, values: list[tuple[cst.BaseExpression, cst.CSTNode]]) -> GuardNode:
        """``handler_reached`` for a try body evaluating ``values`` (``body_values``)."""
        alternatives: list[GuardNode] = []
        for index, (value, at) in enumerate(values):
            items = [self._calm(*earlier_value) for earlier_value in values[:index]]
            for earlier in stmt.handlers:
                test = self.raises(value, at, earlier)
                if earlier is handler:
                    items.append(test)
                    break
                items.append(negate(test))
            alternatives.append(conj(items))
        return disj(alternatives)

    def _calm(self, value: cst.BaseExpression, at: cst.CSTNode) -> GuardNode:
        """``value``, read at statement ``at``, evaluates without raising."""
        return negate(self.raises(value, at, None))

    def raises(self, value: cst.BaseExpression, at: cst.CSTNode, handler: cst.ExceptHandler | None) -> GuardNode:
        """Statement ``at`` (evaluating ``value``) raises what ``handler`` catches (None: anything).
        An import of a module raises ModuleNotFoundError where it is not installed
        (``importlib.util.find_spec("h2") is None``): the environment decides, which an
        ``except ImportError`` around ``import h2`` exists for. A handler of other classes
        catches what the module's own code raises while it is imported (torchcodec raises
        RuntimeError where ffmpeg is missing): not modelled, like any other call's."""
        with self.exprs.located(at):
            module = imported_module(at)
            if module is None:
                return Truthy(expr=self.exprs.atom(_raises_call(value, handler)))
            if handler is not None and not set(handler_types(handler)) & _CATCH_MISSING_MODULE:
                imported = cst.parse_expression(f"importlib.import_module({module!r})")  # (what the statement runs)
                return Truthy(expr=self.exprs.atom(_raises_call(imported, handler)))
            return self.conditions.condition(cst.Comparison(left=value, comparisons=[cst.ComparisonTarget(cst.Is(), cst.Name("None"))]))

    def test(self, node: cst.BaseExpression, at: cst.CSTNode) -> GuardNode:
        """``conditions.condition(node)`` read at statement ``at``, modelled once per node."""
        found = self._tests.get(id(node))
        if found is None:
            with self.exprs.located(at):
                found = self._tests[id(node)] = self.conditions.condition(node)
        return found

    # --- how control passes an earlier statement -----------------------------------
    def fallthrough(self, stmt: cst.CSTNode) -> GuardNode:
        """The condition under which control gets past ``stmt`` to the next statement."""
        found = self._fallthrough.get(id(stmt))
        if found is None:
            outer, self.approximations = self.approximations, {}
            try:
                with self.exprs.located(stmt):
                    node = self._fallthrough_of(stmt)
            finally:
                made, self.approximations = self.approximations, outer
            found = self._fallthrough[id(stmt)] = (node, tuple(made))
        self.approximations.update(dict.fromkeys(found[1]))
        return found[0]

    def _fallthrough_of(self, stmt: cst.CSTNode) -> GuardNode:
        if isinstance(stmt, cst.SimpleStatementLine) and waits(stmt):
            self.approximations["waits_for_another_thread"] = None  # (the state it reads afterwards is that thread's)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
            return self.block(stmt.body)
        if isinstance(stmt, _TERMINATORS):
            return FALSE
        if isinstance(stmt, cst.Assert):
            return self.test(stmt.test, stmt)
        if (unpacked := self._unpacked(stmt)) is not None:
            return unpacked
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) and dotted(stmt.value.func) in EXIT_CALLS:
            return FALSE
        if isinstance(stmt, cst.If):
            return self._if(stmt)
        if isinstance(stmt, cst.With):
            # A context manager may swallow an exception raised in its body
            # (contextlib.suppress, assertRaises): only return/break/continue surely leave.
            if may_exit(stmt.body, loops_absorb=True):
                self.approximations["with_exit_ignored"] = None
            return TRUE
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            return self._try(stmt)
        if isinstance(stmt, (cst.For, cst.While)):
            if may_exit(stmt, loops_absorb=True):
                self.approximations["loop_exit_ignored"] = None
            return TRUE
        if isinstance(stmt, cst.Match):
            return self._match_fallthrough(stmt)
        return TRUE

    def _unpacked(self, stmt: cst.CSTNode) -> GuardNode | None:
        """``len(v) == n`` for ``x1, ..., xn = v`` (``a, b = pair``: it holds two), None for another statement."""
        count = unpacked_length(stmt)
        if count is None or not isinstance(stmt, cst.Assign) or not is_pure(stmt.value, fresh=True):
            return None
        return Compare(left=self.exprs.atom(cst.Call(func=cst.Name("len"), args=[cst.Arg(stmt.value)])), ops=("==",),
                       comparators=(str(count),))

    def block(self, body: Sequence[cst.CSTNode]) -> GuardNode:
        items: list[GuardNode] = []
        for stmt in body:
            condition = self.fallthrough(stmt)
            items.append(condition)
            if condition == FALSE:
                break
        return conj(items)

    def _if(self, stmt: cst.If) -> GuardNode:
        body = self.fallthrough(stmt.body)
        if stmt.orelse is None:
            other: GuardNode = TRUE
        elif isinstance(stmt.orelse, cst.If):
            other = self._if(stmt.orelse)
        else:
            other = self.fallthrough(stmt.orelse.body)
        if body == TRUE and other == TRUE:
            return TRUE
        test = self.test(stmt.test, stmt)
        return disj([conj([test, body]), conj([negate(test), other])])

    def _try(self, stmt: cst.Try | cst.TryStar) -> GuardNode:
        if not stmt.handlers:
            final = self.fallthrough(stmt.finalbody.body) if stmt.finalbody is not None else TRUE
            return conj([self.fallthrough(stmt.body), final])
        if isinstance(stmt, cst.Try) and stmt.finalbody is None and (values := body_values(stmt.body)) is not None:
            # Each expression raises or not: control passes the try when none does (and the
            # body and ``else`` fall through), or when a handler catches one and falls through.
            calm = [self._calm(*value) for value in values]
            normal = conj([*calm, self.fallthrough(stmt.body), self.fallthrough(stmt.orelse.body) if stmt.orelse else TRUE])
            caught = [conj([self._reached(stmt, h, values), self.fallthrough(h.body)]) for h in stmt.handlers]
            return disj([normal, *caught])
        if may_exit(stmt, loops_absorb=False):
            self.approximations["try_exit_ignored"] = None
        return TRUE

    def _match_fallthrough(self, stmt: cst.Match) -> GuardNode:
        subject = self.exprs.atom(stmt.subject)
        outcomes: list[GuardNode] = []
        earlier: list[GuardNode] = []
        for case in stmt.cases:
            selected = self.case(subject, case)
            outcomes.append(conj([*map(negate, earlier), selected, self.fallthrough(case.body)]))
            earlier.append(selected)
        outcomes.append(conj([negate(c) for c in earlier]))
        return disj(outcomes)

    def case(self, subject: str, case: cst.MatchCase) -> GuardNode:
        selected = self.conditions.pattern(subject, case.pattern)
        return conj([selected, self.conditions.condition(case.guard)]) if case.guard is not None else selected

    # --- the walk down to the raise --------------------------------------------------
    def step(self, parent: cst.CSTNode, child: cst.CSTNode, out: list[tuple[str, GuardNode]], context: list[Context]) -> None:
        """Add what choosing ``child`` inside ``parent`` implies, each with its role."""
        if isinstance(parent, _BLOCKS):
            for sibling in parent.body:
                if sibling is child:
                    break
                out.append((PartRole.LEAVE if only_leaves(sibling, self.name) else PartRole.EXIT, self.fallthrough(sibling)))
                self.evaluates.extend(evaluated_values(self, sibling))
                self.unmodelled = self.unmodelled or not self.is_plain(sibling)
        elif isinstance(parent, cst.If):
            test = self.test(parent.test, parent)
            out.append(("test", test if child is parent.body else negate(test)))
        elif isinstance(parent, cst.While):
            test = self.test(parent.test, parent.body.body[0])  # read inside the loop: its body ran before
            out.append(("test", test if child is parent.body else negate(test)))
            context.append(Context(kind=ContextKind.LOOP, code="while " + raw_code(parent.test)))
        elif isinstance(parent, cst.For):
            head = f"for {raw_code(parent.target)} in {raw_code(parent.iter)}"
            element = self.loop_element(parent) if child is parent.body else None
            kind = ContextKind.ELEMENT if element else ContextKind.LOOP if child is parent.body else ContextKind.LOOP_ELSE
            context.append(Context(kind=kind, code=head))
            if element is not None:
                self.loops.append(element)
        elif isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.orelse:
            # A try's ``else`` runs when its body raised nothing (and fell through).
            values = body_values(parent.body) if isinstance(parent, cst.Try) else None
            if values is None:
                self.approximations["try_body_not_modelled"] = None
            out.append((PartRole.EXIT, conj([*(self._calm(*value) for value in values or ()), self.fallthrough(parent.body)])))
        elif isinstance(parent, (cst.Try, cst.TryStar)) and isinstance(child, cst.ExceptHandler):
            reached = self.handler_reached(parent, child)
            if reached is not None:
                out.append(("test", reached))
                self._modelled_handlers.add(id(child))
        elif isinstance(parent, cst.ExceptHandler):
            handled = ContextKind.HANDLER if id(parent) in self._modelled_handlers else ContextKind.EXCEPT
            context.append(Context(kind=handled, code=_handler_code(parent)))
        elif isinstance(parent, cst.Finally):
            context.append(Context(kind=ContextKind.FINALLY, code="finally"))
        elif isinstance(parent, cst.Match):
            with self.exprs.located(parent):
                self._cases(parent, child, out)

    def _cases(self, parent: cst.Match, child: cst.CSTNode, out: list[tuple[str, GuardNode]]) -> None:
        """The cases before ``child`` did not match; ``child`` did."""
        subject = self.exprs.atom(parent.subject)
        for case in parent.cases:
            selected = self.case(subject, case)
            if case is child:
                out.append(("test", selected))
                break
            out.append(("test", negate(selected)))


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


def plain_statement(stmt: cst.CSTNode) -> bool:
    """Whether what ``stmt`` does on the way is modelled: ``pass``, a docstring, a simple
    statement of one pure expression (evaluated_values reads it) or a test that leaves
    (its negation is in the guard). A call, a store into an object or a loop is not."""
    if isinstance(stmt, cst.If):
        return all(plain_statement(s) for s in stmt.body.body) and (stmt.orelse is None or plain_statement(stmt.orelse))
    if isinstance(stmt, cst.Else):
        return all(plain_statement(s) for s in stmt.body.body)
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Pass, cst.Return, cst.Raise)):
        return True
    value = sole_value(stmt)
    return value is not None and is_pure(value, fresh=True)


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


def _raises_call(value: cst.BaseExpression, handler: cst.ExceptHandler | None) -> cst.Call:
    """``__raises__(value, (classes))`` for the handler's classes (any exception: None)."""
    names = handler_types(handler) if handler is not None else ("BaseException",)
    classes = cst.Tuple(elements=[cst.Element(value=cst.parse_expression(name)) for name in names])
    return cst.Call(func=cst.Name(RAISES), args=[cst.Arg(value=strip_parens(value)), cst.Arg(value=classes)])


def _targets(loop: cst.For) -> tuple[str, ...] | None:
    """The names a loop binds: ``x``, or ``k, v`` of ``for k, v in d.items()``; None otherwise."""
    target, call = loop.target, loop.iter
    if isinstance(target, cst.Name):
        return (target.value,)
    names = tuple(e.value.value for e in target.elements if isinstance(e.value, cst.Name) and isinstance(e, cst.Element)) \
        if isinstance(target, cst.Tuple) and len(target.elements) == 2 else ()
    if len(names) == 2 and isinstance(call, cst.Call) \
            and (isinstance(call.func, cst.Attribute) and call.func.attr.value == "items" and not call.args
                 or isinstance(call.func, cst.Name) and call.func.value == "enumerate" and len(call.args) == 1):
        return names
    return None


def _iterated(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The input expression a loop iterates: ``xs`` itself, or the ``xs`` of ``sorted(xs)``,
    ``enumerate(xs)``, ``d.keys()``, ``d.values()``, ``text.split(",")``, or the ``n`` of
    ``range(n)`` (the forms solve.elements rebuilds)."""
    if dotted(node) is not None:
        return node
    if not isinstance(node, cst.Call) or any(a.keyword is not None or a.star for a in node.args):
        return None
    if isinstance(node.func, cst.Name) and node.func.value in (*LOOP_WRAPPERS, "enumerate", "range") and len(node.args) == 1:
        return node.args[0].value if dotted(node.args[0].value) is not None else None
    if isinstance(node.func, cst.Attribute) and dotted(node.func.value) is not None:
        method = node.func.attr.value
        if (method in ("keys", "values", "items") and not node.args) or (method == "split" and len(node.args) <= 1):
            return node.func.value
    return None


def _handler_code(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str:
    code = "except"
    if handler.type is not None:
        code += " " + raw_code(handler.type)
    if handler.name is not None:
        code += " as " + raw_code(handler.name.name)
    return code


def extract_guard(chain: Sequence[cst.CSTNode], start: int, scope: Scope, model: PathModel | None = None) -> Guard:
    """The guard of the raise at the end of ``chain``, walking from ``chain[start]`` down
    (``model``: the PathModel of ``scope`` shared by the function's raises)."""
    return _extract_guard(chain, start, model if model is not None else PathModel(scope))


def _extract_guard(chain: Sequence[cst.CSTNode], start: int, model: PathModel) -> Guard:
    model.approximations = {}
    model.loops = []
    model.evaluates = []
    model.unmodelled = False
    conditions: list[tuple[str, GuardNode]] = []
    context: list[Context] = []
    for parent, child in zip(chain[start:], chain[start + 1 :]):
        model.step(parent, child, conditions, context)
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body and (handler := catching(parent, chain)) is not None:
            context.append(Context(kind=ContextKind.CAUGHT, code=_handler_code(handler)))
            model.approximations["caught_in_function"] = None  # the error may never reach the caller
    tree = conj([node for _, node in conditions])
    if tree == TRUE and any(isinstance(parent, cst.With) for parent in chain[start:-1]):
        # (no test guards it, but its with block's manager may swallow it: contextlib.suppress, assertRaises)
        model.approximations["raised_in_with"] = None
    if tree == TRUE and any(isinstance(parent, (cst.Try, cst.TryStar)) and parent.handlers and child is parent.body
                            for parent, child in zip(chain[start:], chain[start + 1:])):
        model.approximations["raised_in_try"] = None  # (and a handler of its try may catch it, where its class is not resolved)
    if tree == TRUE and model.unmodelled:
        model.approximations["statements_on_the_way"] = None  # (a call before it may fail or change what it raises)
    size = guard_size(tree)
    model.spent_nodes += size
    code = render_guard(tree) if size <= MAX_GUARD_NODES and model.spent_nodes <= MAX_FUNCTION_GUARD_NODES else ""
    refs = model.exprs.refs_of(atoms_of(tree))
    shown = model.exprs.raise_names = model.exprs.shown_names([code], chain[-1]) if TAG in code else {}
    if shown:  # each binding of an opaque local under a name of its own, as the raise sees them
        rename = lambda text: resolve(text, shown)
        tree = conj([map_atoms(tree, rename)])  # (two tags may name one value: one conjunct)
        code = render_guard(tree)
        conditions = [(role, map_atoms(node, rename)) for role, node in conditions]
        refs.opaque, refs.calls = dict.fromkeys(map(rename, refs.opaque)), dict.fromkeys(map(rename, refs.calls))
    if not code or len(code) > MAX_GUARD_CHARS:  # (a huge literal in a test would be copied many times over)
        return Guard(code="<unknown>", tree=Opaque(code="", reason=Reason.GUARD_TOO_LARGE), context=tuple(context),
                     approximations=("guard_too_large",))
    return Guard(
        code=code,
        tree=tree,
        parts=_parts(conditions),
        # (``getattr(x, "a", d)`` reads ``x.a``: collect.byname)
        inputs=tuple(dict.fromkeys([*refs.inputs, *by_name(code, {name.split(".", 1)[0] for name in refs.inputs})[1]])),
        opaque=tuple(refs.opaque),
        booleans=tuple(n for n in model.exprs.boolean_names(shown) if n in refs.opaque),
        versions=tuple((name, base, "stored" if "." in base else "rebound" if model.exprs.is_entry_name(base) else "earlier")
                       for tag, name in shown.items() if name != (base := untagged(tag))),
        calls=tuple(refs.calls),
        constants=tuple(sorted(refs.constants.items())),
        named=tuple(sorted(refs.named.items())),
        context=tuple(context),
        approximations=tuple(model.approximations),
        loops=tuple(model.loops),
    )


def _parts(conditions: list[tuple[str, GuardNode]]) -> tuple[GuardPart, ...]:
    """Conjuncts with roles: the last branch test is the raise's own, earlier ones outer."""
    last_test = max((i for i, (role, _) in enumerate(conditions) if role == "test"), default=-1)
    parts: list[GuardPart] = []
    for index, (role, node) in enumerate(conditions):
        if node == TRUE:
            continue
        named = PartRole.OWN if index == last_test else PartRole.OUTER if role == "test" else PartRole(role)
        parts.extend(GuardPart(role=named, code=render_guard(item)) for item in (node.items if isinstance(node, And) else (node,)))
    return tuple(parts)
