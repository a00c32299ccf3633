"""The per-file pass: SourceFile -> FileFacts | FileFailure, a pure function of the file's bytes.

``ast`` (CPython's own parser, the floor for speed) reads the whole file: declarations,
and where every raise is. libcst then parses only the units that hold a raise (the
outermost function around it, or the top-level statement) to model messages and
guards. A unit libcst cannot parse still yields all its raise sites, marked as such.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import hashlib
import io
import json
import logging
import pickle
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import libcst as cst

from ..model import (
    Argument,
    ClassFact,
    FileFacts,
    FileFailure,
    Guard,
    Helper,
    HelperCall,
    Location,
    MessageTemplate,
    Opaque,
    Param,
    Passage,
    RaiseFacts,
    Signature,
    SiteFact,
    Statement,
    Text,
    from_data,
    to_data,
)
from ..model.codes import RaiseKind, Reason
from ..options import Options, strict_from_env
from ..sources import DecodeError, SourceFile, decode_source, split_lines
from . import declarations as decl
from . import reads
from .argerror import parser_receiver
from .callers import in_file_callers, in_file_calls
from .calls import calls_made, module_instances
from .class_messages import class_text
from .constants import literal_exports, module_names, mutated_names, unpacked
from .cstpass import UnitAnalysis, parse_unit
from .flags import command_parameters, may_declare_flags, statement_flags, typer_commands
from .helpers import Callees, HelperDef, callee_of, candidate_callees, helper_defs, is_branch_end, own_package_imports
from .lazy import lazy_attributes
from .messages import render_template, unknown
from .optional import optional_names
from .overrides import compiled_overrides
from .parsers import parser_functions
from .platforms import OTHER_PLATFORM_MODULES, platform_imports, required_packages
from .purity import changed_by, first_changes
from .routes import call_checks, call_routes
from .scope import ModuleNames
from .sites import defined_under, excerpt_of, loops_read
from .syntax import Function, walk
from .units import (
    COMPOUND,
    DEFS,
    SCOPES,
    WORD,
    children,
    method_stores,
    needed_end,
    too_deep_for_libcst,
    unit_text,
)
from .uses import ModuleFunctions, evident_types
from .validators import passes_none, refuses_nothing

log = logging.getLogger("raisedocs")


@dataclass
class _Hit:
    node: ast.stmt  # a raise, or a call statement that may call a raising helper (collect.helpers)
    stack: tuple[ast.stmt, ...]  # the compound statements around the raise, outermost first
    callee: str | None = None  # a call statement's callee as written
    branch_end: bool = False  # a call statement that ends a branch (helpers.is_branch_end)
    receiver: str | None = None  # ``X.error(arg)``: the class X is bound to, as written, or ``self`` (argerror.parser_receiver)


@dataclass
class _FileScan:
    imports: list[tuple[str, str]]
    classes: list[ClassFact]
    functions: list[tuple[str, str | None]]
    hits: list[_Hit]
    kinds: dict[str, str]
    assigned: dict[str, list[ast.expr | str | None]]  # name -> what each binding binds (constants.module_names)
    flags: list[tuple[str, str]]
    defs: list[tuple[str, Function]] = field(default_factory=list)  # every function definition, by qualname
    # module-level functions and direct methods (qualname, node, owner class qualname or None)
    top_defs: list[tuple[str, Function, str | None]] = field(default_factory=list)
    calls: list[_Hit] = field(default_factory=list)  # call statements inside functions (collect.helpers)
    transforms: list[str] = field(default_factory=list)
    specifiers: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (transform, its field specifiers)
    star_imports: list[str] = field(default_factory=list)
    typing_imports: set[str] = field(default_factory=set)  # names an import under ``if TYPE_CHECKING:`` binds
    runtime_imports: set[str] = field(default_factory=set)  # names another import binds
    conditional_imports: set[str] = field(default_factory=set)  # names an import under an ``if`` or ``try`` binds
    typer_apps: dict[str, int] = field(default_factory=dict)  # (collect.flags.typer_commands)


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
        raise ValueError(f"{source.path}: contents not read (sources.read_contents)")  # a bug of ours
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


def _statement_flags(stmt: ast.stmt, stack: tuple[ast.stmt, ...], scan: _FileScan) -> list[tuple[str, str]]:
    """What a statement declares for a CLI (collect.flags), a command function's options with it."""
    found = statement_flags(stmt)
    if isinstance(stmt, DEFS) and stmt.decorator_list:
        found.extend(command_parameters(stmt, _qualname(stack, stmt.name), scan.typer_apps))
    return found


