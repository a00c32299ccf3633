"""Methods a class leaves to its subclasses, and whether Python lets a caller reach them.

A method whose raise of ``NotImplementedError`` nothing guards is a placeholder: it runs
only on an object whose class does not define the method. Marked ``@abstractmethod`` on a
class whose metaclass is ``ABCMeta``, it runs only where the definition is called
explicitly, because creating an instance of a class that does not define it fails first
(``TypeError: Can't instantiate abstract class``). Without that metaclass the decorator
does nothing. The card says which, from the class and its ancestors as the tree shows them
(entry codes, rendered by the templates' ``ENTRIES``).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from itertools import islice

from ..model import Card, ClassFact, EntryKind, FileFacts, RaiseKind, SiteFact
from .project import Project, decorator_target

_ABSTRACT = frozenset({"abc.abstractmethod", "abc.abstractproperty", "abc.abstractclassmethod", "abc.abstractstaticmethod"})
_CLASS_LEVEL = frozenset({"classmethod", "staticmethod", "abc.abstractclassmethod", "abc.abstractstaticmethod"})
# Classes whose metaclass is ABCMeta or derives from it (typing's _ProtocolMeta does).
_ABC_METAS = frozenset({"abc.ABCMeta", "_py_abc.ABCMeta"})
_ABC_BASES = frozenset({"abc.ABC", "typing.Protocol", "typing_extensions.Protocol"})
_ABC_PREFIXES = ("collections.abc.", "_collections_abc.", "numbers.")
# Bases outside the tree whose metaclass is ``type``: every builtin class (``type`` itself aside).
_PLAIN = frozenset({"typing.Generic", "typing_extensions.Generic"}) | frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and type(value) is type and value is not type
)
_MAX_CLASSES = 64


def placeholder_entries(project: Project, facts: FileFacts, site: SiteFact, card: Card) -> tuple[EntryKind, ...]:
    """Entry codes for a placeholder method's raise: PLACEHOLDER, then CLASS_LEVEL for a
    classmethod or staticmethod, else one of ABSTRACT_ENFORCED, ABSTRACT_UNENFORCED and
    ABSTRACT_UNKNOWN where it is marked abstract; REFUSES for a method that is not
    abstract and overrides one the class inherits (``Counter.fromkeys``, a parser that refuses
    its base's operation): no subclass is asked to define it; () for any other raise."""
    method = _placeholder_method(site, card)
    if method is None:
        return ()
    imports = dict(facts.imports)
    decorators = {decorator_target(imports, d) for d in site.at.decorators}
    owner = f"{facts.module}.{site.owner}"
    if not decorators & _ABSTRACT and _inherits(project, owner, method):
        return (EntryKind.REFUSES,)
    if decorators & _CLASS_LEVEL:  # (called on the class: no instance is created, so no check stops it)
        return (EntryKind.PLACEHOLDER, EntryKind.CLASS_LEVEL)
    if decorators & _ABSTRACT:
        return (EntryKind.PLACEHOLDER, _abstract_check(project, owner))
    return (EntryKind.PLACEHOLDER,)


def _placeholder_method(site: SiteFact, card: Card) -> str | None:
    """The method's name where the raise is an unguarded raise of NotImplementedError (or a
    subclass) in the method's own body; else None."""
    function = site.at.function
    if site.owner is None or function is None or site.raised.caught:
        return None
    method = function.rsplit(".", 1)[-1]
    if function != f"{site.owner}.{method}":
        return None
    if card.statement.kind == RaiseKind.RERAISE or card.statement.guard.code != "True" or card.statement.guard.context:
        return None
    exception = card.exception
    is_not_implemented = all(c == "NotImplementedError" or "NotImplementedError" in exception.ancestors for c in exception.classes)
    return method if exception.classes and is_not_implemented else None


def _abstract_check(project: Project, owner: str) -> EntryKind:
    """Whether Python checks the class's abstract methods when an instance is created:
    ABSTRACT_ENFORCED (a class on its way has the metaclass ABCMeta), ABSTRACT_UNENFORCED (every
    class on its way is in the tree or a builtin, and none has it) or ABSTRACT_UNKNOWN."""
    unknown = False
    for qualname, found in lineage(project, owner):
        if qualname is None:
            return EntryKind.ABSTRACT_UNKNOWN  # (more classes than the walk follows)
        if qualname in _ABC_BASES or qualname.startswith(_ABC_PREFIXES):
            return EntryKind.ABSTRACT_ENFORCED
        if found is None:
            unknown = unknown or qualname not in _PLAIN
            continue
        module, cls = found
        if cls.metaclass is not None:
            meta = _resolved(project, module, cls.metaclass)
            if meta in _ABC_METAS or set(project.ancestors(meta)) & _ABC_METAS:
                return EntryKind.ABSTRACT_ENFORCED
            unknown = True  # another metaclass: it may derive from ABCMeta
    return EntryKind.ABSTRACT_UNKNOWN if unknown else EntryKind.ABSTRACT_UNENFORCED


def abstract_methods(project: Project, owner: str) -> tuple[str, ...]:
    """The abstract methods an instance of ``owner`` would lack (marked ``@abstractmethod`` on
    its way and defined by no class nearer to it), where Python checks them: creating one
    raises ``TypeError: Can't instantiate abstract class``, so only a subclass that defines
    them runs its methods. () where the check is not enforced or the tree shows none; where a
    base is outside the tree, only those ``owner`` marks itself (``class Encoder(abc.ABC,
    nn.Module)`` with an abstract ``forward``), which no base can undo."""
    decided: dict[str, bool] = {}  # method -> abstract, from the nearest class that defines it
    own: tuple[str, ...] = ()  # (those ``owner`` itself marks: no base comes before it)
    for qualname, found in lineage(project, owner):
        if found is None:
            if qualname is None or not (qualname in _PLAIN or qualname in _ABC_BASES or qualname.startswith(_ABC_PREFIXES)):
                decided = dict.fromkeys(own, True)  # a base the tree does not show may define the others
                break
            continue
        if qualname == owner:
            own = tuple(found[1].abstract)
        for name in (*(name for name, _ in found[1].methods), *found[1].assigned):
            decided.setdefault(name, name in found[1].abstract)
    left = tuple(sorted(name for name, abstract in decided.items() if abstract))
    return left if left and _abstract_check(project, owner) is EntryKind.ABSTRACT_ENFORCED else ()


_RECORD_MARKS = ("dataclass", "attr.s", "attrs", "define", "frozen")  # decorators whose class gets a generated __init__


def undefined_attributes(project: Project, owner: str) -> tuple[str, ...]:
    """The attributes the constructor of ``owner`` reads on the new object (its own
    ``__init__``, or the one it inherits along single bases) that neither it nor any class it
    derives from defines: a base class whose subclasses give them (``CCompiler.executables``).
    An annotation without a value (``model_config: ModelConfig``) defines nothing, but where a
    class on the way is a record whose generated ``__init__`` sets its fields, or defines
    ``__new__`` (which may store it on the object it makes).
    Creating an instance of ``owner`` itself then fails with ``AttributeError``, so only a
    subclass runs its methods. () where a class on the way is outside the tree (but for the
    builtins), has another metaclass than ABCMeta, or defines ``__getattr__``."""
    defined: set[str] = set()
    builtin: list[object] = []
    reads: tuple[str, ...] | None = None
    classes = list(lineage(project, owner))
    # (``x: T`` without a value defines nothing in a plain class body: only a generated __init__
    # sets it, or a ``__new__`` that may store it on the object it makes)
    records = any(any(mark in d for mark in _RECORD_MARKS) for _, found in classes if found is not None for d in found[1].decorators) \
        or any(name == "__new__" for _, found in classes if found is not None for name, _ in found[1].methods)
    for qualname, found in classes:
        if found is None:
            if qualname is None or not (qualname in _PLAIN or qualname in _ABC_BASES):
                return ()  # (a base the tree does not show may define them)
            builtin.append(getattr(builtins, qualname, None))
            continue
        cls = found[1]
        fields = (f.name for f in cls.fields if records or f.default is not None or f.default_factory is not None)
        names = {*(name for name, _ in cls.methods), *cls.assigned, *fields, *(a for a, _ in cls.stores),
                 *(a for a, _ in cls.init_sets), *(s.attribute for s in cls.post_init_sets)}
        meta = _resolved(project, found[0], cls.metaclass) if cls.metaclass is not None else None
        if names & {"__getattr__", "__getattribute__"} or (meta is not None and meta not in _ABC_METAS):
            return ()
        if reads is None and (cls.init is not None or len(cls.bases) > 1 or any("dataclass" in d for d in cls.decorators)):
            reads = cls.init_reads if cls.init is not None else ()  # (a generated __init__ reads nothing)
        defined |= names
    return tuple(name for name in reads or () if name not in defined and not any(_defines(klass, name) for klass in builtin))


def _inherits(project: Project, owner: str, method: str) -> bool:
    """Whether a class the owner derives from defines ``method``: one of the tree, a builtin
    type, or ``object`` itself (``__init__``, ``__eq__``). A base outside the tree is not known
    to, so it does not count."""
    if _defines(object, method):
        return True
    for qualname, found in islice(lineage(project, owner), 1, None):  # (the owner's own definition aside)
        if found is None:
            if qualname in _PLAIN and _defines(getattr(builtins, qualname, None), method):
                return True
        elif any(name == method for name, _ in found[1].methods):
            return True
    return False


def constructed_plainly(project: Project, owner: str) -> bool:
    """Whether ``owner()`` surely runs through (Owner.plain_construction): each class of its
    chain is a builtin class, ``ABC`` or a ``collections.abc`` one (not a ``Protocol``), or in
    the tree with a plain ``__init__`` or none (ClassFact.init_plain), no ``__new__``,
    ``__post_init__`` or metaclass other than ``ABCMeta``."""
    for qualname, found in lineage(project, owner):
        if found is None:
            if qualname is None or qualname.endswith(".Protocol") or not (qualname in _PLAIN or qualname in _ABC_BASES
                                                                          or qualname.startswith(_ABC_PREFIXES)):
                return False  # (a Protocol is never instantiated: only a class deriving from it is)
            continue
        fact = found[1]
        if not fact.init_plain or fact.new is not None or any(name == "__post_init__" for name, _ in fact.methods) \
                or fact.metaclass not in (None, "ABCMeta", "abc.ABCMeta"):
            return False
    return True


def lineage(project: Project, owner: str) -> Iterator[tuple[str | None, tuple[FileFacts, ClassFact] | None]]:
    """The owner, then each class it derives from, as ``(qualname, its facts or None)``: a
    base outside the tree by the name it resolves to. ``(None, None)`` last where there are
    more than ``_MAX_CLASSES`` (the walk stops)."""
    seen: set[str] = set()
    work = [owner]
    while work:
        qualname = work.pop()
        if qualname in seen:
            continue
        if len(seen) >= _MAX_CLASSES:
            yield None, None
            return
        seen.add(qualname)
        found = project.class_fact(qualname)
        yield qualname, found
        if found is not None:
            work.extend(_resolved(project, found[0], base) for base in found[1].bases)


def _defines(cls: object, method: str) -> bool:
    """Whether a builtin class or one it derives from defines ``method`` (not its metaclass:
    ``object.__call__`` is ``type``'s, for calling the class)."""
    return isinstance(cls, type) and any(method in vars(klass) for klass in cls.__mro__)


def _resolved(project: Project, facts: FileFacts, written: str) -> str:
    name = written.split("[", 1)[0].strip()  # (``Generic[T]``: the class is Generic)
    symbol = project.resolve(facts, name)
    return symbol.qualname if symbol is not None else name
