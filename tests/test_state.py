"""The object's own state on a card (collect.declarations, link.state, solve.state): where the owner
class assigns an attribute the guard reads, and which of those values reach the raise,
checked by running fixtures/callers/shop/session.py (written for this project, safe to run)
in a child interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from extractor.collect.declarations import SourceText, attribute_stores
from extractor.collect.effects import method_effects
from extractor.collect.reads import receiver_calls
from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, extract_snippet, run_cli

ROOT = FIXTURES / "callers"

# A fresh object, the writing method called (for a class attribute or __init__'s value: none),
# then the card's method: does it raise from the card's line?
_PROBE = r"""
import importlib, json, sys, traceback
module, owner, method, writer, line = sys.argv[1:6]
instance = getattr(importlib.import_module(module), owner)()
if writer not in ("", "__init__"):
    try:
        getattr(instance, writer)()
    except RuntimeError:  # (the writer's own check refuses a fresh object: no claim is run)
        print(json.dumps(None))
        sys.exit()
try:
    getattr(instance, method)()
except Exception as exc:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    print(json.dumps(frame.lineno == int(line) and frame.filename.endswith("session.py")))
else:
    print(json.dumps(False))
"""


def _by_function(tmp_path, code: str) -> dict:
    """The cards of a snippet module, by their function."""
    return {c.at.function: c for c in extract_snippet(tmp_path, code)}


def _one_card(tmp_path, capsys, source: str) -> tuple[dict, str]:
    """The one card of a package module ``source``, extracted by the CLI, and its Markdown."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "mod.py").write_text(source)
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(tree), "-o", str(out), "--no-cache").code == 0
    [card] = load_catalog(str(out / "catalog.json"))["errors"]
    return card, (out / "errors" / f"{card['id']}.md").read_text(encoding="utf-8")


def _stores(source: str) -> list[tuple]:
    node = ast.parse(source).body[0]
    return [(attribute, s.method, s.line, s.value, s.conditional) for attribute, s in attribute_stores(node, SourceText(source.splitlines()))]


def test_stores_of_methods_and_class_body() -> None:
    source = (
        "class C:\n"
        "    limit = 3\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "        self.a, *self.b = 1, 2\n"
        "        def inner(other):\n"
        "            self.hidden = 1\n"
        "    def step(this):\n"
        "        for _ in range(2):\n"
        "            this.n += 1\n"
        "        try:\n"
        "            pass\n"
        "        except OSError:\n"
        "            this.failed: bool = True\n"
        "    @staticmethod\n"
        "    def make(x):\n"
        "        x.n = 0\n"
    )
    assert _stores(source) == [
        ("limit", None, 2, "3", False),
        ("n", "__init__", 4, "n", False),
        ("a", "__init__", 5, None, False),  # (one of several targets: no one value)
        ("b", "__init__", 5, None, False),
        ("n", "step", 10, None, True),  # (+=)
        ("failed", "step", 14, "True", True),
    ]


def _cards(tmp_path, capsys) -> dict[str, dict]:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(ROOT), "-o", str(out), "--no-cache", "--site", str(tmp_path / "site")).code == 0
    cards = load_catalog(str(out / "catalog.json"))["errors"]
    return {c["function"]: c for c in cards if c["path"] == "shop/session.py"}


