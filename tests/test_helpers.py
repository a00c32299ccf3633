"""Raising helpers (collect.helpers, link.helpers): each call of a function that always raises
gets a card of the caller, with the helper's class and the message written at the call; the
helper's own card counts its calls. The clikit fixture's examples are run (tests/examples_runner)."""

from __future__ import annotations

import pytest

from extractor.publish.catalog_file import load_catalog

from .examples_runner import check
from extractor.cli import main

from .helpers import FIXTURES, extract_snippet

# (path, line) -> (function, helper, class, message template) of every helper-call card
CALLS = {
    ("clikit/core.py", 10): ("count_option", "clikit.parser._fail", "UsageError", "--count takes at most {limit}, got {number}."),
    ("clikit/core.py", 16): ("run", "clikit.parser._fail", "UsageError", "Too many names: {len(names)}"),
    ("clikit/parser.py", 19): ("_missing", "clikit.parser._fail", "UsageError", "Missing argument {name!r}."),
    ("clikit/parser.py", 30): ("parse_args", "clikit.parser._fail", "UsageError", "No arguments given."),
    ("clikit/parser.py", 33): ("parse_args", "clikit.parser.abort_unknown", "NoSuchOption", "No such option: {arg}"),
    ("clikit/parser.py", 39): ("need", "clikit.parser._missing", "UsageError", "Missing argument {name!r}."),
    # BadParameter's __init__s pass the message alone on to Exception's: str() is the message
    ("clikit/types.py", 31): ("IntParamType.convert", "clikit.types.ParamType.fail", "BadParameter", "{value!r} is not a valid integer."),
    ("clikit/types.py", 42): ("IntRange.check", "clikit.types.ParamType.fail", "BadParameter",
                              "{number} is smaller than the minimum {self.minimum}."),
    ("clikit/types.py", 55): ("BoolParamType.convert", "clikit.types.ParamType.fail", "BadParameter", "a boolean is expected."),
    ("clikit/types.py", 66): ("Choice.convert", "clikit.types.Choice.fail", "BadParameter",
                              "invalid choice: {value} (choose from {', '.join(self.choices)})"),
}
# helper (its tail card's function) -> the calls its card lists
USES = {
    "_fail": [("clikit/core.py", 10), ("clikit/core.py", 16), ("clikit/parser.py", 19), ("clikit/parser.py", 30)],
    "abort_unknown": [("clikit/parser.py", 33)],
    "_missing": [("clikit/parser.py", 39)],
    "ParamType.fail": [("clikit/types.py", 31), ("clikit/types.py", 42), ("clikit/types.py", 55)],
    "Choice.fail": [("clikit/types.py", 66)],
}


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("clikit") / "docs"
    assert main(["extract", str(FIXTURES / "clikit"), "-o", str(out), "--no-cache", "-q"]) == 0
    return load_catalog(str(out / "catalog.json"))["errors"]


def test_each_call_of_a_helper_has_a_card_with_the_helpers_class_and_the_calls_message(cards) -> None:
    found = {(c["path"], c["line"]): (c["function"], c["through"]["helper"], c["exception"]["display"], c["message"]["template"])
             for c in cards if c["kind"] == "helper_call"}
    assert found == CALLS
    assert all(c["through"] is None for c in cards if c["kind"] != "helper_call")


def test_a_helpers_card_counts_its_calls(cards) -> None:
    uses = {c["function"]: [(s["path"], s["line"]) for s in c["helper_calls"]["sites"]] for c in cards if c["helper_calls"]}
    assert uses == USES
    assert all(c["helper_calls"]["count"] == len(c["helper_calls"]["sites"]) for c in cards if c["helper_calls"])


def test_a_call_through_a_helper_names_the_chain(cards) -> None:
    need = next(c for c in cards if c["function"] == "need")
    assert need["through"] == {"helper": "clikit.parser._missing", "path": "clikit/parser.py", "line": 17,
                               "raise_path": "clikit/parser.py", "raise_line": 10, "raise_end_line": 10, "via": ["clikit.parser._fail"]}


def test_helper_call_cards_ids_are_distinct_and_leave_the_raises_ids_alone(cards) -> None:
    assert len({c["id"] for c in cards}) == len(cards)


