"""Units: a definition that holds raises -> the text of it that the libcst pass parses.

libcst pays for every token it reads, so a unit's text is cut and thinned with what the
``ast`` pass already knows: a function is read only up to the statement holding its last
raise when nothing after it can change a name's scope, and statements the pass cannot use
become ``...``. The facts of the thinned text are those of the whole one (tests check it
on every fixture).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator, Mapping

from .declarations import SourceText, dotted_name
from .scope import EXIT_CALLS
from .syntax import child_nodes

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (*DEFS, ast.ClassDef)
COMPOUND = (*SCOPES, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
WORD = re.compile(r"[^\W\d]\w*")
_BODIES = ("body", "orelse", "finalbody")
ALL_ATTRIBUTES = frozenset({"*"})  # a method that may store any attribute (method_stores)
MAX_TRY_BODY = 4  # statements of a try body whose raising the guard models (paths.PathModel.handler_reached)


def first_line(node: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def children(stmt: ast.stmt) -> Iterator[ast.stmt]:
    """The statements directly inside a compound statement, block by block (a try's
    handlers come last: not source order)."""
    for block in _blocks(stmt):
        yield from block


def unit_text(unit: ast.stmt, lines: list[str], end: int | None = None, keep: frozenset[int] = frozenset()) -> str:
    """The text libcst parses for ``unit``: its lines up to ``end`` (None: all of them),
    thinned (but for the statements holding a line of ``keep``: the call statements the pass
    reads, collect.helpers), and under ``if 1:`` when the unit is indented."""
    first = first_line(unit)
    end = end or unit.end_lineno or unit.lineno
    prefix, _ = _split_at(lines[unit.lineno - 1], unit.col_offset)
    if prefix.strip():
        # A simple statement after ";" on a line: cut it out exactly.
        return SourceText(lines).segment(unit) + "\n"
    chunk = _unread_left_out(unit, lines, first, end, keep)
    if unit.col_offset > 0:
        return "if 1:\n" + "\n".join(chunk) + "\n"
    return "\n".join(chunk) + "\n"


def _unread_left_out(unit: ast.stmt, lines: list[str], first: int, end: int, keep: frozenset[int] = frozenset()) -> list[str]:
    """Lines ``first..end`` without what the libcst pass never reads.

    A statement that has its lines to itself becomes ``...`` (a literal's, a docstring's:
    ``pass``, which does nothing) when the pass could read
    nothing in it: it holds no raise and nothing that leaves or narrows the path (return,
    break, continue, assert, match, a call of an exit function, global, nonlocal; see
    ``paths.PathModel``), so it falls through, and no name it may bind is mentioned
    anywhere else in the unit (``scope.Scope`` tracks bindings). An expression statement
    (a docstring, a logging call) binds nothing the scope tracks unless it holds ``:=``.
    Comment and blank lines between the statements of a block go too. libcst pays for
    every token; these were about a fifth of the lines it read on vLLM."""
    out: dict[int, str | None] = {}  # line -> its replacement, None: left out
    words: Counter[str] | None = None  # word -> occurrences in lines first..end
    read: set[str] | None = None  # attributes the unit stores and reads (attributes.py follows them)
    blocks = list(_thinned_blocks(unit)) if isinstance(unit, COMPOUND) else []
    kept = "\n".join(lines[first - 1 : end]) if blocks else ""  # the unit's text (words and attributes are read in it)
    while blocks:
        previous_end = None
        for stmt in blocks.pop():
            start = first_line(stmt)
            stop = stmt.end_lineno or stmt.lineno
            if stop > end:
                break
            if previous_end is not None and not lines[previous_end - 1].endswith("\\"):
                # (a line that a backslash continues keeps the blank line that ends it)
                out.update(dict.fromkeys(range(previous_end + 1, start)))
            previous_end = stop
            kept_call = any(start <= line <= stop for line in keep)
            indent = _alone_on_lines(stmt, lines) if not kept_call and _falls_through(stmt, lines) else None
            if indent is not None and read is None:
                read = _read_attributes(unit, kept)
            if indent is not None and read and _may_store(stmt, lines, read):
                indent = None
            if indent is not None and not isinstance(stmt, ast.Expr):
                if words is None:
                    words = _word_counts(kept) if kept.isascii() else Counter()
                if not _binds_only_unread(stmt, lines, words):
                    indent = None
            if indent is not None:
                out.update(dict.fromkeys(range(start + 1, stop + 1)))
                # (a docstring or other literal does nothing: ``pass``; ``...`` stands for a statement left out, paths.plain_statement)
                out[start] = indent + ("pass" if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) else "...")
            elif isinstance(stmt, COMPOUND):
                blocks.extend(_thinned_blocks(stmt))
    if not out:
        return lines[first - 1 : end]
    return [text for number, line in enumerate(lines[first - 1 : end], first)
            if (text := out.get(number, line)) is not None]


_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Assert, ast.Match, ast.Global, ast.Nonlocal)


# Calls that block until another thread acts (``self._condition.wait(timeout)``), or let one run
# (collect.attributes, paths.PathModel read them).
WAITS = frozenset({"wait", "wait_for", "acquire", "sleep"})


def _falls_through(stmt: ast.stmt, lines: list[str]) -> bool:
    """Whether the statement holds no raise and nothing that leaves or narrows the path
    (inside a nested definition only a raise counts: its statements are not on the path).
    An expression statement also must hold no ``:=`` (looked for in its lines)."""
    if isinstance(stmt, ast.Expr):
        if isinstance(stmt.value, ast.Constant):
            return True
        if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in WAITS:
            return False  # (a wait for another thread: paths.PathModel notes it)
        return not _is_exit_call(stmt) and ":=" not in "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
    work: list[tuple[ast.stmt, bool]] = [(stmt, False)]
    while work:
        node, nested = work.pop()
        if isinstance(node, ast.Raise):
            return False
        if not nested and (isinstance(node, _LEAVES) or _is_exit_call(node)):
            return False
        if isinstance(node, COMPOUND):
            inner = nested or isinstance(node, SCOPES)
            work.extend((child, inner) for child in children(node))
    return True


def _is_exit_call(stmt: ast.stmt) -> bool:
    """``sys.exit(...)`` and the like as a statement: paths.PathModel ends the path there."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted_name(stmt.value.func) in EXIT_CALLS