def _scan(tree: ast.Module, module: str, is_package: bool, src: decl.SourceText, has_flag_calls: bool = True) -> _FileScan:
    scan = _FileScan(imports=[], classes=[], functions=[], hits=[], kinds={}, assigned={}, flags=[],
                     typer_apps=typer_commands(tree) if has_flag_calls else {})
    # Statements only: a raise is a statement, so expressions are never walked.
    work: list[tuple[ast.stmt, tuple[ast.stmt, ...], bool]] = [(s, (), True) for s in reversed(tree.body)]
    while work:
        stmt, stack, at_module = work.pop()
        if isinstance(stmt, ast.Raise):
            scan.hits.append(_Hit(stmt, stack))
            continue
        if isinstance(stmt, (ast.Expr, ast.Return)) and (callee := callee_of(stmt)) is not None and any(isinstance(n, DEFS) for n in stack):
            scan.calls.append(_Hit(stmt, stack, callee, is_branch_end(stmt, stack[-1] if stack else None)))
        if isinstance(stmt, ast.Global):
            # A function may rebind these module names: they are never constants.
            for name in stmt.names:
                scan.assigned.setdefault(name, []).append(None)
        if at_module:
            _module_binding(stmt, module, is_package, scan, typing=isinstance(stmt, _IMPORTS) and _typing_block(stack),
                            conditional=any(isinstance(n, (ast.If, ast.Try)) for n in stack))
        if has_flag_calls and isinstance(stmt, _MAY_DECLARE_FLAGS):
            scan.flags.extend(_statement_flags(stmt, stack, scan))
        if isinstance(stmt, ast.ClassDef):
            scan.classes.append(_with_message(decl.class_fact(stmt, _qualname(stack, stmt.name), src), stmt, src))
        elif isinstance(stmt, DEFS):
            scan.functions.append((_qualname(stack, stmt.name), src.flat(stmt.returns) if stmt.returns else None))
            scan.defs.append((scan.functions[-1][0], stmt))
            if not any(isinstance(n, DEFS) for n in stack):
                owner = _qualname(stack[:-1], stack[-1].name) if stack and isinstance(stack[-1], ast.ClassDef) else None
                scan.top_defs.append((scan.functions[-1][0], stmt, owner))
        if isinstance(stmt, (*DEFS, ast.ClassDef)) and any(decl.is_dataclass_transform(d) for d in stmt.decorator_list):
            scan.transforms.append(_qualname(stack, stmt.name))
            if specifiers := decl.transform_specifiers(stmt.decorator_list, src):
                scan.specifiers.append((scan.transforms[-1], specifiers))
        if isinstance(stmt, COMPOUND):
            inner = (*stack, stmt)
            inner_at_module = at_module and not isinstance(stmt, SCOPES)
            for child in reversed(list(children(stmt))):
                work.append((child, inner, inner_at_module))
    scan.hits.sort(key=lambda h: (h.node.lineno, h.node.col_offset))
    return scan


_MAY_DECLARE_FLAGS = (ast.Expr, ast.Assign, ast.For, *DEFS)
_IMPORTS = (ast.Import, ast.ImportFrom)
_MAY_IMPORT_PLATFORM = re.compile(rf"\b(?:{'|'.join(sorted(OTHER_PLATFORM_MODULES))})\b")  # (the cheap text test first)


