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

from ..model import Card, FileFacts, SiteFact
from .project import Project

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


def placeholder_entries(project: Project, facts: FileFacts, site: SiteFact, card: Card) -> tuple[str, ...]:
    """Entry codes for a placeholder method's raise: "placeholder", then "class_level" for a
    classmethod or staticmethod, else one of "abstract_enforced", "abstract_unenforced" and
    "abstract_unknown" where it is marked abstract; "refuses" for a method that is not
    abstract and overrides one the class inherits (``Counter.fromkeys``, a parser that refuses
    its base's operation): no subclass is asked to define it; () for any other raise."""
    if not _is_placeholder(site, card):
        return ()
    decorators = {_target(facts, d) for d in site.decorators}
    owner = f"{facts.module}.{site.owner}"
    if not decorators & _ABSTRACT and _inherits(project, owner, site.function.rsplit(".", 1)[-1]):  # type: ignore[union-attr]
        return ("refuses",)
    if decorators & _CLASS_LEVEL:  # (called on the class: no instance is created, so no check stops it)
        return ("placeholder", "class_level")
    if decorators & _ABSTRACT:
        return ("placeholder", "abstract_" + _abstract_check(project, owner))
    return ("placeholder",)


def _is_placeholder(site: SiteFact, card: Card) -> bool:
    """An unguarded raise of NotImplementedError (or a subclass), in a method's own body."""
    if site.owner is None or site.function != f"{site.owner}.{site.function.rsplit('.', 1)[-1]}" or site.caught:
        return False
    if card.kind == "reraise" or card.guard.code != "True" or card.guard.context:
        return False
    exception = card.exception
    return bool(exception.classes) and all(c == "NotImplementedError" or "NotImplementedError" in exception.ancestors for c in exception.classes)


def _target(facts: FileFacts, decorator: str) -> str:
    """A decorator's dotted name through the module's imports (``abstractmethod`` -> ``abc.abstractmethod``)."""
    head = decorator.split("(", 1)[0].strip()
    first, _, rest = head.partition(".")
    return dict(facts.imports).get(first, first) + ("." + rest if rest else "")


def _abstract_check(project: Project, owner: str) -> str:
    """Whether Python checks the class's abstract methods when an instance is created:
    "enforced" (a class on its way has the metaclass ABCMeta), "unenforced" (every class on
    its way is in the tree or a builtin, and none has it) or "unknown"."""
    unknown = False
    seen: set[str] = set()
    work = [owner]
    while work and len(seen) < _MAX_CLASSES:
        qualname = work.pop()
        if qualname in seen:
            continue
        seen.add(qualname)
        if qualname in _ABC_BASES or qualname.startswith(_ABC_PREFIXES):
            return "enforced"
        found = project.class_fact(qualname)
        if found is None:
            unknown = unknown or qualname not in _PLAIN
            continue
        module, cls = found
        if cls.metaclass is not None:
            meta = _resolved(project, module, cls.metaclass)
            if meta in _ABC_METAS or set(project.ancestors(meta)) & _ABC_METAS:
                return "enforced"
            unknown = True  # another metaclass: it may derive from ABCMeta
        work.extend(_resolved(project, module, base) for base in cls.bases)
    return "unknown" if unknown or work else "unenforced"


def _inherits(project: Project, owner: str, method: str) -> bool:
    """Whether a class the owner derives from defines ``method``: one of the tree, a builtin
    type, or ``object`` itself (``__init__``, ``__eq__``). A base outside the tree is not known
    to, so it does not count."""
    if _defines(object, method):
        return True
    seen = {owner}
    found = project.class_fact(owner)
    work = [_resolved(project, found[0], base) for base in found[1].bases] if found is not None else []
    while work and len(seen) < _MAX_CLASSES:
        qualname = work.pop()
        if qualname in seen:
            continue
        seen.add(qualname)
        found = project.class_fact(qualname)
        if found is None:
            if qualname in _PLAIN and _defines(getattr(builtins, qualname, None), method):
                return True
            continue
        if any(name == method for name, _ in found[1].methods):
            return True
        work.extend(_resolved(project, found[0], base) for base in found[1].bases)
    return False


def _defines(cls: object, method: str) -> bool:
    """Whether a builtin class or one it derives from defines ``method`` (not its metaclass:
    ``object.__call__`` is ``type``'s, for calling the class)."""
    return isinstance(cls, type) and any(method in vars(klass) for klass in cls.__mro__)


def _resolved(project: Project, facts: FileFacts, written: str) -> str:
    name = written.split("[", 1)[0].strip()  # (``Generic[T]``: the class is Generic)
    symbol = project.resolve(facts, name)
    return symbol.qualname if symbol is not None else name
