"""The one serializer's flat fields: a record written into its holder's JSON object, read back
from there, compacted and completed with the holder, and inlined by the schema."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import field
from typing import ClassVar

import pytest

from extractor.model import Card, Solved
from extractor.model.base import record
from extractor.model.schema import _record_schema, build_schema
from extractor.model.serialize import FLAT, compact, complete, flat_fields, from_data, to_data

from .helpers import GOLDEN


@record
class Inner:
    count: int = 0
    names: tuple[str, ...] = ()


@record
class Where:
    line: int
    note: str | None = None


@record
class Outer:
    name: str
    where: Where = field(metadata={FLAT: True})
    inner: Inner = field(default_factory=Inner, metadata={FLAT: True})


@record
class Nested:
    outer: Outer = field(metadata={FLAT: True})
    extra: tuple[Inner, ...] = ()


@record
class Clash:
    count: int
    inner: Inner = field(default_factory=Inner, metadata={FLAT: True})


@record
class Tagged:
    TAG: ClassVar[str] = "tagged"
    value: int = 0


@record
class HoldsTagged:
    tagged: Tagged = field(default_factory=Tagged, metadata={FLAT: True})


@record
class HoldsOptional:
    inner: Inner | None = field(default=None, metadata={FLAT: True})


@record
class OtherDefault:
    inner: Inner = field(default_factory=lambda: Inner(count=1), metadata={FLAT: True})


OUTER = Outer(name="x", where=Where(line=3), inner=Inner(count=2, names=("a", "b")))


def test_a_flat_record_is_written_into_its_holders_object() -> None:
    assert to_data(OUTER) == {"name": "x", "line": 3, "note": None, "count": 2, "names": ["a", "b"]}
    assert to_data(Nested(outer=OUTER)) == {**to_data(OUTER), "extra": []}


@pytest.mark.parametrize("value", [
    OUTER,
    Outer(name="y", where=Where(line=1, note="n")),
    Nested(outer=OUTER, extra=(Inner(count=5),)),
])
def test_a_record_with_flat_fields_round_trips(value: Outer | Nested) -> None:
    assert from_data(type(value), to_data(value)) == value


def test_a_published_holder_leaves_out_its_flat_records_defaults_and_gets_them_back() -> None:
    data = to_data(Outer(name="x", where=Where(line=3)))
    assert compact(Outer, data) == {"name": "x", "line": 3}
    assert complete(Outer, {"name": "x", "line": 3}) == data
    assert from_data(Outer, {"name": "x", "line": 3}) == Outer(name="x", where=Where(line=3))


def test_the_schema_inlines_a_flat_records_properties() -> None:
    defs: dict = {}
    _record_schema(Outer, defs)
    assert sorted(defs) == ["Outer"]  # (no definition of Where or Inner: nothing refers to them)
    schema = defs["Outer"]
    assert sorted(schema["properties"]) == ["count", "line", "name", "names", "note"]
    assert schema["required"] == ["line", "name"]
    assert schema["properties"]["count"] == {"type": "integer", "default": 0}
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(("cls", "refusal"), [
    (Clash, "Clash: flat fields repeat the names count"),
    (HoldsTagged, "HoldsTagged.tagged: a flat field holds one untagged record class"),
    (HoldsOptional, "HoldsOptional.inner: a flat field holds one untagged record class"),
    (OtherDefault, "OtherDefault.inner: a flat field's default is its record's own"),
])
def test_a_flat_field_that_would_write_an_ambiguous_object_is_refused(cls: type, refusal: str) -> None:
    with pytest.raises(TypeError, match=refusal):
        flat_fields(cls)
    with pytest.raises(TypeError, match=refusal):
        to_data(cls(count=1) if cls is Clash else cls())
    with pytest.raises(TypeError, match=refusal):
        from_data(cls, {"count": 1})
    with pytest.raises(TypeError, match=refusal):
        _record_schema(cls, {})



def test_a_card_publishes_what_solving_adds_as_its_own_fields() -> None:
    catalog = json.loads((GOLDEN / "offload" / "catalog.json").read_text(encoding="utf-8"))
    solved_names = {f.name for f in dataclasses.fields(Solved)}
    for data in catalog["errors"]:
        card = from_data(Card, complete(Card, data))
        assert to_data(card) == data and "solved" not in data
        assert to_data(card.solved) == {name: data[name] for name in solved_names}
    assert solved_names <= set(build_schema()["$defs"]["Card"]["properties"])


def test_interning_a_records_strings_keeps_its_value_and_shares_each_string_across_records() -> None:
    # The main process keeps every file's declarations for a whole run; each arrives unpickled
    # with strings of its own, and interning makes equal names one object.
    import pickle

    from extractor.model import ClassFact, FieldFact, FileFacts, intern_strings

    def facts(path: str) -> FileFacts:
        cls = ClassFact(qualname="Config", line=1, bases=("pkg.base.Base",),
                        fields=(FieldFact(name="max_retries", line=2, annotation="int | None"),))
        return FileFacts(path=path, module=path[:-3].replace("/", "."), imports=(("Base", "pkg.base.Base"),), classes=(cls,))

    first, second = (pickle.loads(pickle.dumps(facts(p))) for p in ("pkg/a.py", "pkg/b.py"))
    assert first.classes[0].fields[0].annotation is not second.classes[0].fields[0].annotation
    done = [intern_strings(first), intern_strings(second)]
    assert done == [facts("pkg/a.py"), facts("pkg/b.py")]
    assert done[0].classes[0].fields[0].annotation is done[1].classes[0].fields[0].annotation
    assert done[0].imports[0][1] is done[1].classes[0].bases[0]
