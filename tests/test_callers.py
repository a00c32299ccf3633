"""Callers in the same file (collect.callers): the definitions that call a function holding a
raise, confirmed on the ``ast`` (never a name in a comment or a string)."""

from __future__ import annotations

import ast

from extractor.collect.callers import in_file_callers
from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, run_cli

SOURCE = '''\
def check(x):
    if x < 0:
        raise ValueError(x)


class Loop:
    def _check_closed(self):
        raise RuntimeError("closed")

    def run(self):
        # self._check_closed() in a comment is no call
        text = "self._check_closed()"
        self._check_closed()
        self._check_closed()

    def later(self):
        def inner():
            return self._check_closed()
        return check(1), inner

    def _check_closed_too(self):
        return self._check_closed_too()


class Other:
    def run(self):
        self._check_closed()  # another class's self: not Loop's method


check(2)
'''

DEFS = ["check", "Loop._check_closed", "Loop.run", "Loop.later", "Loop.later.<locals>.inner", "Loop._check_closed_too", "Other.run"]


def _defs(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    return list(zip(DEFS, sorted(nodes, key=lambda n: n.lineno)))


def test_callers_are_calls_of_the_same_class_or_plain_name() -> None:
    tree = ast.parse(SOURCE)
    wanted = [("check", None), ("Loop._check_closed", "Loop"), ("Loop._check_closed_too", "Loop")]
    found = {function: [(c.function, c.line) for c in callers] for function, callers in in_file_callers(SOURCE, tree, _defs(tree), wanted)}
    assert found == {
        "Loop._check_closed": [("Loop.run", 13), ("Loop.later.<locals>.inner", 18)],
        "check": [("Loop.later", 19), (None, 30)],  # (module-level code: None)
    }  # (recursion aside: _check_closed_too calls only itself)


def test_nothing_wanted_reads_nothing() -> None:
    tree = ast.parse(SOURCE)
    assert in_file_callers(SOURCE, tree, _defs(tree), [("Loop.later.<locals>.inner", "Loop")]) == ()  # (nested: not a direct method)


def test_card_names_its_callers(tmp_path, capsys) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "callers"), "-o", str(out), "--no-cache").code == 0
    cards = {c["function"]: c for c in load_catalog(str(out / "catalog.json"))["errors"] if c["path"] == "shop/session.py"}
    assert cards["Session._require_running"]["callers"] == [{"function": "Session.fetch", "line": 51}]
    assert cards["Session.send"]["callers"] == []
    markdown = (out / "errors" / f"{cards['Session._require_running']['id']}.md").read_text(encoding="utf-8")
    assert "Called in this file from `Session.fetch` (line 51) (the only caller in this file; calls from other files" in markdown
