"""The class users see (link.wrapping): cards of code a framework runs name what reaches the
caller, and that is what the framework really shows. The strictcfg fixture's cards are read
from a fresh extraction; its command lines and configs are run in a child interpreter (the
fixture was written for this project), and what they print or raise is held against the
card's shown class and text, filled with the run's values."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from extractor.link.wrapping import fill_form
from extractor.model import Hole, MessageTemplate, Text
from extractor.publish.explain import match_message
from extractor.publish.paste import match_paste
from extractor.publish.search_index import build_index, index_entry

from .helpers import FIXTURES, extract_snippet

STRICTCFG = FIXTURES / "strictcfg"
pytest.importorskip("huggingface_hub.dataclasses")
pytest.importorskip("attrs")
pytest.importorskip("click")


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("strictcfg") / "docs"
    done = subprocess.run([sys.executable, "-m", "extractor", "extract", str(STRICTCFG), "-o", str(out), "--no-cache", "-q"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    catalog = json.loads((out / "catalog.json").read_text(encoding="utf-8"))
    return {f"{c['function']}:{c['line']}": c for c in catalog["errors"]}


def _card(cards: dict[str, dict], function: str) -> dict:
    found = [c for key, c in cards.items() if key.split(":")[0] == function]
    assert len(found) == 1, sorted(cards)
    return found[0]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=STRICTCFG, timeout=60, check=False)


def _render(template: str, values: dict[str, str]) -> str:
    return template.replace("{{", "\0").replace("}}", "\1").format(**values).replace("\0", "{").replace("\1", "}")


def test_strict_class_validator_names_the_wrapper_and_its_text(cards) -> None:
    card = _card(cards, "ModelConfig.validate_architecture")
    shown = card["shown"]
    assert (shown["framework"], shown["exception"], shown["is_wrapped"]) == (
        "huggingface_strict", "huggingface_hub.errors.StrictDataclassClassValidationError", True)
    assert shown["message"]["template"] == (
        "Class validation error for validator 'validate_architecture':\n    ValueError: The hidden size "
        "({self.hidden_size}) is not a multiple of the number of attention heads ({self.num_heads}).")
    run = _run("from strictcfg.model import ModelConfig\ntry:\n    ModelConfig(hidden_size=10)\n"
               "except Exception as e:\n    print(type(e).__module__ + '.' + type(e).__name__)\n    print(e)\n")
    name, text = run.stdout.split("\n", 1)
    assert name == shown["exception"]
    assert text.rstrip("\n") == _render(shown["message"]["template"].replace("self.", ""), {"hidden_size": "10", "num_heads": "4"})


def test_strict_field_validators_and_post_init(cards) -> None:
    for function in ("probability", "positive"):
        shown = _card(cards, function)["shown"]
        assert shown["exception"] == "huggingface_hub.errors.StrictDataclassFieldValidationError"
        assert shown["message"]["template"].startswith("Validation error for field '{field}':\n    ValueError: Value must be ")
    run = _run("from strictcfg.model import ModelConfig\ntry:\n    ModelConfig(num_layers=0)\nexcept Exception as e:\n    print(e)\n")
    template = _card(cards, "positive")["shown"]["message"]["template"]
    assert run.stdout.rstrip("\n") == _render(template, {"field": "num_layers", "value": "0"})
    assert "shown" not in _card(cards, "ModelConfig.__post_init__")  # @strict does not wrap what __post_init__ raises
    depth = _card(cards, "ModelConfig.validate_depth")["shown"]  # a TypeError is wrapped too
    assert depth["message"]["template"].startswith("Class validation error for validator 'validate_depth':\n    TypeError: ")


def test_click_terminal_line_and_exit_status(cards) -> None:
    convert = _card(cards, "Even.convert")["shown"]
    assert (convert["exception"], convert["exit_code"], convert["terminal"]["template"]) == (
        "SystemExit", 2, "Error: Invalid value for {param_hint}: {number} is not even")
    run = _run("from strictcfg.commands import greet\ngreet(['--count', '3'])\n")
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == _render(convert["terminal"]["template"], {"param_hint": "'--count'", "number": "3"})
    by_line = {c["shown"]["terminal"]["template"]: c for key, c in cards.items() if key.startswith("greet:")}
    assert sorted(by_line) == ["Error: --count {count} is too many: at most 10",
                               "Error: Invalid value for '--name': {name!r} is not an identifier"]
    run = _run("from strictcfg.commands import greet\ngreet(['--count', '12'])\n")
    assert (run.returncode, run.stderr.splitlines()[-1]) == (2, "Error: --count 12 is too many: at most 10")
    assert run.stderr.splitlines()[0].startswith("Usage: ")  # a usage error: the usage line first


def test_argparse_terminal_line(cards) -> None:
    shown = _card(cards, "ratio")["shown"]
    assert (shown["framework"], shown["exception"], shown["exit_code"]) == ("argparse", "SystemExit", 2)
    run = _run("from strictcfg.cli import main\nmain(['--ratio', '2'])\n")
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == _render(shown["terminal"]["template"], {"prog": "strictcfg", "flag": "--ratio", "value": "2.0"})


def test_attrs_passes_errors_through(cards) -> None:
    for function in ("Point._check_limit", "non_negative"):
        shown = _card(cards, function)["shown"]
        assert (shown["framework"], shown["exception"], shown["is_wrapped"]) == ("attrs", "ValueError", False)
    run = _run("from strictcfg.points import Point\ntry:\n    Point(limit=2000)\nexcept ValueError as e:\n    print(type(e).__name__, e)\n")
    assert run.stdout.strip() == "ValueError limit must be <= 1000, got 2000"


@pytest.mark.parametrize(("pasted", "function"), [
    ("Error: Invalid value for '--count': 3 is not even", "Even.convert"),
    ("Usage: greet [OPTIONS]\nTry 'greet --help' for help.\n\nError: --count 12 is too many: at most 10", "greet"),
    ("usage: strictcfg [-h] [--ratio RATIO]\nstrictcfg: error: argument --ratio: 2.0 is not between 0 and 1", "ratio"),
    (("huggingface_hub.errors.StrictDataclassFieldValidationError: Validation error for field 'num_layers':\n"
     "    ValueError: Value must be positive, got 0"), "positive"),
])
def test_explain_finds_what_the_terminal_shows(cards, pasted: str, function: str) -> None:
    index = build_index([index_entry(c) for c in cards.values()], "0" * 64)
    matches, _ = match_paste(pasted, index, 3)
    assert matches and matches[0].card["function"] == function
    catalog = {"errors": list(cards.values())}
    assert match_message(pasted, catalog, 1)[0].card["function"] == function  # from the catalog itself, too


def test_explain_reads_the_holes_the_framework_fills(cards) -> None:
    index = build_index([index_entry(c) for c in cards.values()], "0" * 64)
    found = match_message("strictcfg: error: argument --ratio: 2.0 is not between 0 and 1", index, 1)[0]
    assert found.values == {"prog": "strictcfg", "flag": "--ratio", "value": "2.0"}


def test_fill_form() -> None:
    message = MessageTemplate(form="fstring", parts=(Text(text="x is "), Hole(expr="x")), template="x is {x}", placeholders=("x",))
    filled = fill_form("{prog}: error: {message} ({cause})", {"cause": "ValueError"}, message)
    assert (filled.template, filled.placeholders) == ("{prog}: error: x is {x} (ValueError)", ("prog", "x"))
    unknown = MessageTemplate(form="call", reason=None)
    assert fill_form("Error: {message}", {}, unknown).template == "Error: {message}"


def test_frameworks_recognised_from_imports_only(tmp_path) -> None:
    # A validate_* method of a class decorated with some other ``strict`` is not @strict's.
    [card] = extract_snippet(tmp_path / "a",
        "from mylib import strict\n"
        "@strict\nclass C:\n    def validate_x(self):\n        if self.x:\n            raise ValueError('bad x')\n")
    assert card.shown is None
    [card] = extract_snippet(tmp_path / "b",
        "from huggingface_hub.dataclasses import strict\nfrom dataclasses import dataclass\n"
        "@strict\n@dataclass\nclass C:\n    x: int = 0\n    def validate_x(self):\n"
        "        if self.x:\n            raise ValueError('bad x')\n")
    assert card.shown is not None and card.shown.exception == "huggingface_hub.errors.StrictDataclassClassValidationError"
    # pydantic lets a TypeError through: no wrapping
    [card] = extract_snippet(tmp_path / "c",
        "from pydantic import BaseModel, model_validator\nclass M(BaseModel):\n    x: int = 0\n"
        "    @model_validator(mode='after')\n    def check(self):\n"
        "        if self.x:\n            raise TypeError('bad x')\n        return self\n")
    assert card.shown is None


FIELD_VALIDATOR = '''\
from pydantic import BaseModel, field_validator


class Request(BaseModel):
    model: str
    size: int = 1

    @field_validator("model")
    @classmethod
    def check_model(cls, v):
        if not v:
            raise ValueError("model must not be empty")
        return v

    @field_validator("model", "size")
    @classmethod
    def check_both(cls, v):
        if v is None:
            raise ValueError("no value")
        return v
'''


def test_a_field_validators_shown_text_names_its_one_field(tmp_path) -> None:
    # pydantic's location line is the field the decorator names; with two, it is the run's.
    from .helpers import extract_snippet

    shown = {c.message.template: c.shown.message.template for c in extract_snippet(tmp_path, FIELD_VALIDATOR) if c.shown}
    assert shown["model must not be empty"].startswith("{count} validation error for Request\nmodel\n  Value error, model must not be empty")
    assert shown["no value"].startswith("{count} validation error for Request\n{field}\n  Value error, no value")


@pytest.mark.parametrize(("function", "argv", "values"), [
    ("StrictParser.check_layers", ["--layers", "9"], {"layers": "9"}),  # self.error in a class deriving from ArgumentParser
    ("check_ratio", ["--ratio", "1", "--layers", "5"], {}),  # a parameter annotated with that class
])
def test_parser_error_call_exits_2_with_its_message(cards, function: str, argv: list[str], values: dict[str, str]) -> None:
    card = _card(cards, function)
    assert (card["kind"], card["exception"]["display"]) == ("parser_error", "SystemExit")
    shown = card["shown"]
    assert (shown["framework"], shown["exception"], shown["exit_code"]) == ("argparse_error", "SystemExit", 2)
    run = _run(f"from strictcfg.cli import run\nrun({argv!r})\n")
    assert run.returncode == 2
    assert run.stderr.splitlines()[0].startswith("usage: strictrun")
    assert run.stderr.splitlines()[-1] == _render(shown["terminal"]["template"], {"prog": "strictrun", **values})


def test_error_of_no_known_parser_has_no_card(cards) -> None:
    # ``logger.error(text)``: a parameter without a class; ``parser = build_parser()``: a function's result (not followed).
    assert not [c for c in cards.values() if c["function"] in ("log_error", "main")]
