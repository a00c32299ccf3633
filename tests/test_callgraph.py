"""Public entries (link.callgraph) and triggers at the entry (solve.entries), on fixtures/entries:
which public calls reach each raise, which card is stated as a call of its entry and why the
others are not; and the per-file call records (collect.calls) they are built from."""

from __future__ import annotations

import ast

from extractor.collect.calls import calls_made, module_instances
from extractor.collect.declarations import SourceText
from extractor.publish.catalog_file import load_catalog

from .examples_runner import check
from .helpers import FIXTURES, run_cli

ROOT = str(FIXTURES / "entries")


def _cards(capsys, tmp_path) -> dict[str, dict]:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", ROOT, "-o", str(out), "--no-cache").code == 0
    return {f"{c['function']}:{c['line']}": c for c in load_catalog(str(out / "catalog.json"))["errors"]}


def test_each_card_lists_its_public_entries_and_is_stated_at_one_where_the_values_pass_through(capsys, tmp_path) -> None:
    cards = _cards(capsys, tmp_path)
    said = {key: ([p["entry"] for p in (c["entries"] or {}).get("paths", ())], (c["entries"] or {}).get("reason"),
                  c.get("at_entry"), c.get("entry_reason")) for key, c in cards.items()}
    decode = ["tidal.checked_decode", "tidal.decode", "tidal.decode_strict"]  # (re-exported by tidal from tidal._impl.codec)
    assert said == {
        "_decode:8": (decode, None, "tidal.decode", None),
        # decode fixes ``strict`` to its default False, under which the raise is unreachable; decode_strict passes _STRICT
        "_decode:10": (decode, None, "tidal.decode_strict", None),
        "_orphan:32": ([], "no_public_entry", None, None),
        "_check_depth:6": (["tidal.tide.Tide(...)"], None, "tidal.tide.Tide(...)", None),
        # Spring inherits _level from Tide: ``self._level`` in Spring.surge runs it; flood calls it on its ``tide: Tide``
        "Tide._level:24": (["tidal.tide.Spring.surge", "tidal.tide.Tide.level", "tidal.tide.flood"], None, "tidal.tide.Spring.surge",
                           None),
        "Tide._check_name:36": (["tidal.tide.Tide.rename"], None, None, "entry_not_first"),
        # the guards read the object too: __post_init__ and reading run on the object the example builds
        "Gauge._check_range:18": (["tidal.gauge.Gauge(...)"], None, "tidal.gauge.Gauge(...)", None),
        "Gauge._scaled:26": (["tidal.gauge.Gauge.reading"], None, "tidal.gauge.Gauge.reading", None),
        # calibrate passes its gauge on unchanged, but no example builds a Gauge argument from the fields the guard reads
        "_check_span:32": (["tidal.gauge.calibrate"], None, None, "entry_not_solved"),
        # pairs tests its text before it calls _split (an early return and an early raise): the trigger keeps both false
        "_split:6": (["tidal.pairs"], None, "tidal.pairs", None),
        "pairs:15": (["tidal.pairs"], None, None, None),
        # station_of's first test false (its body, which rebinds the argument, not run), its early return not taken
        "_parse_station:6": (["tidal.readings.station_of"], None, "tidal.readings.station_of", None),
        # table calls _hourly in the branch its mode selects (the default, "hourly")
        "_hourly:22": (["tidal.readings.table"], None, "tidal.readings.table", None),
        "table:32": (["tidal.readings.table"], None, None, None),
        # (the branch's test is an ``or``: at the entry it is one conjunct, ``(mode == 'daily' or mode == 'day')``)
        "_daily:37": (["tidal.readings.week"], None, "tidal.readings.week", None),
        # (an annotated empty list is bound before the call: it cannot fail)
        "_check_quarters:50": (["tidal.readings.spans"], None, "tidal.readings.spans", None),
        # (a test of a module constant on the way: its value comes with it)
        "_check_rows:66": (["tidal.readings.rows_of"], None, "tidal.readings.rows_of", None),
        "rows_of:73": (["tidal.readings.rows_of"], None, None, None),
        # a private class's method, as the public subclass that runs it (Gate runs _Shadow's own)
        "_Meter.read:8": (["tidal.meters.TideMeter.read"], None, None, None),
        # a private class's method that log calls on the module's one object of it (``json.loads``' ``_default_decoder``)
        "_Log.write:28": (["tidal.meters.log"], None, "tidal.meters.log", None),
        # depth_of catches the check's ValueError and raises InvalidDepth: no way up; raw_depth raises it again
        # (a call inside a ``try`` is not the first thing its caller surely does)
        "_check_depth:11": (["tidal.depth.raw_depth"], None, None, "entry_not_first"),
        "depth_of:20": (["tidal.depth.depth_of"], None, None, None),
        "raw_depth:29": (["tidal.depth.raw_depth"], None, None, None),
        # sounding's handler returns None: the only way up is stopped
        "_sounding:34": ([], "caught_on_the_way", None, None),
    }
    paths = {p["entry"]: p["path"] for p in cards["_decode:8"]["entries"]["paths"]}
    assert paths["tidal.decode"] == ["tidal._impl.codec.decode", "tidal._impl.codec._decode"]
    assert cards["_decode:10"]["trigger"] == {**cards["_decode:10"]["trigger"], "inputs": {"text": ""}, "verified": True}
    assert cards["_decode:10"]["example"]["before"] == "from tidal import decode_strict\ndecode_strict(text='')"
    assert cards["Gauge._check_range:18"]["example"]["before"] == "from tidal.gauge import Gauge\nGauge(low=11)"
    split = cards["_split:6"]
    assert split["example"]["before"] == "from tidal import pairs\npairs(text='x')"
    # (the entry's early return is a way out too; its early raise is none)
    assert [(f["inputs"], f["target"]) for f in split["fixes"]] == [({"text": "aaaaaaaa"}, "own_test"), ({"text": ""}, "leave")]


