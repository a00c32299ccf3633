"""Generated validators: they compile, pass ruff, carry annotations, and reproduce the card."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from extractor.model import MessageTemplate, from_data
from extractor.publish.catalog_file import load_catalog
from extractor.solve.evaluate import Raised, run_validator
from extractor.solve.validator import built_by_class

from .helpers import FIXTURES, GOLDEN, extract_snippet


def _validators() -> list[dict]:
    found = []
    for file in sorted(GOLDEN.glob("*/catalog.json")):  # the docs folders (not the release notes)
        catalog = load_catalog(str(file))
        found.extend(card for card in catalog["errors"] if card["validator"] is not None)
    return found


def test_every_golden_validator_compiles_and_passes_ruff(tmp_path) -> None:
    validators = _validators()
    assert len(validators) >= 30  # the cards whose guards read inputs only
    for index, card in enumerate(validators):
        compile(card["validator"]["code"], f"v{index}.py", "exec")
        (tmp_path / f"v{index}.py").write_text(card["validator"]["code"], encoding="utf-8")
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_validators_reproduce_the_trigger_message_and_pass_the_fixes() -> None:
    checked = 0
    for card in _validators():
        validator, trigger = card["validator"], card["trigger"]
        if not validator["verified"]:
            continue
        values = {**trigger["inputs"], **trigger["assumes"]}
        if any(isinstance(v, dict) for v in values.values()):
            continue  # values JSON cannot carry (tuples, sets) are checked in-process by the solver
        kwargs = {param: values.get(key) for param, key in validator["params"].items()}
        raised = run_validator(validator["code"], kwargs)
        assert isinstance(raised, Raised) and raised.exception == card["exception"]["classes"][0].rsplit(".", 1)[-1]
        if not built_by_class(from_data(MessageTemplate, card["message"])):  # (else its first argument is not the text: run below)
            assert raised.message == trigger["message"]
        for fix in card["fixes"]:
            fixed = {**values, **fix["inputs"]}
            assert run_validator(validator["code"], {p: fixed.get(k) for p, k in validator["params"].items()}) is None
        checked += 1
    assert checked >= 25  # not vacuous: most verified validators of the goldens


def test_offload_validator_is_the_expected_function() -> None:
    catalog = load_catalog(str(GOLDEN / "offload" / "catalog.json"))
    card = next(c for c in catalog["errors"] if c["line"] == 49)
    assert card["validator"]["code"] == (
        "def check_offload_prefetch_step(offload_backend: str, offload_group_size: int, "
        "offload_num_in_group: int, offload_prefetch_step: int) -> None:\n"
        '    """Raise ValueError as OffloadConfig.validate_offload_config() in minivllm/config/offload.py does, '
        'under the same condition."""\n'
        '    if (offload_backend == "prefetch" or offload_group_size > 0) and not (offload_num_in_group > offload_group_size) '
        "and offload_prefetch_step < 1:\n"
        '        raise ValueError(f"offload_prefetch_step ({offload_prefetch_step}) must be >= 1 when prefetch '
        'offloading is enabled (offload_group_size > 0)")\n'
    )
    assert card["validator"]["params"] == {
        "offload_backend": "self.offload_backend",
        "offload_group_size": "self.prefetch.offload_group_size",
        "offload_num_in_group": "self.prefetch.offload_num_in_group",
        "offload_prefetch_step": "self.prefetch.offload_prefetch_step",
    }


def _renamed(code: str, names: dict[str, str], constants: dict[str, str] | None = None) -> str:
    from extractor.solve.validator import _Rename

    return _Rename(names, constants or {}).apply(code)


def test_rename_replaces_a_node_with_its_own_parentheses_and_keeps_the_rest_as_written() -> None:
    names = {"self.x": "x", "self.y": "y"}
    assert _renamed("(self.x)  >  0 and ( self.y )", names) == "x  >  0 and y"
    assert _renamed("f(self.x) or f((self.x)) or f((self.x),) or g(self.x, (self.y))", names) == (
        "f(x) or f(x) or f(x,) or g(x, y)"
    )
    assert _renamed("(self.x).real", names) == "x.real"
    # Dict and conditional fields are not in source order: the edits are applied by position.
    assert _renamed("{self.x: 1, 2: self.y}[self.x if self.y else 0] == 'é'", names) == "{x: 1, 2: y}[x if y else 0] == 'é'"


