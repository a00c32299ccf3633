"""Stored attributes: ``self.x = v`` then ``self.x`` read later in the same function is ``v``,
until a call that may store it again (collect/attributes.py); the join of a branch no
expression gives with one that is followed; triggers that read no internal value."""

from __future__ import annotations

import textwrap

import pytest

from .helpers import extract_snippet


def _guard(tmp_path, body: str, extra: str = "", bases: str = "") -> tuple[str, tuple[str, ...]]:
    code = f"class C{bases}:\n    def __init__(self, runner, n: int, label: str = 'a'):\n" + textwrap.indent(body, "        ") + "\n" + extra
    [card] = [c for c in extract_snippet(tmp_path, code) if c.exception.display == "ValueError"]
    return card.statement.guard.code, card.statement.guard.opaque


@pytest.mark.parametrize(
    ("body", "guard", "opaque"),
    [
        # vLLM's DraftBench: the attribute is what the constructor stored, in the caller's terms
        ("self.method = runner.config.method\nif self.method not in ('a', 'b'):\n    raise ValueError('x')",
         "runner.config.method not in ('a', 'b')", ()),
        # read before the store: the caller's; after a store in a branch, the two joined
        ("if self.x is None:\n    self.x = n\nif self.x < 0:\n    raise ValueError('x')", "(n if self.x is None else self.x) < 0", ()),
        ("self.n = n\nself.n += 1\nif self.n > 3:\n    raise ValueError('x')", "(n + 1) > 3", ()),
        # a store under it changes what ``self.a.b`` reads
        ("self.a = runner\nif self.a.b:\n    raise ValueError('x')", "runner.b", ()),
        # a call's result: a value no expression gives, an opaque name (the bare one is the caller's)
        ("self.m = runner.read()\nif self.m:\n    raise ValueError('x')", "self.m_1", ("self.m_1",)),
        # a method of the value (``str.upper``) cannot store the attribute; a call given the object may
        ("self.s = label\nself.s.upper()\nif self.s == 'b':\n    raise ValueError('x')", "label == 'b'", ()),
        ("self.s = label\nsetattr(self, 's', 'c')\nif self.s == 'b':\n    raise ValueError('x')", "self.s_1 == 'b'", ("self.s_1",)),
        ("self.s = label\nsuper().__init__()\nif self.s == 'b':\n    raise ValueError('x')", "self.s_1 == 'b'", ("self.s_1",)),
    ],
)
def test_a_stored_attribute_reads_as_the_value_stored(tmp_path, body: str, guard: str, opaque: tuple) -> None:
    assert _guard(tmp_path, body) == (guard, opaque)


METHODS = """
    def restock(self):
        self.refill()

    def refill(self):
        self.used = 2

    def log(self):
        print(self.used)
"""


@pytest.mark.parametrize(
    ("call", "bases", "guard", "opaque"),
    [
        ("self.log()", "", "0 > n", ()),  # stores nothing
        ("self.restock()", "", "self.used_1 > n", ("self.used_1",)),  # stores it, through a method it calls
        ("self.other()", "", "0 > n", ()),  # not a method of a class without bases: taken to store nothing
        ("self.other()", "(Base)", "self.used_1 > n", ("self.used_1",)),  # may be inherited: may store anything
    ],
)
def test_a_method_of_the_class_stores_what_its_body_stores(tmp_path, call: str, bases: str, guard: str, opaque: tuple) -> None:
    body = f"self.used = 0\n{call}\nif self.used > n:\n    raise ValueError('x')"
    assert _guard(tmp_path, body, METHODS, bases) == (guard, opaque)