def test_the_examples_at_the_entry_raise_the_cards_error_from_its_line(capsys, tmp_path) -> None:
    cards = _cards(capsys, tmp_path)
    lifted = [c for c in cards.values() if c.get("at_entry")]
    assert len(lifted) == 13
    for card in lifted:
        assert check(card, ROOT) == [], card["id"]


def _made(code: str) -> dict[str, list[tuple[str, bool, list[str] | None]]]:
    tree = ast.parse(code)
    defs = [(n.name, n, None) for n in tree.body if isinstance(n, ast.FunctionDef)]
    src = SourceText(code.split("\n"))
    kinds = {"helper": "def", "other": "def", "TABLE": "var", "set": "def"}
    return {m.function: [(c.callee, c.is_first, [a.code for a in c.arguments] if c.arguments is not None else None) for c in m.calls]
            for m in calls_made(defs, src, kinds)}


_EXITS = '''
def exits_first(x, y):
    if len(x) > 3 or y.size is None:
        raise ValueError("too long")
    assert y.size > 0
    helper(x, y)

def tests_first(x):
    if x:
        return None
    helper(x)
'''


def _parsed(code: str) -> tuple[list[tuple[str, ast.FunctionDef, None]], SourceText, dict[str, str]]:
    tree = ast.parse(code)
    return [(n.name, n, None) for n in tree.body if isinstance(n, ast.FunctionDef)], SourceText(code.split("\n")), {"helper": "def"}


