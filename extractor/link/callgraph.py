"""The project-wide call graph, read backwards: from the function that holds a raise to the
public entries a user calls (``base64.b32decode`` for a raise in ``base64._b32decode``).

Each file's calls (collect.calls, ``FileFacts.made``) are resolved as Python would find them,
where the tree shows it: a plain or dotted name through the module's definitions, imports and
package re-exports (``Project.resolve``); ``self.name``/``cls.name`` to the method of the
caller's class or of the nearest in-tree class it derives from that defines it
(``project.method_class``, which raising helpers use too), and ``p.name`` of a parameter
annotated with a class of the tree to that class's; a class call to the constructor it
runs (``__init__``, ``__new__``, ``__post_init__`` of the class or its in-tree bases), and to the
class itself, whose calls reach the validators pydantic runs as it builds the object. A call
through a local, an attribute of an object, a callback or a decorator is not followed. The
graph is the ``CALLERS`` index (link.indexes): each module's part is its calls into the tree,
and a search records the functions whose callers it read, so an edit elsewhere re-links a
card only where it adds, removes or changes a call into one of them.

A public entry is a name a user imports from the package: a module-level function whose
module path has no private part (or that a public package above it re-exports: ``entry_module``),
a public method of such a class, or its constructor (``pkg.Class(...)``); never one of a test
module (``options.is_test_path``). The search goes up
breadth-first, so entries come shortest call path first, ``MAX_ENTRIES`` of them, within
``MAX_DEPTH`` calls and ``MAX_SEEN`` functions.

A path is passed through (``entry_calls``) where every call on it is the first thing its
caller surely does (``MadeCall.is_first``) and hands the callee's parameters that the guard
reads the caller's own parameters of the same name unchanged (a parameter whose attributes
it reads, ``positions.ndim``, only so), or literals or module constants, which the entry's
call then fixes (solve.entries solves the card under them). A
guard that reads the object (``self.size``) is passed through where the entry is another
method of the same class, or its ``__post_init__``, calling down through ``self`` alone: the
object is the one the entry's example builds (``_keeps_object``).
"""

from __future__ import annotations

import ast
import builtins
from collections import deque
from dataclasses import dataclass, replace
from sys import intern
from typing import Any

from ..collect.calls import read_chains
from ..model import Argument, CallsMade, Card, Entries, EntryCall, EntryPath, FileFacts, MadeCall, Param, from_data, to_data
from ..model.codes import Reason
from ..model.libraries import dtype_of
from ..model.pytext import try_parse_expression
from ..options import is_test_path
from .constructors import Constructors
from .helpers import descendants
from .indexes import IndexKind, Part, Place, register
from .messages import bind_arguments
from .project import Project, decorator_target, entry_module, method_class

MAX_ENTRIES = 3
MAX_DEPTH = 8  # calls up from the card's function
MAX_SEEN = 400  # functions looked at per card's function
_SELF = ("self", "cls")
_CONSTRUCTORS = ("__init__", "__new__", "__post_init__")
_MAX_SUBCLASSES = 64  # subclasses of a private class searched for a public one
_TRANSPARENT = frozenset({"staticmethod", "classmethod", "cache", "lru_cache", "functools.cache", "functools.lru_cache"})


@dataclass(frozen=True, slots=True)
class Edge:
    """One call into a function: the calling function (module.qualname), its module and file,
    its calls record without its calls (the graph holds no file's facts: memory), and the call."""

    caller: str
    module: str
    path: str
    made: CallsMade
    call: MadeCall


def call_targets(project: Project, facts: FileFacts, callee: str, owner: str | None, receiver: str | None = None) -> list[str]:
    """The in-tree functions (module.qualname) a call of ``callee`` (as written in ``facts``'
    module, in a method of class ``owner`` or in a module-level function; ``receiver``: the
    annotation of the parameter it is called on) runs first."""
    head, _, rest = callee.partition(".")
    if head in _SELF or receiver is not None:
        cls = f"{facts.module}.{owner}" if head in _SELF and owner is not None else project.class_of_annotation(facts, receiver)
        if cls is None or not rest or "." in rest:
            return []
        found = method_class(project, cls, rest)
        return [f"{found[0].module}.{found[1].qualname}.{rest}"] if found is not None else []
    symbol = project.resolve(facts, callee)
    if symbol is None or symbol.facts is None:
        return []
    if symbol.kind in ("function", "method"):
        return [symbol.qualname]
    if symbol.kind == "class":  # (the class too: the validators pydantic runs as it is called)
        return [*(f"{where[0].module}.{where[1].qualname}.{name}" for name in _CONSTRUCTORS
                  if (where := method_class(project, symbol.qualname, name)) is not None), symbol.qualname]
    return []


