"""Checks on the way (link.onway, solve.checks.CHECK_ON_THE_WAY): a function of the file that
the card's function calls before its raise, given the trigger's values, may raise first."""

from __future__ import annotations

import textwrap

from extractor.model import Reason

from .helpers import extract_snippet


def _cards(tmp_path, code: str) -> dict:  # (pytest's tmp_path)
    return {(c.at.function, c.at.line): c for c in extract_snippet(tmp_path, textwrap.dedent(code))}


def test_a_check_given_a_computed_argument_is_passed_by_the_trigger(tmp_path) -> None:
    cards = _cards(tmp_path, '''
        def _fits(rows, limit):
            if rows > limit:
                raise ValueError("too many rows")

        def table(rows: int, cols: int) -> None:
            _fits(rows, 10 * cols)
            if cols < 1:
                raise ValueError("no columns")
        ''')
    trigger = cards[("table", 9)].solved.trigger
    # cols=0 alone makes ``rows > 10 * cols`` true for rows=1: the trigger passes the check (rows=0)
    assert trigger.verified and trigger.inputs["cols"] == 0 and trigger.inputs["rows"] <= 0


def test_a_check_of_module_state_alone_is_taken_to_pass(tmp_path) -> None:
    cards = _cards(tmp_path, '''
        READY = True

        def _check_ready():
            if not READY:
                raise RuntimeError("not ready")

        def run(n: int) -> None:
            _check_ready()
            if n < 0:
                raise ValueError("negative")
        ''')
    assert cards[("run", 11)].solved.trigger.verified  # (given none of the trigger's values, like any call on the way)


def test_a_check_that_reads_its_own_locals_is_never_shown_false(tmp_path) -> None:
    cards = _cards(tmp_path, '''
        def _check_items(items):
            for item in items:
                if not item:
                    raise ValueError("empty item")

        def total(items: list, scale: int) -> int:
            _check_items(items)
            if len(items) > 3 and scale <= 0:
                raise ValueError("scale must be positive")
            return sum(items) * scale
        ''')
    trigger = cards[("total", 10)].solved.trigger
    # (the trigger's items, [0, 0, 0, 0], would fail the loop's check first)
    assert not trigger.verified and trigger.reason == Reason.CHECK_ON_THE_WAY
