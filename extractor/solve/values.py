"""Plain values the restricted evaluator produces and the solver proposes: sets that
iterate in a run-independent order, Enum members known by name, and their JSON form."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


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
        items = list(self._base.__iter__(self))  # type: ignore[attr-defined]
        if all(_hash_is_stable(v) for v in items):
            return iter(items)
        return iter(sorted(items, key=lambda v: (type(v).__name__, repr(v))))

    def __repr__(self) -> str:
        if not self:
            return f"{self._display}()"
        body = ", ".join(repr(v) for v in self)
        return "{" + body + "}" if self._display == "set" else f"frozenset({{{body}}})"


def _stable_operator(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        result = getattr(self._base, name)(self, other)
        return result if result is NotImplemented else type(self)(result)

    return method


for _name in ("__or__", "__and__", "__sub__", "__xor__", "__ror__", "__rand__", "__rsub__", "__rxor__"):
    setattr(_StableOrder, _name, _stable_operator(_name))


class StableSet(_StableOrder, set):  # type: ignore[misc]
    _base = set
    _display = "set"


class StableFrozenSet(_StableOrder, frozenset):  # type: ignore[misc]
    _base = frozenset
    _display = "frozenset"


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


class EnumMember:
    """A member of an Enum defined in the analysed tree, known by name only (never imported).

    Interned, so ``is`` and ``==`` both mean "the same member", as for real Enum members.
    """

    _members: dict[str, EnumMember] = {}
    __slots__ = ("name",)

    def __new__(cls, name: str) -> EnumMember:
        member = cls._members.get(name)
        if member is None:
            member = super().__new__(cls)
            member.name = name
            cls._members[name] = member
        return member

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple:
        return (EnumMember, (self.name,))


def is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def to_json_value(value: Any) -> Any:
    """A value as JSON can carry it; anything else as ``{"python": repr}``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"python": repr(value)}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json_value(v) for k, v in value.items()}
    return {"python": repr(value)}
