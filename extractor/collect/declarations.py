"""Declarations: an ``ast`` module -> imports, classes, fields, factories and aliases of one file.

This is the cheap whole-file half of the per-file pass: it reads only statements, never
walks expressions, and takes source text straight from the lines (``SourceText``).
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import overload

from ..model import ClassFact, Constraint, FieldFact, Param
from .inits import init_facts
from .post_init import post_init_sets
from .state import attribute_stores, init_calls
from .syntax import child_nodes, walk

FIELD_CALLS = frozenset({"Field", "field", "attrib", "ib", "PrivateAttr"})
CONSTRAINT_KEYWORDS = (
    "gt",
    "ge",
    "lt",
    "le",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "regex",
    "max_digits",
    "decimal_places",
    "strict",
    "allow_inf_nan",
    "choices",
)


MAX_VALUE_CHARS = 10_000  # a declared value (default, constant, annotation) longer than this is not kept
MAX_TEXT_CHARS = 10_000  # a docstring or message text longer than this is cut, with a marker


@overload
def cut_text(text: str, limit: int = MAX_TEXT_CHARS) -> str: ...
@overload
def cut_text(text: None, limit: int = MAX_TEXT_CHARS) -> None: ...
@overload
def cut_text(text: str | None, limit: int = MAX_TEXT_CHARS) -> str | None: ...
def cut_text(text: str | None, limit: int = MAX_TEXT_CHARS) -> str | None:
    """``text``, cut to ``limit`` characters with a marker saying how long it was."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]} … [cut: {len(text):,} characters in all]"


class SourceText:
    """Source lines of one file, sliced by ``ast`` positions (columns are UTF-8 byte offsets)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._encoded: dict[int, bytes] = {}

    def _line_bytes(self, lineno: int) -> bytes:
        cached = self._encoded.get(lineno)
        if cached is None:
            cached = self.lines[lineno - 1].encode("utf-8")
            self._encoded[lineno] = cached
        return cached

    def segment(self, node: ast.expr | ast.stmt) -> str:
        """The exact source text of ``node``, as written."""
        start, end = node.lineno, node.end_lineno or node.lineno
        col, end_col = node.col_offset, node.end_col_offset or 0
        if start == end:
            return self._line_bytes(start)[col:end_col].decode("utf-8", "replace")
        chunks = [self._line_bytes(start)[col:].decode("utf-8", "replace")]
        chunks.extend(self.lines[start : end - 1])
        chunks.append(self._line_bytes(end)[:end_col].decode("utf-8", "replace"))
        return "\n".join(chunks)

    def flat(self, node: ast.expr | ast.stmt) -> str:
        """The source of ``node`` on one line (for annotations and defaults; as ``ast.unparse``
        writes it where its lines hold a comment); a marker that is
        no Python value in place of one longer than MAX_VALUE_CHARS (such a value would be
        copied into every card that reads it)."""
        text = self.segment(node)
        if "\n" in text:
            # A comment inside a multi-line value would swallow the rest of the line it is joined into.
            text = ast.unparse(node) if "#" in text else " ".join(part.strip() for part in text.splitlines())
        return text if len(text) <= MAX_VALUE_CHARS else f"<{len(text):,} characters of source, not kept>"


def module_name(path: str, roots: tuple[str, ...] = ()) -> str:
    """``a/b/c.py`` -> ``a.b.c``; ``a/b/__init__.py`` -> ``a.b``; under a source root
    (``src`` of ``src/a/b.py``), what follows it: ``a.b``."""
    root = next((r for r in roots if path.startswith(r + "/")), None)
    path = path[len(root) + 1:] if root is not None else path
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute dotted name of ``from <level dots><target> import ...`` inside ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([*base, *([target] if target else [])])


def import_bindings(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[tuple[str, str]]:
    """Local names an import statement binds, each with the dotted name it refers to."""
    out: list[tuple[str, str]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                out.append((alias.asname, alias.name))
            else:
                head = alias.name.split(".")[0]
                out.append((head, head))
        return out
    base = resolve_relative(module, is_package, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            continue
        out.append((alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name))
    return out


def _string_value(stmt: ast.stmt | None) -> str | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return cut_text(inspect.cleandoc(stmt.value.value))
    return None


def tail_name(node: ast.expr) -> str | None:
    """The last name of ``a.b.c`` or ``c``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