def _certain_imports(scan: _FileScan) -> tuple[tuple[str, str], ...]:
    """The module's imports, but a name that imports under an ``if`` or ``try`` bind to different
    modules (``os.path``: ``posixpath`` or ``ntpath`` by platform): which one it is, is not known."""
    targets: dict[str, set[str]] = {}
    for local, target in scan.imports:
        targets.setdefault(local, set()).add(target)
    return tuple((local, target) for local, target in scan.imports
                 if len(targets[local]) == 1 or local not in scan.conditional_imports)


_BUILTIN_CLASSES = frozenset(name for name, value in vars(builtins).items() if isinstance(value, type))
_REGISTERS = re.compile(r"\b(\w+)\s*\.\s*register\b")  # (``\b``: a match starts where a word does, tried there only)


def _registers(text: str) -> tuple[str, ...]:
    """The names ``.register`` is read on (``Sized.register(Bag)``, ``@Base.register``: a virtual subclass of an ABC)."""
    return tuple(sorted(set(_REGISTERS.findall(text)))) if ".register" in text else ()


def _typing_block(stack: tuple[ast.stmt, ...]) -> bool:
    """Whether a module-level statement stands in an ``if TYPE_CHECKING:`` block (which never runs)."""
    return any(isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test) for n in stack)


def _module_binding(stmt: ast.stmt, module: str, is_package: bool, scan: _FileScan, typing: bool = False,
                    conditional: bool = False) -> None:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for local, target in decl.import_bindings(stmt, module, is_package):
            if conditional and local in _BUILTIN_CLASSES:
                continue  # (``if sys.platform[:4] == "java": from java.lang import Exception``: the builtin may stand)
            if conditional:
                scan.conditional_imports.add(local)
            (scan.typing_imports if typing else scan.runtime_imports).add(local)
            scan.imports.append((local, target))
            scan.kinds[local] = "import"
        if isinstance(stmt, ast.ImportFrom) and any(alias.name == "*" for alias in stmt.names):
            star = decl.resolve_relative(module, is_package, stmt.level, stmt.module)
            if star:
                scan.star_imports.append(star)
    elif isinstance(stmt, (*DEFS, ast.ClassDef)):
        scan.kinds[stmt.name] = "def" if isinstance(stmt, DEFS) else "class"
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value if not isinstance(stmt, ast.AugAssign) else None
        for bound in targets:
            elements = dict(unpacked(bound, value)) if value is not None and not isinstance(bound, ast.Name) else {}
            for node in walk(bound):
                if isinstance(node, ast.Name):
                    scan.kinds.setdefault(node.id, "var")
                    single = isinstance(bound, ast.Name) and value is not None
                    scan.assigned.setdefault(node.id, []).append(value if single else elements.get(node.id))


def _qualname(stack: tuple[ast.stmt, ...], name: str) -> str:
    parts: list[str] = []
    for node in stack:
        if isinstance(node, ast.ClassDef):
            parts.append(node.name)
        elif isinstance(node, DEFS):
            parts.extend((node.name, "<locals>"))
    return ".".join([*parts, name])


# --- units and sites -----------------------------------------------------------------------


def _unit_of(hit: _Hit) -> tuple[ast.stmt, ast.stmt | None]:
    """A raise's unit (its outermost function, else its top-level statement), and the statement around it (a method's class)."""
    for index, node in enumerate(hit.stack):
        if isinstance(node, DEFS):
            return node, hit.stack[index - 1] if index else None
    return (hit.stack[0] if hit.stack else hit.node), None


