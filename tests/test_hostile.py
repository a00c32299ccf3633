"""Nothing in the analysed tree is ever imported or run."""

from __future__ import annotations

import glob
import os
import sys

from extractor import extract
from extractor.options import Options

from .helpers import FIXTURES


def test_hostile_guards_and_module_code_never_run() -> None:
    for path in glob.glob("/tmp/raisedocs_pwned*"):
        os.remove(path)
    catalog = extract(str(FIXTURES / "forms"), Options(include=("*hostile.py",)))
    assert [c.statement.guard.calls for c in catalog.errors] == [
        ('os.system("touch /tmp/raisedocs_pwned")',),
        ('open("/tmp/raisedocs_pwned2", "w")',),
        ('__import__("os").system("touch /tmp/raisedocs_pwned4")', '__import__("os")'),
        ('eval("1")',),
    ]
    assert glob.glob("/tmp/raisedocs_pwned*") == []
    assert "forms.hostile" not in sys.modules


def test_hostile_guards_are_assumed_not_evaluated() -> None:
    for path in glob.glob("/tmp/raisedocs_pwned*"):
        os.remove(path)
    catalog = extract(str(FIXTURES / "forms"), Options(include=("*hostile.py",)))
    assumed = [card.solved.trigger.assumes for card in catalog.errors]
    assert assumed == [
        {"os.system('touch /tmp/raisedocs_pwned')": 0},
        {"open('/tmp/raisedocs_pwned2', 'w')": True},
        {"__import__('os').system('touch /tmp/raisedocs_pwned4')": 0},
        {"eval('1')": True},
    ]
    # Opaque calls are internal state: no trigger is claimed for them, and no validator takes
    # their results as parameters (it would have to make the calls, or ask the caller for them).
    assert {card.solved.trigger.status for card in catalog.errors} == {"internal"}
    assert not any(card.solved.trigger.verified for card in catalog.errors)
    assert [(card.solved.validator, card.solved.validator_reason) for card in catalog.errors] == [(None, "needs_value_no_caller_sets")] * 4
    assert glob.glob("/tmp/raisedocs_pwned*") == []
