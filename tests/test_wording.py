"""Reason codes reach the reader as prose: every code the stages emit has a sentence in
templates/_macros.j2 (a card read "No validator: needs_named_constant." on 608 of vLLM's)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from extractor.publish.explain import load_catalog
from extractor.publish.render import environment
from extractor.publish.site import site_environment

ROOT = Path(__file__).resolve().parent.parent
_CODE = re.compile(r"^[a-z]+(?:_[a-z0-9]+)+$")
_PREFIXES = ("opaque_", "no_candidate_values:")  # prose made from the code's tail (reason macro)


def _macros():
    return environment().get_template("_macros.j2").module


def _worded(code: str) -> bool:
    m = _macros()
    return code in m.REASONS or code in m.NO_FIX or code in m.ENTRIES or code.startswith(_PREFIXES)


def _emitted_codes() -> dict[str, str]:
    """Codes the package writes as a reason: ``reason=`` keywords, ``reason``/``code``
    assignments, ``NotExpressible("...")`` and ``return status, "code"`` pairs."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "extractor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call):
                values += [k.value for k in node.keywords if k.arg and k.arg.endswith("reason")]
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
                if name == "NotExpressible":
                    values += node.args[:1]
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
                values.append(node.value.elts[1])
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", getattr(t, "attr", None)) in ("reason", "code") for t in node.targets):
                values.append(node.value)
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and _CODE.match(value.value):
                    found.setdefault(value.value, f"{path.relative_to(ROOT)}:{value.lineno}")
    return found


def test_every_reason_code_the_stages_emit_has_prose() -> None:
    codes = _emitted_codes()
    assert {"needs_named_constant", "needs_try_body", "earlier_exit_not_modelled", "unknown_constant"} <= set(codes)
    assert {code: where for code, where in codes.items() if not _worded(code)} == {}


def _reasons(value, found: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, child in value.items():
            if (key == "reason" or key.endswith("_reason") or key == "no_fix") and isinstance(child, str):
                found.add(child)
            elif key not in ("inputs", "params"):  # values of the analysed code, not codes
                _reasons(child, found)
    elif isinstance(value, list):
        for child in value:
            _reasons(child, found)
    return found


@pytest.mark.parametrize("golden", sorted(p.parent.name for p in (ROOT / "tests" / "golden").glob("*/catalog.json")))
def test_every_reason_in_the_golden_catalogs_has_prose(golden: str) -> None:
    catalog = load_catalog(str(ROOT / "tests" / "golden" / golden / "catalog.json"))
    assert sorted(code for code in _reasons(catalog["errors"], set()) if not _worded(code)) == []


def test_a_code_with_a_tail_names_it_in_markdown_and_html() -> None:
    markdown = environment().from_string('{% import "_macros.j2" as m %}{{ m.reason("no_candidate_values:a.shape") }}').render()
    assert markdown.startswith("none of the values the tool can write") and "`a.shape`" in markdown
    html = site_environment().from_string(
        '{% import "_macros.j2" as m %}{{ m.reason("no_candidate_values:<a>") | prose }}').render()
    assert "<code>&lt;a&gt;</code>" in html and "no_candidate_values" not in html