def _graph_part(project: Project, facts: FileFacts) -> Part:
    """A module's calls into functions of the tree: (the function reached, (the calling
    function, the call)), with each calling function's record (its calls left out) shared.
    Held as records (``_encoded``: as JSON data for the cache)."""
    outside = {local for local, target in facts.imports if target.split(".", 1)[0] not in project.tops}  # (``torch``: not the tree's)
    items: list[tuple[str, Any]] = []
    shared: dict[str, Any] = {}
    for made in project.calls_made(facts.path):
        caller = f"{facts.module}.{made.function}"
        for call in made.calls:
            if call.callee.split(".", 1)[0] in outside:
                continue
            for target in call_targets(project, facts, call.callee, made.owner, call.receiver):
                if target != caller:
                    if made.function not in shared:
                        shared[made.function] = replace(made, calls=())
                    items.append((intern(target), (made.function, call)))  # (one string per function called: the graph's keys)
    return Part(items=tuple(items), shared=shared)


def _encoded(part: Part) -> Part:
    """The part as JSON data (as the cache keeps it, and ``_edge`` reads it back)."""
    return Part(items=tuple((key, [function, to_data(call)]) for key, (function, call) in part.items),
                shared={function: to_data(made) for function, made in part.shared.items()})


def _made(place: Place, function: str) -> CallsMade:
    """The calling function's record: as computed, or decoded once per place."""
    made = place.shared[function]
    if isinstance(made, CallsMade):
        return made
    found = place.decoded.get(function)
    if found is None:
        found = place.decoded[function] = from_data(CallsMade, made)
    return found


def _edge(place: Place, item: Any) -> Edge:
    function, call = item
    return Edge(caller=f"{place.module}.{function}", module=place.module, path=place.path, made=_made(place, function),
                call=call if isinstance(call, MadeCall) else from_data(MadeCall, call))


def _edge_view(place: Place, item: Any) -> Any:
    """What of a call into a function its paths read: all but the call's line (a shift keeps their order)."""
    function, call = item
    made = place.shared[function]
    data = to_data(call) if isinstance(call, MadeCall) else call
    made_data = to_data(made) if isinstance(made, CallsMade) else made
    return [place.module, place.path, made_data, {k: v for k, v in data.items() if k != "line"}]


CALLERS = register(IndexKind(name="callers", part=_graph_part, decode=_edge, view=_edge_view, encode=_encoded))


def entry_name(project: Project, module: str, function: str, owner: str | None) -> str | None:
    """The function as a user writes it, where it is a public entry: ``pkg.f``, ``pkg.C.m``,
    ``pkg.C(...)`` (a constructor), ``pkg.C.__call__`` (an object of a public class, called:
    ``argparse.FileType('r')(path)``); None where it is none."""
    if "<locals>" in function or is_test_path(module.replace(".", "/") + ".py"):
        return None  # (a test is no entry users call)
    head, _, name = function.rpartition(".")
    if owner is None and function == "__getattr__":  # (a module's: reading a name it lacks, PEP 562)
        return f"{module}.<attribute>" if all(_public(p) for p in module.split(".")) else None
    if owner is None or head != owner:
        return f"{public}.{function}" if not head and _public(name) and (public := entry_module(project, module, function)) else None
    if not (_public(name) or name in _CONSTRUCTORS or name == "__call__") or "." in owner:
        return None
    if not _public(owner):
        return _inherited_entry(project, module, owner, name)
    if (public := entry_module(project, module, function)) is None:
        return None
    return f"{public}.{owner}(...)" if name in _CONSTRUCTORS else f"{public}.{function}"


def _inherited_entry(project: Project, module: str, owner: str, name: str) -> str | None:
    """A method of a private class as the first public subclass (by name, nearest first) runs
    it as its own: ``ipaddress.IPv4Network.address_exclude`` for ``_BaseNetwork``'s (the
    subclass's methods, nearest first, lead to this one); None where none does."""
    start = f"{module}.{owner}"
    for sub in descendants(project, start, _MAX_SUBCLASSES):
        if sub is None or (found := project.class_fact(sub)) is None:
            continue
        facts, cls = found
        runs = method_class(project, sub, name)
        if "." not in cls.qualname and _public(cls.qualname) and runs is not None and f"{runs[0].module}.{runs[1].qualname}" == start \
                and (public := entry_module(project, facts.module, cls.qualname)) is not None:
            return f"{public}.{cls.qualname}(...)" if name in _CONSTRUCTORS else f"{public}.{cls.qualname}.{name}"
    return None