def test_state_cards_name_where_the_class_assigns_it(tmp_path, capsys) -> None:
    cards = _cards(tmp_path, capsys)
    claims = {f: [(w["input"], w["method"], w["value"], w["reaches"]) for w in c["state"]] for f, c in cards.items()}
    # (the trigger assumes ``isinstance(self.output, Exception)`` true: with a value given for
    # the attribute, that test is evaluated, not assumed; a call's result is not evaluated)
    assert claims.pop("Outcome.check") == [("self.output", "__init__", "None", False),
                                           ("self.output", "fail", 'RuntimeError("request failed")', None),
                                           ("self.output", "succeed", '"done"', False)]
    assert claims == {
        "Session.send": [("self._closed", "__init__", "False", False), ("self._closed", "close", "True", True)],
        "Session.release": [("self._owner", "__init__", "None", True), ("self._owner", "acquire", None, None),
                            ("self._owner", "release", "None", True)],
        "Session.stop": [("self._state", "__init__", "IDLE", True), ("self._state", "acquire", None, None),
                         ("self._state", "start", "RUNNING", False), ("self._state", "stop", "IDLE", True)],
        "Session._require_running": [("self._state", "__init__", "IDLE", True), ("self._state", "acquire", None, None),
                                     ("self._state", "start", "RUNNING", False), ("self._state", "stop", "IDLE", True)],
        "Session.retry": [("self.retries", None, "0", True), ("self.retries", "configure", "3", False),
                          ("self.retries", "retry", None, None)],
    }
    markdown = (tmp_path / "docs" / "errors" / f"{cards['Session.send']['id']}.md").read_text(encoding="utf-8")
    assert "- `self._closed = True` in `Session.close` (`shop/session.py:20`, in a block of it): this value reaches the raise" in markdown
    html = next((tmp_path / "site").rglob(f"{cards['Session.send']['id']}.html")).read_text(encoding="utf-8")
    assert "<li><code>self._closed = False</code> in <code>Session.__init__</code>" in html
    # Any call raises on a new object: the solution is the method whose value does not reach
    # the raise (test_what_state_cards_claim_holds_when_run runs start() before it)
    running = cards["Session._require_running"]["id"]
    markdown = (tmp_path / "docs" / "errors" / f"{running}.md").read_text(encoding="utf-8")
    assert "## Solutions\n\n1. Call `Session.start` first: it sets `self._state = RUNNING`, a value that does not reach this raise (not verified).\n" in markdown
    html = next((tmp_path / "site").rglob(f"{running}.html")).read_text(encoding="utf-8")
    assert "<li>Call <code>Session.start</code> first: it sets <code>self._state = RUNNING</code>" in html