# A dotted name written as text (``a.b.c``; any identifier characters).
DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
# Calls a ``for`` loop may iterate that keep the items of their one argument (collect.paths
# follows them to the input, solve.elements rebuilds the input from an element).
LOOP_WRAPPERS = frozenset({"sorted", "reversed", "list", "tuple"})


def dotted_name(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def call_name(node: ast.expr) -> str | None:
    return tail_name(node.func) if isinstance(node, ast.Call) else None


def _field_call_facts(call: ast.Call, src: SourceText) -> tuple[str | None, str | None, list[Constraint]]:
    default = default_factory = None
    if call.args and not isinstance(call.args[0], ast.Starred):
        first = src.flat(call.args[0])
        if first not in ("...", "Ellipsis"):
            default = first
    constraints: list[Constraint] = []
    for kw in call.keywords:
        if kw.arg == "default":
            default = src.flat(kw.value)
        elif kw.arg in ("default_factory", "factory"):
            default_factory = src.flat(kw.value)
        elif kw.arg in CONSTRAINT_KEYWORDS:
            constraints.append(Constraint(name=kw.arg, value=src.flat(kw.value)))
    return default, default_factory, constraints


def _annotated_constraints(annotation: ast.expr, src: SourceText) -> list[Constraint]:
    """Constraints declared inside ``Annotated[T, Field(ge=0)]``."""
    if not isinstance(annotation, ast.Subscript):
        return []
    head = annotation.value
    name = head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else None
    if name != "Annotated" or not isinstance(annotation.slice, ast.Tuple):
        return []
    found: list[Constraint] = []
    for meta in annotation.slice.elts[1:]:
        if isinstance(meta, ast.Call) and call_name(meta) in FIELD_CALLS:
            found.extend(_field_call_facts(meta, src)[2])
    return found


def field_fact(stmt: ast.stmt, following: ast.stmt | None, src: SourceText) -> FieldFact | None:
    """A class-body ``name: T = value`` or ``name = value`` as a field, else None."""
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        name, annotation, value = stmt.target.id, stmt.annotation, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name, annotation, value = stmt.targets[0].id, None, stmt.value
    else:
        return None
    default = default_factory = None
    constraints: list[Constraint] = []
    init = True
    if isinstance(value, ast.Call) and call_name(value) in FIELD_CALLS:
        default, default_factory, constraints = _field_call_facts(value, src)
        init = not any(kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False for kw in value.keywords)
    elif value is not None:
        default = src.flat(value)
    if annotation is not None:
        constraints = _annotated_constraints(annotation, src) + constraints
    return FieldFact(
        name=name,
        line=stmt.lineno,
        annotation=src.flat(annotation) if annotation is not None else None,
        default=default,
        default_factory=default_factory,
        constraints=tuple(constraints),
        doc=_string_value(following),
        init=init,
    )


_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"})


def class_fact(node: ast.ClassDef, qualname: str, src: SourceText) -> ClassFact:
    """Bases, docstring, fields and method return annotations of a class."""
    fields: list[FieldFact] = []
    methods: list[tuple[str, str | None]] = []
    abstract: list[str] = []
    assigned: list[str] = []
    body = node.body
    for index, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.append((stmt.name, src.flat(stmt.returns) if stmt.returns is not None else None))
            if any((dotted_name(d) or "").rsplit(".", 1)[-1] in _ABSTRACT_DECORATORS for d in stmt.decorator_list):
                abstract.append(stmt.name)
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            assigned.extend(n.id for t in targets for n in walk(t) if isinstance(n, ast.Name))
        following = body[index + 1] if index + 1 < len(body) else None
        fact = field_fact(stmt, following, src)
        if fact is not None:
            fields.append(fact)
    inits = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"]
    init, init_sets, super_init = init_facts(inits[-1], function_params(inits[-1], src)) if inits else (None, (), ())
    return ClassFact(
        qualname=qualname,
        line=node.lineno,
        bases=tuple(src.flat(base) for base in node.bases),
        doc=cut_text(ast.get_docstring(node)),
        fields=tuple(fields),
        methods=tuple(methods),
        decorators=tuple(src.flat(d) for d in node.decorator_list),
        init=init,
        init_sets=init_sets,
        super_init=super_init,
        post_init_sets=post_init_sets(node, src),
        new=new_facts(node, src),
        metaclass=next((src.flat(k.value) for k in node.keywords if k.arg == "metaclass"), None),
        stores=attribute_stores(node, src), init_calls=init_calls(node),
        abstract=tuple(abstract),
        assigned=tuple(sorted(set(assigned))),
    )


def is_dataclass_transform(decorator: ast.expr) -> bool:
    """``@dataclass_transform(...)`` (PEP 681), by any import path."""
    head = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else None) == "dataclass_transform"


