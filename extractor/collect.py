"""The per-file pass: SourceFile -> FileFacts | FileFailure, a pure function of the file's bytes.

``ast`` (CPython's own parser, the floor for speed) reads the whole file: declarations,
and where every raise is. libcst then parses only the units that hold a raise (the
outermost function around it, or the top-level statement) to model messages and
guards. A unit libcst cannot parse still yields all its raise sites, marked as such.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from . import declarations as decl
from .cstpass import RaiseFacts, UnitAnalysis, parse_unit
from .messages import unknown
from .model import ClassFact, Excerpt, FileFacts, FileFailure, Guard, Opaque, SiteFact, from_data, to_data
from .options import Options, strict_from_env
from .evaluate import dotted_name
from .scope import EXIT_CALLS, ModuleNames
from .sources import DecodeError, SourceFile, decode_source, split_lines

log = logging.getLogger("raisedocs")

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_WORD = re.compile(r"[^\W\d]\w*")
_BODIES = ("body", "orelse", "finalbody")


@dataclass
class _Hit:
    node: ast.Raise
    stack: tuple[ast.AST, ...]


@dataclass
class _FileScan:
    imports: list[tuple[str, str]]
    classes: list[ClassFact]
    functions: list[tuple[str, str | None]]
    hits: list[_Hit]
    kinds: dict[str, str]
    assigned: dict[str, list[ast.expr]]
    flags: list[tuple[str, str]]


@dataclass
class UnitMemo:
    """The libcst pass's results per definition, keyed by what they depend on (the
    definition's text and the module-level bindings of the names it uses): ``known`` from
    an earlier version of the file, as JSON data; ``now`` filled for this version."""

    known: dict[str, Any] = field(default_factory=dict)
    now: dict[str, Any] = field(default_factory=dict)


def collect_file(source: SourceFile, options: Options, memo: UnitMemo | None = None) -> FileFacts | FileFailure:
    """Analyse one file; never raises (except in strict mode, for bugs of ours). With a
    memo, definitions unchanged since an earlier version are not parsed again."""
    if source.data is None:
        raise ValueError(f"{source.path}: contents not read (sources.with_contents)")  # a bug of ours
    try:
        text = decode_source(source.data)
    except DecodeError as exc:
        return FileFailure(path=source.path, stage="decode", error=_one_line(str(exc)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=source.path)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return FileFailure(path=source.path, stage="parse", error=_one_line(where + str(exc.msg)))
    except (ValueError, RecursionError, MemoryError) as exc:
        return FileFailure(path=source.path, stage="parse", error=_one_line(f"{type(exc).__name__}: {exc}"))
    try:
        return _analyse(source.path, text, tree, options, memo)
    except Exception as exc:  # the per-file boundary: a bug of ours must not stop the run
        if options.is_strict or strict_from_env():
            raise
        log.debug("analysis failed for %s", source.path, exc_info=True)
        return FileFailure(path=source.path, stage="analyse", error=_one_line(f"{type(exc).__name__}: {exc}"))


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


# --- the ast scan -------------------------------------------------------------------------


def _scan(tree: ast.Module, module: str, is_package: bool, src: decl.SourceText, has_flag_calls: bool = True) -> _FileScan:
    scan = _FileScan(imports=[], classes=[], functions=[], hits=[], kinds={}, assigned={}, flags=[])
    # Statements only: a raise is a statement, so expressions are never walked.
    work: list[tuple[ast.stmt, tuple[ast.AST, ...], bool]] = [(s, (), True) for s in reversed(tree.body)]
    while work:
        stmt, stack, at_module = work.pop()
        if isinstance(stmt, ast.Raise):
            scan.hits.append(_Hit(stmt, stack))
            continue
        if isinstance(stmt, ast.Global):
            # A function may rebind these module names: they are never constants.
            for name in stmt.names:
                scan.assigned.setdefault(name, []).append(None)  # type: ignore[arg-type]
        if at_module:
            _module_binding(stmt, module, is_package, scan)
        if has_flag_calls and isinstance(stmt, _MAY_DECLARE_FLAGS):
            scan.flags.extend(decl.cli_flags(stmt))
        if isinstance(stmt, ast.ClassDef):
            scan.classes.append(decl.class_fact(stmt, _qualname(stack, stmt.name), src))
        elif isinstance(stmt, _DEFS):
            scan.functions.append((_qualname(stack, stmt.name), src.flat(stmt.returns) if stmt.returns else None))
        if isinstance(stmt, _COMPOUND):
            inner = (*stack, stmt)
            inner_at_module = at_module and not isinstance(stmt, _SCOPES)
            for child in reversed(list(_children(stmt))):
                work.append((child, inner, inner_at_module))
    scan.hits.sort(key=lambda h: (h.node.lineno, h.node.col_offset))
    return scan


_SCOPES = (*_DEFS, ast.ClassDef)
_MAY_DECLARE_FLAGS = (ast.Expr, *_DEFS)
_COMPOUND = (*_SCOPES, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
# Every CLI flag declaration (decl.cli_flags) calls one of these by name.
_FLAG_CALL_NAMES = ("add_argument", "add_option", "option", "Option")


def may_declare_flags(text: str) -> bool:
    """False only when no statement of ``text`` can declare a CLI flag: none of the call
    names appears (non-ASCII source may spell a name in other characters, NFKC)."""
    if not text.isascii():
        return True
    # str.find scans fast; the regex tries its word boundary at every position.
    for name in _FLAG_CALL_NAMES:
        start = text.find(name)
        while start >= 0:
            end = start + len(name)
            if (start == 0 or not _is_word(text[start - 1])) and (end == len(text) or not _is_word(text[end])):
                return True
            start = text.find(name, start + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _children(stmt: ast.stmt) -> Iterator[ast.stmt]:
    for block in _blocks(stmt):
        yield from block


def _module_binding(stmt: ast.stmt, module: str, is_package: bool, scan: _FileScan) -> None:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for local, target in decl.import_bindings(stmt, module, is_package):
            scan.imports.append((local, target))
            scan.kinds[local] = "import"
    elif isinstance(stmt, (*_DEFS, ast.ClassDef)):
        scan.kinds[stmt.name] = "def" if isinstance(stmt, _DEFS) else "class"
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value if not isinstance(stmt, ast.AugAssign) else None
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    scan.kinds.setdefault(node.id, "var")
                    single = isinstance(target, ast.Name) and value is not None
                    scan.assigned.setdefault(node.id, []).append(value if single else None)  # type: ignore[arg-type]


def _qualname(stack: tuple[ast.AST, ...], name: str) -> str:
    parts: list[str] = []
    for node in stack:
        if isinstance(node, ast.ClassDef):
            parts.append(node.name)
        elif isinstance(node, _DEFS):
            parts.extend((node.name, "<locals>"))
    return ".".join([*parts, name])


def _module_names(scan: _FileScan, src: decl.SourceText) -> tuple[ModuleNames, list[tuple[str, str]]]:
    values: dict[str, str] = {}
    assignments: list[tuple[str, str]] = []
    for name, nodes in scan.assigned.items():
        if len(nodes) != 1 or nodes[0] is None:
            continue
        code = src.flat(nodes[0])
        assignments.append((name, code))
        try:
            ast.literal_eval(nodes[0])
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
        values[name] = code
    return ModuleNames(kinds=scan.kinds, values=values), sorted(assignments)


# --- units and sites -----------------------------------------------------------------------


def _unit_of(hit: _Hit) -> ast.AST:
    for node in hit.stack:
        if isinstance(node, _DEFS):
            return node
    return hit.stack[0] if hit.stack else hit.node


def _first_line(node: ast.AST) -> int:
    """The first line of a statement, its decorators included."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _unit_text(unit: ast.AST, lines: list[str], end: int | None = None) -> str:
    first = _first_line(unit)
    end = end or unit.end_lineno or unit.lineno
    line = lines[unit.lineno - 1]
    prefix = line.encode("utf-8")[: unit.col_offset].decode("utf-8", "replace")
    if prefix.strip():
        # A simple statement after ";" on a line: cut it out exactly.
        text = decl.SourceText(lines).segment(unit)
        return text + "\n"
    chunk = _unread_left_out(unit, lines, first, end)
    if unit.col_offset > 0:
        return "if 1:\n" + "\n".join(chunk) + "\n"
    return "\n".join(chunk) + "\n"