def test_what_state_cards_claim_holds_when_run(tmp_path, capsys) -> None:
    checked = 0
    for function, card in _cards(tmp_path, capsys).items():
        owner, method = function.rsplit(".", 1)
        for write in card["state"]:
            if write["reaches"] is None or write["method"] == method:  # (a value the method leaves for its next call)
                continue
            run = subprocess.run([sys.executable, "-c", _PROBE, "shop.session", owner, method, write["method"] or "", str(card["line"])],
                                 cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
            ran = json.loads(run.stdout)
            if ran is None:
                assert (function, write["method"]) == ("Session._require_running", "stop")  # (stop() needs a started session)
                continue
            assert ran is write["reaches"], (function, write)
            checked += 1
    assert checked == 11


def test_a_new_object_s_state_is_read_only_where_construction_leaves_one_value(tmp_path, capsys) -> None:
    """``constructed``: the value __init__ leaves, where nothing else construction runs assigns
    it (a method __init__ calls, a base's __init__), and the trigger then builds the object."""
    code = (
        "class Plain:\n"
        "    def __init__(self) -> None:\n"
        "        self.open = False\n"
        "    def read(self) -> None:\n"
        "        if not self.open:\n"
        "            raise RuntimeError('not open')\n"
        "class Resets:\n"
        "    def __init__(self) -> None:\n"
        "        self.open = False\n"
        "        self._reset()\n"
        "    def _reset(self) -> None:\n"
        "        self.open = True\n"
        "    def read(self) -> None:\n"
        "        if not self.open:\n"
        "            raise RuntimeError('not open')\n"
    )
    cards = _by_function(tmp_path, code)
    plain, resets = cards["Plain.read"].solved.trigger, cards["Resets.read"].solved.trigger
    assert (plain.status, plain.verified, plain.constructed) == ("concrete", True, {"self.open": False})
    assert cards["Plain.read"].solved.example.before == "from mod import Plain\nPlain().read()"
    assert (resets.status, resets.reason, resets.constructed) == ("internal", "assumes_internal_values", {})


def test_a_wait_for_another_thread_on_the_way_is_not_modelled(tmp_path) -> None:
    # concurrent.futures' Future.result: a new Future's state is PENDING, but past
    # ``self._condition.wait(timeout)`` it is what another thread made it (and with no
    # timeout the wait never returns: ``Future().result()`` blocks forever).
    code = (
        "import threading\n"
        "class Future:\n"
        "    def __init__(self) -> None:\n"
        "        self._condition = threading.Condition()\n"
        "        self._state = 'pending'\n"
        "    def result(self, timeout=None):\n"
        "        with self._condition:\n"
        "            self._condition.wait(timeout)\n"
        "            if self._state != 'finished':\n"
        "                raise TimeoutError()\n"
    )
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.approximations == ("waits_for_another_thread",)
    assert not card.solved.trigger.verified and card.solved.example is None


def test_state_the_class_assigns_only_bools_is_a_bool(tmp_path, capsys) -> None:
    """``self._closed = False`` / ``True``: the values shown are False and True, not 0 and 1;
    ``self._owner = None`` / a value not shown: no type."""
    cards = _cards(tmp_path, capsys)
    send = cards["Session.send"]
    assert [d["types"] for d in send["domains"] if d["input"] == "self._closed"] == [["bool"]]
    # (a new object after close(): solve.steps)
    assert (send["trigger"]["constructed"], send["trigger"]["steps"]) == ({"self._closed": True}, ["close"])
    assert send["trigger"]["constructed"]["self._closed"] is True
    assert [d["types"] for d in cards["Session.release"]["domains"] if d["input"] == "self._owner"] == [[]]


def _effects(source: str) -> dict[str, list[tuple]]:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ClassDef)
    return {e.method: [(p.tests, p.stores, p.calls, p.is_raise) for p in e.paths] for e in method_effects(node)}


def test_method_effects_are_the_ways_through_a_method() -> None:
    source = (
        "class C:\n"
        "    def close(self, force=False):\n"
        "        if self.fp is None:\n"
        "            return\n"
        "        assert not self.busy, 'busy'\n"
        "        try:\n"
        "            self._flush()\n"
        "        finally:\n"
        "            self.fp = None\n"
        "            self.count += 1\n"
        "    def hand_on(self):\n"
        "        register(self)\n"  # (the object passed on whole: anything may change it)
        "    def early(self):\n"
        "        try:\n"
        "            return 1\n"  # (a return that runs the finally block first)
        "        finally:\n"
        "            self.done = True\n"
        "    def needs(self, x):\n"  # (a required argument)
        "        self.x = x\n"
        "    def _private(self):\n"
        "        self.y = 1\n"
        "    @property\n"
        "    def z(self):\n"
        "        return 1\n"
    )
    effects = {e.method: e for e in method_effects(ast.parse(source).body[0])}  # type: ignore[arg-type]
    # (read where a step calls them, but no step themselves: a required argument, a private name)
    assert {name: e.is_bare for name, e in effects.items()} == {"close": True, "needs": False, "_private": False}
    assert effects["close"].bound == ("force", "self")  # (names no module constant's literal is put in for in its tests)
    assert _effects(source) == {"needs": [((), (("x", "x"),), (), False)], "_private": [((), (("y", "1"),), (), False)], "close": [
        (("self.fp is None",), (), (), False),
        (("not (self.fp is None)", "not (not self.busy)"), (), (), True),
        (("not (self.fp is None)", "not self.busy"), (("fp", "None"), ("count", None)), ("_flush",), False),
    ]}


