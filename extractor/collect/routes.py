"""Routes: how the code that declares a command's flags hands their values on, so that a
CLI example is written only where the flag's value reaches the raise's record or function.

A flag names a field of a record (``--max-cpu-loras`` for ``LoRAConfig.max_cpu_loras``),
but the command's code decides what the record gets: vLLM builds ``LoRAConfig`` only under
``if self.enable_lora``, passes ``max_cpu_loras`` only when it is positive, and rewrites
``self.data_parallel_hybrid_lb`` before it builds ``ParallelConfig``. For each function of a
file that may declare flags, every call its body makes unconditionally (a statement of the
body itself, or of a ``with`` or ``try`` body in it; not inside ``if``, a loop, a handler, a
conditional expression, ``and``/``or`` after the first operand, a comprehension or a lambda)
is recorded as ``(callee as written, keywords, namespace)``:

- ``keywords``: the keywords passed straight through (``size=self.size``, ``size=args.size``:
  an attribute of the same name that the function never assigns) or built there by a call
  (``prefetch=PrefetchOffloadConfig(...)``, whose own keywords its own route gives); and
  ``**name`` for a mapping unpacked into the call (``SpeculativeConfig(**self.speculative_config)``)
  that the function rebinds only from itself (``self.x = {k: v for k, v in self.x.items()}``) or
  under a condition, so that its keys reach the call;
- ``namespace``: where the call passes the parsed arguments on positionally (``run(args)``:
  a parameter named ``args`` or annotated ``Namespace``, or a local bound from
  ``parse_args(...)``), the attributes of them the function assigns (which the flag no
  longer decides there); else None.

Calls that do neither are left out. Linking resolves the callees (link.commands.routes).

The same files' checks (``call_checks``): a test whose branch raises or exits (``if
args.offload_group_size < 0: raise SystemExit(...)``, ``parser.error``, ``assert``) decides
what a flag's value meets before it reaches any record. Each is recorded once per attribute it
reads (``(attribute, line of the raise, test)``, the test's ``name.attribute`` reads written as
bare names: ``offload_group_size < 0``), so that an example's flag value is checked against it
(solve.examples: a value the test does not clear is never written as that flag).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .declarations import dotted_name
from .purity import attribute_stores
from .syntax import child_nodes

Route = tuple[str, tuple[str, ...], tuple[str, ...] | None]
Check = tuple[str, int, str]
_EXITS = ("exit", "sys.exit", "quit", "os._exit")  # calls that leave the command; and ``parser.error(...)``, ``ctx.fail(...)``
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONDITIONAL = (ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_PARSE = ("parse_args", "parse_known_args", "parse_intermixed_args")


def call_routes(tree: ast.Module) -> tuple[Route, ...]:
    found: list[Route] = []
    for function in _functions(tree.body):
        stores = attribute_stores(child_nodes(function))  # (everywhere in it: before the call or after)
        parsed = _namespaces(function)
        aliases = _aliases(function)
        for call in _unconditional_calls(function.body):
            callee = dotted_name(call.func)
            if callee is None:
                continue
            keywords = tuple(sorted(
                k.arg for k in call.keywords if k.arg is not None and (
                    isinstance(k.value, ast.Call)
                    or (isinstance(k.value, ast.Attribute) and k.value.attr == k.arg and isinstance(k.value.value, ast.Name)
                        and f"{k.value.value.id}.{k.arg}" not in stores))))
            keywords += tuple(sorted(f"**{attr}" for k in call.keywords if k.arg is None
                                     and (attr := _unpacked(function, k.value, aliases)) is not None))
            passed = [a.id for a in call.args if isinstance(a, ast.Name) and a.id in parsed]
            namespace = tuple(sorted({s.partition(".")[2] for s in stores if s.partition(".")[0] in passed})) if passed else None
            if keywords or namespace is not None:
                found.append((callee, keywords, namespace))
    return tuple(sorted(set(found), key=lambda r: (r[0], r[1], r[2] or ())))


def call_checks(tree: ast.Module) -> tuple[Check, ...]:
    """The tests in the file's functions whose branch leaves the command (see the module's
    docstring), one per attribute read, sorted."""
    found: set[Check] = set()
    for function in _functions(tree.body):
        for node in ast.walk(function):
            if isinstance(node, ast.If) and (line := _leaving(node.body)) is not None:
                test = node.test
            elif isinstance(node, ast.Assert):
                line, test = node.lineno, ast.UnaryOp(op=ast.Not(), operand=node.test)
            else:
                continue
            attributes = {n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
            if attributes:
                found.update((attribute, line, _bare(test)) for attribute in attributes)
    return tuple(sorted(found))


def _leaving(body: list[ast.stmt]) -> int | None:
    """The line of the statement of a branch's body that raises or exits, if one does."""
    for stmt in body:
        if isinstance(stmt, ast.Raise):
            return stmt.lineno
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _exits(dotted_name(stmt.value.func) or ""):
            return stmt.lineno
    return None