def _analyse(path: str, text: str, tree: ast.Module, options: Options, memo: UnitMemo | None) -> FileFacts:
    lines = split_lines(text)
    src = decl.SourceText(lines)
    module = decl.module_name(path, options.source_roots)
    scan = _scan(tree, module, path.endswith("__init__.py"), src, may_declare_flags(text))
    helpers, callees = _helper_candidates(scan, module)
    parser_calls = _parser_calls(scan)
    calls = (h for h in scan.calls
             if h.callee in callees.anywhere or h.branch_end and h.callee in callees.in_branch or h.callee in parser_calls)
    scan.hits = sorted([*scan.hits, *calls], key=lambda h: (h.node.lineno, h.node.col_offset))
    declares = bool(scan.flags) or "add_parser" in text  # (a file that may declare a command's flags)
    names, assignments = module_names(scan.kinds, scan.assigned, src.flat, mutated_names(text, scan.assigned))
    if "ImportError" in text or "ModuleNotFoundError" in text:
        names = dataclasses.replace(names, optional=optional_names(tree.body, text))
    sites: list[SiteFact] = []
    # (what, id of a function node) -> its call style or parameters, found once for all its raises
    per_function: dict[tuple[str, int], Any] = {("module", 0): ModuleFunctions(tree)}  # (what a parameter passed on is used as)
    for unit, owner, hits in _units(scan.hits):
        # A unit's raises are read from the text they need alone, and its call statements from a
        # text of their own (which reaches them, and keeps them whole): a raise reads the same
        # whatever calls its function makes.
        for group in ([h for h in hits if h.callee is None], [h for h in hits if h.callee is not None]):
            if group:
                for hit, facts in zip(group, _memo_unit_facts(unit, group, lines, names, memo, owner)):
                    sites.append(_site(hit, facts, lines, src, options, per_function))
    sites.sort(key=lambda s: (s.at.line, s.at.end_line))
    raising = sorted({(s.at.function, s.owner) for s in sites if s.at.function}, key=str)
    found = FileFacts(
        path=path,
        module=module,
        imports=_certain_imports(scan),
        star_imports=tuple(scan.star_imports),
        typing_only=tuple(sorted(scan.typing_imports - scan.runtime_imports - {n for n, kind in scan.kinds.items() if kind != "import"})),
        exports=literal_exports(scan.assigned.get("__all__")),
        classes=tuple(scan.classes),
        functions=tuple(scan.functions),
        assignments=tuple(assignments),
        module_names=tuple(sorted(scan.kinds)),
        constants=tuple(sorted(names.values.items())),
        sentinels=tuple(sorted(names.sentinels)),
        overridden=compiled_overrides(tree),
        platform_imports=platform_imports(tree) if _MAY_IMPORT_PLATFORM.search(text) else (),
        packages=required_packages(tree), registers=_registers(text),
        parsers=parser_functions(tree) if declares else (),
        routes=call_routes(tree) if declares else (),
        checks=call_checks(tree) if declares else (),
        flags=tuple(sorted(set(scan.flags))),
        transforms=tuple(sorted(set(scan.transforms))),
        specifiers=tuple(sorted(set(scan.specifiers))),
        lazy=lazy_attributes(tree) if "__getattr__" in text else (),
        callers=in_file_callers(text, tree, scan.defs, raising),
        calls=in_file_calls(text, tree, scan.defs, (c.qualname for c in scan.classes), raising),
        helpers=_helpers(helpers, sites, src),
        none_first=_lets_through(scan.top_defs, passes_none),
        refuses_nothing=_lets_through(scan.top_defs, refuses_nothing),
        helper_calls=_helper_calls(sites),
        made=calls_made(scan.top_defs, src, scan.kinds, module_instances(scan.assigned, scan.kinds)),
        sites=tuple(sites),
    )
    return dataclasses.replace(found, interface=interface_digest(found))


def _units(hits: list[_Hit]) -> Iterable[tuple[ast.stmt, ast.stmt | None, list[_Hit]]]:
    """The hits grouped by their unit (the outermost definition around them), each with the class that owns it."""
    units: dict[int, tuple[ast.stmt, ast.stmt | None, list[_Hit]]] = {}
    for hit in hits:
        unit, owner = _unit_of(hit)
        units.setdefault(id(unit), (unit, owner, []))[2].append(hit)
    return units.values()


