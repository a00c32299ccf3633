"""Reading sources: decoding as CPython does, line splitting, walking, symlinks."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.options import Options
from extractor.sources import DecodeError, decode_source, read_tree, split_lines

from .helpers import FIXTURES, run_cli, temp_tree


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),
        (b"# -*- coding: latin-1 -*-\ns = '\xe9'\n", "# -*- coding: latin-1 -*-\ns = 'é'\n"),
        (b"#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\ns = '\xc1'\n", "#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\ns = 'а'\n"),
    ],
)
def test_decode_follows_bom_and_pep263(data: bytes, text: str) -> None:
    assert decode_source(data) == text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"# coding: no-such-codec\n", "unknown encoding: no-such-codec"),
        (b"s = '\xff'\n", "not valid UTF-8 and no encoding declared"),
        (b"# coding: utf-8\ns = '\xff'\n", "cannot decode as utf-8 at byte 21: invalid start byte"),
        (b"\xef\xbb\xbf# coding: latin-1\n", "encoding problem: utf-8"),
    ],
)
def test_decode_errors_are_one_line(data: bytes, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode_source(data)
    assert str(info.value) == message


def test_split_lines_counts_like_the_tokenizer() -> None:
    assert split_lines("a\r\nb\rc\nd\x0ce\u2028f") == ["a", "b", "c", "d\x0ce\u2028f"]


@given(st.text(alphabet="ab\n\r\x0c\u2028 "))
def test_split_lines_fast_path_agrees_with_the_tokenizer_rule(text: str) -> None:
    # Lines end at \n, \r\n or \r only; a final line end opens no new line.
    expected = re.split(r"\r\n|\r|\n", text)
    if expected[-1] == "":
        expected.pop()
    assert split_lines(text) == expected


def test_walk_is_sorted_and_skips_default_and_given_excludes(tmp_path) -> None:
    temp_tree(tmp_path, {
        "b.py": "", "a/z.py": "", "a/y.py": "", "env1/lib.py": "", "env1/pyvenv.cfg": "home = /usr\n", "build/gen.py": "",
        "pkg/__pycache__/x.py": "", "notes.txt": "", "tests/test_a.py": "", "venv/__init__.py": "",
    })
    # A virtualenv is a folder holding pyvenv.cfg, whatever its name; a package named venv is read.
    files, failures = read_tree(str(tmp_path), Options(exclude=("tests",)))
    assert [f.path for f in files] == ["a/y.py", "a/z.py", "b.py", "venv/__init__.py"]
    assert failures == []
    files, _ = read_tree(str(tmp_path), Options(include=("a/*",)))
    assert [f.path for f in files] == ["a/y.py", "a/z.py"]


def test_symlink_loops_dangling_and_outside_links_are_failures(tmp_path) -> None:
    root = tmp_path / "repo"
    temp_tree(root, {"ok.py": "raise ValueError('x')\n"})
    (tmp_path / "secret.py").write_text("password = 1\n")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("missing.py", root / "dangling.py")
    os.symlink(tmp_path / "secret.py", root / "outside.py")
    os.symlink(".", root / "dirloop")
    files, failures = read_tree(str(root), Options())
    assert [f.path for f in files] == ["ok.py"]
    assert [(f.path, f.error) for f in failures] == [
        ("dangling.py", "broken symlink"),
        ("loop_a.py", "symlink loop"),
        ("loop_b.py", "symlink loop"),
        ("outside.py", "symlink points outside the analysed tree"),
    ]


def _cards(docs) -> list[dict]:
    return json.loads((docs / "catalog.json").read_text(encoding="utf-8"))["errors"]


def test_a_package_folder_is_named_as_python_imports_it(tmp_path, capsys) -> None:
    """A root that is a package (it holds ``__init__.py``) gives the cards its parent folder
    gives: paths and modules under the package's name (``values/sequences.py``, ``from
    values.sequences import ...``), never as top-level modules no import finds; a file of it too."""
    whole, package, one = tmp_path / "whole", tmp_path / "package", tmp_path / "one"
    assert run_cli(capsys, "extract", str(FIXTURES / "values"), "-o", str(whole), "--no-cache", "-q").code == 0
    assert run_cli(capsys, "extract", str(FIXTURES / "values" / "values"), "-o", str(package), "--no-cache", "-q").code == 0
    assert _cards(package) == _cards(whole)
    assert run_cli(capsys, "extract", str(FIXTURES / "values" / "values" / "whole.py"), "-o", str(one), "--no-cache", "-q").code == 0
    examples = [card["example"]["before"] for card in _cards(one) if card.get("example")]
    assert {card["path"] for card in _cards(one)} == {"values/whole.py"}
    assert examples and all(e.startswith("from values.whole import ") for e in examples)


def test_a_folder_named_as_no_module_is_no_package_prefix(tmp_path) -> None:
    """A root holding ``__init__.py`` whose name is no identifier (a checkout ``widgets-main``)
    cannot be imported by that name: its paths stay its own."""
    temp_tree(tmp_path / "widgets-main", {"__init__.py": "", "core.py": "x = 1\n"})
    files, _ = read_tree(str(tmp_path / "widgets-main"), Options())
    assert [f.path for f in files] == ["__init__.py", "core.py"]
