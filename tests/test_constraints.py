"""Field constraints as cards (link.constraints, solve.constraints): each card's wording is
pydantic's own, its example raises pydantic's ValidationError with the card's error type for
the card's field, what the card says pydantic prints is what it prints, and explain finds the
card from that text. The examples run in a child interpreter (the fixture is this project's)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic_core import PydanticKnownError

from extractor.model import PydanticError
from extractor.publish.catalog_file import load_catalog
from extractor.publish.paste import match_paste

from .helpers import FIXTURES, extract_snippet, temp_tree

ROOT = FIXTURES / "pydconfig"

# (class, field, rule, error type, message): every constraint card of the fixture.
EXPECTED = [
    ("CacheConfig", "backends", "min_length", "too_short", "List should have at least 1 item after validation, not {len(self.backends)}"),
    ("CacheConfig", "shards", "gt", "greater_than", "Input should be greater than 0"),
    ("CacheConfig", "ttl", "ge", "greater_than_equal", "Input should be greater than or equal to 0"),  # (as Rust prints 0.0)
    ("ChatRequest", "max_tokens", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("ChatRequest", "messages", "min_length", "too_short", "List should have at least 1 item after validation, not {len(self.messages)}"),
    ("ChatRequest", "temperature", "ge", "greater_than_equal", "Input should be greater than or equal to 0"),
    ("ChatRequest", "temperature", "le", "less_than_equal", "Input should be less than or equal to 2"),
    ("GenerateRequest", "priority", "ge", "greater_than_equal", "Input should be greater than or equal to -2147483648"),  # -(2**31)
    ("GenerateRequest", "priority", "le", "less_than_equal", "Input should be less than or equal to 2147483647"),  # 2**31 - 1
    ("GenerateRequest", "seed", "ge", "greater_than_equal", "Input should be greater than or equal to -9223372036854775808"),  # _SEED_MIN
    ("GenerateRequest", "seed", "le", "less_than_equal", "Input should be less than or equal to 9223372036854775807"),  # _SEED_MAX
    ("LimitsConfig", "max_body_kb", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("LimitsConfig", "max_body_kb", "le", "less_than_equal", "Input should be less than or equal to 65536"),
    ("LimitsConfig", "tags", "max_length", "too_long", "List should have at most 4 items after validation, not {len(self.tags)}"),
    ("Marker", "release", "literal", "literal_error", "Input should be True"),
    ("MessagesRequest", "top_p", "gt", "greater_than", "Input should be greater than 0"),
    ("MessagesRequest", "top_p", "le", "less_than_equal", "Input should be less than or equal to 1"),
    ("ReplyRequest", "count", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("SearchRequest", "limit", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("ServerConfig", "batch_size", "multiple_of", "multiple_of", "Input should be a multiple of 8"),
    ("ServerConfig", "host", "max_length", "string_too_long", "String should have at most 253 characters"),
    ("ServerConfig", "host", "min_length", "string_too_short", "String should have at least 1 character"),
    ("ServerConfig", "log_level", "enum", "enum", "Input should be 'debug', 'info' or 'error'"),
    ("ServerConfig", "max_workers", "lt", "less_than", "Input should be less than 1024"),
    ("ServerConfig", "mode", "literal", "literal_error", "Input should be 'fast' or 'safe'"),
    ("ServerConfig", "name", "pattern", "string_pattern_mismatch", "String should match pattern '^[a-z][a-z0-9-]*$'"),
    ("ServerConfig", "port", "gt", "greater_than", "Input should be greater than 0"),
    ("ServerConfig", "port", "le", "less_than_equal", "Input should be less than or equal to 65535"),
    ("ServerConfig", "ratio", "strict", "float_type", "Input should be a valid number"),
    ("ServerConfig", "retries", "StrictInt", "int_type", "Input should be a valid integer"),
    ("ServerConfig", "workers", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("TaggedSearch", "page_size", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
    ("Window", "size", "ge", "greater_than_equal", "Input should be greater than or equal to 1"),
]

# Runs each example's "before" and reports what pydantic raised: its text and errors().
_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
out = []
for code in json.loads(sys.stdin.read()):
    try:
        exec(code, {})
        out.append(None)
    except Exception as exc:
        out.append({"class": type(exc).__name__, "is_value_error": isinstance(exc, ValueError), "text": str(exc),
                    "errors": [[e["type"], list(map(str, e["loc"])), e["msg"]] for e in exc.errors()]})
print(json.dumps(out))
"""