def _unread_left_out(unit: ast.AST, lines: list[str], first: int, end: int) -> list[str]:
    """Lines ``first..end`` without what the libcst pass never reads.

    A statement that has its lines to itself becomes ``...`` when the pass could read
    nothing in it: it holds no raise and nothing that leaves or narrows the path (return,
    break, continue, assert, match, a call of an exit function, global, nonlocal; see
    ``paths.PathModel``), so it falls through, and no name it may bind is mentioned
    anywhere else in the unit (``scope.Scope`` tracks bindings). An expression statement
    (a docstring, a logging call) binds nothing the scope tracks unless it holds ``:=``.
    Comment and blank lines between the statements of a block go too. libcst pays for
    every token; these were about a fifth of the lines it read on vLLM."""
    out: dict[int, str | None] = {}  # line -> its replacement, None: left out
    words: Counter[str] | None = None  # word -> occurrences in lines first..end
    blocks = list(_blocks(unit)) if isinstance(unit, _COMPOUND) else []
    while blocks:
        previous_end = None
        for stmt in blocks.pop():
            start = _first_line(stmt)
            stop = stmt.end_lineno or stmt.lineno
            if stop > end:
                break
            if previous_end is not None and not lines[previous_end - 1].endswith("\\"):
                # (a line that a backslash continues keeps the blank line that ends it)
                out.update(dict.fromkeys(range(previous_end + 1, start)))
            previous_end = stop
            indent = _alone_on_lines(stmt, lines) if _falls_through(stmt, lines) else None
            if indent is not None and not isinstance(stmt, ast.Expr):
                if words is None:
                    kept = "\n".join(lines[first - 1 : end])
                    words = _word_counts(kept) if kept.isascii() else Counter()
                if not _binds_only_unread(stmt, lines, words):
                    indent = None
            if indent is not None:
                out.update(dict.fromkeys(range(start + 1, stop + 1)))
                out[start] = indent + "..."
            elif isinstance(stmt, _COMPOUND):
                blocks.extend(_blocks(stmt))
    if not out:
        return lines[first - 1 : end]
    return [text for number, line in enumerate(lines[first - 1 : end], first)
            if (text := out.get(number, line)) is not None]