def _public(name: str) -> bool:
    return not name.startswith("_")


def public_entries(project: Project, module: str, function: str, owner: str | None,
                   by_class: bool = False, raised: tuple[str, ...] = ()) -> tuple[Entries, list[list[Edge]]]:
    """The public entries that reach ``function`` (a qualname of ``module``; ``owner``: its class),
    shortest path first, and the edges of each path (from the entry down). ``by_class``: the
    function runs as its class is called (a pydantic validator): the way up starts at the
    class's calls, and the class is its first entry (``pkg.Model(...)``). ``raised``: the
    exception's class and its ancestors (ExceptionRef): a call a handler of one of them stops
    (``except ValueError:`` around it, raising another class) is no way up."""
    start = f"{module}.{function}"
    first: _Node = (module, f"{owner}.__init__", owner, [], f"{module}.{owner}") if by_class and owner \
        else (module, function, owner, [], start)
    found, paths, stopped = _search(project, first, start, by_class, raised)
    if found:
        return Entries(paths=tuple(found)), paths
    # (caught on the way only where a way a handler stops leads to an entry)
    caught = stopped and bool(_search(project, first, start, by_class, ())[0])
    return Entries(reason=Reason.CAUGHT_ON_THE_WAY if caught else Reason.NO_PUBLIC_ENTRY), []


_Node = tuple[str, str, str | None, list[Edge], str]  # module, qualname, class, edges up to it, its key in the graph


def _search(project: Project, first: _Node, start: str, by_class: bool,
            raised: tuple[str, ...]) -> tuple[list[EntryPath], list[list[Edge]], bool]:
    """The breadth-first way up from ``first``: the entries found, their paths' edges, and
    whether a handler of ``raised`` stopped a way up."""
    found: list[EntryPath] = []
    paths: list[list[Edge]] = []
    seen = {start}
    queue = deque([first])
    stopped = False
    while queue and len(found) < MAX_ENTRIES:
        where, qualname, cls, edges, key = queue.popleft()
        name = entry_name(project, where, qualname, cls)
        if name is not None and all(e.path[0] != f"{where}.{qualname}" for e in found):
            via = (first[4],) if by_class and edges else ()  # (the class whose call runs the validator)
            found.append(EntryPath(entry=name, path=(*(e.caller for e in edges), *via, start)))
            paths.append(edges)
        if len(edges) >= MAX_DEPTH:
            continue
        for edge in sorted(project.indexes.get(CALLERS, key), key=lambda e: (e.caller, e.call.line)):
            if edge.caller in seen or len(seen) >= MAX_SEEN:
                continue
            if raised and _stopped(project, edge, raised):
                stopped = True
                continue
            seen.add(edge.caller)
            queue.append((edge.module, edge.made.function, edge.made.owner, [edge, *edges], edge.caller))
    return found, paths, stopped


def _stopped(project: Project, edge: Edge, raised: tuple[str, ...]) -> bool:
    """Whether a handler around the edge's call catches the exception (MadeCall.caught, each
    name resolved in the caller's module: a builtin, a class of the tree or outside it)."""
    if not edge.call.caught:
        return False
    facts = project.module(edge.module)
    if facts is None:
        return False
    return any((symbol := project.resolve(facts, name)) is not None and symbol.qualname in raised for name in edge.call.caught)


# --- the path as a call of the entry ---------------------------------------------------------


def entry_calls(project: Project, constructors: Constructors, card: Card, params: tuple[Param, ...], entries: Entries,
                paths: list[list[Edge]], unread: tuple[str, ...] = (),
                by_class: bool = False) -> tuple[tuple[EntryCall, ...], Reason | None]:
    """The entries whose paths pass the guard's inputs through (see the module's docstring),
    each with the values it fixes, in the entries' order; and why the first that does not
    does not (none where the card's function is its own entry: its trigger is the user's call).
    A function run by its class's call (``by_class``) is reached only through the framework
    that runs it: its parameters are none of the call's."""
    found: list[EntryCall] = []
    reason: Reason | None = None
    for path, edges in zip(entries.paths, paths):
        if not edges:
            return (), None
        call = Reason.ENTRY_NOT_PLAIN_CALL if by_class \
            else _passed_through(project, constructors, card, params, path, edges, unread if len(edges) == 1 else ())
        if isinstance(call, Reason):
            reason = reason or call
        else:
            found.append(call)
    return tuple(found), None if found else reason


