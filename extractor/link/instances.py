"""Instances: the classes a guard tests with ``isinstance`` -> which plain values are instances
(and the guard's other names that linking resolves across modules: ``link_names``).

The solver's candidate values are plain Python values (ints, strs, lists, None, ...). For
``isinstance(dec, numbers.Integral)`` it may decide the test on such a value where the
answer is known without running anything:

- a class of the standard library (and a few well-known outside ones) by its absolute
  name, from a table of which plain types are its instances (``numbers.Integral``: int and
  bool; ``collections.abc.Mapping``: dict; ``decimal.Decimal``: none);
- a class of the tree whose every ancestor is a class of the tree, a builtin, or a plain
  outside class of that table, where none defines ``__instancecheck__`` or
  ``__subclasshook__``, declares a metaclass, or is an ABC or a Protocol (a plain value is
  then an instance only of its own type and that type's bases, never of such a class).

- a builtin class (``bytearray``, ``memoryview``, ``type``, the exceptions; ``object``: every
  plain value is one), where the module does not rebind its name.

Any other class stays unknown: the test remains an atom the trigger can only assume.
"""

from __future__ import annotations

import ast

from ..collect.declarations import dotted_name
from ..collect.syntax import walk
from ..model import Card, FileFacts, Guard, GuardNames
from ..model.pytext import try_parse_expression
from .helpers import descendants
from .indexes import IndexKind, Part, register
from .project import BUILTIN_EXCEPTIONS, Project

_NUMBERS = ("int", "float", "complex", "bool")
_CONTAINERS = ("str", "bytes", "list", "tuple", "dict", "set", "frozenset")
_ABCS = {
    "Container": _CONTAINERS, "Iterable": _CONTAINERS, "Collection": _CONTAINERS, "Sized": _CONTAINERS,
    "Reversible": ("str", "bytes", "list", "tuple", "dict"), "Sequence": ("str", "bytes", "list", "tuple"),
    "MutableSequence": ("list",), "Mapping": ("dict",), "MutableMapping": ("dict",), "Set": ("set", "frozenset"),
    "MutableSet": ("set",), "Hashable": ("int", "float", "complex", "bool", "str", "bytes", "tuple", "frozenset", "NoneType"),
    "Callable": (), "Iterator": (), "Generator": (), "Awaitable": (), "Coroutine": (), "AsyncIterable": (),
    "AsyncIterator": (), "ByteString": ("bytes",),
}
# Absolute name -> the plain types whose values are instances of it.
KNOWN: dict[str, tuple[str, ...]] = {
    "numbers.Number": _NUMBERS, "numbers.Complex": _NUMBERS, "numbers.Real": ("int", "float", "bool"),
    "numbers.Rational": ("int", "bool"), "numbers.Integral": ("int", "bool"),
    **{f"{module}.{name}": types for module in ("collections.abc", "typing") for name, types in _ABCS.items()},
    "typing.Set": ("set",), "typing.AbstractSet": ("set", "frozenset"),  # (typing.Set stands for set, not the ABC)
    **dict.fromkeys([
        "os.PathLike", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath", "decimal.Decimal",
        "fractions.Fraction", "datetime.date", "datetime.datetime", "datetime.time", "datetime.timedelta", "datetime.tzinfo",
        "datetime.timezone", "uuid.UUID", "re.Pattern", "re.Match", "enum.Enum", "enum.IntEnum", "enum.Flag", "enum.IntFlag",
        "enum.StrEnum", "ipaddress.IPv4Address", "ipaddress.IPv6Address", "io.IOBase", "types.ModuleType", "types.FunctionType",
        "torch.Tensor", "torch.dtype", "torch.device", "torch.nn.Module", "numpy.ndarray", "numpy.dtype", "PIL.Image.Image",
        "pydantic.BaseModel", "msgspec.Struct",
    ], ()),
}
_PLAIN_BASES = frozenset({
    "object", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "frozenset", "typing.Generic", "Generic",
})
_UNKNOWN_MARKS = ("Protocol", "TypedDict", "NamedTuple")
# Builtin classes beside the evaluator's own and the exceptions -> the plain types whose values
# are their instances: none for most (the solver proposes no bytearray or class), every one for object.
_BUILTIN_CLASSES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("bytearray", "memoryview", "type", "range", "slice"), ()), "complex": ("complex",),
    "object": (*_NUMBERS, *_CONTAINERS, "NoneType"),
}
_EVALUATED = frozenset({"int", "float", "str", "bool", "list", "dict", "tuple", "set", "frozenset", "bytes"})  # the evaluator's own


def link_names(project: Project, facts: FileFacts, guard: Guard,
               function_instances: tuple[tuple[str, tuple[str, ...]], ...], annotations: tuple[str, ...] = ()) -> GuardNames:
    """What the guard's names denote beyond its module: the constants, enums and sentinels it
    names (Project.named_constant; builtins aside), the values of the members of its enums
    and of the parameters' Enum ``annotations`` that mix in str or int (Project.enum_values),
    and the plain instances of the classes its isinstance tests name; ``function_instances``:
    the same for all the function's guards."""
    named = tuple((chain, *found) for chain, kind in guard.named
                  if kind != "builtin" and (found := project.named_constant(facts, chain)) is not None)
    instances = tuple(instance_types(project, facts, guard.code).items())
    return GuardNames(named=named + _enum_values(project, facts, named, annotations), instances=instances,
                      function_instances=function_instances, imported=imported_names(facts, guard.code))


