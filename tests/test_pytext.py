"""Values as Python text: a long run of one item is written as a product that evaluates back."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from extractor.model.pytext import REPEATED_FROM, repeated_text


@given(st.one_of(st.text(max_size=60), st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["", "a"]), st.none(), st.booleans()), max_size=60)))
def test_a_product_is_the_same_value(value) -> None:
    text = repeated_text(value)
    if text is None:
        return
    assert len(value) >= REPEATED_FROM
    left, count = text.rsplit(" * ", 1)
    item = ast.literal_eval(left)
    assert item * int(count) == value and type(item * int(count)) is type(value)


def test_gettext_s_long_plural_is_written_once() -> None:
    assert repeated_text("a" * 1001) == "'a' * 1001"
    assert repeated_text([0] * 30) == "[0] * 30"
    assert repeated_text("ab" * 30) is None and repeated_text("a" * 5) is None and repeated_text([0, 1] * 20) is None