def _lets_through(defs: list[tuple[str, Function, str | None]], test: Callable[[Function], bool]) -> tuple[str, ...]:
    """The module-level functions that a validator's call may be of and that pass ``test``
    (collect.validators: ``passes_none``, ``refuses_nothing``)."""
    return tuple(name for name, stmt, owner in defs if owner is None and "." not in name and test(stmt))


def _helper_calls(sites: list[SiteFact]) -> tuple[HelperCall, ...]:
    """The sites that are call statements which may call a raising helper (link.helpers resolves them)."""
    return tuple(HelperCall(callee=s.raised.written or "", function=s.at.function, owner=s.owner, line=s.at.line)
                 for s in sites if s.raised.statement.kind == RaiseKind.HELPER_CALL)


_LINE_FIELDS = frozenset({"line", "end_line", "start_line", "tail", "tail_end"})  # records' fields that hold a line


def interface_digest(facts: FileFacts) -> str:
    """A digest of the module's declarations (its raise sites and calls aside) without the
    lines their records hold: what resolving names, classes, methods and helpers in it reads.
    An edit that only moves lines (a comment added above) keeps it. Lines held in plain tuples
    (``platform_imports``, ``checks``) stay in: the digest then changes with them, which only
    costs reuse. Pickled without the memo, so it depends on values alone, never on which equal
    objects are one (the records hold tuples, never sets, whose order would follow the hash seed)."""
    out = io.BytesIO()
    pickler = _LinesLeftOut(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # (no memo)
    pickler.dump(dataclasses.replace(facts, sites=(), made=(), interface=""))
    return hashlib.sha256(out.getvalue()).hexdigest()[:32]


class _LinesLeftOut(pickle.Pickler):
    """Pickles a record as its type's name and its fields but those holding a line."""

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if not dataclasses.is_dataclass(kind):
            return NotImplemented
        return tuple, ((kind.__name__, *(getattr(obj, name) for name in _kept_fields(kind))),)


@cache
def _kept_fields(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind) if f.name not in _LINE_FIELDS)


_UNMODELLED = frozenset({Reason.TOO_DEEP_FOR_LIBCST, Reason.LIBCST_PARSE_ERROR, Reason.TOO_DEEP, Reason.UNIT_MISMATCH,
                         Reason.LIBCST_VALIDATION_ERROR})


def _parser_calls(scan: _FileScan) -> set[str]:
    """The callees of the ``X.error(arg)`` call statements whose ``X`` the code binds to a
    class (argerror.parser_receiver; each hit gets its ``receiver``); every call statement of
    such a callee is read (the libcst pass reads a unit's calls by callee)."""
    found = set()
    for hit in scan.calls:
        if hit.callee is None or not hit.callee.endswith(".error"):
            continue
        function = next((n for n in reversed(hit.stack) if isinstance(n, DEFS)), None)
        name = hit.callee.split(".", 1)[0]
        values = scan.assigned.get(name) if scan.kinds.get(name) == "var" else None
        hit.receiver = parser_receiver(hit.node, function, values)
        if hit.receiver is not None:
            found.add(hit.callee)
    return found


def _helper_candidates(scan: _FileScan, module: str) -> tuple[list[HelperDef], Callees]:
    """The file's functions that may be raising helpers, and the callees of its call statements
    that may be (collect.helpers)."""
    methods = {qualname.rsplit(".", 1)[-1] for qualname, _, owner in scan.top_defs if owner is not None}
    has_bases = any(c.bases for c in scan.classes)
    calls = sorted({(h.callee, h.branch_end) for h in scan.calls if h.callee is not None})
    # A name defined more than once, or also bound by an import or an assignment (``try: from
    # numba import f`` ... ``except ImportError: def f(): raise ...``), may be another function when called.
    counts = Counter(qualname for qualname, _ in scan.defs)
    bound = {local for local, _ in scan.imports} | set(scan.assigned)
    defs = [d for d in scan.top_defs if counts[d[0]] == 1 and (d[2] is not None or d[0] not in bound)]
    callees, chosen = candidate_callees(calls, helper_defs(defs), methods, has_bases, own_package_imports(scan.imports, module))
    return chosen, callees