def test_two_reads_of_one_value_are_one_conjunct(tmp_path) -> None:
    # test_ssl's server loop: the loop's test and the handler's read the same `self._active`
    # (a value the loop's later store may have left: `_1`); they were two tags, one name, twice
    code = """
    import socket

    class Server:
        def run(self):
            while self._active:
                try:
                    self.sock.accept()
                except socket.timeout:
                    if not self._active:
                        return
                    raise ValueError("timeout")
                self._active = False
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "self._active_1 and __raises__(self.sock.accept(), (socket.timeout,))"


def test_the_text_libcst_reads_keeps_what_stores_a_read_attribute(tmp_path, monkeypatch) -> None:
    # A statement that stores an attribute read later, or calls a method of its object,
    # is kept; facts are those of the whole text.
    from extractor.collect import units

    code = """
    class C:
        def __init__(self, n):
            self.unread = n
            self.used = n
            print("x")
            self.restock()
            if self.used > 3:
                raise ValueError("x")

        def restock(self):
            self.used = 0
    """
    thinned = extract_snippet(tmp_path / "a", code)
    monkeypatch.setattr(units, "_unread_left_out", lambda unit, lines, first, end, keep=frozenset(): lines[first - 1 : end])
    assert extract_snippet(tmp_path / "b", code) == thinned
    assert thinned[0].statement.guard.code == "self.used_1 > 3" and thinned[0].statement.guard.opaque == ("self.used_1",)


def test_values_after_a_store_are_named_apart_from_the_callers(tmp_path) -> None:
    # SpeculativeConfig: `self.model` is the caller's in the first test and a value a method
    # stored at the raise; both read `self.model` (a condition that cannot hold)
    code = """
    class C:
        def f(self, other):
            if self.model is None:
                if other:
                    raise TypeError("no other")
                self.model = other.name
            self.update()
            if self.model is not None:
                raise ValueError("boom")

        def update(self):
            self.model = None
    """
    card = [c for c in extract_snippet(tmp_path, code) if c.exception.display == "ValueError"][0]
    assert card.statement.guard.code == "(self.model is None and not other or self.model is not None) and self.model_1 is not None"
    assert card.statement.guard.versions == (("self.model_1", "self.model", "stored"),)


@pytest.mark.parametrize(
    ("code", "guard"),
    [
        # a call given a part of the object may store under it
        ("def reset(cfg):\n    cfg.mode = 'b'\n\nclass H:\n    def f(self, mode):\n        self.cfg.mode = mode\n"
         "        reset(self.cfg)\n        if self.cfg.mode == 'a':\n            raise ValueError('a')\n", "self.cfg.mode_1 == 'a'"),
        ("class H:\n    def f(self, mode):\n        self.cfg.mode = mode\n        self.cfg.reset()\n"
         "        if self.cfg.mode == 'a':\n            raise ValueError('a')\n", "self.cfg.mode_1 == 'a'"),
        # asyncio.TaskGroup: at an `await` a callback on the object may store it
        ("class G:\n    async def run(self, exc):\n        if exc is not None:\n            self._err = exc\n"
         "        while self._pending:\n            await self._fut\n        if self._err is not None:\n            raise ValueError('x')\n",
         "self._err_1 is not None"),
    ],
)
def test_code_that_can_reach_the_object_may_store_it_again(tmp_path, code: str, guard: str) -> None:
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == guard


@pytest.mark.parametrize(
    ("code", "guard", "inputs"),
    [
        # email's get_atom: a branch rebinds `value` to a call's result; the other keeps the argument
        ("ENDS = set('\"(),')\n\ndef get_atom(value):\n    if value and value[0] == ' ':\n        token, value = get_cfws(value)\n"
         "    if value and value[0] in ENDS:\n        raise ValueError('expected atom')\n",
         "(value_1 if value and value[0] == ' ' else value) and (value_1 if value and value[0] == ' ' else value)[0] in ENDS",
         {"value": '"x'}),
        # a short-circuit: the call on the right is never made when the left holds
        ("def g(n, s):\n    if n == 1 or lookup(s):\n        raise ValueError('one')\n", "n == 1 or lookup(s)", {"n": 1}),
    ],
)
def test_a_trigger_takes_the_path_that_reads_no_internal_value(tmp_path, code: str, guard: str, inputs: dict) -> None:
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == guard
    assert card.solved.trigger.status == "concrete" and card.solved.trigger.assumes == {}
    assert {k: v for k, v in card.solved.trigger.inputs.items() if k in inputs} == inputs


def test_a_join_with_an_elif_whose_branches_all_leave_is_the_one_value(tmp_path) -> None:
    # past the `if`, only the first branch's value reaches: no made-up side for the others
    code = """
    def f(a, c, d):
        if c:
            a = compute(a)
        elif d:
            return
        else:
            raise TypeError("no")
        if a > 5:
            raise ValueError("big")
    """
    card = [c for c in extract_snippet(tmp_path, code) if c.exception.display == "ValueError"][0]
    assert card.statement.guard.code == "c and a_1 > 5"


def test_a_local_bound_to_an_attribute_is_not_read_as_it_after_a_call_may_store_it(tmp_path, monkeypatch) -> None:
    """``start = self.pos`` then ``self._advance()``: ``self.pos - start`` is the position
    after the call minus the one before (jmespath's lexer had shown ``self._position -
    self._position``, which no value makes 1); the text libcst reads keeps the call."""
    from extractor.collect import units

    code = """
    class Lexer:
        def __init__(self):
            self.pos = 0

        def _advance(self):
            self.pos += 1

        def word(self):
            start = self.pos
            print("x")
            self._advance()
            if self.pos - start == 1:
                raise ValueError("moved one")
    """
    thinned = [c for c in extract_snippet(tmp_path / "a", code) if c.at.function == "Lexer.word"]
    monkeypatch.setattr(units, "_unread_left_out", lambda unit, lines, first, end, keep=frozenset(): lines[first - 1 : end])
    assert [c for c in extract_snippet(tmp_path / "b", code) if c.at.function == "Lexer.word"] == thinned
    assert thinned[0].statement.guard.code == "self.pos_1 - self.pos == 1" and thinned[0].statement.guard.opaque == ("self.pos_1",)
