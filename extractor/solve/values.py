"""Plain values the restricted evaluator produces and the solver proposes: sets that
iterate in a run-independent order, named constants (Enum members, sentinels, constants of
unknown value) known by name, and their JSON form."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, final

from ..model import Reason
from ..model.pytext import repeated_text


def _hash_is_stable(value: Any) -> bool:
    """Whether CPython orders this value in a set the same way in every process (numbers
    are; str and bytes hashes change with PYTHONHASHSEED, None's with the address space)."""
    if type(value) in (int, bool, float, complex):
        return True
    return type(value) is tuple and all(_hash_is_stable(v) for v in value)


class _StableOrder:
    """Set iteration (and so ``repr``, ``join``, ``list``) in an order that is the same in
    every run: CPython's own where it is fixed (numbers), else sorted by type and repr.
    The analysed program may print such a set in another order; no order is promised."""

    _base: type = set
    _display = "set"

    def __iter__(self) -> Any:
        items = list(self._base.__iter__(self))  # type: ignore[attr-defined]  # (a mixin: the set class is its subclass's other base)
        if all(_hash_is_stable(v) for v in items):
            return iter(items)
        return iter(sorted(items, key=lambda v: (type(v).__name__, repr(v))))

    def __repr__(self) -> str:
        if not self:
            return f"{self._display}()"
        body = ", ".join(repr(v) for v in self)
        return "{" + body + "}" if self._display == "set" else f"frozenset({{{body}}})"


def unordered(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds a set of two or more items whose order CPython does not fix
    (texts, whose hashes change with PYTHONHASHSEED; a dtype's, by its address): the text it
    prints, and a list made of it, are not knowable (``f"one of {MODES}"``)."""
    if isinstance(value, (StableSet, StableFrozenSet)):
        return len(value) > 1 and not all(_hash_is_stable(v) for v in value) or any(unordered(v, depth + 1) for v in value)
    if depth > 4:
        return False
    if isinstance(value, (tuple, list)):
        return any(unordered(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(unordered(v, depth + 1) for v in (*value.keys(), *value.values()))
    return False


def _stable_operator(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        result = getattr(self._base, name)(self, other)
        return result if result is NotImplemented else type(self)(result)

    return method


for _name in ("__or__", "__and__", "__sub__", "__xor__", "__ror__", "__rand__", "__rsub__", "__rxor__"):
    setattr(_StableOrder, _name, _stable_operator(_name))


class StableSet(_StableOrder, set):
    _base = set
    _display = "set"


class StableFrozenSet(_StableOrder, frozenset):
    _base = frozenset
    _display = "frozenset"


def plain_type(value: Any) -> type:
    """The builtin type a value is of: ``set``/``frozenset`` for the solver's stable sets."""
    return value._base if isinstance(value, _StableOrder) else type(value)


def stable(value: Any) -> Any:
    """``value`` with every set in it (``ast.literal_eval`` output, say) as a StableSet."""
    if isinstance(value, _StableOrder):
        return value
    if isinstance(value, frozenset):
        return StableFrozenSet(stable(v) for v in value)
    if isinstance(value, set):
        return StableSet(stable(v) for v in value)
    if isinstance(value, tuple):
        return tuple(stable(v) for v in value)
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items()}
    return value


class UnknownValue(Exception):
    """The answer depends on the value of a named constant the tree does not give."""

    code = Reason.UNKNOWN_CONSTANT


@final  # (interned per class: a subclass would share its members)
class Named:
    """A named constant of the analysed tree, known by name (and identity) only, never imported.

    ``kind`` says what the tree shows about it:

    - ``enum``: a member of an Enum the tree defines; equal only to itself, always true;
      a member of one that mixes in ``str`` or ``int`` with a literal value (``mixin``:
      link.project.enum_values) is also equal to its ``value``, and ordered as it is, as
      Python's ``class S(str, Enum)``, StrEnum and IntEnum members are;
    - ``sentinel``: ``MISSING = object()`` (or an instance of a class the module defines);
      equal only to itself, always true;
    - ``unknown``: a module variable, imported name or class attribute whose value the tree
      does not give. It is equal to itself; whether it equals anything else, its truth and
      its order are unknown, and the evaluator refuses them (``unknown_value``).

    Interned by name, kind and value, so ``is`` and ``==`` both mean "the same constant".
    """

    _members: ClassVar[dict[tuple[str, str, str | None, Any], Named]] = {}
    __slots__ = ("kind", "mixin", "name", "value")
    name: str
    kind: str
    mixin: str | None  # ``str``/``int`` (``str()`` is ``Class.NAME``) or ``StrEnum``/``IntEnum`` (``str()`` is the value's)
    value: Any

    def __new__(cls, name: str, kind: str = "enum", mixin: str | None = None, value: Any = None) -> Named:
        key = (name, kind, mixin, value if mixin is not None else None)
        member = cls._members.get(key)
        if member is None:
            member = super().__new__(cls)
            member.name, member.kind, member.mixin, member.value = name, kind, mixin, value
            cls._members[key] = member
        return member

    @property
    def known(self) -> bool:
        """Whether comparing it with another value has a known answer (identity)."""
        return self.kind != "unknown"

    def __bool__(self) -> bool:
        if self.kind == "unknown":
            raise UnknownValue(f"the value of {self.name} is not known")
        return True if self.mixin is None else bool(self.value)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if self.mixin is None or isinstance(other, Named):
            return False
        return bool(self.value == other)

    def __hash__(self) -> int:
        return hash(self.value) if self.mixin is not None else object.__hash__(self)

    def _order(self, other: Any, test: Callable[[Any, Any], bool]) -> bool:
        if self.mixin is None:
            raise TypeError(f"{self.name} has no order")
        return test(self.value, other.value if isinstance(other, Named) and other.mixin is not None else other)

    def __lt__(self, other: Any) -> bool:
        return self._order(other, lambda a, b: a < b)

    def __le__(self, other: Any) -> bool:
        return self._order(other, lambda a, b: a <= b)

    def __gt__(self, other: Any) -> bool:
        return self._order(other, lambda a, b: a > b)

    def __ge__(self, other: Any) -> bool:
        return self._order(other, lambda a, b: a >= b)

    def __repr__(self) -> str:
        return self.name

    def shown(self, conversion: str | None) -> str | None:
        """What Python prints for a member that mixes in str or int, with ``!r`` (``conversion``
        "r"), ``!s`` ("s") or neither: ``<S.A: 'a'>``, ``S.A`` or the value's text; None where
        it depends on the Python version (``format`` of a ``class S(str, Enum)`` member)."""
        member = ".".join(self.name.rsplit(".", 2)[-2:])
        if conversion == "r":
            return f"<{member}: {self.value!r}>"
        if self.mixin in ("StrEnum", "IntEnum"):
            return str(self.value)
        return member if conversion == "s" else None

    def __reduce__(self) -> tuple:
        return (Named, (self.name, self.kind, self.mixin, self.value))


@final
class Modelled:
    """A value of a library type that the tool never builds (a torch tensor, a numpy array, a
    dtype, a device): its ``kind`` (the class's name, as ``object:<kind>`` domain types name
    it), the ``code`` an example writes to build it (``torch.empty(2, 3)``), the ``module``
    that code imports, and the attributes the evaluator reads of it (``shape``, ``ndim``,
    ``dtype``, ``device``, ``is_cuda``; solve.arrays). Equal to another of the same code
    (the evaluator refuses a tensor's ``==``, which compares elementwise)."""

    __slots__ = ("attributes", "code", "kind", "module")
    kind: str
    code: str
    module: str
    attributes: tuple[tuple[str, Any], ...]

    def __init__(self, kind: str, code: str, module: str, attributes: tuple[tuple[str, Any], ...] = ()) -> None:
        self.kind, self.code, self.module, self.attributes = kind, code, module, attributes

    @property
    def is_array(self) -> bool:
        return self.kind in ("Tensor", "ndarray")

    @property
    def fixed(self) -> bool:
        """Whether its attributes are its own, as the library fixes them (a dtype's ``itemsize``,
        a device's ``type``, a path's ``suffix``): no trigger sets one apart from the value."""
        return self.kind in ("dtype", "device", "Path")

    def attribute(self, name: str) -> Any:
        """The attribute's value; AttributeError for one the model does not give."""
        for key, value in self.attributes:
            if key == name:
                return value
        raise AttributeError(f"{self.kind} attribute {name} is not modelled")

    def __eq__(self, other: object) -> bool:
        # (the solver's own comparisons of values; the evaluator refuses a tensor's ``==``: evaluate.builtins)
        return isinstance(other, Modelled) and self.kind == other.kind and self.code == other.code

    def __hash__(self) -> int:
        return hash((self.kind, self.code))

    def __bool__(self) -> bool:
        if self.is_array:
            raise TypeError(f"the truth of a {self.kind} depends on its elements")
        return True

    def __len__(self) -> int:
        shape = self.attribute("shape")
        if not shape:
            raise TypeError("len() of a 0-d array")
        return int(shape[0])

    def __repr__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple:
        return (Modelled, (self.kind, self.code, self.module, self.attributes))


@final
class Present:
    """An object of a class the tree defines, where the guard reads attributes of it that
    are inputs of their own (``config.spec is not None and config.spec.num_tokens > 3``):
    not None and true, its attributes the values of those inputs. The example builds it with
    its class's constructor from them (``Config(spec=Spec(num_tokens=4))``: solve.examples);
    the evaluator reads nothing else of it."""

    __slots__ = ("kind",)
    kind: str

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Present) and self.kind == other.kind

    def __hash__(self) -> int:
        return hash(("Present", self.kind))

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"{self.kind}(...)"

    def __reduce__(self) -> tuple:
        return (Present, (self.kind,))


def unknown_in(a: Any, b: Any) -> bool:
    """Whether ``a == b`` has no known answer: a constant of unknown value against anything
    but itself."""
    if a is b:
        return False
    return (isinstance(a, Named) and not a.known) or (isinstance(b, Named) and not b.known)


def is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def python_text(value: Any) -> str:
    """A value as Python code writes it: ``repr``, but ``int`` for the class,
    ``float('inf')`` for a float no literal writes, and ``'a' * 1001`` for a long run."""
    json_value = to_json_value(value) if isinstance(value, (float, type)) else None
    return json_value["python"] if isinstance(json_value, dict) else repeated_text(value) or repr(value)


def to_json_value(value: Any) -> Any:
    """A value as JSON can carry it; anything else as ``{"python": repr}``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"python": f"float('{value}')"}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, type) and value.__module__ == "builtins":
        return {"python": value.__name__}  # ``int``, not ``<class 'int'>``
    return {"python": repr(value)}
