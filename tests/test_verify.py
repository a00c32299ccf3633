"""``raisedocs verify``: each card's example run on the real code, in a sandbox, and judged.

It fails closed: an example that stops raising what its card says is an outcome other than
``confirmed``, and ``--fail-on wrong`` makes that exit status 1 (rustc's ``compile_fail``
doc tests and pylint's ``bad.py`` tests work the same way).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractor.publish.catalog_file import load_catalog
from extractor.verify.runner import Settings, fail_groups, run_child, verify_card

from .helpers import FIXTURES, run_cli

CALLERS = str(FIXTURES / "callers")


@pytest.fixture
def docs(capsys, tmp_path) -> Path:  # noqa: ANN001 (pytest fixture)
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", CALLERS, "-o", str(out), "--no-cache").code == 0
    return out


def _catalog(docs: Path) -> dict:
    return load_catalog(str(docs / "catalog.json"))


def test_every_example_of_the_fixture_is_confirmed_and_check_stays_green(capsys, docs) -> None:
    run = run_cli(capsys, "verify", str(docs), "--path", CALLERS, "--fail-on", "wrong,timeout,fix_fails")
    assert run.code == 0, run.err
    catalog = _catalog(docs)
    outcomes = {c["id"]: c["verification"]["outcome"] for c in catalog["errors"] if c["verification"]}
    with_example = {c["id"] for c in catalog["errors"] if c["example"] and c["trigger"]["verified"]}
    assert {i for i, o in outcomes.items() if o in ("confirmed", "wrapped")} == with_example
    # The pydantic dataclass's validators: pydantic reports their ValueError inside a
    # ValidationError, the class their cards say the caller gets.
    wrapped = {c["id"]: c for c in catalog["errors"] if c["verification"] and c["verification"]["outcome"] == "wrapped"}
    assert wrapped and all(c["shown"]["exception"].rsplit(".", 1)[-1] == c["verification"]["observed"]["exception"] == "ValidationError"
                           for c in wrapped.values())
    # Verified cards without an example say why they were not run.
    assert {o for i, o in outcomes.items() if i not in with_example} == {"not_runnable"}
    judged = [c["verification"] for c in catalog["errors"] if c["verification"] and c["example"]]
    # Every fix shown holds; an example with no "after" (it reproduces the error only) has none judged.
    assert all(v["fix"] == ("holds" if c["example"]["after"] is not None else None) and set(v["fixes"]) <= {"holds"}
               for c in catalog["errors"] if (v := c["verification"]) and c["example"])
    assert sum(len(v["fixes"]) for v in judged) >= 2  # further fixes are run too (run, Retry.__post_init__)
    stats = catalog["stats"]["verification"]
    assert (stats["confirmed"], stats["wrapped"]) == (len(with_example) - len(wrapped), len(wrapped))
    card = next(c for c in catalog["errors"] if c["function"] == "parse_port")
    text = (docs / "errors" / f"{card['id']}.md").read_text(encoding="utf-8")
    assert "Confirmed by running callers: the example below raised this error" in text
    # The proof is kept by check while the cards stay the same: the folder is up to date.
    assert run_cli(capsys, "check", str(docs), "--path", CALLERS, "--no-cache").code == 0


def test_verify_is_deterministic(capsys, docs, tmp_path) -> None:
    assert run_cli(capsys, "verify", str(docs), "--path", CALLERS, "-q").code == 0
    first = {p.name: p.read_bytes() for p in docs.rglob("*") if p.is_file()}
    assert run_cli(capsys, "verify", str(docs), "--path", CALLERS, "-q").code == 0
    assert {p.name: p.read_bytes() for p in docs.rglob("*") if p.is_file()} == first


def _card(docs: Path, function: str) -> dict:
    return next(c for c in _catalog(docs)["errors"] if c["function"] == function)


@pytest.mark.parametrize(
    ("change", "outcome"),
    [
        # the card's message is not what the code says
        (lambda c: c["trigger"].update(message="not a port: 'nope'"), "different_message"),
        # the code raises from another line than the card's
        (lambda c: c.update(line=c["line"] + 1, end_line=c["end_line"] + 1), "raised_elsewhere"),
        (lambda c: c["example"].update(before="import shop.paths"), "did_not_raise"),
        (lambda c: c["example"].update(before="while True:\n    pass"), "timeout"),
        # the sandbox refuses writes outside its folder and subprocesses
        (lambda c: c["example"].update(before="open('/tmp/raisedocs-verify-escape', 'w')"), "not_runnable"),
        (lambda c: c["example"].update(before="import subprocess\nsubprocess.run(['true'])"), "not_runnable"),
        # ... and lets pass what importing real packages needs and cannot harm: ctypes (torch loads
        # its libraries so), /dev/null, the read-only uname (platform.uname())
        (lambda c: c["example"].update(before="import ctypes\nctypes.CDLL(None)\nopen('/dev/null', 'w').write('x')"), "did_not_raise"),
        (lambda c: c["example"].update(before="import subprocess\nsubprocess.run(['uname', '-m'], capture_output=True, check=True)"), "did_not_raise"),
    ],
)
def test_an_example_that_does_not_do_what_its_card_says_is_not_confirmed(docs, change, outcome: str) -> None:
    card = _card(docs, "parse_port")
    change(card)
    result = verify_card(card, Settings(roots=(CALLERS,), timeout=2, jobs=1))
    assert result is not None and result["outcome"] == outcome, result
    assert not Path("/tmp/raisedocs-verify-escape").exists()


def test_a_socket_reaches_nothing(docs) -> None:
    """Refused, or let through only inside a network namespace of its own, where nothing answers."""
    card = _card(docs, "parse_port")
    card["example"]["before"] = "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)"
    result = verify_card(card, Settings(roots=(CALLERS,), timeout=5, jobs=1))
    assert result is not None
    assert result["outcome"] == "not_runnable" or result["observed"]["exception"] in ("OSError", "ConnectionRefusedError", "TimeoutError"), result


def test_a_fix_that_still_reaches_the_site_is_reported(docs) -> None:
    card = _card(docs, "parse_port")
    card["example"]["after"] = card["example"]["before"]
    result = verify_card(card, Settings(roots=(CALLERS,), timeout=5, jobs=1))
    assert result is not None and (result["outcome"], result["fix"]) == ("confirmed", "still_raises")


def test_a_fix_that_raises_another_error_is_reported_and_fails_ci(docs) -> None:
    card = _card(docs, "parse_port")
    card["example"]["after"] = "import shop.paths\nraise KeyError('elsewhere')"
    result = verify_card(card, Settings(roots=(CALLERS,), timeout=5, jobs=1))
    assert result is not None and (result["outcome"], result["fix"]) == ("confirmed", "raises_other")
    assert fail_groups({"errors": [{**card, "verification": result}]})["fix_fails"] == 1


def test_fail_on_wrong_fails_ci_on_a_stale_example(capsys, docs) -> None:
    catalog = _catalog(docs)
    card = next(c for c in catalog["errors"] if c["function"] == "parse_port")
    card["trigger"]["message"] = "an old message"
    (docs / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
    run = run_cli(capsys, "verify", str(docs / "catalog.json"), "--path", CALLERS, "--fail-on", "wrong")
    assert run.code == 1
    assert "different_message 1" in run.err
    verified = next(c for c in _catalog(docs)["errors"] if c["id"] == card["id"])["verification"]
    assert verified["observed"]["message"] == "not a port: 'x'"


def test_bad_arguments_are_one_line_and_exit_2(capsys, docs) -> None:
    run = run_cli(capsys, "verify", str(docs), "--fail-on", "bogus")
    assert run.code == 2 and run.err.count("\n") == 1 and "bogus" in run.err
    run = run_cli(capsys, "verify", str(docs / "nope.json"))
    assert run.code == 2 and run.err.startswith("raisedocs: error: catalog not found")


@pytest.mark.parametrize("fixture", ["offload", "forms", "callers", "broken"])
def test_no_example_of_the_fixtures_is_wrong(capsys, tmp_path, fixture: str) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / fixture), "-o", str(out), "--no-cache").code == 0
    run = run_cli(capsys, "verify", str(out), "--path", str(FIXTURES / fixture), "--fail-on", "wrong,timeout,fix_fails")
    assert run.code == 0, run.err
    counts = _catalog(out)["stats"]["verification"]
    # (wrapped: the pydantic dataclass validators of callers, whose ValueError reaches the caller inside a ValidationError)
    assert set(counts) <= {"confirmed", "wrapped", "not_runnable"} and counts.get("confirmed")


@pytest.fixture(scope="module")
def pydconfig_verified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pydconfig fixture's docs, extracted and verified (its console script from its pyproject.toml)."""
    from click.testing import CliRunner

    from extractor.cli import cli

    out = tmp_path_factory.mktemp("pydconfig") / "docs"
    root = str(FIXTURES / "pydconfig")
    for argv in (["extract", root, "-o", str(out), "--no-cache"], ["verify", str(out), "--path", root, "-q", "--fail-on", "wrong,fix_fails"]):
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 0, result.output
    return out