# The context each error type needs to be built (its values do not enter the template).
_CONTEXT = {"greater_than": {"gt": 1}, "greater_than_equal": {"ge": 1}, "less_than": {"lt": 1}, "less_than_equal": {"le": 1},
            "multiple_of": {"multiple_of": 2}, "string_too_short": {"min_length": 1}, "string_too_long": {"max_length": 1},
            "too_short": {"field_type": "List", "min_length": 1, "actual_length": 0},
            "too_long": {"field_type": "List", "max_length": 1, "actual_length": 2}, "string_pattern_mismatch": {"pattern": "x"},
            "literal_error": {"expected": "1"}, "enum": {"expected": "1"}}


def test_each_error_type_words_its_message_as_pydantic_does() -> None:
    for error in PydanticError:
        known = PydanticKnownError(error.value, _CONTEXT.get(error.value))  # type: ignore[arg-type]
        assert error.description == known.message_template, error


def _extracted(root: Path, out: Path) -> dict:
    """The catalog of ``root``, extracted by ``raisedocs extract`` in a child process into ``out``."""
    proc = subprocess.run([sys.executable, "-m", "extractor", "extract", str(root), "-o", str(out), "--no-cache"],
                          capture_output=True, text=True, check=False, env={"PYTHONPATH": str(Path(__file__).parent.parent),
                                                                            "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return load_catalog(str(out / "catalog.json"))


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _extracted(ROOT, tmp_path_factory.mktemp("pydconfig") / "docs")


def _constraints(catalog: dict) -> list[dict]:
    return sorted((c for c in catalog["errors"] if c.get("constraint")),
                  key=lambda c: (c["function"], c["constraint"]["field"], c["constraint"]["rule"]))


def test_every_constraint_of_the_pydantic_classes_is_a_card(catalog: dict) -> None:
    found = [(c["function"], c["constraint"]["field"], c["constraint"]["rule"], c["constraint"]["error_type"], c["message"]["template"])
             for c in _constraints(catalog)]
    assert found == EXPECTED
    # The plain dataclass (plain.py) has none; each constraint card names pydantic's class, a ValueError.
    assert not any(c["path"] == "pydconfig/plain.py" for c in catalog["errors"])
    assert all(c["kind"] == "field_constraint" and c["exception"]["classes"] == ["pydantic.ValidationError"]
               and "ValueError" in c["exception"]["ancestors"] for c in _constraints(catalog))


def test_the_examples_raise_what_the_cards_say_and_pydantic_prints_it(catalog: dict) -> None:
    # (GenerateRequest's and ChatRequest's cards too: their examples give the class's other required
    # field a stand-in that its own rules accept; ReplyRequest's ``message: Message`` is built from its own)
    cards = [c for c in _constraints(catalog) if c["function"] not in ("Marker", "TaggedSearch")]
    assert all(c["example"] and c["example"]["style"] == "python" for c in cards)
    assert {c["function"]: c["example"]["placeholders"] for c in cards if c["required_also"]} == {
        "GenerateRequest": ["prompt"], "ChatRequest": ["messages"], "ReplyRequest": ["message", "message.text"],
        "MessagesRequest": ["max_tokens", "model"],  # (model='x', max_tokens=1: its validator refuses '' and 0)
        "Window": ["model_len"], "SearchRequest": ["query"]}
    [reply] = [c for c in _constraints(catalog) if c["function"] == "ReplyRequest"]
    assert "ReplyRequest(message=Message(text=''), count=0)" in reply["example"]["before"]
    # Window's __post_init__ hands its init-only model_len to a check no card's guard shows: a stand-in
    # for it shows the error (pydantic refuses size first), and no "after" (the check may refuse it)
    [window] = [c for c in _constraints(catalog) if c["function"] == "Window"]
    assert window["example"]["after"] is None and window["example"]["no_fix"] == "stand_ins_unseen"
    # SearchRequest's model validator reads a set built from the environment: the stand-in ``query='x'``
    # (its field validator refuses '') shows limit's error (pydantic checks the fields first), and no
    # "after" (``BLOCKED_QUERIES=x`` blocks it)
    [search] = [c for c in _constraints(catalog) if c["function"] == "SearchRequest"]
    assert search["example"]["before"].endswith("SearchRequest(query='x', limit=0)") and search["trigger"]["verified"]
    assert search["example"]["after"] is None and search["example"]["no_fix"] == "stand_ins_unchecked"
    # and its query's own validator gets no "after" either: the fix query='x' meets that model validator
    [not_empty] = [c for c in catalog["errors"] if c["function"] == "SearchRequest._not_empty"]
    assert not_empty["example"]["after"] is None and not_empty["example"]["no_fix"] == "checks_after_unseen"
    # TaggedSearch's tag has a "before" validator that calls what the tool does not read: no stand-in is
    # passed, so no example is written, and the trigger (which pydantic reports beside tag's missing) stays verified
    [tagged] = [c for c in _constraints(catalog) if c["function"] == "TaggedSearch"]
    assert tagged["example"] is None and tagged["example_reason"] == "constructor_needs_arguments" and tagged["trigger"]["verified"]
    # Marker's own field validator (mode="before") refuses the value before pydantic's Literal check does
    [marker] = [c for c in _constraints(catalog) if c["function"] == "Marker"]
    assert marker["example"] is None and marker["example_reason"] == "construction_not_shown"
    run = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], input=json.dumps([c["example"]["before"] for c in cards]),
                         capture_output=True, text=True, check=True)
    for card, raised in zip(cards, json.loads(run.stdout)):
        assert raised is not None and raised["class"] == "ValidationError" and raised["is_value_error"], card["id"]
        constraint = card["constraint"]
        [(kind, loc, msg)] = raised["errors"]
        assert (kind, loc[-1], msg) == (constraint["error_type"], constraint["field"], card["trigger"]["message"])
        # What the card says pydantic prints is its text, but for the last line (the documentation's address).
        assert raised["text"].rsplit("\n", 1)[0] == card["validation_error"]
    # The fixes construct the object.
    with_fix = [c for c in cards if c["example"]["after"] is not None]
    fixed = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], input=json.dumps([c["example"]["after"] for c in with_fix]),
                           capture_output=True, text=True, check=True)
    assert json.loads(fixed.stdout) == [None] * len(with_fix) and len(with_fix) == len(cards) - 2  # (Window's, SearchRequest's)