def test_a_call_is_first_only_after_statements_that_cannot_leave_or_fail() -> None:
    made = _made(_EXITS + '''
def docstring_and_literals(x):
    """Doc."""
    limit = 3
    pass
    return helper(x, limit)

def rebinds_a_parameter(x):
    x = 3
    helper(x)

def tests_with_a_call_or_an_else(x):
    if check(x):
        raise ValueError("bad")
    if x:
        return 1
    else:
        x = 2
    helper(x)

def inside_try(x):
    try:
        helper(x)
    except ValueError:
        pass

def second_call(x):
    other(x)
    helper(x, *x)

def empty_containers_and_a_tuple_target(x):
    used = {}
    seen = []
    first, rest = helper(x, used)
    return first

def set_is_the_modules(x):
    found = set()
    helper(x)

def annotated_locals(x):
    out: list[int] = []
    count: int
    total: int = x
    helper(x, out)

def annotates_a_parameter(x):
    x: int = 3
    helper(x)

def reads_a_variable_and_a_local(x, y, z: Other):
    y.helper(x)
    z.run(x)
    TABLE.get(x)
    return TABLE(x)
''')
    assert made == {
        "docstring_and_literals": [("helper", True, ["x", "limit"])],
        "rebinds_a_parameter": [("helper", False, None)],  # (x no longer holds the caller's value)
        "tests_first": [("helper", True, ["x"])],  # (an early exit: the call is reached where ``x`` is false)
        "exits_first": [("helper", True, ["x", "y"])],
        "tests_with_a_call_or_an_else": [("helper", False, None)],
        "inside_try": [("helper", False, None)],
        "second_call": [("other", True, ["x"]), ("helper", False, None)],
        "empty_containers_and_a_tuple_target": [("helper", True, ["x", "used"])],
        "set_is_the_modules": [("set", True, []), ("helper", False, None)],  # (the module's own set: a call)
        # (a local's annotation is never evaluated; one without a value binds nothing)
        "annotated_locals": [("helper", True, ["x", "out"])],
        "annotates_a_parameter": [("helper", False, None)],
        # a call on a parameter is not followed; a module variable is called by its name alone (a class alias)
        # and one on an annotated parameter is looked for on the class it names
        "reads_a_variable_and_a_local": [("z.run", False, None), ("TABLE", False, None)],
    }
    exits = {m.function: m.calls[0].exits for m in calls_made(*_parsed(_EXITS))}
    assert exits == {"exits_first": (("len(x) > 3 or y.size is None", "raise", ("x", "y.size")), ("not y.size > 0", "raise", ("y.size",))),
                     "tests_first": (("x", "return", ("x",)),)}


def test_a_call_in_a_branch_on_the_parameters_is_first_where_the_branch_is_taken() -> None:
    code = '''
def branches(x, mode):
    if not isinstance(x, dict):
        x = dict(x)
    if mode == "fast":
        return helper(x)
    elif mode.lower() == "slow":
        other(x)
    helper(x, mode)
'''
    defs, src, _ = _parsed(code)
    [made] = calls_made(defs, src, {"helper": "def", "other": "def"})
    skip = ("not isinstance(x, dict)", "skip", ("x",))  # (past it where the test is false: its body, which rebinds x, does not run)
    assert [(c.callee, c.is_first, c.exits, c.unread) for c in made.calls] == [
        ("helper", True, (skip, ("mode == 'fast'", "branch", ("mode",))), ()),
        ("other", True, (skip, ("mode == 'fast'", "skip", ("mode",)), ("mode.lower() == 'slow'", "branch", ("mode",))), ()),
        ("helper", False, (), ()),  # (past an if with an else: either block may have run)
    ]


def test_the_call_a_statement_enters_first_is_first_wherever_it_stands_in_it() -> None:
    made = _made('''
def in_a_test(x, y):
    if not helper(x, y):
        return None
    other(x)

def innermost(x):
    return other(helper(x), x)

def after_reads(self, x):
    self.total = self.scale * helper(x)

def after_a_computation(x):
    return x + 1 + helper(x)

def in_an_and(x):
    if x and helper(x):
        return 1

def in_a_loop_and_an_assert(x):
    for item in helper(x):
        pass

def asserted(x):
    assert helper(x)
''')
    assert made == {
        # (the test's call is entered before the test is decided: a raise in it comes first)
        "in_a_test": [("helper", True, ["x", "y"]), ("other", False, None)],
        # (arguments are evaluated before the call they are given to)
        "innermost": [("other", False, None), ("helper", True, ["x"])],
        # (what is evaluated first is read only: names and attribute chains)
        "after_reads": [("helper", True, ["x"])],
        # (an addition may fail on the caller's values first)
        "after_a_computation": [("helper", False, None)],
        # (an ``and``'s second operand runs only where the first holds)
        "in_an_and": [("helper", False, None)],
        "in_a_loop_and_an_assert": [("helper", True, ["x"])],
        "asserted": [("helper", True, ["x"])],
    }