_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Assert, ast.Match, ast.Global, ast.Nonlocal)


def _falls_through(stmt: ast.stmt, lines: list[str]) -> bool:
    """Whether the statement holds no raise and nothing that leaves or narrows the path
    (inside a nested definition only a raise counts: its statements are not on the path).
    An expression statement also must hold no ``:=`` (looked for in its lines)."""
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Call) and dotted_name(value.func) in EXIT_CALLS:
            return False
        return ":=" not in "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
    work: list[tuple[ast.stmt, bool]] = [(stmt, False)]
    while work:
        node, nested = work.pop()
        if isinstance(node, ast.Raise):
            return False
        if not nested and (isinstance(node, _LEAVES) or isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                           and dotted_name(node.value.func) in EXIT_CALLS):
            return False
        if isinstance(node, _COMPOUND):
            inner = nested or isinstance(node, _SCOPES)
            work.extend((child, inner) for child in _children(node))
    return True


def _binds_only_unread(stmt: ast.stmt, lines: list[str], words: Counter[str]) -> bool:
    """Whether no name the statement may bind appears in the unit outside it (``words``:
    the unit's word counts, empty when its text is not ASCII: ``ast`` gives names
    NFKC-normalized, the text has them as written)."""
    text = "\n".join(lines[_first_line(stmt) - 1 : stmt.end_lineno])
    bound = _bound_names([stmt], text)
    if bound is None:
        return False
    if not bound:
        return True
    own = _word_counts(text)
    return all(name in words and words[name] == own.get(name) for name in bound)


def _word_counts(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text))


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in _BODIES:
        yield getattr(stmt, name, [])
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def _alone_on_lines(stmt: ast.stmt, lines: list[str]) -> str | None:
    """The indentation of a statement that no other code shares a line with (none before it
    on its first line, at most a comment after it on its last), else None."""
    head, tail = lines[stmt.lineno - 1], lines[(stmt.end_lineno or stmt.lineno) - 1]
    if head.isascii():
        indent = head[: stmt.col_offset]
    else:
        indent = head.encode("utf-8")[: stmt.col_offset].decode("utf-8", "replace")
    if tail.isascii():
        rest = tail[stmt.end_col_offset :]
    else:
        rest = tail.encode("utf-8")[stmt.end_col_offset :].decode("utf-8", "replace")
    rest = rest.strip()
    if indent.strip() or (rest and not rest.startswith("#")):
        return None
    return indent