def test_a_class_with_another_required_field_names_it_and_prints_the_error_with_it_passed(catalog: dict) -> None:
    # GenerateRequest's ``prompt`` has no default: a call without it gets a ``missing`` error too, so the
    # card names what a call must pass, and its "1 validation error" text is the example's, which passes it.
    cards = [c for c in _constraints(catalog) if c["function"] == "GenerateRequest"]
    assert len(cards) == 4 and all(c["required_also"] == ["prompt"] and "prompt=''" in c["example"]["before"] for c in cards)
    # With the required field passed, pydantic's one error is the card's, its number written out.
    calls = [f"from pydconfig.requests import GenerateRequest\nGenerateRequest(prompt='x', {c['constraint']['field']}="
             f"{c['trigger']['inputs']['self.' + c['constraint']['field']]!r})" for c in cards]
    run = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], input=json.dumps(calls), capture_output=True, text=True, check=True)
    for card, raised in zip(cards, json.loads(run.stdout)):
        assert raised["errors"] == [[card["constraint"]["error_type"], [card["constraint"]["field"]], card["trigger"]["message"]]]
    without = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], input=json.dumps([calls[0].replace("prompt='x', ", "")]),
                             capture_output=True, text=True, check=True)
    assert [e[0] for e in json.loads(without.stdout)[0]["errors"]] == ["missing", "greater_than_equal"]


def test_the_fields_flag_gives_the_command_line(catalog: dict) -> None:
    lines = {(c["constraint"]["field"], c["constraint"]["rule"]): c.get("command_line") for c in _constraints(catalog)}
    assert {k: v for k, v in lines.items() if v} == {
        ("port", "gt"): "pydconfig serve --port 0", ("port", "le"): "pydconfig serve --port 65536",
        ("workers", "ge"): "pydconfig serve --workers 0",
        # --cache's type builds CacheConfig from the JSON text (TypeAdapter(...).validate_json)
        ("backends", "min_length"): """pydconfig serve --cache '{"backends": []}'""",
        ("ttl", "ge"): """pydconfig serve --cache '{"ttl": -1.0}'""", ("shards", "gt"): """pydconfig serve --cache '{"shards": 0}'""",
    }  # (mode's flag has choices: argparse refuses 'invalid' before pydantic sees it)