def _helpers(found: list[HelperDef], sites: list[SiteFact], src: decl.SourceText) -> tuple[Helper, ...]:
    """The raising helpers of the file whose tail is one of its sites (a raise, or a call that
    may be of a helper), with their parameters after the object's."""
    tails = {(s.at.function, s.at.line): s for s in sites}
    out = []
    for helper in found:
        tail = tails.get((helper.qualname, helper.tail.lineno))
        if tail is None or tail.raised.reason in _UNMODELLED:
            continue
        params = decl.function_params(helper.node, src)
        if helper.owner is not None and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in helper.node.decorator_list):
            params = params[1:]  # self, cls
        out.append(Helper(function=helper.qualname, owner=helper.owner, line=helper.node.lineno, params=params,
                          tail=helper.tail.lineno, tail_end=tail.at.end_line, raised=tail.raised, annotated=helper.annotated))
    return tuple(sorted(out, key=lambda h: h.line))


def _memo_unit_facts(unit: ast.stmt, hits: list[_Hit], lines: list[str], names: ModuleNames, memo: UnitMemo | None,
                     owner: ast.stmt | None) -> list[RaiseFacts]:
    calls = frozenset(h.node.lineno for h in hits if h.callee is not None)  # (call statements are kept whole: units.unit_text)
    text = unit_text(unit, lines, needed_end(unit, max(hit.node.lineno for hit in hits), lines), calls)
    methods = method_stores(unit, owner, text)  # what the class's methods it calls store (attributes.Stores)
    # (read on the whole unit, the text leaves out ``xs.append(x)``; for each raise, up to it)
    changes = first_changes(unit, text)
    changed = [changed_by(changes, hit.node.end_lineno or hit.node.lineno) for hit in hits]
    if memo is None:
        return _unit_facts(unit, hits, text, names, methods, changed)
    # What the pass reads besides the text: whether the unit is a definition, and how the
    # module binds each name the unit mentions (scope.Scope.classify). Every word of the
    # text counts as a name: a superset, cheaper than a walk, and never a wrong reuse.
    # Listing the words that are module-level names is enough: a word that becomes one
    # changes the list.
    used = sorted(n for n in set(WORD.findall(text)) if n in names.kinds or n in names.values or n in names.aliases)
    material = json.dumps([text, isinstance(unit, DEFS), [(h.callee, h.branch_end) for h in hits],
                           [[n, names.kinds.get(n), names.values.get(n), n in names.sentinels, names.aliases.get(n), names.optional.get(n)]
                            for n in used],
                           methods and [methods[0], {m: sorted(a) for m, a in methods[1].items()}], [sorted(c) for c in changed]])
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
    found = _unit_facts(unit, hits, text, names, methods, changed)
    memo.now[key] = [to_data(f) for f in found]
    return found


