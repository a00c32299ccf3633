"""Which names a function may change in place (collect.purity.first_changes): what decides
whether ``x = d.get(k)`` or ``parts = text.split(",")`` is followed to the raise."""

from __future__ import annotations

import ast
import textwrap

from extractor.collect.purity import changed_by, first_changes


def _changed(code: str, until: int | None = None) -> frozenset[str]:
    text = textwrap.dedent(code)
    changes = first_changes(ast.parse(text).body[0], text)
    return changed_by(changes, until) if until is not None else frozenset(changes)


def test_a_change_after_the_last_raise_does_not_count() -> None:
    code = """
    def f(cfg, out):
        names = cfg.get("names")
        if names is None:
            raise ValueError("no names")
        out.append(names)
    """
    assert "names" in _changed(code)
    assert "names" not in _changed(code, until=5)


def test_a_change_in_a_loop_around_the_raise_counts() -> None:
    code = """
    def f(cfg):
        parts = cfg.get("parts")
        for key in cfg:
            if not parts:
                raise ValueError("empty")
            parts.append(key)
    """
    assert "parts" in _changed(code, until=6)


def test_reading_and_testing_change_nothing() -> None:
    assert "parts" not in _changed("""
    def f(text):
        parts = text.split(",")
        if len(parts) != 2 or parts.count("") > 0:
            raise ValueError(text)
    """)


def test_each_raise_sees_the_changes_before_it() -> None:
    code = """
    def setoption(arg):
        parts = arg.split(":")
        if len(parts) > 5:
            raise ValueError(arg)
        while len(parts) < 5:
            parts.append("")
        if not parts[0]:
            raise ValueError("no action")
    """
    # the loop that fills ``parts`` starts after the first raise, before the second
    assert "parts" not in _changed(code, until=5) and "parts" in _changed(code, until=9)