def _analyse(path: str, text: str, tree: ast.Module, options: Options, memo: UnitMemo | None) -> FileFacts:
    lines = split_lines(text)
    src = decl.SourceText(lines)
    module = decl.module_name(path)
    scan = _scan(tree, module, path.endswith("__init__.py"), src, may_declare_flags(text))
    names, assignments = _module_names(scan, src)
    units: dict[int, tuple[ast.AST, list[_Hit]]] = {}
    for hit in scan.hits:
        unit = _unit_of(hit)
        units.setdefault(id(unit), (unit, []))[1].append(hit)
    sites: list[SiteFact] = []
    for unit, hits in units.values():
        for hit, facts in zip(hits, _memo_unit_facts(unit, hits, lines, names, memo)):
            sites.append(_site(hit, facts, lines, src, options))
    sites.sort(key=lambda s: (s.line, s.end_line))
    return FileFacts(
        path=path,
        module=module,
        imports=tuple(scan.imports),
        classes=tuple(scan.classes),
        functions=tuple(scan.functions),
        assignments=tuple(assignments),
        module_names=tuple(sorted(scan.kinds)),
        flags=tuple(sorted(set(scan.flags))),
        sites=tuple(sites),
    )


def _needed_end(unit: ast.AST, hits: list[_Hit], lines: list[str]) -> int | None:
    """The last line of a function the libcst pass needs: the end of the body statement
    holding its last raise, when no statement after it binds a name that the text up to
    there mentions (the scope of every name the pass looks at is then the same; about an
    eighth of the lines libcst would parse, on the stdlib and on vLLM). None: all of it."""
    if not isinstance(unit, _DEFS):
        return None
    last = max(hit.node.lineno for hit in hits)
    index = max(i for i, stmt in enumerate(unit.body) if stmt.lineno <= last)
    tail, cut = unit.body[index + 1 :], unit.body[index].end_lineno
    if not tail or cut is None or tail[0].lineno <= cut:
        return None
    bound = _bound_names(tail, "\n".join(lines[cut : unit.end_lineno]))
    kept = "\n".join(lines[_first_line(unit) - 1 : cut])
    # ``ast`` gives names NFKC-normalized, libcst as written: compare only ASCII text.
    if bound is None or not kept.isascii() or not bound.isdisjoint(_WORD.findall(kept)):
        return None
    return cut


def _bound_names(stmts: list[ast.stmt], text: str) -> set[str] | None:
    """Every name the statements (``text``: their source) may bind in the function they
    are in: assignment, loop, ``with`` and ``except`` targets, imports, deletions, nested
    definitions. None for what this does not follow: ``global``, ``nonlocal`` (in a nested
    definition too), ``match`` captures and ``:=`` (looked for in the text)."""
    if ":=" in text or "nonlocal" in text:
        return None
    names: set[str] = set()
    work = list(stmts)
    while work:
        node = work.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Match)):
            return None
        if isinstance(node, _SCOPES):
            names.add(node.name)  # its own bindings are its own
            continue
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            names.update(handler.name for handler in node.handlers if handler.name)
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
        if isinstance(node, _COMPOUND):
            work.extend(_children(node))
    return names


def _memo_unit_facts(unit: ast.AST, hits: list[_Hit], lines: list[str], names: ModuleNames, memo: UnitMemo | None) -> list[RaiseFacts]:
    text = _unit_text(unit, lines, _needed_end(unit, hits, lines))
    if memo is None:
        return _unit_facts(unit, hits, text, names)
    # What the pass reads besides the text: whether the unit is a definition, and how the
    # module binds each name the unit mentions (scope.Scope.classify). Every word of the
    # text counts as a name: a superset, cheaper than a walk, and never a wrong reuse.
    # Listing the words that are module-level names is enough: a word that becomes one
    # changes the list.
    used = sorted(n for n in set(_WORD.findall(text)) if n in names.kinds or n in names.values)
    material = json.dumps([text, isinstance(unit, _DEFS), [[n, names.kinds.get(n), names.values.get(n)] for n in used]])
    key = hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()
    known = memo.known.get(key)
    if isinstance(known, list) and len(known) == len(hits):
        try:
            reused = [from_data(RaiseFacts, item) for item in known]
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            pass
        else:
            memo.now[key] = known
            return reused
    found = _unit_facts(unit, hits, text, names)
    memo.now[key] = [to_data(f) for f in found]
    return found


