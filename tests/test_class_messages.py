"""Exception classes that build their own text (fixtures/dateparse): each card's message is
what ``str()`` of the raised error shows, and ``explain`` finds the error from that text.

The fixture was written for this project and is safe to run; each call runs in a child
interpreter, never in the test process.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, run_cli

ROOT = FIXTURES / "dateparse"

# (function, line) -> the card's template: str() of the error as the classes make it
TEMPLATES = {
    ("split_date", 11): "String does not contain a date: {text}",  # ParserError: self.args[0] % self.args[1:]
    ("split_date", 13): "Unexpected separator '/' in {text!r}",  # ... a %r field
    ("split_date", 16): "Unknown string format: {text}",
    ("parse_month", 23): "month must be in 1..12, got {month}",  # RangeError: an f-string over the fields
    ("check_format", 30): "{text!r} does not match the format {fmt!r}",  # FormatMismatch: super().__init__(f"...")
    ("zone_offset", 36): "unknown time zone: {zone!r}",  # UnknownZone: its __init__'s default, through DateError
    ("field_value", 43): "{value!r} is not a number",  # FieldError: the message alone (format_message adds the field)
    ("require", 50): "no date given",  # DateError: __str__ returns self.message
    ("check_tag", 63): "TagError('unknown tag {tag}')",  # ReprError: __str__ = object.__str__, so its repr
    ("check_pattern", 70): "empty pattern",  # PatternError: no pattern nor position, no suffix
    ("check_pattern", 72): "unbalanced parenthesis at position {len(pattern) - 1:d}",  # ... given: the start (a line may follow)
}
PARTIAL = {("check_pattern", 72)}  # only the start of the text is known (form class_base:)

_RUN = """
import json, sys
sys.path.insert(0, sys.argv[1])
import dateparse
try:
    getattr(dateparse, sys.argv[2])(**json.loads(sys.argv[3]))
except Exception as exc:
    print(json.dumps([type(exc).__name__, str(exc)]))
"""


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("dateparse") / "docs"
    subprocess.run([sys.executable, "-m", "extractor", "extract", str(ROOT), "-o", str(out), "--no-cache", "-q"], check=True)
    return str(out)


def test_every_card_shows_the_text_its_class_makes(docs: str) -> None:
    cards = load_catalog(docs + "/catalog.json")["errors"]
    assert {(c["function"], c["line"]): c["message"]["template"] for c in cards} == TEMPLATES
    assert all(c["message"]["form"].startswith("class_base:" if (c["function"], c["line"]) in PARTIAL else "class:") for c in cards)


def test_str_of_each_raised_error_is_the_cards_message(docs: str) -> None:
    for card in load_catalog(docs + "/catalog.json")["errors"]:
        if (card["function"], card["line"]) in PARTIAL:
            continue
        trigger = card["trigger"]
        assert trigger["verified"] and trigger["message"] is not None, card["function"]
        ran = subprocess.run([sys.executable, "-c", _RUN, str(ROOT), card["function"], json.dumps(trigger["inputs"])],
                             capture_output=True, text=True, check=True)
        assert json.loads(ran.stdout) == [card["exception"]["display"], trigger["message"]], card["function"]


@pytest.mark.parametrize(("pattern", "shown"), [
    ("(a", "unbalanced parenthesis at position 1"),  # the template, filled
    ("(\na", "unbalanced parenthesis at position 2 (line 2)"),  # it starts so: a nested if adds the line
])
def test_a_text_whose_start_is_known_starts_so(docs: str, pattern: str, shown: str) -> None:
    card = next(c for c in load_catalog(docs + "/catalog.json")["errors"] if (c["function"], c["line"]) == ("check_pattern", 72))
    start = card["message"]["template"].replace("{len(pattern) - 1:d}", str(len(pattern) - 1))
    ran = subprocess.run([sys.executable, "-c", _RUN, str(ROOT), "check_pattern", json.dumps({"pattern": pattern})],
                         capture_output=True, text=True, check=True)
    assert json.loads(ran.stdout) == ["PatternError", shown] and shown.startswith(start)


@pytest.mark.parametrize(("pasted", "function", "values"), [
    ("Unknown string format: not a date", "split_date", {"text": "not a date"}),
    ("dateparse.errors.ParserError: Unexpected separator '/' in '2024/01/02'", "split_date", {"text": "'2024/01/02'"}),
    ("ValueError: month must be in 1..12, got 13", "parse_month", {"month": "13"}),
    ("unknown time zone: 'PST'", "zone_offset", {"zone": "'PST'"}),
])
def test_explain_finds_the_error_from_its_printed_text(capsys, docs: str, pasted: str, function: str, values: dict) -> None:
    run = run_cli(capsys, "explain", pasted, "--catalog", docs, "--format", "json", "--no-cache")
    assert run.code == 0, run.err
    best = json.loads(run.out)[0]
    assert (best["card"]["function"], best["values"], best.get("note")) == (function, values, None)