def test_the_examples_raise_the_helpers_class_and_the_calls_message(cards) -> None:
    run = [c for c in cards if c["kind"] == "helper_call" and c["example"]]
    assert {c["function"] for c in run} == {"run", "parse_args", "need", "IntParamType.convert", "IntRange.check", "BoolParamType.convert"}
    problems = {f"{c['path']}:{c['line']}": found for c in run if (found := check(c, str(FIXTURES / "clikit")))}
    assert problems == {}


@pytest.mark.parametrize("code", [
    # returns on one path
    "def fail(msg):\n    if msg:\n        raise ValueError(msg)\n\ndef f(x):\n    fail(x)\n",
    # a stub subclasses override
    "class A:\n    def run(self):\n        raise NotImplementedError\n    def go(self):\n        self.run()\n",
    # a generator raises only when iterated
    "def fail(msg):\n    raise ValueError(msg)\n    yield\n\ndef f(x):\n    fail(x)\n",
    # decorated: the decorator may change what a call does
    "import functools\n@functools.cache\ndef fail(msg):\n    raise ValueError(msg)\n\ndef f(x):\n    fail(x)\n",
    # a base class outside the tree may define the method first
    "import argparse\nclass Base:\n    def error(self, m):\n        raise ValueError(m)\n"
    "class P(argparse.ArgumentParser, Base):\n    def check(self, x):\n        if x:\n            self.error('bad')\n",
    # defined twice: which one runs depends on the import
    "try:\n    from fast import kernel\nexcept ImportError:\n    def kernel(*args):\n        raise RuntimeError('no fast')\n\n"
    "def run(x):\n    kernel(x)\n",
])
def test_what_is_not_a_raising_helper_call_gets_no_card(tmp_path, code: str) -> None:
    assert [c for c in extract_snippet(tmp_path, code) if c.statement.kind == "helper_call"] == []


def test_the_call_arguments_are_put_into_the_helpers_message(tmp_path) -> None:
    code = (
        "def fail(what, hint='none'):\n    raise ValueError(f'bad {what} (hint: {hint})')\n\n"
        "def check(n):\n    if n < 0:\n        fail(f'number {n}')\n"
        "def other(n):\n    if n:\n        fail('flag', hint=n)\n"
    )
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code) if c.statement.kind == "helper_call"}
    assert cards["check"].message.template == "bad number {n} (hint: none)"
    assert cards["other"].message.template == "bad flag (hint: {n})"


def test_a_helper_whose_raise_reads_none_of_its_parameters_takes_any_arguments(tmp_path) -> None:
    code = "from typing import NoReturn\n\ndef _missing(*_, **__) -> NoReturn:\n    raise RuntimeError('backend unavailable')\n\n" \
           "def kernel(*args, **kwargs):\n    return _missing(*args, **kwargs)\n"
    [card] = [c for c in extract_snippet(tmp_path, code) if c.statement.kind == "helper_call"]
    assert (card.exception.display, card.message.template, card.at.function) == ("RuntimeError", "backend unavailable", "kernel")


def test_what_the_helper_evaluates_on_its_way_may_fail_first(tmp_path) -> None:
    """``_raise_for_token(token, ...)`` reads ``token['start']`` before its raise: a trigger
    ``token = {'type': True}`` fails there with KeyError, so it is not verified (jmespath's
    ``Parser._error_nud_token`` had claimed one); a token the helper can read does not fail there."""
    code = (
        "class ParseError(ValueError):\n    pass\n\n\n"
        "def _raise_for_token(token, reason):\n    position = token['start']\n"
        "    raise ParseError(f'{reason} at {position}')\n\n\n"
        "def error_token(token):\n    if token['type'] == 'eof':\n        return None\n    _raise_for_token(token, 'invalid token')\n\n\n"
        "def error_kind(kind):\n    if kind != 'eof':\n        _raise_for_token({'start': 0}, kind)\n"
    )
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code) if c.statement.kind == "helper_call"}
    trigger = cards["error_token"].solved.trigger
    assert not trigger.verified and trigger.reason == "fails_on_the_way"
    assert cards["error_kind"].solved.trigger.reason != "fails_on_the_way"  # (``{'start': 0}['start']`` is 0)