def imported_names(facts: FileFacts, code: str) -> tuple[tuple[str, str], ...]:
    """Each dotted name of ``code`` whose head the module binds by an import under another name
    (``from operator import index as _index``: ``_index`` -> ``operator.index``), with that name."""
    tree = try_parse_expression(code) if "(" in code else None
    imports = dict(facts.imports)
    found: dict[str, str] = {}
    for node in walk(tree) if tree is not None else ():
        written = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        head, _, rest = (written or "").partition(".")
        target = imports.get(head)
        if written and target and target != head:
            found[written] = target + ("." + rest if rest else "")
    return tuple(sorted(found.items()))


def _enum_values(project: Project, facts: FileFacts, named: tuple[tuple[str, str, str], ...],
                 annotations: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """The ``enum_value`` entries of the enums the guard names and the annotations name."""
    found: dict[str, tuple[str, str, str]] = {}
    for chain, kind, _ in named:
        if kind == "enum":
            owner, member = project.member_of(facts, chain)
            found.update((e[0], e) for e in project.enum_values(owner, chain[: -len(member)]))
    for annotation in annotations:
        qualname = project.class_of_annotation(facts, annotation)
        if qualname is not None:
            found.update((e[0], e) for e in project.enum_values(qualname, qualname.rsplit(".", 1)[-1] + "."))
    return tuple(found[k] for k in sorted(found))


def function_instances(project: Project, facts: FileFacts, cards: list[Card]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The isinstance classes of all the guards of ``cards`` (a function's) whose plain
    instances are known: a fix must not make another raise's isinstance test true either."""
    return tuple(sorted({k: v for card in cards for k, v in instance_types(project, facts, card.statement.guard.code).items()}.items()))


def instance_types(project: Project, facts: FileFacts, guard_code: str) -> dict[str, tuple[str, ...]]:
    """Each class (as the guard writes it) of the guard's ``isinstance`` tests whose plain
    instances are known: the plain type names of those instances."""
    if "isinstance(" not in guard_code:
        return {}
    tree = try_parse_expression(guard_code)
    if tree is None:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for node in walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2:
            classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            for written in filter(None, map(dotted_name, classes)):
                if written in _EVALUATED or written in found:
                    continue
                if (types := _instances(project, facts, written)) is not None:
                    found[written] = types
    return dict(sorted(found.items()))


def _instances(project: Project, facts: FileFacts, written: str) -> tuple[str, ...] | None:
    symbol = project.resolve(facts, written)
    if symbol is None:
        # A builtin class the module does not rebind: its plain instances are known
        # (asynchat's ``isinstance(data, (bytes, bytearray, memoryview))``); any other name, none.
        return _BUILTIN_CLASSES.get(written) if written not in facts.module_names else None
    if symbol.kind == "builtin":
        # A builtin exception class: no plain value is one (unless the module rebinds the name).
        return () if written.split(".", 1)[0] not in facts.module_names else None
    if symbol.qualname in KNOWN:
        return KNOWN[symbol.qualname]
    if symbol.kind != "class":
        return None
    return () if _plain_class(project, symbol.qualname) else None


def _plain_class(project: Project, qualname: str) -> bool:
    """Whether the in-tree class and all its ancestors are plain classes (see the module doc);
    an abstract base (``abc.ABC``, ``metaclass=ABCMeta``) counts where nothing in the tree
    registers a virtual subclass with the class or a class deriving from it (``X.register``):
    ``isinstance(0, X)`` then asks only the lineage, which defines no ``__subclasshook__``."""
    abstract = False
    for written in (qualname, *project.ancestors(qualname)):
        name = written.split("[", 1)[0]  # ``Generic[T]``
        if name in BUILTIN_EXCEPTIONS or name in _PLAIN_BASES or KNOWN.get(name) == ():
            continue
        if name in _ABSTRACT_BASES:
            abstract = True
            continue
        found = project.class_fact(name)
        if found is None or name.rsplit(".", 1)[-1] in _UNKNOWN_MARKS:
            return False  # outside the tree and not known to be plain, or a Protocol
        cls = found[1]
        if cls.metaclass is not None and cls.metaclass not in _ABSTRACT_BASES \
                or any(m in ("__instancecheck__", "__subclasshook__") for m, _ in cls.methods):
            return False
        abstract = abstract or cls.metaclass is not None
    return not abstract or not _registered(project, qualname)


_ABSTRACT_BASES = frozenset({"abc.ABC", "abc.ABCMeta", "ABCMeta"})
_MAX_DESCENDANTS = 256  # classes deriving from an abstract base searched for a registration


def _registered(project: Project, qualname: str) -> bool:
    """Whether the tree reads ``.register`` on the class or one deriving from it, by its name
    (a virtual subclass of either makes builtins instances of it; where not sure, it does)."""
    return any(current is None or project.indexes.get(REGISTERED, current.rsplit(".", 1)[-1])
               for current in (qualname, *descendants(project, qualname, _MAX_DESCENDANTS)))


def _registered_part(project: Project, facts: FileFacts) -> Part:
    """A module's ``X.register`` reads, under ``X``."""
    return Part(items=tuple((name, facts.module) for name in facts.registers))


REGISTERED = register(IndexKind(name="registered", part=_registered_part, decode=lambda place, item: item))
