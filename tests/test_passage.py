"""The way to a raise (collect.paths, solve.passage): a trigger under which a statement
before the raise, or the raise's own arguments, fail first is not verified, and a value only
the raise's arguments read is one under which they evaluate. The claims are run on
fixtures/callers/shop/reader.py (written for this project, safe to run) in a child interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

from extractor.solve.passage import fails, first_failing, names_read

from .helpers import FIXTURES, extract_snippet, extracted, run_cli

ROOT = FIXTURES / "callers"


def _cards(capsys) -> dict[str, dict]:
    run = run_cli(capsys, "extract", str(ROOT), "--no-cache", "-q")
    return {c["function"]: c for c in extracted(run.out)["errors"] if c["path"] == "shop/reader.py"}


def _raised(call: str) -> str:
    """What running ``call`` on shop.reader raises: its class, and the line it left from."""
    probe = (
        "import sys, traceback\n"
        "from shop.reader import *\n"
        f"try:\n    {call}\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, traceback.extract_tb(exc.__traceback__)[-1].lineno)\n"
    )
    run = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + probe],
                         capture_output=True, text=True, timeout=60, check=False)
    return run.stdout.strip()


def test_a_trigger_an_earlier_statement_refuses_is_not_verified(capsys) -> None:
    card = _cards(capsys)["removed_in"]
    trigger = card["trigger"]
    assert (trigger["status"], trigger["reason"], trigger["verified"]) == ("concrete", "fails_on_the_way", False)
    assert card["example"] is None
    # Run as the trigger says: ``removed[0]`` fails on line 17, before the raise on line 19.
    arguments = ", ".join(f"{k}={v!r}" for k, v in trigger["inputs"].items())
    assert _raised(f"removed_in({arguments})") == "IndexError 17"


def test_a_value_only_the_raise_reads_lets_it_build_its_exception(capsys) -> None:
    cards = _cards(capsys)
    # ``len(name) + offset``: offset is an int, not the stand-in None; ``**details`` a dict.
    assert cards["Reader.expect_name"]["trigger"]["inputs"] == {"name": "1", "offset": 0}
    assert cards["rejected"]["trigger"]["inputs"]["details"] == {}
    assert all(cards[f]["trigger"]["verified"] for f in ("Reader.expect_name", "rejected"))
    assert _raised("Reader().expect_name(name='1', offset=0)") == "ValueError 13"
    assert _raised("rejected(data=b'', expected=b'x', details={})") == "ImportError 24"
    assert _raised("Reader().expect_name(name='1', offset=None)") == "TypeError 13"  # what the stand-in did


def test_what_fails_is_what_python_refuses() -> None:
    assert fails("f'{remove[0]}.{remove[1]}'", {"remove": "x"})
    assert not fails("f'{remove[0]}.{remove[1]}'", {"remove": "xy"})
    assert fails("len(name) + offset", {"name": "a", "offset": None})
    assert fails("int(text)", {"text": "x"}) and not fails("int(text)", {"text": "7"})
    assert fails("**details", {"details": 0}) and not fails("**details", {"details": {}})
    assert fails("*items", {"items": None}) and not fails("*items", {"items": "ab"})
    # What the evaluator cannot compute is no evidence: an unknown name, a call outside its allow-list.
    assert not fails("missing + 1", {}) and not fails("helper(x)", {"x": 0})
    assert first_failing(["x + 1", "x[0]"], {"x": 0}) == "x[0]"
    assert set(names_read(["len(name) + offset", "**details", "self.size * 2"], {"name"})) == {"name", "offset", "details", "self.size"}


def test_a_loop_on_the_way_that_reads_the_trigger_s_value_leaves_it_unverified(tmp_path) -> None:
    """optparse's ``_set_attrs``: ``for attr in self.ATTRS: if attr in attrs: del attrs[attr]``
    runs before ``if attrs: raise``; with ``attrs = 1`` the loop fails first (TypeError), and
    with a dict it may empty it. A loop that reads only other values leaves the claim alone."""
    code = ("class O:\n    ATTRS = ['a']\n\n    def set_attrs(self, attrs):\n        for attr in self.ATTRS:\n"
            "            if attr in attrs:\n                del attrs[attr]\n        if attrs:\n            raise TypeError('invalid')\n\n"
            "    def count(self, n):\n        for i in range(3):\n            print(i)\n        if n > 2:\n            raise ValueError('n')\n")
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code)}
    looped = cards["O.set_attrs"].solved.trigger
    assert (looped.status, looped.verified, looped.reason) == ("concrete", False, "loop_on_the_way")
    assert "attrs" in cards["O.set_attrs"].statement.guard.looped
    assert cards["O.count"].solved.trigger.verified


def test_what_an_unknown_call_is_given_is_evaluated_first() -> None:
    """``"\\n".join(difflib.ndiff([str(x) for x in expected], ...))`` iterates ``expected`` before
    difflib runs (the evaluator makes no ``difflib`` call, but Python fails on its argument): a
    trigger with ``expected=0`` raises TypeError there, not the card's error (test_sys_settrace's
    ``compare_events`` under ``self.fail``). What a test may skip is no evidence."""
    code = '"mismatch:\\n" + "\\n".join(difflib.ndiff([str(x) for x in expected], [str(x) for x in events]))'
    assert fails(code, {"expected": 0, "events": []})
    assert not fails(code, {"expected": [1], "events": []})
    assert not fails("difflib.ndiff(a if ok else [x for x in a], [])", {"a": 0, "ok": True})
    assert not fails("difflib.ndiff(ok and [x for x in a], [])", {"a": 0, "ok": False})
    # (the whole value an if-expression or an ``and`` is, too: ``None if x is None else len(x)``)
    assert not fails("None if prompt is None else len(prompt)", {"prompt": None})
    assert not fails("prompt is not None and len(prompt)", {"prompt": None})
    assert not fails("difflib.ndiff(0 < n < len(xs), [])", {"n": 0, "xs": None})  # (``len(xs)`` only where ``0 < n``)