def _passed_through(project: Project, constructors: Constructors, card: Card, params: tuple[Param, ...], path: EntryPath,
                    edges: list[Edge], unread: tuple[str, ...]) -> EntryCall | Reason:
    guard = card.statement.guard
    state = {i for i in guard.inputs if i.split(".", 1)[0] in _SELF}
    if guard.code == "True":
        return Reason.ENTRY_READS_NOTHING
    if not guard.inputs or guard.opaque or (state and not _keeps_object(card, edges)):
        return Reason.ENTRY_READS_STATE
    # The parameters the guard reads (``p`` of ``p.dtype`` too, which only an unchanged argument passes on)
    wanted = {i.split(".", 1)[0] for i in guard.inputs} - set(_SELF)
    dotted = {i.split(".", 1)[0] for i in guard.inputs if "." in i}
    fixed: dict[str, str] = {}
    callee_params = params
    for edge in reversed(edges):
        if not edge.call.is_first or edge.call.arguments is None or (edge.call.exits and edge is not edges[0]):
            return Reason.ENTRY_NOT_FIRST  # (an early exit is stated at the entry only: its test reads the entry's parameters)
        step = _bind(edge, callee_params)
        if step is None:
            return Reason.ENTRY_VALUE_COMPUTED
        caller_names = {p.name for p in edge.made.params}
        following: set[str] = set()
        for name in wanted:
            code, is_given = step.get(name, (None, False))
            if code is None:
                return Reason.ENTRY_VALUE_COMPUTED
            if is_given and code == name and code in caller_names:
                following.add(name)  # passed on unchanged, under the same name
            elif name not in dotted and (value := _fixed_value(project, edge, code, is_given)) is not None:
                fixed[name] = value
            else:
                return Reason.ENTRY_VALUE_COMPUTED
        wanted = following
        callee_params = edge.made.params
    if any(read.split(".", 1)[0] in fixed for _, _, reads in edges[0].call.exits for read in reads):
        return Reason.ENTRY_NOT_FIRST  # (a name the path fixes for the card's function, which the entry's test reads as its own)
    constants = _exit_constants(project, edges[0], card)
    if constants is None:
        return Reason.ENTRY_NOT_FIRST  # (a test on the way reads a name of the entry's module whose value the tree does not give)
    fixed.update(constants)
    return _entry_record(project, constructors, path, edges[0], fixed, keeps_object=bool(state), unread=unread)


def _exit_constants(project: Project, top: Edge, card: Card) -> dict[str, str] | None:
    """The values of the entry module's names its tests on the way read (``x % GROUP_SIZE``,
    ``x.dtype != torch.bfloat16``; collect.calls): a constant's source or a dtype as written;
    None where one has no value the tree gives, or the card's own guard names it for another."""
    params = {p.name for p in top.made.params}
    chains = {chain for code, _, _ in top.call.exits for chain in _free_chains(code, params)}
    if not chains:
        return {}
    facts = project.module(top.module)
    if facts is None:
        return None
    values, own = dict(facts.constants), dict(card.statement.guard.constants)
    found: dict[str, str] = {}
    for chain in sorted(chains):
        named = project.named_constant(facts, chain) if chain not in values else None  # (another module's)
        imported = named[1] if named is not None and named[0] == "value" else None
        code = chain if dtype_of(chain) is not None else values.get(chain) or imported
        if code is None or own.get(chain, code) != code:
            return None
        found[chain] = code
    return found


def _free_chains(code: str, params: set[str]) -> list[str]:
    """The dotted names a test reads that are no parameter's nor a builtin's (``GROUP_SIZE``;
    ``MODES`` of ``MODES.get(x)``), as collecting read them (collect.calls.read_chains)."""
    tree = try_parse_expression(code)
    return [chain for chain in read_chains(tree) if chain is not None and chain.split(".", 1)[0] not in params | _NOT_FREE] \
        if tree is not None else []


_NOT_FREE = frozenset({*dir(builtins), "self", "cls"})