def test_a_trigger_after_a_method_a_caller_calls_on_a_new_object(tmp_path) -> None:
    """A step (solve.steps): the state a method leaves on every way a new object takes through
    it; none where a way may raise, it calls a method that sets the state, or the card's
    function sets the state again on the way to the raise."""
    code = (
        "class Conn:\n"
        "    def __init__(self) -> None:\n"
        "        self._closed = False\n"
        "        self._busy = False\n"
        "    def close(self) -> None:\n"
        "        if self._busy:\n"
        "            raise RuntimeError('busy')\n"  # (not taken: a new object is not busy)
        "        self._closed = True\n"
        "    def send(self) -> None:\n"
        "        if self._closed:\n"
        "            raise ValueError('closed')\n"
        "    def read(self) -> None:\n"
        "        self._reopen()\n"
        "        if self._closed:\n"
        "            raise EOFError('closed')\n"
        "    def _reopen(self) -> None:\n"
        "        self._closed = False\n"
        "class Risky:\n"
        "    def __init__(self) -> None:\n"
        "        self.n = 0\n"
        "    def stop(self, log=None) -> None:\n"
        "        if log:\n"  # (undecided: both ways, one of which raises)
        "            raise ValueError('log')\n"
        "        self.n = 1\n"
        "    def run(self) -> None:\n"
        "        if self.n == 1:\n"
        "            raise RuntimeError('stopped')\n"
    )
    cards = _by_function(tmp_path, code)
    send = cards["Conn.send"].solved
    assert (send.trigger.status, send.trigger.verified, send.trigger.steps, send.trigger.constructed) == \
        ("concrete", True, ("close",), {"self._closed": True})
    assert send.example.before == "from mod import Conn\nconn = Conn()\nconn.close()\nconn.send()"
    assert (cards["Conn.read"].solved.trigger.status, cards["Conn.read"].solved.trigger.steps) == ("internal", ())
    assert (cards["Risky.run"].solved.trigger.status, cards["Risky.run"].solved.trigger.steps) == ("internal", ())


def test_receiver_calls_are_the_methods_called_on_the_object_before_the_raise() -> None:
    source = (
        "class C:\n"
        "    def f(self, x):\n"
        "        if x is None:\n"
        "            return self\n"  # (handed to no one)
        "        self.fill()\n"
        "        super().reset()\n"
        "        if x:\n"
        "            raise ValueError('x')\n"
        "        self.after()\n"
        "    def g(self):\n"
        "        register(self)\n"
        "        raise ValueError('g')\n"
    )
    cls = ast.parse(source).body[0]
    f, g = cls.body
    raise_f = f.body[3].body[0]
    assert receiver_calls(f, (cls, f, f.body[3], raise_f), raise_f) == ("fill", "reset")
    assert receiver_calls(g, (cls, g, g.body[1]), g.body[1]) == ("*",)


def test_a_new_object_reads_a_class_attribute_no_init_assigns(tmp_path) -> None:
    """A class body's literal is a new object's value where no ``__init__`` assigns the
    attribute (and none where one does, or a method ``__init__`` calls may)."""
    code = (
        "class Quota:\n"
        "    left = 0\n"
        "    def take(self) -> None:\n"
        "        if self.left <= 0:\n"
        "            raise ValueError('no quota left')\n"
        "class Filled(Quota):\n"
        "    def __init__(self) -> None:\n"
        "        self._fill()\n"
        "    def _fill(self) -> None:\n"
        "        self.left = 3\n"
    )
    cards = _by_function(tmp_path, code)
    take = cards["Quota.take"].solved
    assert (take.trigger.status, take.trigger.verified, take.trigger.constructed) == ("concrete", True, {"self.left": 0})
    assert take.example.before == "from mod import Quota\nQuota().take()"