_RUN_COMMAND = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
main = importlib.import_module(sys.argv[2]).main
out = []
for argv in json.loads(sys.stdin.read()):
    try:
        main(argv)
        out.append(None)
    except BaseException as exc:
        while not hasattr(exc, "errors") and (exc.__cause__ or exc.__context__) is not None:
            exc = exc.__cause__ or exc.__context__  # (argparse: SystemExit, from the error a type function raised)
        errors = exc.errors() if hasattr(exc, "errors") else []
        out.append([type(exc).__name__, [[e["type"], [str(x) for x in e["loc"]]] for e in errors]])
print(json.dumps(out))
"""


@pytest.mark.parametrize(("case", "module"), [("pydconfig", "pydconfig.cli"), ("offload", "minivllm.cli")])
def test_each_command_line_given_raises_the_cards_error_through_the_command(case: str, module: str, tmp_path) -> None:
    """A constraint card's command line runs the fixture's own command: pydantic's error for the
    card's field (and its fix's line runs clean), never an earlier check of the command's (minivllm exits on a negative
    --offload-group-size before the record's ge=0 is met, so that card gives no line)."""
    errors = _extracted(FIXTURES / case, tmp_path / "docs")["errors"]
    cards = [c for c in errors if c.get("command_line")]
    argvs = [shlex.split(c[key])[1:] for key in ("command_line", "command_line_fix") for c in cards]
    run = subprocess.run([sys.executable, "-c", _RUN_COMMAND, str(FIXTURES / case), module], input=json.dumps(argvs),
                         capture_output=True, text=True, check=True)
    raised = json.loads(run.stdout.splitlines()[-1])  # (after what the command prints)
    assert cards and raised[:len(cards)] == [["ValidationError", [[c["constraint"]["error_type"], [c["constraint"]["field"]]]]]
                                             for c in cards]
    assert raised[len(cards):] == [None] * len(cards)  # the fix's line: the command runs
    fields = {c["constraint"]["field"] for c in errors if c.get("constraint") and not c.get("command_line")}
    assert case != "offload" or "offload_group_size" in fields


def test_a_validator_reading_a_constrained_field_links_to_its_cards(catalog: dict) -> None:
    by_id = {c["id"]: c for c in catalog["errors"]}
    [validator] = [c for c in catalog["errors"] if c["function"] == "ServerConfig.check_workers"]
    related = [(by_id[i]["constraint"]["field"], by_id[i]["constraint"]["rule"])
               for i in validator["related"] if by_id[i].get("constraint")]
    assert related == [("workers", "ge"), ("max_workers", "lt")]


def test_explain_finds_the_card_from_pydantics_text(catalog: dict) -> None:
    cards = [c for c in _constraints(catalog) if c["example"]]
    run = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], input=json.dumps([c["example"]["before"] for c in cards]),
                         capture_output=True, text=True, check=True)
    for card, raised in zip(cards, json.loads(run.stdout)):
        matches, _ = match_paste(raised["text"], catalog, 3)
        assert matches[0].id == card["id"] and matches[0].score == 1.0, (card["id"], [(m.id, m.score) for m in matches])
        assert all(m.score < 0.5 for m in matches[1:])


def test_explain_needs_the_field_and_type_of_the_paste(catalog: dict) -> None:
    paste = ("1 validation error for LimitsConfig\nprefetch.max_body_kb\n  Input should be greater than or equal to 1 "
             "[type=greater_than_equal, input_value=0, input_type=int]")
    matches, _ = match_paste(paste, catalog, 3)
    assert [(m.card["constraint"]["field"], m.score) for m in matches][:1] == [("max_body_kb", 1.0)]
    # (the other fields whose bound words the same text score low: the paste names another field)
    assert {m.card["constraint"]["field"] for m in matches[1:]} <= {"workers", "max_tokens", "count"}
    assert all(m.score < 0.5 for m in matches[1:])


def test_a_model_through_an_in_tree_base_and_not_a_plain_class(tmp_path: Path) -> None:
    root = temp_tree(tmp_path / "src", {
        "pkg/__init__.py": "",
        "pkg/base.py": "from pydantic import BaseModel\n\nclass Base(BaseModel):\n    pass\n",
        "pkg/models.py": ("from pydantic import Field\nfrom pkg.base import Base\n\n\nclass Sized(Base):\n"
                          "    size: int = Field(1, ge=1)\n\n\nclass Plain:\n    size: int = Field(1, ge=1)\n"),
    })
    out = tmp_path / "docs"
    assert run_cli_quiet(root, out) == 0
    cards = [c for c in load_catalog(str(out / "catalog.json"))["errors"] if c.get("constraint")]
    assert [(c["function"], c["constraint"]["declared"]) for c in cards] == [("Sized", "ge=1")]