def _keeps_object(card: Card, edges: list[Edge]) -> bool:
    """Whether the object the card's method reads is the entry's own, built before the entry
    runs: every call on the way is ``self.name(...)``, the entry is a method of the card's own
    class (not a subclass: its constructor may differ) and not its ``__init__``/``__new__`` (which
    may call the method before it sets the attributes read)."""
    top = edges[0]
    owner, _, name = top.made.function.rpartition(".")
    home = card.docs.owner
    return home is not None and f"{top.module}.{owner}" == home and owner == top.made.owner and name not in ("__init__", "__new__") \
        and all(e.call.callee.split(".", 1)[0] == "self" for e in edges)


def _bind(edge: Edge, params: tuple[Param, ...]) -> dict[str, tuple[str, bool]] | None:
    """The callee's parameters -> (the code the call gives it, whether the call gives it: else
    its default, in the callee's module), the receiver left out where the call is bound."""
    given = list(edge.call.arguments or ())
    head, _, last = edge.call.callee.rpartition(".")
    unbound = bool(head) and head.split(".", 1)[0] not in _SELF and last in _CONSTRUCTORS  # ``Base.__init__(self, x)``
    slots = params[1:] if params and params[0].name in _SELF and not unbound else params
    bound = bind_arguments(slots, given)
    if bound is None:
        return None
    ids = {id(a) for a in given}
    return {name: (argument.code, id(argument) in ids) for name, argument in bound.items() if isinstance(argument, Argument)}


def _fixed_value(project: Project, edge: Edge, code: str, is_given: bool) -> str | None:
    """The literal code a fixed argument denotes: a literal, or a module constant of the
    caller's module whose value the tree gives (a default is a literal only)."""
    try:
        ast.literal_eval(code)
        return code
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if not is_given or not code.isidentifier():
        return None
    module = project.module(edge.module)
    value = dict(module.constants).get(code) if module is not None else None
    if value is None:
        return None
    try:
        ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value


def _unread(top: Edge, inner: tuple[str, ...]) -> tuple[str, ...]:
    """The entry's parameters nothing reads on the way to the raise: none of the statements
    before its call (MadeCall.unread), and none of the call's arguments, or only as a bare
    argument of that name that the card's function does not read either (``inner``)."""
    bare: set[str] = set()
    named: set[str] = set()
    for argument in top.call.arguments or ():
        tree = try_parse_expression(argument.code)
        if isinstance(tree, ast.Name):
            bare.add(tree.id)
        elif tree is not None:
            named.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return tuple(p for p in top.call.unread if p not in named and (p not in bare or p in inner))


def _wraps_errors(project: Project, module: str, owner: str) -> bool:
    """Whether the class is a pydantic dataclass, whose ``__post_init__`` errors reach the caller wrapped."""
    found = project.class_fact(f"{module}.{owner}")
    if found is None:
        return False
    imports = dict(found[0].imports)
    return any(decorator_target(imports, d) == "pydantic.dataclasses.dataclass" for d in found[1].decorators)


def _entry_record(project: Project, constructors: Constructors, path: EntryPath, top: Edge, fixed: dict[str, str], *,
                  keeps_object: bool, unread: tuple[str, ...]) -> EntryCall | Reason:
    made = top.made
    module = top.module
    public = entry_module(project, module, made.function)
    if public is None or made.call_style == "async_generator" \
            or not {d.split("(", 1)[0].strip() for d in made.decorators} <= _TRANSPARENT:
        return Reason.ENTRY_NOT_PLAIN_CALL
    head, _, name = made.function.rpartition(".")
    constructor = None
    if made.owner is not None and head == made.owner:
        if name.startswith("__") and name not in ("__init__", "__post_init__"):
            return Reason.ENTRY_NOT_PLAIN_CALL
        if name == "__post_init__" and _wraps_errors(project, module, made.owner):
            return Reason.ENTRY_NOT_PLAIN_CALL  # (pydantic reports the raise inside a ValidationError: another class than the card's)
        constructor = constructors.signature(f"{module}.{made.owner}")
    return EntryCall(entry=path.entry, module=module, path=top.path, public_module=public, function=made.function, params=made.params,
                     decorators=made.decorators, call_style=made.call_style, constructor=constructor, fixed=tuple(sorted(fixed.items())),
                     keeps_object=keeps_object, exits=top.call.exits, unread=_unread(top, unread))
