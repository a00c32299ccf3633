"""Card ids come from the site's place (path, function, exception, its ordinal among the
function's raises of that exception): they survive moved, reformatted and reworded code, and
stay distinct."""

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
    if not isinstance(n, int):
        raise TypeError("n must be an int")
'''

AFTER = '''
import os


def check(self, n):
    """Now documented, its type checked first and its first message reworded."""
    if not isinstance(n, int):
        raise TypeError("n must be an int")
    if n > self.limit:
        raise ValueError(
            f"n ({n}) is more than"
            f" the limit, {self.limit}"
        )
    if n < 0:
        raise ValueError("negative")
    if n == 7:
        raise ValueError("negative")
'''


def test_ids_survive_moves_reformatting_and_rewording(tmp_path) -> None:
    before = [c.id for c in extract_snippet(tmp_path / "a", BEFORE)]
    after = [c.id for c in extract_snippet(tmp_path / "b", AFTER)]
    assert after == [before[3], *before[:3]]  # the TypeError moved first
    assert len(set(before)) == 4
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in before)


def test_an_id_is_the_place_of_the_raise_among_its_functions_raises_of_one_class(tmp_path) -> None:
    # Another class at the same place is another card; so is a raise of the same class
    # inserted before it (the ordinals shift: pairing them is the diff's job).
    one, two = (extract_snippet(tmp_path / name, f"def f(x):\n    if x:\n        raise {cls}('bad x')\n")
                for name, cls in (("a", "TypeError"), ("b", "ValueError")))
    assert one[0].id != two[0].id
    first = extract_snippet(tmp_path / "c", "def f(x):\n    if x:\n        raise ValueError('bad x')\n")
    shifted = extract_snippet(tmp_path / "d", "def f(x):\n    if x is None:\n        raise ValueError('no x')\n"
                                              "    if x:\n        raise ValueError('bad x')\n")
    assert shifted[0].id == first[0].id == two[0].id and shifted[1].id != first[0].id
