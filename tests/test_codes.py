"""Codes are enums (model.codes): each member has its wording, the catalogs hold members only,
the code emits members only, and README's list of reason codes is the enums' own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extractor.model import (
    CODES,
    Card,
    Detailed,
    RaiseKind,
    Reason,
    Trigger,
    TriggerStatus,
    from_data,
    from_json,
    to_json,
)
from extractor.model.codes import JOINS
from extractor.model.markdown import escape_text
from extractor.publish.catalog_file import load_catalog
from extractor.publish.render import environment
from extractor.publish.site import site_environment
from extractor.solve import passes

from .helpers import GOLDEN, extract_snippet

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = [member for codes in CODES for member in codes]
PLACEHOLDERS = {Reason.NO_CANDIDATE_VALUES: "NAME", Reason.OPAQUE: "KIND", Reason.INTERNAL_ERROR: "ERROR",
                Reason.UNKNOWN_DECORATOR: "DECORATOR"}  # README's


@pytest.mark.parametrize("member", MEMBERS, ids=[f"{type(m).__name__}.{m.name}" for m in MEMBERS])
def test_every_code_has_a_one_line_description(member) -> None:
    assert member.description.strip() == member.description != ""
    assert "\n" not in member.description
    assert re.fullmatch(r"[a-z][a-z0-9_]*", member.value)


def test_a_code_that_carries_a_value_is_written_as_one_string_and_read_back() -> None:
    for code, text in ((Reason.NO_CANDIDATE_VALUES, "no_candidate_values:a.shape"), (Reason.OPAQUE, "opaque_if_exp"),
                       (Reason.INTERNAL_ERROR, "internal_error: TypeError"), (Reason.UNKNOWN_DECORATOR, "unknown_decorator:no_grad")):
        detailed = Detailed.from_text(text)
        assert detailed.code is code and str(detailed) == text
        assert from_json(Trigger, to_json(Trigger(status=TriggerStatus.UNSOLVED, inputs={}, reason=detailed))).reason == detailed
    assert Detailed.from_text("search_budget") is Reason.SEARCH_BUDGET
    assert Detailed(code=Reason.OPAQUE, value="if_exp").description == "the message is the value of an if_exp expression, which the tool does not evaluate"
    assert set(JOINS) == set(PLACEHOLDERS)


@pytest.mark.parametrize("text", ["bogus", "opaque", "internal_error", "no_candidate_values", "Search_Budget"])
def test_a_string_that_is_no_code_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Detailed.from_text(text)
    with pytest.raises(ValueError):
        from_json(Trigger, f'{{"status": "unsolved", "inputs": {{}}, "reason": "{text}"}}')
    with pytest.raises(ValueError):
        from_json(Trigger, f'{{"status": "{text}", "inputs": {{}}}}')


def test_strict_mode_refuses_a_card_whose_code_is_no_member(tmp_path, monkeypatch) -> None:
    """An emitter of a bare string that is no member fails the run in strict mode (the
    tests' mode): the card is decoded into the model, whose enums refuse it."""
    real = passes.card_validator
    monkeypatch.setattr(passes, "card_validator", lambda *args: (real(*args)[0], "needs_a_miracle"))
    with pytest.raises(ValueError, match="needs_a_miracle"):
        extract_snippet(tmp_path, "def f(x: int):\n    if x < 0:\n        raise ValueError('negative')\n")


def test_a_bare_string_that_is_a_member_passes() -> None:
    assert from_data(Trigger, {"status": "concrete", "inputs": {}}).status is TriggerStatus.CONCRETE


@pytest.mark.parametrize("golden", sorted(p.parent.name for p in GOLDEN.glob("*/catalog.json")))
def test_every_code_of_the_golden_catalogs_is_a_member(golden: str) -> None:
    cards = load_catalog(str(GOLDEN / golden / "catalog.json"))["errors"]
    decoded = [from_data(Card, card) for card in cards]  # (a code that is no member raises ValueError)
    assert decoded and all(isinstance(c.statement.kind, RaiseKind) for c in decoded)
    statuses = {c.solved.trigger.status for c in decoded if c.solved.trigger is not None}
    assert statuses and all(isinstance(s, TriggerStatus) for s in statuses)


# --- the wording the templates show ------------------------------------------------------


def _reason(env, code: str) -> str:
    return env.from_string('{% import "_macros.j2" as m %}{{ m.reason(code) }}').render(code=code)


@pytest.mark.parametrize("member", [m for m in Reason if m not in JOINS], ids=lambda m: m.value)
def test_each_reason_is_worded_by_its_description(member: Reason) -> None:
    assert _reason(environment(), member.value) == member.description


def test_a_string_that_is_no_reason_is_shown_as_text() -> None:
    assert _reason(environment(), "from_another_version") == "from_another_version"
    assert _reason(environment(), "<b>new</b>") == escape_text("<b>new</b>") != "<b>new</b>"
    assert _reason(environment(), "") == ""


def test_a_code_with_a_value_names_it_in_markdown_and_html() -> None:
    markdown = _reason(environment(), "no_candidate_values:a.shape")
    assert markdown == "none of the values the tool can write belongs to the type declared for `a.shape`, so no value was tried for it"
    html = site_environment().from_string('{% import "_macros.j2" as m %}{{ m.reason("no_candidate_values:<a>") | prose }}').render()
    assert "<code>&lt;a&gt;</code>" in html and "no_candidate_values" not in html
    assert _reason(environment(), "opaque_call") == "the message is the value of a call expression, which the tool does not evaluate"


# --- README's reference list -------------------------------------------------------------


def reason_reference() -> str:
    """README's list of the reason codes, each with its description (a value a code carries
    shown by a placeholder)."""
    codes = [Detailed(code=member, value=PLACEHOLDERS[member]) if member in JOINS else member for member in Reason]
    return "".join(f"- `{code}`: {code.description}\n" for code in codes)


_SECTION = re.compile(r"(<!-- codes:start -->\n)(.*?)(<!-- codes:end -->)", re.DOTALL)


def test_readme_lists_every_reason_code_with_its_description(update_golden: bool) -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    found = _SECTION.search(text)
    assert found is not None, "README.md lacks the <!-- codes:start --> ... <!-- codes:end --> markers"
    if update_golden:
        text = text[: found.start(2)] + reason_reference() + text[found.end(2):]
        readme.write_text(text, encoding="utf-8")
        found = _SECTION.search(text)
    assert found.group(2) == reason_reference(), "README's reason codes differ from model.codes; run pytest --update-golden"


_CORPUS_SECTION = re.compile(r"(<!-- corpus-codes:start -->\n)(.*?)(<!-- corpus-codes:end -->)", re.DOTALL)


def test_readme_lists_every_corpus_failure_code(update_golden: bool) -> None:
    from extractor.model.codes import BuildFailure

    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    expected = "".join(f"- `{code}`: {code.description}\n" for code in BuildFailure)
    found = _CORPUS_SECTION.search(text)
    assert found is not None, "README.md lacks the <!-- corpus-codes:start --> ... <!-- corpus-codes:end --> markers"
    if update_golden:
        readme.write_text(text[: found.start(2)] + expected + text[found.end(2):], encoding="utf-8")
        found = _CORPUS_SECTION.search(readme.read_text(encoding="utf-8"))
    assert found is not None and found.group(2) == expected, "README's corpus codes differ from model.codes; run pytest --update-golden"
