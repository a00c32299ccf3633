"""Flags generated from config classes (the cliflags fixture, vLLM's pattern): a flag whose
keywords come from ``get_kwargs(Config)["x"]`` sets ``Config.x`` where the command builds
``Config(x=self.x)``; a flag whose type parses JSON takes the fields of the record it becomes
(``--compile '{"level": 4}'``, ``--spec '{"num_tokens": 0}'``). Every CLI example is run as the
console script would run it (``raisedocs verify``'s sandbox) and must raise the card's error."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from extractor.cli import main
from extractor.publish.catalog_file import load_catalog
from extractor.verify.runner import Settings, cli_code, verify_card

from .helpers import FIXTURES

ROOT = str(FIXTURES / "cliflags")
EXAMPLES = {  # message template -> the example's "before"
    "max_len must be positive, got {self.max_len}": "cliflags serve model --max-len 0",
    "eager mode supports max_len up to 4096": "cliflags serve model --max-len 4097 --eager",
    "compile level must be at most 3, got {self.level}": """cliflags serve model --compile '{"level": 4}'""",
    "debug needs a compile level above 0": """cliflags serve model --compile '{"debug": true}'""",
    "num_tokens must be at least 1, got {self.num_tokens}": """cliflags serve model --spec '{"num_tokens": 0}'""",
    # --cache's record is built by the parser from the JSON (then copied and changed before the
    # command passes it on): what building it checks gets the flag ...
    "block_size must be 8, 16 or 32, got {self.block_size}": """cliflags serve model --cache '{"block_size": 15}'""",
    "the draft method proposes at most 8 tokens": """cliflags serve model --spec '{"method": "draft", "num_tokens": 9}'""",
}
DECLARED = {"--max-len", "--eager", "--no-eager", "--compile", "--cache", "--spec"}


def _cards(root: str, out: Path) -> list[dict]:
    """The cards of ``root``, extracted into ``out``."""
    assert main(["extract", root, "-o", str(out), "--no-cache", "-q"]) == 0
    return load_catalog(str(out / "catalog.json"))["errors"]


def _cli_examples(cards: list[dict]) -> dict[str, str]:
    """Message template -> the before line of each card's CLI example."""
    return {c["message"]["template"]: c["example"]["before"] for c in cards if c["example"] and c["example"]["style"] == "cli"}


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> list[dict]:
    return _cards(ROOT, tmp_path_factory.mktemp("cliflags") / "docs")


def test_each_config_raise_gets_a_cli_example_through_its_flag(cards) -> None:
    found = _cli_examples(cards)
    assert found == EXAMPLES
    # ... a method of it that reads a field later does not: its Python example stands
    blocks = next(c for c in cards if c["function"] == "CacheConfig.blocks_for")
    assert blocks["example"]["style"] == "python"


def _named_flags(cards: list[dict]) -> set[str]:
    """Every flag the CLI examples of ``cards`` name ("before", "after" and each fix)."""
    return {word for card in cards if card["example"] and card["example"]["style"] == "cli"
            for line in (card["example"]["before"], card["example"]["after"] or "", *card["example"].get("fixes", ()))
            for word in shlex.split(line) if word.startswith("-")}


def test_cli_examples_name_only_declared_flags(cards) -> None:
    assert _named_flags(cards) <= DECLARED


def test_the_cli_examples_raise_the_cards_error_when_run(cards) -> None:
    settings = Settings(roots=(ROOT,), timeout=20, jobs=1)
    problems = {}
    for card in cards:
        if not (card["example"] and card["example"]["style"] == "cli"):
            continue
        result = verify_card(card, settings)
        assert result is not None
        # --compile's and --cache's records are built by the parser's type function: argparse reports the error
        # and exits with status 2 (the card's error is the cause of what it raised); --spec's
        # JSON becomes its record after parsing, where the error reaches the caller as raised.
        parsed = "--compile" in card["example"]["before"] or "--cache" in card["example"]["before"]
        expected = ("wrapped", "SystemExit") if parsed else ("confirmed", None)
        observed = (result["outcome"], (result.get("observed") or {}).get("exception"))
        if observed != expected or result["fix"] != "holds":
            problems[card["message"]["template"]] = (observed, result["fix"])
    assert problems == {}


def test_a_command_line_runs_as_its_console_script_would() -> None:
    code = cli_code("cliflags serve model --max-len 0", Settings(roots=(ROOT,)))
    assert code is not None and "sys.argv = ['cliflags', 'serve', 'model', '--max-len', '0']" in code
    assert "import_module('cliflags.cli')" in code
    # A console script neither installed nor declared by the tree: the line is not run.
    assert cli_code("nosuchtool serve model", Settings(roots=(ROOT,))) is None


# The hfargs fixture: a dataclass parser (hftrain.argparser.HfArgumentParser, as transformers'
# makes them) gives one --field_name flag per field of each of its dataclasses.
HF_ROOT = str(FIXTURES / "hfargs")
HF_EXAMPLES = {
    "num_epochs must be at least 1, got {self.num_epochs}": "hftrain --num_epochs 0",
    "a constant schedule takes no warmup steps": "hftrain --lr_scheduler_type constant --warmup_steps 1",
    # a bool field: the flag alone sets True, "--x False" sets False (the fix)
    "fp16 mixed precision needs a GPU: leave out --fp16 with --use_cpu": "hftrain --fp16 --use_cpu",
}
HF_FIELDS = {"--model_name", "--dropout", "--learning_rate", "--num_epochs", "--lr_scheduler_type", "--warmup_steps", "--fp16", "--use_cpu"}


@pytest.fixture(scope="module")
def hf_cards(tmp_path_factory) -> list[dict]:
    return _cards(HF_ROOT, tmp_path_factory.mktemp("hfargs") / "docs")


def test_a_dataclass_parsers_fields_are_flags_in_examples(hf_cards) -> None:
    found = _cli_examples(hf_cards)
    assert found == HF_EXAMPLES
    # The trigger's dropout is the int 1, which --dropout's float type would make 1.0 (and the
    # message "got 1.0"): no command line, the Python example stands.
    dropout = next(c for c in hf_cards if c["message"]["template"].startswith("dropout"))
    assert dropout["example"]["style"] == "python"
    fp16 = next(c for c in hf_cards if c["message"]["template"].startswith("fp16"))
    assert fp16["example"]["after"] == "hftrain --fp16 False --use_cpu"
    assert _named_flags(hf_cards) <= HF_FIELDS


def test_a_dataclass_parsers_examples_raise_the_cards_error_when_run(hf_cards) -> None:
    settings = Settings(roots=(HF_ROOT,), timeout=20, jobs=1)
    problems = {}
    for card in hf_cards:
        if card["example"] and card["example"]["style"] == "cli":
            result = verify_card(card, settings)
            assert result is not None
            if result["outcome"] != "confirmed" or result["fix"] != "holds" or any(f != "holds" for f in result["fixes"]):
                problems[card["message"]["template"]] = result
    assert problems == {}