def new_facts(node: ast.ClassDef, src: SourceText) -> tuple[Param, ...] | None:
    """The explicit ``__new__``'s parameters after cls, or None."""
    news = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__new__"]
    params = function_params(news[-1], src) if news else ()
    if not params or params[0].kind in ("star", "starstar", "keyword"):
        return None
    return params[1:]


def alias_value(stmt: ast.stmt, src: SourceText) -> tuple[str, str] | None:
    """``Backend = Literal[...]`` or ``Backend: TypeAlias = Literal[...]`` at module level."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        target, value = stmt.targets[0].id, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        target, value = stmt.target.id, stmt.value
    else:
        return None
    if isinstance(value, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute, ast.Tuple, ast.List, ast.Constant)):
        return target, src.flat(value)
    return None


def function_params(node: ast.FunctionDef | ast.AsyncFunctionDef, src: SourceText) -> tuple[Param, ...]:
    """Parameters with their annotations and defaults as written."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    kinds = ["positional"] * len(args.posonlyargs) + ["normal"] * len(args.args) + ["keyword"] * len(args.kwonlyargs)
    pairs = [*zip(positional, defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    params = [
        Param(
            name=arg.arg,
            annotation=src.flat(arg.annotation) if arg.annotation is not None else None,
            default=src.flat(default) if default is not None else None,
            kind=kind,
        )
        for (arg, default), kind in zip(pairs, kinds)
    ]
    # Unpassed *args and **kwargs are empty: that is their default.
    if args.vararg is not None:
        params.append(Param(name=args.vararg.arg, annotation="tuple", default="()", kind="star"))
    if args.kwarg is not None:
        params.append(Param(name=args.kwarg.arg, annotation="dict", default="{}", kind="starstar"))
    return tuple(params)


def call_style(function: ast.FunctionDef | ast.AsyncFunctionDef, may_yield: bool = True) -> str:
    """How calling the function runs its body: at once, or when iterated or awaited.
    ``may_yield``: False when the function's text holds no ``yield`` (nothing to walk for)."""
    stack: list[ast.AST] = list(function.body) if may_yield else []
    generator = False
    while stack and not generator:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            generator = True
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(child_nodes(node))
    if isinstance(function, ast.AsyncFunctionDef):
        return "async_generator" if generator else "coroutine"
    return "generator" if generator else "function"


def unread_params(function: ast.FunctionDef | ast.AsyncFunctionDef, stack: tuple[ast.AST, ...], line: int) -> tuple[str, ...]:
    """Parameters no statement reads before the raise: whatever value they have, control
    reaches the raise just the same. Inside a loop a later line of the loop may run first
    (on an earlier turn); what follows the loop cannot."""
    inner = stack[stack.index(function) + 1:]
    loop = next((n for n in inner if isinstance(n, (ast.For, ast.AsyncFor, ast.While))), None)
    loop_end = (loop.end_lineno or line) if loop is not None else line
    names = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    work: list[ast.AST] = list(function.body)
    while work and names:
        node = work.pop()
        start = getattr(node, "lineno", 0)
        if start > loop_end or (start == line and isinstance(node, ast.Raise)):
            continue  # the raise itself, or after it (and its loop): cannot run before it
        if isinstance(node, ast.Name):
            names.discard(node.id)
        work.extend(child_nodes(node))
    return tuple(sorted(names))