def _unit_facts(unit: ast.AST, hits: list[_Hit], text: str, names: ModuleNames, methods: tuple[str, dict[str, frozenset[str]]] | None,
                changed: list[frozenset[str]]) -> list[RaiseFacts]:
    """The libcst pass over one unit (its ``units.unit_text``); ``changed``: per hit, the
    names whose object the unit may have changed in place by then (one analysis per set)."""
    if too_deep_for_libcst(unit, text):
        return [_fallback(hit, Reason.TOO_DEEP_FOR_LIBCST) for hit in hits]
    try:
        found = parse_unit(text, Callees(anywhere=frozenset(h.callee for h in hits if h.callee is not None and not h.branch_end),
                                         in_branch=frozenset(h.callee for h in hits if h.callee is not None and h.branch_end)))
    except cst.ParserSyntaxError:
        return [_fallback(hit, Reason.LIBCST_PARSE_ERROR) for hit in hits]
    except RecursionError:
        return [_fallback(hit, Reason.TOO_DEEP) for hit in hits]
    if not isinstance(unit, DEFS):
        found = [(node, chain) for node, chain in found if not any(isinstance(n, cst.FunctionDef) for n in chain)]
    if all(hit.callee is not None for hit in hits):
        found = [(node, chain) for node, chain in found if not isinstance(node, cst.Raise)]  # (the calls' own text: _analyse)
    if len(found) != len(hits) or any(isinstance(node, cst.Raise) != (hit.callee is None) for hit, (node, _) in zip(hits, found)):
        return [_fallback(hit, Reason.UNIT_MISMATCH) for hit in hits]
    out: list[RaiseFacts] = []
    analyses: dict[frozenset[str], UnitAnalysis] = {}
    try:
        for hit, changed_here, (node, chain) in zip(hits, changed, found):
            analysis = analyses.get(changed_here) or analyses.setdefault(changed_here, UnitAnalysis(names, methods, changed_here))
            try:
                out.append(analysis.analyse(node, chain))
            except RecursionError:
                out.append(_fallback(hit, Reason.TOO_DEEP))
            except cst.CSTValidationError:  # a node libcst accepts when parsing but refuses to rebuild
                out.append(_fallback(hit, Reason.LIBCST_VALIDATION_ERROR))
    finally:
        for analysis in analyses.values():
            analysis.close()  # (see UnitAnalysis.close)
    return out


def _fallback(hit: _Hit, reason: Reason) -> RaiseFacts:
    """A raise found by ``ast`` that libcst could not model: located, named, and honest."""
    exc = hit.node.exc if isinstance(hit.node, ast.Raise) else None
    if hit.callee is not None:
        kind, written = RaiseKind.HELPER_CALL, hit.callee
    elif exc is None:
        kind, written = RaiseKind.RERAISE, None
    elif isinstance(exc, ast.Call):
        kind, written = RaiseKind.CALL, ast.unparse(exc.func)
    else:
        kind, written = RaiseKind.NAME, ast.unparse(exc)
    guard = Guard(code="<unknown>", tree=Opaque(code="", reason=reason))
    cause = ast.unparse(hit.node.cause) if isinstance(hit.node, ast.Raise) and hit.node.cause is not None else None
    is_call = isinstance(exc, ast.Call) or hit.callee is not None
    return RaiseFacts(statement=Statement(kind=kind, cause=cause, guard=guard), written=written, is_call=is_call,
                      message=unknown("unsupported", reason), reason=reason)


def _site(hit: _Hit, facts: RaiseFacts, lines: list[str], src: decl.SourceText, options: Options,
          per_function: dict[tuple[str, int], Any]) -> SiteFact:
    function = next((n for n in reversed(hit.stack) if isinstance(n, DEFS)), None)
    holder = next((n for n in reversed(hit.stack) if isinstance(n, (*DEFS, ast.ClassDef))), None)
    qualname = None
    if holder is not None:
        index = hit.stack.index(holder)
        qualname = _qualname(hit.stack[:index], holder.name)
    owner = None
    if function is not None:
        index = hit.stack.index(function)
        if index > 0 and isinstance(cls := hit.stack[index - 1], ast.ClassDef):
            owner = _qualname(hit.stack[: index - 1], cls.name)
    span = function if function is not None else (hit.stack[0] if hit.stack else hit.node)
    # What only the file shows: the guard's names defined under the raise's definitions, the
    # loops it runs in; and texts cut to size (the unit memo keeps the pass's own).
    guard = defined_under(facts.statement.guard, hit.stack, next((n for n in hit.stack if isinstance(n, (*DEFS, ast.ClassDef))), None))
    raised = dataclasses.replace(
        facts, message=_bounded(facts.message), passage=_bounded_arguments(facts.passage),
        statement=dataclasses.replace(facts.statement, guard=dataclasses.replace(guard, looped=loops_read(hit.stack, hit.node))),
    )
    at = Location(
        line=hit.node.lineno,
        end_line=hit.node.end_lineno or hit.node.lineno,
        function=qualname,
        decorators=tuple(src.flat(d) for d in function.decorator_list) if function is not None else (),
        excerpt=excerpt_of(span, hit.node, lines, options.excerpt_lines),
    )
    return SiteFact(
        at=at,
        owner=owner,
        raised=raised,
        receiver=hit.receiver,
        function_doc=decl.cut_text(ast.get_docstring(function)) if function is not None else None,
        signature=Signature(
            params=_params(function, src, per_function), call_style=_call_style(function, per_function, lines),
            unread=reads.unread_params(function, hit.stack, hit.node.lineno),
            pure_reads=reads.pure_reads(function, hit.stack, hit.node.lineno, hit.node.end_lineno),
            attribute_reads=reads.attribute_reads(function, hit.stack, hit.node),
            receiver_calls=reads.receiver_calls(function, hit.stack, hit.node),
        ) if function is not None else Signature(),
    )