def test_a_constraints_command_lines_run_through_the_command(pydconfig_verified: Path) -> None:
    """pydconfig's command builds ServerConfig from its flags and lets pydantic's ValidationError
    out; its --cache flag's type builds CacheConfig from JSON, and argparse turns that error into
    its usage message and SystemExit(2), whose chain holds it (``wrapped``, vLLM's JSON sub-config
    flags). Each fix's line runs clean."""
    cards = [c for c in _catalog(pydconfig_verified)["errors"] if c.get("command_line")]
    runs = {c["command_line"]: c["verification"]["command_line"] for c in cards}
    assert {line: (run["outcome"], run["fix"]) for line, run in runs.items()} == {
        "pydconfig serve --port 0": ("confirmed", "holds"), "pydconfig serve --port 65536": ("confirmed", "holds"),
        "pydconfig serve --workers 0": ("confirmed", "holds"),
        """pydconfig serve --cache '{"backends": []}'""": ("wrapped", "holds"),
        """pydconfig serve --cache '{"ttl": -1.0}'""": ("wrapped", "holds"),
        """pydconfig serve --cache '{"shards": 0}'""": ("wrapped", "holds"),
    }
    assert {run["observed"]["exception"] for run in runs.values() if run["outcome"] == "wrapped"} == {"SystemExit"}
    port = next(c for c in cards if c["command_line"] == "pydconfig serve --port 0")
    text = (pydconfig_verified / "errors" / f"{port['id']}.md").read_text(encoding="utf-8")
    assert "the command line raised `pydantic.ValidationError`, whose `errors()` hold" in text and "the fix's line did not." in text
    shards = next(c for c in cards if "shards" in c["command_line"])
    text = (pydconfig_verified / "errors" / f"{shards['id']}.md").read_text(encoding="utf-8")
    assert "the command line exited with `SystemExit`, which holds `pydantic.ValidationError`" in text


