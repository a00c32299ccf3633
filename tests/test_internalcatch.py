"""Caught by the library (link.caught) and verify's missing dependencies, on fixtures/internalcatch:
what each card says about the package's own ``except`` clauses, where such cards rank, and
each Python example run (``verify``), the one whose module needs a package that is not
installed reported as ``not_runnable: missing_dependency``."""

from __future__ import annotations

import ast
import json

from extractor.collect.callers import in_file_calls
from extractor.publish.catalog_file import load_catalog
from extractor.publish.explain import match_message
from extractor.solve.examples import example_requires
from extractor.verify.runner import Settings, judge_before, verify_card

from .examples_runner import check
from .helpers import FIXTURES, run_cli

ROOT = str(FIXTURES / "internalcatch")


def _extract(capsys, out) -> dict[str, dict]:
    assert run_cli(capsys, "extract", ROOT, "-o", str(out), "--no-cache").code == 0
    return {f"{c['function']}:{c['line']}": c for c in load_catalog(str(out / "catalog.json"))["errors"]}


def _said(card: dict) -> tuple:
    caught = card.get("caught")
    if caught is None:
        return None
    return (caught["visibility"], [(h["function"], h["line"], tuple(h["catches"]), h["outcome"], h.get("raises"), h.get("last"),
                                    tuple(h.get("through") or ())) for h in caught["handlers"]],
            [(e["function"], e["line"]) for e in caught.get("escapes") or ()])


def test_each_card_says_which_handlers_catch_it_and_whether_users_see_it(capsys, tmp_path) -> None:
    cards = _extract(capsys, tmp_path / "docs")
    said = {key: _said(card) for key, card in cards.items()}
    assert {key: said[key] for key in said if cards[key]["path"] != "stamps/cli.py"} == {
        "_parse_colon:24": ("hidden", [("parse_stamp", 18, ("ValueError",), "return", None, "return _parse_compact(text)", ())], []),
        # Reached from parse_stamp's handler, not its try body: nothing catches it.
        "_parse_compact:31": None,
        "_digits:50": ("hidden", [("parse_pair", 39, ("ValueError",), "return", None, "return None", ("_split",))], []),
        "load_setting:59": None,
        # Users get StampError in its place: not hidden.
        "_to_minutes:64": ("replaced", [("load_setting", 58, ("ValueError",), "raise_other", "StampError",
                                         'raise StampError(f"bad setting: {value!r}") from exc', ())], []),
        "_check_hour:70": ("partly", [("safe_hour", 78, ("ValueError",), "return", None, "return None", ())], [("strict_hour", 84)]),
        "normalize:90": ("public", [("day_minutes", 98, ("ValueError",), "return", None, "return 0", ())], []),
        "_check_minute:104": ("reraised", [("audited_minute", 112, ("ValueError",), "reraise", None, None, ())], []),
        "audited_minute:114": None,
        "read_zone:11": None,
    }
    cli = {key: said[key] for key in said if cards[key]["path"] == "stamps/cli.py"}
    assert cli == {
        # Parser.error prints and calls self.exit, which calls sys.exit: the handler ends the program.
        "Parser._pairs:28": ("replaced", [("Parser.parse", 21, ("ValueError",), "exits", None, "self.error(str(err))", ())], []),
        "_abort:45": None,
        "_abort:46": None,
        # _abort is declared NoReturn (two raises: no raising helper, nothing named).
        "_launch:59": ("replaced", [("run", 53, ("OSError", "ValueError"), "no_return", None, '_abort("launch", err)', ())], []),
        "_fail:64": None,
        "size_of:72": None,
        # _fail is a raising helper: what it raises is named.
        "_count:77": ("replaced", [("size_of", 71, ("ValueError",), "no_return", "CommandError", '_fail(f"bad size: {text!r}")', ())], []),
        "width_of:86": None,
        # A raise written over three lines is shown on one.
        "_columns:93": ("replaced", [("width_of", 85, ("ValueError",), "raise_other", "CommandError",
                                      'raise CommandError(f"bad width {text!r}: {err}") from err', ())], []),
        "first_minutes:105": None,
        # The handler keeps the error; the raise after the loop puts it in its message.
        "_minutes_of:110": ("replaced", [("first_minutes", 103, ("ValueError",), "keeps", None, "problem = exc", ())], []),
    }
    carries = {key: [h.get("carries", False) for h in cards[key]["caught"]["handlers"]] for key in cli if cli[key]}
    assert carries == {"Parser._pairs:28": [True], "_launch:59": [True], "_count:77": [False], "_columns:93": [True],
                       "_minutes_of:110": [True]}


