"""raisedocs on its own source: every raise gets a card and nothing fails."""

from __future__ import annotations

import ast

from extractor import extract
from extractor.model import Opaque
from extractor.options import Options

from .helpers import ROOT


def test_every_raise_of_extractor_gets_a_card() -> None:
    catalog = extract(str(ROOT / "extractor"), Options())
    expected = sum(
        isinstance(node, ast.Raise)
        for path in sorted((ROOT / "extractor").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_bytes()))
    )
    assert catalog.failures == ()
    assert catalog.stats.raise_sites == len(catalog.errors) == expected
    assert not [c for c in catalog.errors if isinstance(c.guard.tree, Opaque)]
    # OSError(errno, text, path) in publish/output.py: multi-argument messages are not templates yet.
    assert {c.message.reason for c in catalog.errors} <= {None, "reraise", "no_arguments", "message_variable_reassigned", "message_variable_branches", "multiple_arguments"}