def test_a_post_inits_error_inside_pydantics_inside_argparses_exit_is_found(pydconfig_verified: Path) -> None:
    """CacheConfig's own ``__post_init__`` raise, reached through --cache's JSON: argparse's exit
    holds pydantic's ValidationError, whose ``errors()`` hold the ValueError from the card's line."""
    card = next(c for c in _catalog(pydconfig_verified)["errors"] if c["message"]["template"] == "a sharded cache needs a ttl above 0")
    assert card["example"]["before"] == """pydconfig serve --cache '{"ttl": 0}'"""
    assert (card["verification"]["outcome"], card["verification"]["observed"]["exception"], card["verification"]["fix"]) == (
        "wrapped", "SystemExit", "holds")


def test_env_sets_a_variable_of_the_childs_environment(capsys, docs) -> None:
    report = run_child("import os\nraise ValueError(os.environ.get('RAISEDOCS_PROBE'))", Settings(env=(("RAISEDOCS_PROBE", "on"),)))
    assert report["raised"]["message"] == "on"
    run = run_cli(capsys, "verify", str(docs), "--env", "no-equals")
    assert run.code == 2 and run.err.count("\n") == 1 and "NAME=VALUE" in run.err


def test_a_lookup_the_sandbox_cannot_answer_is_no_verdict(docs) -> None:
    """Inside its network namespace the child reaches nothing: a name lookup fails (vLLM's CLI
    fetching the model's config), which says nothing of the card, so the run is not judged."""
    card = _card(docs, "parse_port")
    card["example"]["before"] = "import socket\nsocket.getaddrinfo('huggingface.co', 443)"
    card["example"]["after"] = card["example"]["before"]
    result = verify_card(card, Settings(roots=(CALLERS,), timeout=10, jobs=1))
    assert result is not None and result["outcome"] == "not_runnable", result
    assert result["reason"] in ("needs_network", "sandbox_refused") and result["fix"] == "not_run"  # (refused: no namespace of its own)


@pytest.mark.parametrize(("code", "blocked"), [
    # a soft limit of a resource the sandbox leaves alone, within the hard one (vLLM raises its open files)
    ("import resource\nk = resource.RLIMIT_NOFILE\nresource.setrlimit(k, (resource.getrlimit(k)[1], resource.getrlimit(k)[1]))", False),
    # one the sandbox set itself, raised again: refused
    ("import resource\nk = resource.RLIMIT_CPU\nresource.setrlimit(k, (resource.getrlimit(k)[1], resource.getrlimit(k)[1]))", True),
])
def test_a_limit_may_rise_only_where_the_sandbox_set_none(code: str, blocked: bool) -> None:
    report = run_child(code + "\nraise ValueError('ran')", Settings(timeout=10))
    assert report["blocked"] is blocked and (blocked or report["raised"]["message"] == "ran"), report


def test_a_constraints_command_line_runs_where_no_python_call_is_written(pydconfig_verified: Path) -> None:
    """vLLM's SchedulerConfig needs InitVars no example passes, but its flags' lines need none."""
    card = next(c for c in _catalog(pydconfig_verified)["errors"] if c.get("command_line") == "pydconfig serve --workers 0")
    card = {**card, "example": None}
    result = verify_card(card, Settings(roots=(str(FIXTURES / "pydconfig"),), timeout=10, jobs=1))
    assert result is not None and (result["outcome"], result["reason"]) == ("not_runnable", "no_example")
    assert (result["command_line"]["outcome"], result["command_line"]["fix"]) == ("confirmed", "holds")
