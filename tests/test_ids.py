"""Card ids survive moved and reformatted code, and stay distinct."""

from __future__ import annotations

from .helpers import extract_snippet

BEFORE = '''
def check(self, n):
    if n > self.limit:
        raise ValueError(f"n ({n}) must be <= {self.limit}")
    if n < 0:
        raise ValueError("negative")
    if n == 7:
        raise ValueError("negative")
'''

AFTER = '''
import os


def check(self, n):
    """Now documented."""
    if n > self.limit:
        raise ValueError(
            f"n ({n})"
            f" must be <= {self.limit}"
        )
    if n < 0:
        raise ValueError("negative")
    if n == 7:
        raise ValueError("negative")
'''


def test_ids_are_stable_across_moves_and_reformatting(tmp_path) -> None:
    before = [c.id for c in extract_snippet(tmp_path / "a", BEFORE)]
    after = [c.id for c in extract_snippet(tmp_path / "b", AFTER)]
    assert before == after
    assert len(set(before)) == 3
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in before)