def _exits(callee: str) -> bool:
    """Whether a call leaves the command: ``sys.exit``, argparse's ``parser.error``, click's
    ``ctx.fail`` (not ``logger.error``, after which the command goes on)."""
    head, _, last = callee.rpartition(".")
    return callee in _EXITS or (last == "error" and head.rsplit(".", 1)[-1].endswith("parser")) or (last == "fail" and head == "ctx")


class _Bare(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name):
            return ast.copy_location(ast.Name(id=node.attr, ctx=ast.Load()), node)
        return self.generic_visit(node)


def _bare(test: ast.expr) -> str:
    """The test with ``name.attribute`` written ``attribute`` (a copy: the file's tree is kept)."""
    return ast.unparse(_Bare().visit(ast.parse(ast.unparse(test), mode="eval")).body)


def _functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, _DEFS):
            yield stmt
            stack.extend(s for s in reversed(stmt.body) if isinstance(s, (*_DEFS, ast.ClassDef)))
        elif isinstance(stmt, ast.ClassDef):
            stack.extend(reversed(stmt.body))


def _top_statements(body: list[ast.stmt]) -> Iterator[ast.stmt | ast.expr]:
    """The statements that run whenever the body runs to them: into ``with`` and ``try``
    bodies (and ``finally``), not into branches, loops or handlers; a ``with``'s context
    expressions too."""
    for stmt in body:
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from (item.context_expr for item in stmt.items)
            yield from _top_statements(stmt.body)
        elif isinstance(stmt, (ast.Try, ast.TryStar)):
            yield from _top_statements(stmt.body)
            yield from _top_statements(stmt.finalbody)
        elif isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match, *_DEFS, ast.ClassDef)):
            continue
        else:
            yield stmt


def _unconditional_calls(body: list[ast.stmt]) -> Iterator[ast.Call]:
    for stmt in _top_statements(body):
        stack: list[ast.AST] = [stmt]
        while stack:
            node = stack.pop()
            if isinstance(node, _CONDITIONAL):
                continue
            if isinstance(node, ast.BoolOp):
                stack.append(node.values[0])  # the others run only as the first decides
                continue
            if isinstance(node, ast.Call):
                yield node
            stack.extend(child_nodes(node))


def _unpacked(function: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr, aliases: dict[str, ast.Attribute]) -> str | None:
    """``name`` for a mapping unpacked into a call that is ``owner.name`` (``**self.x``, or
    ``**cfg`` after ``cfg = self.x``), where the function never replaces it with another."""
    if isinstance(value, ast.Name) and value.id in aliases:
        value = aliases[value.id]
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and not _replaced(function, value.value.id, value.attr):
        return value.attr
    return None


def _aliases(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.Attribute]:
    """Locals bound once, unconditionally, to an attribute of a name (``cfg = self.x``), which
    any other binding only rewrites from themselves (``cfg = json.loads(cfg)``)."""
    found: dict[str, ast.Attribute] = {}
    for stmt in _top_statements(function.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Attribute) and isinstance(stmt.value.value, ast.Name):
            found[stmt.targets[0].id] = stmt.value
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign,
                                                                                                          ast.For)) else []
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name) and target.id in found and value is not found[target.id] and (value is None or not any(
                    isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(value))):
                del found[target.id]
    return found


def _replaced(function: ast.FunctionDef | ast.AsyncFunctionDef, owner: str, name: str) -> bool:
    """Whether a statement the body always runs binds ``owner.name`` to a value not read from it."""
    def is_it(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name) and node.value.id == owner

    for stmt in _top_statements(function.body):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign,
                                                                                                      ast.AugAssign)) else []
        value = getattr(stmt, "value", None)
        if any(is_it(t) for t in targets) and not (value is not None and any(is_it(n) for n in ast.walk(value))):
            return True
    return False


def _namespaces(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names that hold the parsed arguments in ``function``."""
    names = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
             if a.arg == "args" or (a.annotation is not None and "Namespace" in ast.unparse(a.annotation))}
    for stmt in _top_statements(function.body):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
                and stmt.value.func.attr in _PARSE:
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return names