def _binds_only_unread(stmt: ast.stmt, lines: list[str], words: Counter[str]) -> bool:
    """Whether no name the statement may bind appears in the unit outside it (``words``:
    the unit's word counts, empty when its text is not ASCII: ``ast`` gives names
    NFKC-normalized, the text has them as written)."""
    text = "\n".join(lines[first_line(stmt) - 1 : stmt.end_lineno])
    bound = _bound_names([stmt], text)
    if bound is None:
        return False
    if not bound:
        return True
    own = _word_counts(text)
    return all(name in words and words[name] == own.get(name) for name in bound)


def _stored_chains(stmts: list[ast.stmt]) -> Iterator[str]:
    """The attributes (``self.x``, ``cfg.a.b``) the statements store to or delete, nested
    blocks and definitions included (each function's are followed apart: a superset)."""
    work = list(stmts)
    while work:
        node = work.pop()
        for target in _targets_of(node):
            if isinstance(target, ast.Name):
                continue
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.ctx, (ast.Store, ast.Del)) and (chain := dotted_name(part)):
                    yield chain
        if isinstance(node, COMPOUND):
            work.extend(children(node))


def _bound_chains(stmts: list[ast.stmt]) -> Iterator[str]:
    """The attributes (``self.pos``) the values the statements bind to a name read (``start =
    self.pos``), nested blocks included: a superset of those attributes.bound_reads follows."""
    work = list(stmts)
    while work:
        node = work.pop()
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else None
        if value is not None and any(isinstance(t, ast.Name) for t in _targets_of(node)):
            yield from (chain for part in ast.walk(value) if isinstance(part, ast.Attribute) and (chain := dotted_name(part)))
            # (a superset: the chains of the methods it calls too, and those their receivers start with)
        if isinstance(node, COMPOUND) and not isinstance(node, SCOPES):
            work.extend(children(node))