def _bounded_arguments(passage: Passage) -> Passage:
    """The passage with its arguments' messages cut to size."""
    if passage.arguments is None:
        return passage
    arguments = tuple(dataclasses.replace(a, message=_bounded(a.message)) if a.message is not None else a for a in passage.arguments)
    return dataclasses.replace(passage, arguments=arguments)


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef, src: decl.SourceText,
            per_function: dict[tuple[str, int], Any]) -> tuple[Param, ...]:
    """The function's parameters, with the types its code evidently uses them as; once per function."""
    found = per_function.get(("params", id(function)))
    if found is None:
        module = per_function.get(("module", 0))
        used = evident_types(function, module)
        found = per_function["params", id(function)] = tuple(
            dataclasses.replace(p, used_as=used[p.name]) if p.name in used else p for p in decl.function_params(function, src))
    return found


def _call_style(function: ast.FunctionDef | ast.AsyncFunctionDef, per_function: dict[tuple[str, int], Any], lines: list[str]) -> str:
    found = per_function.get(("style", id(function)))
    if found is None:
        # A yield is written ``yield`` within the function's lines (non-ASCII text: walked,
        # as a name may be spelled in other characters).
        text = "\n".join(lines[function.lineno - 1 : function.end_lineno])
        found = per_function["style", id(function)] = decl.call_style(function, may_yield="yield" in text or not text.isascii())
    return found


def _with_message(fact: ClassFact, node: ast.ClassDef, src: decl.SourceText) -> ClassFact:
    """The class with how it makes an exception's message (a class with bases may be one)."""
    if not node.bases:
        return fact
    text = class_text(node, src, fact.init)

    def bounded(argument: Argument) -> Argument:
        return dataclasses.replace(argument, message=_bounded(argument.message)) if argument.message is not None else argument

    text = dataclasses.replace(
        text, template=_bounded(text.template) if text.template is not None else None, passes=tuple(bounded(a) for a in text.passes),
        defaults=tuple((name, bounded(a)) for name, a in text.defaults))
    return dataclasses.replace(fact, text=text)


def _bounded(message: MessageTemplate) -> MessageTemplate:
    """The message with any text longer than MAX_TEXT_CHARS cut (a huge literal would be copied
    into the card's template, parts, trigger message and validator)."""
    long = [p for p in message.parts or () if isinstance(p, Text) and len(p.text) > decl.MAX_TEXT_CHARS]
    if not long and len(message.source or "") <= decl.MAX_TEXT_CHARS:
        return message
    parts = tuple(Text(text=decl.cut_text(p.text)) if isinstance(p, Text) else p for p in message.parts) \
        if message.parts is not None else None
    return dataclasses.replace(
        message, parts=parts, template=render_template(parts) if parts is not None else None, source=decl.cut_text(message.source),
    )
