"""solve.declared: a value checked against the whole declared type, as pydantic validates a
field before any validator runs, and the containers a trigger may try."""

from __future__ import annotations

import pytest

from extractor.solve.declared import fits, samples


@pytest.mark.parametrize(("annotation", "value", "expected"), [
    ("dict[str, list[str]]", {"x": 0}, False),  # (vLLM's mm_hashes={'x': 0}: "Input should be a valid list")
    ("dict[str, list[str]]", {"x": ["a"]}, True),
    ("list[int] | None", None, True),
    ("list[int] | None", ["a"], False),
    ("Optional[tuple[int, ...]]", (1, 2), True),
    ("tuple[int, str]", (1,), False),
    ("Literal['a']", "b", False),
    ("Annotated[int, Field(ge=0)]", "x", False),
    ("'list[str]'", [0], False),
    ("int", True, True),  # (a bool is an int: pydantic takes it)
    # what the tool cannot judge fits: a class, a name defined elsewhere, no annotation
    ("MyClass", 0, True),
    ("list[MyClass]", [0], True),
    (None, 0, True),
    ("not an annotation (", 0, True),
])
def test_a_value_fits_the_whole_declared_type(annotation, value, expected) -> None:
    assert fits(annotation, value) is expected


@pytest.mark.parametrize(("annotation", "value", "expected"), [
    # a value that must surely pass (a fix's value given to pydantic): what the tool cannot judge fails
    ("list[ChatMessage]", [0], False),  # (vLLM's Cohere request: messages=[0] is refused before its validator)
    ("list[ChatMessage]", [], True),
    ("MyClass", 0, False),
    ("Literal[Mode.FAST]", "fast", False),
    (None, 0, False),
    ("dict[str, Any]", {"x": 0}, True),
    ("list[object]", [0], True),
    ("int | MyClass", 1, True),
])
def test_a_value_surely_fits_only_a_type_the_tool_reads(annotation, value, expected) -> None:
    assert fits(annotation, value, strict=True) is expected
    assert fits(annotation, value) or not expected  # (strict claims less)


def test_samples_fill_containers_with_values_of_their_element_types() -> None:
    assert samples("dict[str, list[str]] | None") == [{"x": ["x"]}, {"x": []}]
    assert samples("list[str]") == [["x"]]
    assert samples("tuple[int, str]") == [(1, "x")]
    assert samples("list[MyClass]") == [] and samples("str") == []