def test_rename_reads_keys_as_code_and_inlines_constants_in_one_pair_of_parentheses() -> None:
    names = {"self.x": "x", "len(self.items)": "len_self_items"}
    constants = {"SIZES": "(1, 2)", "EMPTY": "()", "LIMIT": "(10)"}
    assert _renamed("len(self.items) > LIMIT and self.x in SIZES and self.x != EMPTY", names, constants) == (
        "len_self_items > (10) and x in (1, 2) and x != ()"
    )
    # An attribute's name is not an input of the same name.
    assert _renamed("g(self.x).x > 0", {"x": "other", "self.x": "x"}) == "g(x).x > 0"


_RUN_VALIDATORS = r"""
import json, sys
out = []
for code, name, calls in json.load(sys.stdin):
    scope = {}
    exec(code, scope)
    results = []
    for kwargs in calls:
        try:
            scope[name](**kwargs)
        except BaseException as exc:  # (SystemExit too: a CLI's own check)
            results.append([[c.__name__ for c in type(exc).__mro__], str(exc)])
        else:
            results.append(None)
    out.append(results)
print(json.dumps(out))
"""


def test_validators_raise_the_cards_message_when_really_run() -> None:
    # The fixtures are written for this project and safe to import: each verified validator
    # is run by Python itself on the trigger (it must raise the card's class with the card's
    # message, a class's own __str__ included) and on every fix (it must not raise).
    checked = 0
    for case in ("forms", "callers", "offload"):
        catalog = load_catalog(str(GOLDEN / case / "catalog.json"))
        jobs, expected = [], []
        for card in catalog["errors"]:
            validator, trigger = card["validator"], card["trigger"]
            values = {**trigger["inputs"], **trigger["assumes"]}
            if validator is None or not validator["verified"] or trigger["message"] is None or any(isinstance(v, dict) for v in values.values()):
                continue
            calls = [{p: values.get(k) for p, k in validator["params"].items()}]
            calls += [{p: {**values, **fix["inputs"]}.get(k) for p, k in validator["params"].items()} for fix in card["fixes"]]
            jobs.append([validator["code"], validator["name"], calls])
            expected.append((card["exception"]["classes"][0].rsplit(".", 1)[-1], trigger["message"], len(card["fixes"])))
        proc = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(FIXTURES / case)!r})\n" + _RUN_VALIDATORS],
                              input=json.dumps(jobs), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        for (cls, message, fixes), (raised, *fixed) in zip(expected, json.loads(proc.stdout), strict=True):
            # (the class or a subclass: OSError(2, ...) is a FileNotFoundError)
            assert raised is not None and cls in raised[0] and raised[1] == message, (case, cls, message, raised)
            assert fixed == [None] * fixes, (case, cls, message)
        checked += len(jobs)
    assert checked >= 30


def test_a_type_check_that_raises_another_class_keeps_it_and_passes_ruff(tmp_path) -> None:
    # (ruff's TRY004 prefers TypeError for a type check; the validator raises what the code raises)
    code = "def f(v, w):\n    if not isinstance(v, dict):\n        raise ValueError('v must be a dict')\n" \
           "    if w is None or not isinstance(w, int):\n        raise ValueError('w must be an int')\n"
    cards = extract_snippet(tmp_path / "tree", code)
    written = [card.solved.validator.code for card in cards if card.solved.validator is not None]
    assert len(written) == 2 and sum("# noqa: TRY004" in text for text in written) == 1
    for index, text in enumerate(written):
        (tmp_path / f"v{index}.py").write_text(text, encoding="utf-8")
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", str(tmp_path / "v0.py"), str(tmp_path / "v1.py")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
