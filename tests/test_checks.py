"""The checks a claimed trigger must pass to be verified (solve.checks): each runs its own
examples through extraction, as Fixit's rules run their VALID and INVALID code. On a valid
example the check passes and the trigger is verified; on an invalid one the trigger's reason
is the check's code, and it is the check itself that gives it: with the check switched off,
the reason is another."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from extractor.model import Trigger
from extractor.model.codes import CALLED
from extractor.solve import checks
from extractor.solve.checks import CHECKS, INSIDE_FOR_LOOP, RULES, Check, Snippet

from .helpers import extract_snippet, only


def _trigger(tmp_path: Path, snippet: Snippet) -> Trigger:
    # (the function's one raise statement: a call of a raising helper before it is a card too)
    card = only([card for card in extract_snippet(tmp_path, snippet.source)
                 if card.at.function == snippet.function and card.statement.kind != "helper_call"])
    assert card.solved.trigger is not None
    return card.solved.trigger


def _examples(valid: bool) -> list:
    return [pytest.param(rule, snippet, id=f"{rule.code}-{i}")
            for rule in RULES for i, snippet in enumerate(rule.valid if valid else rule.invalid)]


@pytest.mark.parametrize(("rule", "snippet"), _examples(valid=True))
def test_a_check_passes_on_its_valid_examples(tmp_path, rule: Check, snippet: Snippet) -> None:
    trigger = _trigger(tmp_path, snippet)
    assert trigger.status in CALLED and trigger.verified and trigger.reason != rule.code


@pytest.mark.parametrize(("rule", "snippet"), _examples(valid=False))
def test_a_check_fires_on_its_invalid_examples(tmp_path, monkeypatch, rule: Check, snippet: Snippet) -> None:
    trigger = _trigger(tmp_path / "on", snippet)
    assert (trigger.status in CALLED if rule.status is None else trigger.status == rule.status)
    assert (trigger.reason, trigger.verified) == (rule.code, False)
    # The code is this check's doing: switched off, it gives no such reason.
    off = replace(rule, fires=lambda draft: False)
    monkeypatch.setattr(checks, "CHECKS", tuple(off if check is rule else check for check in CHECKS))
    monkeypatch.setattr(checks, "INSIDE_FOR_LOOP", off if rule is INSIDE_FOR_LOOP else INSIDE_FOR_LOOP)
    assert _trigger(tmp_path / "off", snippet).reason != rule.code


def test_every_check_carries_examples_of_both_kinds() -> None:
    assert all(rule.valid and rule.invalid for rule in RULES)
    assert len({rule.code for rule in RULES}) == len(RULES) == len(CHECKS) + 1
    assert all(rule.code.description and not rule.code.description.endswith(".") for rule in RULES)


def test_the_first_check_that_fires_gives_the_reason(tmp_path, monkeypatch) -> None:
    """``sock = 0`` beside ``sock.type``, under a compiled module that may replace the code: both
    fire, and the earlier check in CHECKS gives the reason."""
    source = textwrap.dedent(checks.VALUE_AND_ITS_ATTRIBUTE.invalid[0].source) + (
        "\ntry:\n    from _accelerated import *\nexcept ImportError:\n    pass\n")
    assert _trigger(tmp_path / "a", Snippet(source)).reason == "replaced_by_compiled_module"
    monkeypatch.setattr(checks, "CHECKS", tuple(reversed(CHECKS)))
    assert _trigger(tmp_path / "b", Snippet(source)).reason == "value_and_its_attribute"
