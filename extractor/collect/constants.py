"""Module constants: the module's top-level assignments -> the values a guard may read.

A name bound once at module level gets its value when the tree gives it:

- a literal (``LIMIT = 10``, ``MODES = ("a", "b")``);
- an expression over literals and earlier constants that the solver's restricted
  evaluator computes (``WHITESPACE = frozenset(" \\t\\n")``, ``BOTH = READ | WRITE``),
  kept as source with the earlier constants written in;
- one element of an unpacking (``MONDAY, TUESDAY = range(2)``, ``A, B = 1, 2``);
- an expression that names dtypes of an imported library among them (``SUPPORTED =
  (torch.float16, torch.bfloat16)``: model.libraries), which the solver models;
- a dict display whose keys are literals, its values whatever they are (``DTYPES =
  {"half": torch.half}``): membership and iteration need the keys only, and the solver
  holds each value it cannot compute as a constant of unknown value (``keyed_dict``).

A name bound once to ``object()`` or to an instance of a class the module defines, with no
arguments, is a *sentinel*: a value with identity only (``MISSING = _MISSING_TYPE()``).
Nothing here evaluates the analysed code; values stay source text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from ..model.libraries import dtype_of
from .scope import ModuleNames
from .syntax import walk

# Calls an evaluated constant may make: the solver's evaluator computes them (solve.evaluate).
_CALLS = frozenset({"frozenset", "set", "tuple", "list", "len", "str", "int", "float", "bool", "sorted", "min", "max", "abs"})
_NODES = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.Name,
          ast.Call, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.IfExp)
MAX_RANGE = 1_000  # ``A, B, ... = range(n)`` is unpacked up to this many names
MAX_CODE = 10_000  # characters of one constant's source, once earlier constants are written in


def unpacked(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr | str]]:
    """``(name, element)`` for ``a, b = 1, 2`` (element nodes) and ``a, b = range(2)``
    (element source); nothing for any other unpacking."""
    if not isinstance(target, (ast.Tuple, ast.List)) or not all(isinstance(e, ast.Name) for e in target.elts):
        return
    names = [e.id for e in target.elts if isinstance(e, ast.Name)]  # (all are: tested above)
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names) and not any(isinstance(e,
                                                                                                         ast.Starred) for e in value.elts):
        yield from zip(names, value.elts)
        return
    bounds = _range_bounds(value)
    if bounds is not None and len(range(*bounds)) == len(names) <= MAX_RANGE:
        yield from zip(names, map(str, range(*bounds)))


def _range_bounds(node: ast.expr) -> tuple[int, ...] | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return None
    if node.keywords or not 1 <= len(node.args) <= 3:
        return None
    bounds: list[int] = []
    for arg in node.args:
        try:
            value = ast.literal_eval(arg)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None
        if type(value) is not int or abs(value) > 10**9:
            return None
        bounds.append(value)
    return None if len(bounds) == 3 and bounds[2] == 0 else tuple(bounds)


_MUTATORS = ("append", "extend", "insert", "update", "add", "setdefault", "pop", "popitem", "remove", "discard", "clear",
             "sort", "reverse", "appendleft", "extendleft", "difference_update", "intersection_update",
             "symmetric_difference_update", "__setitem__", "__delitem__")
_CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def _container(node: ast.expr | str | None) -> bool:
    """Whether a bound value makes a mutable container (a display, or ``set()``/``list()``/``dict()``)."""
    return isinstance(node, _CONTAINERS) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                              and node.func.id in ("set", "list", "dict"))


def mutated_names(text: str, assigned: dict[str, list[ast.expr | str | None]]) -> set[str]:
    """The once-bound containers that the module's text may change in place: ``NAME[k] = v``,
    ``NAME[k] += v``, ``del NAME[k]``, ``NAME.append(...)`` and the other mutating methods,
    anywhere in the file (a function that registers into it, a loop that fills it at import:
    datetime's ``_DAYS_BEFORE_MONTH = [-1]``). Their bound value is not what a guard reads.
    A text search, so a local of the same name, a comment or a string counts too: it only
    ever keeps a value from being assumed."""
    names = sorted(name for name, nodes in assigned.items() if len(nodes) == 1 and _container(nodes[0]))
    if not names:
        return set()
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\s*(?:\.\s*(?:" + "|".join(_MUTATORS)
                         + r")\s*\(|\[[^\]\n]*\]\s*(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=))")
    found = {m.group(1) for m in pattern.finditer(text)}
    found.update(m.group(1) for m in re.finditer(r"\bdel\s+(" + "|".join(map(re.escape, names)) + r")\s*\[", text))
    return found


def module_names(kinds: dict[str, str], assigned: dict[str, list[ast.expr | str | None]],
                 flat: Callable[[ast.expr], str], mutated: frozenset[str] | set[str] = frozenset()) -> tuple[ModuleNames, list[tuple[str,
                                                                                                                                     str]]]:
    """What the module binds (``kinds``) and the values of its once-bound names (``assigned``:
    name -> the values bound to it, None where unknown); ``flat`` gives a node's source on
    one line; ``mutated``: containers changed in place (``mutated_names``), which get no value.
    Also returns every once-bound name's source (for the link stage)."""
    values: dict[str, str] = {}
    keyed: set[str] = set()  # dicts known by their keys: never written into another constant
    sentinels: set[str] = set()
    aliases: dict[str, tuple[object, ...]] = {}
    assignments: list[tuple[str, str]] = []
    modules = frozenset(name for name, kind in kinds.items() if kind == "import")
    for name, nodes in assigned.items():
        if len(nodes) != 1 or nodes[0] is None:
            continue
        node = nodes[0]
        if name in mutated:
            if not isinstance(node, str):
                assignments.append((name, flat(node)))
            continue
        if isinstance(node, str):
            values[name] = node
            assignments.append((name, node))
            continue
        assignments.append((name, flat(node)))
        if (members := _literal_alias(node, aliases)) is not None:
            aliases[name] = members
        elif _is_literal(node):
            values[name] = flat(node)
        elif _is_sentinel(node, kinds):
            sentinels.add(name)
        elif (code := _computed(node, values, keyed, modules)) is not None:
            values[name] = code
        elif _keyed(node) and len(source := flat(node)) <= MAX_CODE:
            values[name] = source
            keyed.add(name)
    shown = {name: repr(members) for name, members in aliases.items() if len(repr(members)) <= MAX_CODE}
    return ModuleNames(kinds=kinds, values=values, sentinels=frozenset(sentinels), aliases=shown), sorted(assignments)


def _literal_alias(node: ast.expr, aliases: dict[str, tuple[object, ...]]) -> tuple[object, ...] | None:
    """The values of ``Literal["a", "b"]`` (nested ``Literal`` aliases of the module flattened,
    repeats dropped, as ``typing.get_args`` gives them); None for anything else."""
    if not isinstance(node, ast.Subscript):
        return None
    head = node.value
    if not (isinstance(head, ast.Name) and head.id == "Literal" or isinstance(head, ast.Attribute) and head.attr == "Literal"):
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    members: list[object] = []
    for item in items:
        if isinstance(item, ast.Constant) and type(item.value) in (str, int, bool, bytes) or isinstance(item,
            ast.Constant) and item.value is None:
            members.append(item.value)
        elif isinstance(item, ast.Name) and item.id in aliases:
            members.extend(aliases[item.id])
        else:
            return None
    return tuple({(type(m), m): m for m in members}.values())  # Literal[1, True] keeps both, as typing does


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False
    return True


def _keyed(node: ast.expr) -> bool:
    """A dict display whose keys are distinct literals of hashable value (no ``**``)."""
    if not isinstance(node, ast.Dict) or not node.keys:
        return False
    keys = []
    for key in node.keys:
        if key is None:
            return False
        try:
            value = ast.literal_eval(key)
            hash(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return False
        keys.append((type(value), value))
    return len(set(keys)) == len(keys)


def _is_sentinel(node: ast.expr, kinds: dict[str, str]) -> bool:
    if not isinstance(node, ast.Call) or node.args or node.keywords or not isinstance(node.func, ast.Name):
        return False
    return node.func.id == "object" and "object" not in kinds or kinds.get(node.func.id) == "class"


class _WriteIn(ast.NodeTransformer):
    def __init__(self, values: dict[str, str], keyed: set[str], modules: frozenset[str]) -> None:
        self.values = values
        self.keyed = keyed
        self.modules = modules
        self.failed = False

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if _module_chain(node, self.modules):
            return node  # (``torch.float16``: kept as written, the solver models it)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        code = None if node.id in self.keyed else self.values.get(node.id)
        if code is None:
            if node.id not in _CALLS:
                self.failed = True
            return node
        try:
            return ast.parse(f"({code})", mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self.failed = True
            return node


def _computed(node: ast.expr, values: dict[str, str], keyed: set[str], modules: frozenset[str] = frozenset()) -> str | None:
    """The source of an expression over literals, earlier constants (not ``keyed`` dicts,
    whose values are not all known) and the dtypes of imported modules (``modules``:
    ``(torch.float16, torch.bfloat16)``, which the solver models), with the
    constants written in, when every node is one the solver's evaluator may compute; else None."""
    for inner in walk(node):
        if isinstance(inner, ast.Attribute) and _module_chain(inner, modules):
            continue
        if not isinstance(inner, _NODES):
            return None
        if isinstance(inner, ast.Call) and (not isinstance(inner.func, ast.Name) or inner.func.id not in _CALLS or inner.keywords):
            return None
    try:
        writer = _WriteIn(values, keyed, modules)
        code = ast.unparse(writer.visit(_copy(node)))
    except (RecursionError, ValueError, MemoryError):
        return None
    return None if writer.failed or len(code) > MAX_CODE else code


def _module_chain(node: ast.Attribute, modules: frozenset[str]) -> bool:
    """Whether ``node`` is a dtype read on an imported module (``torch.float16``, ``np.int8``:
    model.libraries), which the solver models; any other attribute keeps the constant unknown."""
    return isinstance(node.value, ast.Name) and node.value.id in modules and dtype_of(f"{node.value.id}.{node.attr}") is not None


def _copy(node: ast.expr) -> ast.expr:
    return ast.parse(ast.unparse(node), mode="eval").body


def literal_exports(bindings: list[ast.expr | str | None] | None) -> tuple[str, ...] | None:
    """The names of a module's ``__all__`` bound once to a list or tuple of strings."""
    value = bindings[0] if bindings is not None and len(bindings) == 1 else None
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return tuple(names) if len(names) == len(value.elts) else None