def run_cli_quiet(root: Path, out: Path) -> int:
    proc = subprocess.run([sys.executable, "-m", "extractor", "extract", str(root), "-o", str(out), "--no-cache"], capture_output=True,
                          text=True, check=False, env={"PYTHONPATH": str(Path(__file__).parent.parent), "PATH": "/usr/bin:/bin"})
    return proc.returncode


def test_a_bound_that_is_no_literal_keeps_its_card_unsolved(tmp_path: Path) -> None:
    cards = extract_snippet(tmp_path, "import os\nfrom pydantic import BaseModel, Field\n\nLOW = int(os.environ['LOW'])\n\n\n"
                                      "class M(BaseModel):\n    n: int = Field(3, ge=LOW)\n")
    [card] = [c for c in cards if c.constraint is not None]
    assert card.message.template == "Input should be greater than or equal to {LOW}"
    assert card.solved.trigger is not None and card.solved.trigger.reason == "no_violating_value"


def test_a_union_with_another_type_gets_no_card(tmp_path: Path) -> None:
    # pydantic reports an error per member of ``Mode | bytes`` (loc ``('mode', "literal['a','b']")``, ...): not one card's wording.
    cards = extract_snippet(tmp_path, "from typing import Literal, Optional\nfrom pydantic import BaseModel, Field\n\n"
                                      "Mode = Literal['a', 'b']\n\n\nclass M(BaseModel):\n    mode: Mode | bytes = 'a'\n"
                                      "    kept: Optional[Mode] = None\n"
                                      "    n: int | str = Field(1, ge=1)\n")
    assert [(c.constraint.field, c.message.template) for c in cards if c.constraint is not None] == [("kept", "Input should be 'a' or 'b'")]


_NESTED = """from typing import Any

from pydantic import BaseModel, Field, model_validator


class Failure(BaseModel):
    type: str
    message: str


class Reply(BaseModel):
    failure: Failure
    retries: int = Field(default=1, ge=1)

    @model_validator(mode="before")
    @classmethod
    def check_failure(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("failure"), str):
            raise ValueError("failure must be a record, not its text")
        return data
"""


def test_a_before_validator_reads_a_nested_record_as_its_object(tmp_path) -> None:
    # The raw keywords hold the record the example builds (``failure=Failure(...)``), not a stand-in
    # of one of its own fields: the "before" validator is not taken to refuse them, and the example runs.
    [card] = [c for c in extract_snippet(tmp_path, _NESTED) if c.constraint is not None and c.constraint.field == "retries"]
    example = card.solved.example
    assert example is not None and "failure=Failure(type='', message='')" in example.before
    run = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path)], input=json.dumps([example.before, example.after]),
                         capture_output=True, text=True, check=True)
    raised, fixed = json.loads(run.stdout)
    assert raised["errors"] == [["greater_than_equal", ["retries"], card.solved.trigger.message]] and fixed is None


def test_a_paste_naming_another_model_ranks_that_models_card_first(catalog: dict) -> None:
    """Two models with the same field and bound: the pasted title picks one (1.0), the other
    stays a candidate below it (OTHER_MODEL); a title no card's model has (a subclass of the
    declaring class) leaves both at FIELD_FITS."""
    import copy

    from extractor.publish.paste import FIELD_FITS, OTHER_MODEL

    [chat] = [c for c in _constraints(catalog) if c["function"] == "ChatRequest" and c["constraint"]["field"] == "temperature"
              and c["constraint"]["rule"] == "ge"]
    other = copy.deepcopy(chat)
    other["id"], other["function"] = "f" * 16, "OtherRequest"
    other["constraint"]["owner"] = chat["constraint"]["owner"].replace("ChatRequest", "OtherRequest")
    both = {**catalog, "errors": [*catalog["errors"], other]}
    paste = ("1 validation error for {}\ntemperature\n  Input should be greater than or equal to 0 "
             "[type=greater_than_equal, input_value=-1.0, input_type=float]")
    matches, _ = match_paste(paste.format("ChatRequest"), both, 3)
    assert [(m.card["function"], m.score) for m in matches[:2]] == [("ChatRequest", 1.0), ("OtherRequest", OTHER_MODEL)]
    matches, _ = match_paste(paste.format("SubRequest"), both, 3)
    assert sorted((m.card["function"], m.score) for m in matches[:2]) == [("ChatRequest", FIELD_FITS), ("OtherRequest", FIELD_FITS)]