def test_the_card_page_and_index_say_so_and_hidden_cards_come_last(capsys, tmp_path) -> None:
    out = tmp_path / "docs"
    cards = _extract(capsys, out)
    page = (out / "errors" / f"{cards['_to_minutes:64']['id']}.md").read_text(encoding="utf-8")
    assert ("## Caught by the library\n\nEvery call of the function in its file, followed through private callers, is inside a handler "
            "that catches it, but a handler raises another error in its place") in page
    assert ("- `load_setting` (`stamps/clock.py:58`) catches it with `except ValueError`: it raises another error in its place, "
            "`StampError` (`raise StampError(f\"bad setting: {value!r}\") from exc`); it passes the caught error on, so its text "
            "can reach users.") not in page  # (the raise reads the caught error only as its cause)
    assert ("- `load_setting` (`stamps/clock.py:58`) catches it with `except ValueError`: it raises another error in its place, "
            "`StampError` (`raise StampError(f\"bad setting: {value!r}\") from exc`).") in page
    exits = (out / "errors" / f"{cards['Parser._pairs:28']['id']}.md").read_text(encoding="utf-8")
    assert ("- `Parser.parse` (`stamps/cli.py:21`) catches it with `except ValueError`: it ends the program (`sys.exit` or "
            "`os._exit`, directly or through a function of its file that always calls it): users see the program stop, with what "
            "it prints, instead of the error (`self.error(str(err))`); it passes the caught error on, so its text can reach users.") in exits
    launch = (out / "errors" / f"{cards['_launch:59']['id']}.md").read_text(encoding="utf-8")
    assert "catches it with `except (OSError, ValueError)`" in launch
    partly = (out / "errors" / f"{cards['_check_hour:70']['id']}.md").read_text(encoding="utf-8")
    assert "Calls with no handler that catches it: `strict_hour` (line 84)." in partly
    index = (out / "index.md").read_text(encoding="utf-8")
    section = index.split("## `stamps/clock.py`")[1].split("## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "line" not in line]
    clock = [r.split(" | ")[0].strip("| ") for r in rows if "[" in r]
    # visible first (reached from a public entry, then 64, whose only entry, load_setting, catches it), then the hidden ones
    assert clock == ["31", "59", "70", "90", "104", "64", "114", "24", "50"]
    assert "no colon in {text!r} *(always caught by the library)*" in index
    assert "not a number of minutes: {value!r} *(always caught by the library)*" not in index
    catalog = json.loads((out / "catalog.json").read_text(encoding="utf-8"))
    # The same message in a visible and a hidden card: the visible one first, whatever the order of the tree.
    hidden, shown = dict(catalog["errors"][0]), dict(catalog["errors"][0])
    hidden.update(id="a", path="a.py", caught={"visibility": "hidden", "handlers": [], "escapes": []})
    shown.update(id="b", path="b.py", caught=None)
    matches = match_message(catalog["errors"][0]["message"]["template"], {"errors": [hidden, shown]}, 5)
    assert [m.id for m in matches] == ["b", "a"]


def test_every_example_runs_and_a_missing_package_is_not_runnable(capsys, tmp_path) -> None:
    cards = _extract(capsys, tmp_path / "docs")
    with_example = {key for key, card in cards.items() if card["example"] and card["example"]["style"] == "python"}
    # (_check_hour's example calls strict_hour, the public function that passes the hour straight on)
    assert with_example == {"normalize:90", "read_zone:11", "_check_hour:70"}
    assert check(cards["normalize:90"], ROOT) == []
    assert check(cards["_check_hour:70"], ROOT) == []
    result = verify_card(cards["read_zone:11"], Settings(roots=(ROOT,), timeout=20, jobs=1))
    assert (result["outcome"], result["reason"], result["detail"]) == ("not_runnable", "missing_dependency", "fancy_yaml_optional")
    # (the example imports the project only, but its module imports the package at its top: the card says to install it)
    assert cards["read_zone:11"]["example"]["requires"] == ["fancy_yaml_optional"]


def test_a_missing_module_of_the_project_itself_is_the_cards_concern() -> None:
    card = {"path": "stamps/clock.py", "line": 3, "end_line": 3, "exception": {"classes": ["ValueError"]}, "trigger": {"message": "x"}}
    missing = {"classes": ["ModuleNotFoundError", "ImportError", "Exception"], "message": "No module named 'stamps.gone'",
               "at": ["<example>", 1], "frames": [], "missing": "stamps.gone"}
    assert judge_before(card, {"raised": missing})["outcome"] == "raised_elsewhere"
    wrapped = {"raised": {**missing, "classes": ["RuntimeError", "Exception"], "missing": None}, "chain": [{**missing, "missing": "torch"}]}
    assert judge_before(card, wrapped) == {"outcome": "not_runnable", "reason": "missing_dependency", "detail": "torch"}


def test_an_error_while_the_example_imports_is_no_verdict_on_the_card() -> None:
    """A package that refuses this machine as it is imported (``ImportError: requires the CUDA
    extensions``) stops the example before its call: not_runnable, import_failed, with what
    was raised. A module of the project that is missing is still the card's concern."""
    card = {"path": "stamps/clock.py", "line": 3, "end_line": 3, "exception": {"classes": ["ValueError"]}, "trigger": {"message": "x"}}
    refused = {"classes": ["ImportError", "Exception"], "message": "stamps.gpu requires the CUDA extensions\n(details)",
               "at": ["stamps/gpu/__init__.py", 4], "frames": [], "missing": None}
    assert judge_before(card, {"raised": refused, "phase": "import"}) == {
        "outcome": "not_runnable", "reason": "import_failed", "detail": "ImportError: stamps.gpu requires the CUDA extensions"}
    assert judge_before(card, {"raised": refused, "phase": "run"})["outcome"] == "raised_elsewhere"
    gone = {**refused, "classes": ["ModuleNotFoundError", "ImportError", "Exception"], "missing": "stamps.gone"}
    assert judge_before(card, {"raised": gone, "phase": "import"})["outcome"] == "raised_elsewhere"


def test_an_example_requires_the_packages_its_imports_name_beyond_the_project_and_stdlib() -> None:
    code = "import os.path\nimport numpy as np\nfrom torch.nn import Linear\nfrom stamps.clock import normalize\nfrom . import x\n"
    assert example_requires([code, "from yaml import safe_load"], {"stamps"}) == ("numpy", "torch", "yaml")
    assert example_requires(["not python ("], {"stamps"}) == ()


def test_calls_are_followed_through_private_callers_only_and_stop_at_a_bound() -> None:
    text = ("def _a():\n    raise ValueError('x')\n\ndef _b():\n    return _a()\n\ndef c():\n    try:\n        return _b()\n"
            "    except (KeyError, ValueError):\n        pass\n\ndef d():\n    return c()\n")
    tree = ast.parse(text)
    defs = [(n.name, n) for n in tree.body if isinstance(n, ast.FunctionDef)]
    calls = {fc.function: fc for fc in in_file_calls(text, tree, defs, (), [("_a", None)])}
    assert sorted(calls) == ["_a", "_b"]  # (c is public: what passes it reaches users; its callers are not followed)
    assert calls["_b"].calls[0].caller == "c"
    handler = calls["_b"].calls[0].handlers[0]
    assert (handler.line, handler.catches, handler.outcome) == (10, ("KeyError", "ValueError"), "ignore")
    assert calls["_a"].is_complete and not calls["_a"].is_decorated


def test_a_handlers_statement_is_shown_on_one_line_and_a_compound_one_by_its_first_line() -> None:
    text = ("def _a():\n    raise ValueError('x')\n\ndef c():\n    try:\n        return _a()\n    except ValueError as e:\n"
            "        raise TypeError(\n            'bad',\n            str(e),\n        ) from e\n\ndef d():\n    try:\n        return _a()\n"
            "    except ValueError as e:\n        if e:\n            f()\n        else:\n            g()\n")
    tree = ast.parse(text)
    defs = [(n.name, n) for n in tree.body if isinstance(n, ast.FunctionDef)]
    (calls,) = in_file_calls(text, tree, defs, (), [("_a", None)])
    shown = [(h.outcome, h.last, h.carries, h.surfaces) for call in calls.calls for h in call.handlers]
    assert shown == [("raise_other", "raise TypeError('bad', str(e)) from e", True, True), ("fallback", "if e: ...", False, False)]