def test_calling_an_object_of_a_public_class_is_an_entry(capsys, tmp_path) -> None:
    """``FileType('r')(path)``: a public class's ``__call__`` is an entry a user calls, and so reaches
    a helper it calls first; the trigger is not restated there (no plain call of the method's name)."""
    from .helpers import temp_tree

    root = temp_tree(tmp_path / "src", {"kit/__init__.py": "", "kit/scale.py": (
        "class Scale:\n    def __call__(self, amount: int) -> int:\n        return _check(amount)\n\n\n"
        "def _check(amount: int) -> int:\n    if amount < 0:\n        raise ValueError(amount)\n    return amount\n")})
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(out), "--no-cache", "-q").code == 0
    [card] = load_catalog(str(out / "catalog.json"))["errors"]
    assert [p["entry"] for p in card["entries"]["paths"]] == ["kit.scale.Scale.__call__"]
    assert card["entry_reason"] == "entry_not_plain_call"


def test_a_validator_is_reached_through_its_class_call(capsys, tmp_path) -> None:
    """A pydantic validator runs as its class is called: its entries are the class and the public
    functions that call the class (the class shown on the path), never its own name; a caller's
    arguments are the model's keywords, not the validator's parameters: no trigger is restated there."""
    from .helpers import temp_tree

    root = temp_tree(tmp_path / "src", {"kit/__init__.py": "", "kit/conf.py": (
        "from pydantic import BaseModel, field_validator\n\n\n"
        "class Conf(BaseModel):\n    size: int\n\n"
        "    @field_validator('size')\n    @classmethod\n    def _positive(cls, size: int) -> int:\n"
        "        if size < 1:\n            raise ValueError('size must be positive')\n        return size\n\n\n"
        "def load(size: int) -> Conf:\n    return Conf(size=size)\n")})
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(out), "--no-cache", "-q").code == 0
    [card] = load_catalog(str(out / "catalog.json"))["errors"]
    assert [(p["entry"], p["path"]) for p in card["entries"]["paths"]] == [
        ("kit.conf.Conf(...)", ["kit.conf.Conf._positive"]),
        ("kit.conf.load", ["kit.conf.load", "kit.conf.Conf", "kit.conf.Conf._positive"])]
    assert card.get("at_entry") is None and card["example"]["before"].endswith("Conf(size=0)")


def test_a_call_of_the_module_s_object_runs_its_class_s_method() -> None:
    """collect.calls.module_instances: ``_log = Log()`` bound once at the top level makes
    ``_log.write(x)`` a call of ``Log.write`` (its receiver); a function that binds the name
    itself (a local, or ``global``) calls its own object, and a function's result (a factory's,
    ``init_logger(__name__)``) is no object of a known class."""
    code = ("_log = Log()\n_made = make()\n\ndef log(x):\n    _log.write(x)\n\ndef local(x):\n    _log = Other()\n    _log.write(x)\n\n"
            "def rebinds(x):\n    global _log\n    _log = None\n\ndef made(x):\n    _made.write(x)\n")
    tree = ast.parse(code)
    kinds = {"Log": "import", "Other": "import", "make": "def", "init_logger": "import", "_log": "var", "_made": "var", "logger": "var"}
    logger = ast.parse("init_logger(__name__)", mode="eval").body  # (an imported function's result: no class's object)
    instances = module_instances({"_log": [tree.body[0].value], "_made": [tree.body[1].value], "logger": [logger]}, kinds)
    assert instances == {"_log": "Log"}
    defs = [(n.name, n, None) for n in tree.body if isinstance(n, ast.FunctionDef)]
    made = {m.function: [(c.callee, c.receiver) for c in m.calls] for m in calls_made(defs, SourceText(code.split("\n")), kinds, instances)}
    assert made == {"log": [("_log.write", "Log")], "local": [("Other", None)]}