def _unit_facts(unit: ast.AST, hits: list[_Hit], text: str, names: ModuleNames) -> list[RaiseFacts]:
    """The libcst pass over one unit (its ``_unit_text``)."""
    try:
        found = parse_unit(text)
    except cst.ParserSyntaxError:
        return [_fallback(hit, "libcst_parse_error") for hit in hits]
    except RecursionError:
        return [_fallback(hit, "too_deep") for hit in hits]
    if not isinstance(unit, _DEFS):
        found = [(node, chain) for node, chain in found if not any(isinstance(n, cst.FunctionDef) for n in chain)]
    if len(found) != len(hits):
        return [_fallback(hit, "unit_mismatch") for hit in hits]
    analysis = UnitAnalysis(names)
    out: list[RaiseFacts] = []
    for hit, (node, chain) in zip(hits, found):
        try:
            out.append(analysis.analyse(node, chain))
        except RecursionError:
            out.append(_fallback(hit, "too_deep"))
    return out


def _fallback(hit: _Hit, reason: str) -> RaiseFacts:
    """A raise found by ``ast`` that libcst could not model: located, named, and honest."""
    exc = hit.node.exc
    if exc is None:
        kind, written = "reraise", None
    elif isinstance(exc, ast.Call):
        kind, written = "call", ast.unparse(exc.func)
    else:
        kind, written = "name", ast.unparse(exc)
    guard = Guard(code="<unknown>", tree=Opaque(code="", reason=reason))
    cause = ast.unparse(hit.node.cause) if hit.node.cause is not None else None
    return RaiseFacts(
        kind=kind, written=written, is_call=isinstance(exc, ast.Call), caught=(), cause=cause,
        message=unknown("unsupported", reason), guard=guard, reason=reason, lints=(),
    )


def _site(hit: _Hit, facts: RaiseFacts, lines: list[str], src: decl.SourceText, options: Options) -> SiteFact:
    function = next((n for n in reversed(hit.stack) if isinstance(n, _DEFS)), None)
    holder = next((n for n in reversed(hit.stack) if isinstance(n, (*_DEFS, ast.ClassDef))), None)
    qualname = None
    if holder is not None:
        index = hit.stack.index(holder)
        qualname = _qualname(hit.stack[:index], holder.name)
    owner = None
    if function is not None:
        index = hit.stack.index(function)
        if index > 0 and isinstance(hit.stack[index - 1], ast.ClassDef):
            owner = _qualname(hit.stack[: index - 1], hit.stack[index - 1].name)
    span = function if function is not None else (hit.stack[0] if hit.stack else hit.node)
    return SiteFact(
        line=hit.node.lineno,
        end_line=hit.node.end_lineno or hit.node.lineno,
        function=qualname,
        owner=owner,
        decorators=tuple(src.flat(d) for d in function.decorator_list) if function is not None else (),
        kind=facts.kind,
        written=facts.written,
        is_call=facts.is_call,
        caught=facts.caught,
        cause=facts.cause,
        message=facts.message,
        guard=facts.guard,
        excerpt=_excerpt(span, hit.node, lines, options.excerpt_lines),
        function_doc=ast.get_docstring(function) if function is not None else None,
        reason=facts.reason,
        params=decl.function_params(function, src) if function is not None else (),
        lints=facts.lints,
    )


def _excerpt(span: ast.AST, node: ast.Raise, lines: list[str], limit: int) -> Excerpt:
    """The enclosing definition, clipped to ``limit`` lines that keep the raise in view."""
    first = _first_line(span)
    last = span.end_lineno or span.lineno
    raise_first, raise_last = node.lineno, node.end_lineno or node.lineno
    limit = max(limit, raise_last - raise_first + 1)
    if last - first + 1 > limit:
        lowest = first
        before = (limit - (raise_last - raise_first + 1)) // 2
        first = max(first, raise_first - before)
        last = min(last, first + limit - 1)
        first = max(lowest, last - limit + 1)
    return Excerpt(start_line=first, text="\n".join(lines[first - 1 : last]))
