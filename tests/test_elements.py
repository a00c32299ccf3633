"""Loop elements (solve.elements): the argument that runs a loop once, on the element a
guard needs, for each iterable form."""

from __future__ import annotations

from extractor.solve.domains import NO_VALUE
from extractor.solve.elements import index_target, loop_input, loop_value


def test_each_form_is_run_once_on_the_element() -> None:
    assert loop_value("xs", 3) == [3]
    assert loop_value("sorted(xs)", 3) == [3]
    assert loop_value("d.items()", ("k", 1)) == {"k": 1}
    assert loop_value("text.split(',')", "a") == "a"
    assert loop_value("text.split(',')", "a,b") is NO_VALUE  # two turns, not one


def test_a_counted_loop_runs_its_first_turn_only() -> None:
    assert loop_input("enumerate(xs)") == "xs" and index_target("enumerate(xs)", ("i", "x")) == "i"
    assert loop_value("enumerate(xs)", (0, "a")) == ["a"]
    assert loop_value("enumerate(xs)", (1, "a")) is NO_VALUE  # the one element is turn 0
    assert loop_input("range(n)") == "n" and index_target("range(n)", ("i",)) == "i"
    assert loop_value("range(n)", 0) == 1 and loop_value("range(n)", 2) is NO_VALUE
    assert index_target("xs", ("x",)) is None