def test_a_raise_in_the_constructor_reads_only_what_the_class_body_gives(tmp_path) -> None:
    """While ``__init__`` runs, what it assigns later is not set yet (``self.flag`` raises
    AttributeError there): only a class body's literal is the object's value."""
    code = (
        "class Heads:\n"
        "    supported = (2, 4)\n"
        "    def __init__(self, heads: int) -> None:\n"
        "        if heads not in self.supported:\n"
        "            raise ValueError('unsupported heads')\n"
        "class Flagged:\n"
        "    def __init__(self) -> None:\n"
        "        if self.flag:\n"
        "            raise ValueError('flag set')\n"
        "        self.flag = True\n"
    )
    cards = _by_function(tmp_path, code)
    heads, flagged = cards["Heads.__init__"].solved, cards["Flagged.__init__"].solved
    assert (heads.trigger.status, heads.trigger.verified, heads.example.before) == ("concrete", True, "from mod import Heads\nHeads(heads=0)")
    assert (flagged.trigger.status, flagged.trigger.constructed) == ("internal", {})


def test_a_with_statement_s_target_on_the_object_is_a_store() -> None:
    source = (
        "class C:\n"
        "    def open(self):\n"
        "        with open('x') as self.f:\n"
        "            self.n = 1\n"
    )
    assert _effects(source) == {"open": [((), (("f", None), ("n", "1")), (), False)]}


def test_a_constructor_argument_the_trigger_lacks_is_named_as_the_constructor_s(tmp_path, capsys) -> None:
    """``missing`` lists ``self.file`` for the object's constructor's ``file``: the card names it so."""
    card, text = _one_card(tmp_path, capsys, (
        "class Reader:\n"
        "    def __init__(self, file, size: int = 0) -> None:\n"
        "        self.file = file\n"
        "        self.size = size\n"
        "    def read(self) -> None:\n"
        "        if self.size < 0:\n"
        "            raise ValueError('negative size')\n"
    ))
    assert card["trigger"]["missing"] == ["self.file"]
    assert "Not verified: the trigger has no value for the object's constructor's required argument `file`.\n" in text


def test_a_card_lacking_an_argument_also_says_why_else_it_is_not_verified(tmp_path, capsys) -> None:
    card, text = _one_card(tmp_path, capsys, (
        "import winreg\n"
        "class Pipe:\n"
        "    def __init__(self, handle) -> None:\n"
        "        self.handle = handle\n"
        "        self.closed = False\n"
        "    def close(self) -> None:\n"
        "        self.closed = True\n"
        "    def fileno(self) -> int:\n"
        "        if self.closed:\n"
        "            raise ValueError('I/O operation on closed pipe')\n"
        "        return 0\n"
    ))
    assert (card["trigger"]["reason"], card["trigger"]["missing"], card["trigger"]["steps"]) == ("other_platform", ["self.handle"], ["close"])
    assert "Not verified: the trigger has no value for the object's constructor's required argument `handle`.\n" in text
    assert "\nAlso not verified: the raise is reached on another platform only" in text


def test_a_class_attribute_of_a_long_value_is_not_shown_as_none(tmp_path, capsys) -> None:
    """A class attribute whose source is too long to show (``BINDING_POWER = {...}`` in
    jmespath's ``Parser``) is said to have a value not shown, never ``= None``."""
    (tmp_path / "pkg").mkdir()
    powers = ", ".join(f"'token{i}': {i}" for i in range(12))
    (tmp_path / "pkg" / "__init__.py").write_text(
        f"class Parser:\n    POWERS = {{{powers}}}\n\n    def check(self, kind):\n"
        "        if self.POWERS[kind] < 3:\n            raise ValueError('too weak')\n", encoding="utf-8")
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(tmp_path / "pkg"), "-o", str(out), "--no-cache").code == 0
    [card] = load_catalog(str(out / "catalog.json"))["errors"]
    markdown = (out / "errors" / f"{card['id']}.md").read_text(encoding="utf-8")
    assert "`POWERS` is assigned a value not shown (a long or computed one) in the body of `Parser`" in markdown
    assert "POWERS = None" not in markdown