def _targets_of(node: ast.AST) -> list[ast.expr]:
    """What a statement assigns to, deletes, or binds by ``for`` and ``with ... as``."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _read_attributes(unit: ast.stmt, text: str) -> set[str]:
    """The attributes a statement of the unit stores and the unit's ``text`` also reads
    (more occurrences than stores), and those a local's value reads (``start = self.pos``):
    those the reaching walk follows (attributes.py)."""
    stores = Counter(_stored_chains([unit]))
    bound = set(_bound_chains(list(children(unit)))) if isinstance(unit, DEFS) else set()
    if not stores:
        return bound
    seen: Counter[str] = Counter()
    for match in _CHAIN.findall(text):  # each chain, and the chains it starts with
        parts = "".join(match.split()).split(".")
        seen.update(".".join(parts[:end]) for end in range(2, len(parts) + 1))
    return {chain for chain, count in stores.items() if seen[chain] > count} | bound


_CHAIN = re.compile(r"(?<![\w.])[^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)+")


def _may_store(stmt: ast.stmt, lines: list[str], read: set[str]) -> bool:
    """Whether a statement stores one of the attributes ``read``, or may run code that stores
    one again (a call that can reach the object, ``super()``'s, an ``await`` or ``yield``:
    attributes.Stores; looked for in its text)."""
    if not read.isdisjoint(_stored_chains([stmt])):
        return True
    text = "\n".join(lines[first_line(stmt) - 1 : stmt.end_lineno])
    words = set(WORD.findall(text))
    return "await" in words or "yield" in words or "(" in text and ("super" in words or not words.isdisjoint(c.split(".",
                                                                                                                     1)[0] for c in read))


def method_stores(unit: ast.stmt, owner: ast.stmt | None, text: str) -> tuple[str, dict[str, frozenset[str]]] | None:
    """For a method (``unit``, in class ``owner``) that stores attributes of its own object, or
    binds a local to a value that reads one (``start = self.pos``):
    that parameter's name, and for each method of the class it calls on it (``self.m(...)``
    in ``text``, the unit's), the attribute names that method, or one it calls so, stores
    on its object (attributes.Stores); ``ALL_ATTRIBUTES`` for a method the class does not
    define and may inherit. None for anything else."""
    if not isinstance(unit, DEFS) or not isinstance(owner, ast.ClassDef) or any(_named(d, "staticmethod") for d in unit.decorator_list):
        return None
    own = _object_param(unit)
    if own is None or all(chain.split(".", 1)[0] != own for chain in (*_stored_chains(unit.body), *_bound_chains(unit.body))):
        return None
    defs = {s.name: s for s in owner.body if isinstance(s, DEFS)}
    found: dict[str, frozenset[str]] = {}
    inherits = any(not _named(base, "object") for base in owner.bases)
    for name in sorted(set(re.findall(r"(?<![\w.])" + re.escape(own) + r"\s*\.\s*(\w+)\s*\(", text))):
        if name in defs:
            found[name] = frozenset(_stores_of(defs, name, set()))
        elif inherits:  # a method of a base class: it may store anything
            found[name] = ALL_ATTRIBUTES
    return own, found


def _stores_of(defs: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef], name: str, seen: set[str]) -> set[str]:
    """The attributes method ``name`` of ``defs`` (a class's methods), or a method it calls
    or reads on its object, stores on that object (a function, not a closure: a recursive
    closure is a reference cycle that would hold the class's tree)."""
    method = defs.get(name)
    param = _object_param(method) if method is not None else None
    if method is None or param is None or name in seen:
        return set()
    seen.add(name)
    names: set[str] = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == param:
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.attr)
            elif node.attr in defs:
                names |= _stores_of(defs, node.attr, seen)  # (read, or called: either may run it)
    return names


def _object_param(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    args = function.args
    first = [*args.posonlyargs, *args.args][:1]
    return first[0].arg if first else None


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def _word_counts(text: str) -> Counter[str]:
    return Counter(WORD.findall(text))


def _thinned_blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks whose statements ``unit_text`` may leave out: all but a short try body,
    which is what its handlers' raises depend on (paths.body_values)."""
    modelled = stmt.body if isinstance(stmt, (ast.Try, ast.TryStar)) and stmt.handlers and len(stmt.body) <= MAX_TRY_BODY else None
    for block in _blocks(stmt):
        if block is not modelled:
            yield block


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
    indent, _ = _split_at(lines[stmt.lineno - 1], stmt.col_offset)
    _, rest = _split_at(lines[(stmt.end_lineno or stmt.lineno) - 1], stmt.end_col_offset or 0)
    rest = rest.strip()
    if indent.strip() or (rest and not rest.startswith("#")):
        return None
    return indent


def _split_at(line: str, column: int) -> tuple[str, str]:
    """The line before and after an ``ast`` column (a UTF-8 byte offset)."""
    if line.isascii():
        return line[:column], line[column:]
    data = line.encode("utf-8")
    return data[:column].decode("utf-8", "replace"), data[column:].decode("utf-8", "replace")


def needed_end(unit: ast.stmt, last: int, lines: list[str]) -> int | None:
    """The last line of a function the libcst pass needs (``last``: the line of its last
    raise): the end of the body statement holding that raise, when no statement after it
    binds a name that the text up to there mentions (the scope of every name the pass looks
    at is then the same; about an eighth of the lines libcst would parse, on the stdlib and
    on vLLM). None: all of it."""
    if not isinstance(unit, DEFS):
        return None
    index = max(i for i, stmt in enumerate(unit.body) if stmt.lineno <= last)
    tail, cut = unit.body[index + 1 :], unit.body[index].end_lineno
    if not tail or cut is None or tail[0].lineno <= cut:
        return None
    bound = _bound_names(tail, "\n".join(lines[cut : unit.end_lineno]))
    kept = "\n".join(lines[first_line(unit) - 1 : cut])
    # ``ast`` gives names NFKC-normalized, libcst as written: compare only ASCII text.
    if bound is None or not kept.isascii() or not bound.isdisjoint(WORD.findall(kept)):
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
        if isinstance(node, SCOPES):
            names.add(node.name)  # its own bindings are its own
            continue
        targets = _targets_of(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
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
        if isinstance(node, COMPOUND):
            work.extend(children(node))
    return names


# libcst nests an ``and``/``or`` of n operands n deep, and its native parser recurses that
# far: some thousands of operands overflow the C stack (a segfault, not an exception).
# Nothing real comes near (vLLM's widest is a few dozen); a unit past this is read by ``ast`` only.
LIBCST_MAX_DEPTH = 2_000
_DEPTH_CHECK_CHARS = 10_000  # a unit shorter than this cannot hold such an expression


def too_deep_for_libcst(unit: ast.AST, text: str) -> bool:
    """Whether libcst's parser would nest ``unit``'s deepest expression past LIBCST_MAX_DEPTH."""
    # Other nesting is bounded by CPython's own parser (it refuses a few hundred levels), so
    # only a unit with about as many ``and``/``or`` words as the limit can pass it.
    if len(text) < _DEPTH_CHECK_CHARS or text.count("and") + text.count("or") < LIBCST_MAX_DEPTH // 2:
        return False
    stack: list[tuple[ast.AST, int]] = [(unit, 0)]
    while stack:
        node, depth = stack.pop()
        depth += len(node.values) if isinstance(node, ast.BoolOp) else 1
        if depth > LIBCST_MAX_DEPTH:
            return True
        stack.extend((child, depth) for child in child_nodes(node))
    return False
