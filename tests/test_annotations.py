"""The one annotation reader: what domains and linking take from an annotation's text."""

from __future__ import annotations

import pytest

from extractor.collect.annotations import Annotation, read_annotation
from extractor.model import Constraint


@pytest.mark.parametrize(("text", "expected"), [
    ("int", Annotation(types=("int",), names=("int",), literals=(("alias", "int"),))),
    ("Optional[int]", Annotation(types=("NoneType", "int"), names=("int",), literals=(("alias", "int"),))),
    ("'int | None'", Annotation(types=("int", "NoneType"), names=("int",), literals=(("alias", "int"),))),
    ("Literal['auto', 'native']", Annotation(
        types=("str",), choices=("'auto'", "'native'"), names=("Literal",),
        literals=(("value", "'auto'"), ("value", "'native'")))),
    ("Literal[1, -1] | None", Annotation(
        types=("int", "NoneType"), choices=("1", "-1"), names=("Literal",),
        literals=(("value", "1"), ("value", "-1")))),
    ("Annotated[PositiveInt, Field(le=8)]", Annotation(
        types=("int",), implied=(Constraint(name="gt", value="0"),), names=("PositiveInt", "Field"),
        literals=(("alias", "PositiveInt"),))),
    ("Optional[OffloadBackend]", Annotation(
        types=("NoneType", "object:OffloadBackend"), names=("OffloadBackend",), literals=(("alias", "OffloadBackend"),))),
    ("cfg.SubConfig", Annotation(types=("object:SubConfig",), names=("cfg.SubConfig", "cfg"))),
])
def test_an_annotation_reads_as_types_choices_and_names(text: str, expected: Annotation) -> None:
    assert read_annotation(text) == expected


def test_a_literal_nested_in_a_container_is_no_choice_of_the_value_itself() -> None:
    # The value is a list; its elements' Literal values (or a Literal alias's, which the
    # linker reads: vLLM's ``list[TorchProfilerActivity] | None`` gave the choice 'CPU',
    # which pydantic refused before the validator ran) are not choices of the value.
    found = read_annotation("list[Literal['a', 'b']]")
    assert (found.types, found.choices, found.literals) == (("list",), None, ())
    assert read_annotation("list[Mode] | None").literals == ()
    assert read_annotation("Optional[Mode]").literals == (("alias", "Mode"),)


@pytest.mark.parametrize("text", [None, "", "not an annotation (", "x" * 10 + "[" * 300])
def test_what_does_not_parse_says_nothing(text: str | None) -> None:
    assert read_annotation(text) == Annotation()
