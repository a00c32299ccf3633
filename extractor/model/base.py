"""The record decorator every model class uses, and the catalog's schema id."""

from __future__ import annotations

from dataclasses import dataclass, fields
from sys import intern
from typing import TYPE_CHECKING, Any, TypeVar, cast, dataclass_transform

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SCHEMA_ID = "raisedocs/catalog/2"  # 2: a field that holds its default is left out
READABLE_SCHEMA_IDS = (SCHEMA_ID, "raisedocs/catalog/1")  # 1: every field written (it reads the same)
DIFF_SCHEMA_ID = "raisedocs/diff/1"  # what `raisedocs diff --format json` writes

_T = TypeVar("_T")
_record = dataclass(frozen=True, slots=True, kw_only=True)


@dataclass_transform(frozen_default=True, kw_only_default=True)
def record(cls: type[_T]) -> type[_T]:
    """A frozen, slotted, keyword-only dataclass whose pickled state is the tuple of its
    fields. (The state methods ``dataclass`` gives a slotted class call ``fields()`` for
    every object; records cross the worker pipes by the million, and that call was most of
    their pickling time.)"""
    made = _record(cls)
    names = tuple(f.name for f in fields(cast("type[DataclassInstance]", made)))

    def __getstate__(self: Any) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in names])

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)

    # (state methods set on the class the decorator made: mypy refuses assigning to a method, and ``object`` declares no __setstate__)
    made.__getstate__ = __getstate__  # type: ignore[method-assign]
    made.__setstate__ = __setstate__  # type: ignore[attr-defined]
    _FIELDS[made] = names
    return made


_FIELDS: dict[type, tuple[str, ...]] = {}  # each record class -> its fields' names


def intern_strings(value: _T) -> _T:
    """``value`` with every string in it interned: a record, a list or a dict (changed in
    place: one just unpickled, that nothing else holds yet), a tuple (rebuilt where an item
    changes), a string. The main process keeps every file's declarations and every card's
    summary for the whole run, and a name, an annotation, an import's target or a summary's
    key is unpickled as a new string in each file that holds it (a third of the declarations'
    memory on a large tree)."""
    kind = value.__class__
    if kind is str:
        return cast("_T", intern(cast("str", value)))
    if kind is tuple:
        items = cast("tuple[Any, ...]", value)
        done = [intern_strings(item) for item in items]
        return value if all(a is b for a, b in zip(done, items)) else cast("_T", tuple(done))
    if kind is list:
        entries = cast("list[Any]", value)
        entries[:] = [intern_strings(item) for item in entries]
        return value
    if kind is dict:
        table = cast("dict[Any, Any]", value)
        pairs = [(intern_strings(key), intern_strings(item)) for key, item in table.items()]
        table.clear()
        table.update(pairs)
        return value
    names = _FIELDS.get(kind)
    if names is not None:
        for name in names:
            item = getattr(value, name)
            done = intern_strings(item)
            if done is not item:
                object.__setattr__(value, name, done)
    return value
