"""Triggers and fixes: solved from the guard, within declared domains, verified."""

from __future__ import annotations

import ast
import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor import extract
from extractor.options import Options
from extractor.solve.evaluate import Unknown, evaluate
from extractor.solve.posing import constant_of
from extractor.solve.status import atom_kind
from extractor.solve.values import Named

from .helpers import FIXTURES, extract_snippet, only, run_cli, temp_tree


def solved(tmp_path, code: str):
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.trigger is not None
    return card


CASES = [
    ("def f(x: int):\n    if x > 10:\n        raise ValueError('x')\n", {"x": 11}, {"x": 10}),
    ("def f(x: int = 5):\n    if x >= 10:\n        raise ValueError('x')\n", {"x": 10}, {"x": 9}),
    ("def f(a: int = 1, b: int = 1):\n    if a > b:\n        raise ValueError('x')\n", {"a": 2, "b": 1}, {"a": 1}),
    ("def f(x: int = 5):\n    if not 0 <= x < 10:\n        raise ValueError('x')\n", {"x": 10}, {"x": 9}),
    ("def f(mode: str = 'a'):\n    if mode not in ('a', 'b'):\n        raise ValueError('x')\n", {"mode": ""}, {"mode": "a"}),
    ("MODES = ('a', 'b')\ndef f(mode: str = 'a'):\n    if mode not in MODES:\n        raise ValueError('x')\n", {"mode": ""}, {"mode": "a"}),
    ("def f(x: int | None = 0):\n    if x is None:\n        raise ValueError('x')\n", {"x": None}, {"x": 0}),
    ("def f(x: str = 'a'):\n    if not x:\n        raise ValueError('x')\n", {"x": ""}, {"x": "a"}),
    ("def f(x=0):\n    if not isinstance(x, int):\n        raise TypeError('x')\n", {"x": ""}, {"x": 0}),
    ("def f(items: list = ()):\n    if len(items) > 2:\n        raise ValueError('x')\n", {"items": [0, 0, 0]}, {"items": {"python": "()"}}),
    ("def f(a: int = 4, b: int = 2):\n    if a % b != 0:\n        raise ValueError('x')\n", {"a": 3, "b": 2}, {"a": 4}),
    ("def f(a: int = 0, b: int = 0):\n    if a + b > 3:\n        raise ValueError('x')\n", {"a": 4, "b": 0}, {"a": 3}),
    ("def f(a: int = 1, b: int = 1):\n    if a * b < 0:\n        raise ValueError('x')\n", {"a": -1, "b": 1}, {"a": 0}),
    ("def f(a: bool = False, b: bool = False):\n    if a and not b or b and not a:\n        raise ValueError('x')\n", {"a": True, "b": False}, {"a": False}),
    ("def f(url: str = ''):\n    if url[:2] == '//':\n        raise ValueError('x')\n", {"url": "//"}, {"url": ""}),
    ("def f(s: str = 'a'):\n    if s[-1] == 'Z':\n        raise ValueError('x')\n", {"s": "Z"}, {"s": "a"}),
    ("ENDS = set(',;') | set(')')\ndef f(s: str = 'a'):\n    if s[0] in ENDS:\n        raise ValueError('x')\n", {"s": ")x"}, {"s": "a"}),
    # remainders that 0, 1 and 2 never leave: a non-divisor of a constant dividend, one past a constant divisor
    ("N = 128\ndef f(k: int = 2):\n    if N % k != 0:\n        raise ValueError('x')\n", {"k": 3}, {"k": 2}),
    ("def f(a: int = 128):\n    if a % 64 != 0:\n        raise ValueError('x')\n", {"a": 65}, {"a": 64}),  # (the divisor itself, nearer the trigger than the default)
    # a list of dicts with one in it
    ("from typing import Any\ndef f(xs: list[dict[str, Any]] = ()):\n    if len(xs) == 1:\n        raise ValueError('x')\n",
     {"xs": [{"x": 0}]}, {"xs": {"python": "()"}}),
    # a constant table's .get: a name next to its keys; a list of the length the guard gives, its items differing
    ("NAMES = {'a': 1}\ndef f(mode: str = 'a'):\n    if NAMES.get(mode) is None:\n        raise ValueError('x')\n", {"mode": ""}, {"mode": "a"}),
    ("def f(xs: list[int] = (0, 0, 0)):\n    if len(xs) == 3 and xs[1] != xs[2]:\n        raise ValueError('x')\n",
     {"xs": [0, 1, 2]}, {"xs": [0, 0, 0, 0]}),
]


@pytest.mark.parametrize(("code", "trigger", "fix"), CASES)
def test_guard_forms_are_solved_and_fixed(tmp_path, code: str, trigger: dict, fix: dict) -> None:
    card = solved(tmp_path, code)
    assert (card.solved.trigger.status, card.solved.trigger.verified) == ("concrete", True)
    assert card.solved.trigger.inputs == trigger
    assert card.solved.fixes[0].inputs == fix and card.solved.fixes[0].verified
    values = {k: tuple() if v == {"python": "()"} else v for k, v in card.solved.fixes[0].inputs.items()}
    constants = {name: constant_of(source) for name, source in card.statement.guard.constants}
    assert evaluate(card.statement.guard.code, {**constants, **card.solved.trigger.inputs}) is True
    assert not evaluate(card.statement.guard.code, {**constants, **card.solved.trigger.inputs, **values})


# Inputs of the type the code uses them as, run for real: the trigger raises the card's
# error, the fix does not (``0`` would fail at ``value.strip()``; ``-1`` is no flag).
REAL = [
    ("def f(value):\n    if not value:\n        raise ValueError('empty')\n    return value.strip()\n", {"value": ""}, {"value": "x"}),
    ("def f(flag=False):\n    if flag:\n        raise ValueError('flagged')\n", {"flag": True}, {"flag": False}),
    ("def f(data):\n    if not data:\n        raise ValueError('no data')\n    return data.decode()\n", {"data": {"python": "b''"}}, {"data": {"python": "b'x'"}}),
    ("def f(count: int = 0):\n    if not count:\n        raise ValueError('none')\n", {"count": 0}, {"count": 1}),
    # isinstance with a class whose plain instances are known (link.instances).
    ("import numbers\ndef f(x):\n    if not isinstance(x, numbers.Integral):\n        raise ValueError('not an integer')\n",
     {"x": ""}, {"x": 0}),
    ("class Point:\n    pass\ndef f(p):\n    if not isinstance(p, Point):\n        raise ValueError('not a point')\n", {"p": 0}, None),
    ("from collections.abc import Mapping\ndef f(m):\n    if not isinstance(m, Mapping):\n        raise ValueError('not a mapping')\n",
     {"m": 0}, {"m": {}}),
]


@pytest.mark.parametrize(("code", "trigger", "fix"), REAL)
def test_triggers_and_fixes_are_of_the_type_the_code_uses(tmp_path, code: str, trigger: dict, fix: dict) -> None:
    card = solved(tmp_path, code)
    assert (card.solved.trigger.inputs, card.solved.trigger.verified) == (trigger, True)
    assert card.solved.fixes[0].inputs == fix if fix is not None else not card.solved.fixes  # (no plain value is a Point)
    namespace: dict = {}
    exec(compile(code, "snippet.py", "exec"), namespace)  # noqa: S102 (this test's own snippet)

    def value(data: dict) -> dict:
        return {k: ast.literal_eval(v["python"]) if isinstance(v, dict) and set(v) == {"python"} else v for k, v in data.items()}

    with pytest.raises(ValueError, match=card.message.template):
        namespace["f"](**value(card.solved.trigger.inputs))
    if fix is not None:
        namespace["f"](**value(card.solved.fixes[0].inputs))


def test_a_test_plain_values_cannot_pass_stays_an_assumption(tmp_path) -> None:
    # Only a real Point reaches the raise: the isinstance test is assumed, never "unsolved".
    card = solved(tmp_path, "class Point:\n    pass\ndef f(p):\n    if isinstance(p, Point) and p.x < 0:\n        raise ValueError('x')\n")
    assert card.solved.trigger.status == "internal" and card.solved.trigger.assumes["isinstance(p, Point)"] is True


def test_opaque_calls_become_assumed_atoms(tmp_path) -> None:
    card = solved(tmp_path, "import os\ndef f(path: str = ''):\n    if not os.path.exists(path):\n        raise FileNotFoundError(path)\n")
    assert card.solved.trigger.status == "environment" and card.solved.trigger.verified
    assert card.solved.trigger.assumes == {"os.path.exists(path)": False}
    assert card.solved.trigger.reason == "assumes_environment"
    assert card.solved.trigger.message == ""
    assert (card.solved.validator, card.solved.validator_reason) == (None, "needs_value_no_caller_sets")  # inputs only


def test_a_parameter_tested_against_none_takes_one_outside_its_declared_type(tmp_path) -> None:
    # Python does not keep a None out of ``prompt: str``: one input is given it, the other a value of its type.
    card = solved(tmp_path, "def f(prompt: str, images: list[str]):\n    if prompt is None or images is None:\n"
                            "        raise ValueError('both')\n")
    assert card.solved.trigger.status == "concrete" and card.solved.trigger.verified
    assert card.solved.trigger.inputs == {"prompt": None, "images": []} and card.solved.trigger.outside == ("prompt",)
    # A decorator that may check the types first: nothing is given outside them
    checked = solved(tmp_path, "from pydantic import validate_call\n@validate_call\ndef f(prompt: str):\n"
                               "    if prompt is None:\n        raise ValueError('none')\n")
    assert checked.solved.trigger.status == "unsolved"
    # A field validator's value passed pydantic's check of the field's type first
    validated = [c for c in extract_snippet(tmp_path, "from pydantic import BaseModel, field_validator\nclass M(BaseModel):\n"
                                                      "    n: int\n    @field_validator('n')\n    @classmethod\n"
                                                      "    def check(cls, n: int) -> int:\n        if n is None:\n"
                                                      "            raise ValueError('none')\n        return n\n")
                 if c.at.function == "M.check"]
    assert validated and all(not c.solved.trigger.outside for c in validated)


def test_an_assumed_value_beside_its_own_attribute_is_not_shown(tmp_path) -> None:
    # ``self._conf = 0`` with ``self._conf.mode = None``: no value is both, so only the attribute is said.
    card = solved(tmp_path, "def load():\n    return None\nclass Job:\n    def __init__(self):\n        self._conf = load()\n"
                            "    def run(self, n: int):\n        if self._conf is not None and self._conf.mode is None and n > 1:\n"
                            "            raise ValueError('no mode')\n")
    assert card.solved.trigger.status == "internal"
    assert card.solved.trigger.assumes == {"self._conf.mode": None} and card.solved.trigger.inputs == {"n": 2}


def test_declared_constraint_makes_guard_unreachable(tmp_path) -> None:
    code = """
    from pydantic import BaseModel, Field, model_validator

    class C(BaseModel):
        n: int = Field(default=1, ge=1)

        @model_validator(mode="after")
        def check(self):
            if self.n < 1:
                raise ValueError("n must be positive")
            return self
    """
    card = solved(tmp_path, code)
    assert card.solved.trigger.status == "unreachable"
    assert card.solved.trigger.conflicts == ("self.n < 1", "self.n: declared ge=1")
    assert card.solved.fixes == () and card.solved.example is None


def test_finite_domains_prove_unreachable(tmp_path) -> None:
    card = solved(tmp_path, "def f(a: bool = False):\n    if a and not a:\n        raise ValueError('never')\n")
    assert (card.solved.trigger.status, card.solved.trigger.reason) == ("unreachable", "no_value_in_finite_domains")


def test_plain_string_with_a_bound_name_is_linted(tmp_path) -> None:
    cards = extract_snippet(tmp_path, "def f(x):\n    raise ValueError('x is {x}')\n\ndef g(x):\n    raise ValueError('use {name}')\n")
    assert [c.statement.lints for c in cards] == [("probable_missing_f_prefix",), ()]


def test_seed_trap_the_prefetch_step_card_reaches_its_own_message() -> None:
    """The seed card's example (--offload-backend prefetch --offload-prefetch-step 0) trips the
    earlier num_in_group raise with the default group size; our trigger reaches its own."""
    catalog = extract(str(FIXTURES / "offload"), Options())
    by_line = {c.at.line: c for c in catalog.errors}
    earlier, step = by_line[43], by_line[49]
    defaults = {"self.offload_backend": "auto", "self.prefetch.offload_group_size": 0,
                "self.prefetch.offload_num_in_group": 1, "self.prefetch.offload_prefetch_step": 1}
    seed = {**defaults, "self.offload_backend": "prefetch", "self.prefetch.offload_prefetch_step": 0}
    assert evaluate(step.statement.guard.code, seed) is False
    assert evaluate(earlier.statement.guard.code, seed) is True
    assert step.solved.trigger.inputs == {**defaults, "self.prefetch.offload_group_size": 1, "self.prefetch.offload_prefetch_step": 0}
    assert step.solved.trigger.changed == ("self.prefetch.offload_group_size", "self.prefetch.offload_prefetch_step")
    assert evaluate(earlier.statement.guard.code, step.solved.trigger.inputs) is False
    assert step.solved.trigger.verified
    assert step.solved.trigger.message == "offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)"
    assert step.solved.example.style == "cli"
    assert step.solved.example.before == "minivllm serve model --offload-group-size 1 --offload-prefetch-step 0"
    assert step.solved.example.after == "minivllm serve model --offload-group-size 1 --offload-prefetch-step 1"
    assert [f.description for f in step.solved.fixes] == [
        "set `prefetch.offload_prefetch_step` to `1` (the trigger has `0`), so that `self.prefetch.offload_prefetch_step < 1` is false",
        "set `prefetch.offload_group_size` to `0` (the trigger has `1`), so that "
        "`self.offload_backend == \"prefetch\" or self.prefetch.offload_group_size > 0` is false",
    ]
    # resolve_backend's trigger must build an OffloadConfig its own validator accepts: prefetch
    # with offload_group_size 1 (the default 0 would trip the num_in_group raise first).
    resolve = next(c for c in catalog.errors if c.at.function == "OffloadConfig.resolve_backend")
    assert resolve.solved.trigger.verified and resolve.solved.trigger.inputs["self.prefetch.offload_group_size"] == 1
    assert evaluate(earlier.statement.guard.code, {**defaults, **resolve.solved.trigger.inputs}) is False
    assert all(c.solved.trigger.verified for c in catalog.errors)


def test_no_unreachable_claim_rests_on_calls_or_rebound_locals(tmp_path) -> None:
    code = """
    def f(conn, self):
        if not conn.poll():
            raise TimeoutError("first")
        if not conn.poll():
            raise TimeoutError("second")
        code, resp = self.mail()
        if code != 250:
            raise ValueError("mail")
        for each in self.to:
            code, resp = self.rcpt(each)
            if code == 421:
                raise ValueError("rcpt")
    """
    cards = extract_snippet(tmp_path, code)
    # The second poll and the second `code` are other values than the first: the solver may
    # fail to find a trigger, but it must never call these raises unreachable.
    assert [c.solved.trigger.status for c in cards] == ["internal", "unsolved", "internal", "internal"]
    assert cards[1].solved.trigger.reason == "no_candidate_satisfies"
    assert cards[0].solved.trigger.assumes == {"conn.poll()": False}
    # Each binding of `code` is a name of its own: the first reply and the one in the loop.
    assert cards[3].statement.guard.code == "conn.poll() and code_0 == 250 and code == 421"
    assert cards[3].statement.guard.versions == (("code_0", "code", "earlier"),)
    assert cards[3].solved.trigger.assumes == {"code": 421, "code_0": 250, "conn.poll()": True}


def test_with_block_that_raises_may_be_swallowed(tmp_path) -> None:
    code = """
    import contextlib

    def f():
        with contextlib.suppress(OSError):
            raise OSError("swallowed")
        raise ValueError("reached")
    """
    second = extract_snippet(tmp_path, code)[1]
    assert second.statement.guard.code == "True"
    assert second.statement.guard.approximations == ("with_exit_ignored", "statements_on_the_way")
    # Reached only if the context manager swallows the OSError: not claimed unconditional.
    assert (second.solved.trigger.status, second.solved.trigger.reason) == ("internal", "earlier_exit_not_modelled")


def test_no_trigger_is_built_from_huge_values(tmp_path) -> None:
    card = solved(tmp_path, "def f(data: str = ''):\n    if len(data) > 2 ** 24:\n        raise ValueError('too long')\n")
    assert card.solved.trigger.status == "unsolved"
    assert card.solved.trigger.reason == "no_candidate_satisfies"


def test_enum_fields_take_their_members(tmp_path) -> None:
    code = """
    import enum
    from pydantic import BaseModel, model_validator

    class Mode(enum.Enum):
        FAST = "fast"
        SAFE = "safe"

    class Config(BaseModel):
        mode: Mode = Mode.SAFE
        retries: int = 0

        @model_validator(mode="after")
        def check(self):
            if self.mode is Mode.FAST and self.retries > 0:
                raise ValueError(f"retries ({self.retries}) need the SAFE mode")
            return self
    """
    card = solved(tmp_path, code)
    assert card.docs.fields[0].literal_values == ("Mode.FAST", "Mode.SAFE")
    assert (card.solved.trigger.status, card.solved.trigger.verified) == ("concrete", True)
    assert card.solved.trigger.inputs == {"self.mode": {"python": "Mode.FAST"}, "self.retries": 1}
    assert card.solved.trigger.message == "retries (1) need the SAFE mode"
    assert card.solved.example.before == "from mod import Config, Mode\nConfig(mode=Mode.FAST, retries=1)"
    assert [f.inputs for f in card.solved.fixes] == [{"self.mode": {"python": "Mode.SAFE"}}, {"self.retries": 0}]


def test_enum_parameters_take_their_members(tmp_path) -> None:
    code = """
    from enum import Enum

    class Color(Enum):
        RED = 1
        BLUE = 2

    def paint(color: Color = Color.BLUE):
        if color == Color.RED:
            raise ValueError("red is sold out")
    """
    card = solved(tmp_path, code)
    assert card.solved.trigger.inputs == {"color": {"python": "Color.RED"}}
    head = "from mod import Color, paint\n"
    assert (card.solved.trigger.verified, card.solved.example.before, card.solved.example.after) == (True, head + "paint(color=Color.RED)", head + "paint(color=Color.BLUE)")


def test_a_dotted_default_outside_enum_choices_is_not_a_value(tmp_path) -> None:
    card = solved(tmp_path, "import os\ndef f(sep: str = os.sep):\n    if sep != '/':\n        raise ValueError(sep)\n")
    assert card.solved.trigger.inputs == {"sep": "/_x"} and card.solved.trigger.changed == ("sep",)


@pytest.mark.parametrize(
    ("header", "declaration", "default"),
    [
        ("class C(BaseModel):", "items: list = Field(default_factory=list)", "[]"),
        ("@dataclass\n    class C:", "items: list = field(default_factory=list)", "[]"),
        ("@attr.s\n    class C:", "items: list = attr.ib(factory=list)", "[]"),
        ("@attr.s\n    class C:", "items: list = attr.ib(default=attr.Factory(list))", "[]"),
        ("@attrs.define\n    class C:", "items: list = attrs.field(default=attrs.Factory(lambda: [0]))", "[0]"),
    ],
)
def test_default_factories_give_defaults(tmp_path, header: str, declaration: str, default: str) -> None:
    code = f"""
    import attr, attrs
    from dataclasses import dataclass, field
    from pydantic import BaseModel, Field

    {header}
        {declaration}

        def check(self):
            if len(self.items) > 1:
                raise ValueError("too many")
    """
    card = solved(tmp_path, code)
    assert card.solved.domains[0].default == default
    assert card.solved.trigger.changed == ("self.items",) and len(card.solved.trigger.inputs["self.items"]) == 2


def test_search_cuts_off_prefixes_and_finds_what_enumeration_finds() -> None:
    # Eight inputs without defaults, each about ten candidates: plain enumeration needs
    # ~10^8 assignments; cutting off a prefix as soon as its own conjunct is false needs ~100.
    import itertools

    from extractor.model import Domain, Guard, Opaque
    from extractor.solve.posing import build_problem
    from extractor.solve.search import SEARCH_BUDGET, _conjunct_parts, _first_assignment, search

    names = [f"p{i}" for i in range(8)]
    code = " and ".join(f"{n} == {i + 3}" for i, n in enumerate(names))
    guard = Guard(code=code, tree=Opaque(code=code, reason="test"), inputs=tuple(names))
    problem = build_problem(guard, {n: Domain(input=n, source="parameter", types=("int",)) for n in names})
    solution = search(problem)
    assert solution.status == "solved"
    assert {n: solution.assignment[n] for n in names} == {n: i + 3 for i, n in enumerate(names)}
    # On a small problem, the first assignment is the one itertools.product order gives.
    small = build_problem(Guard(code="a > b and b > 1 and a != 4", tree=Opaque(code="", reason="test"), inputs=("a", "b")),
                          {n: Domain(input=n, source="parameter", types=("int",)) for n in ("a", "b")})
    variables = list(small.variables.values())
    pools = [v.candidates for v in variables]
    expected = next(values for values in itertools.product(*pools) if evaluate(small.code, dict(zip(["a", "b"], values))) is True)
    found, spent = _first_assignment(("a", "b"), pools, _conjunct_parts(small), {}, 0, SEARCH_BUDGET)
    assert (found["a"], found["b"]) == expected and spent <= len(pools[0]) * len(pools[1])


def _reference_first_assignment(changed, pools, parts, base, spent, budget):
    """The search as specified: depth first in product order, a conjunct tested at the
    level of the last changed variable it reads, one unit per full assignment tested and
    per prefix cut off."""
    from extractor.solve.search import _OVER_BUDGET

    level_of = {name: level for level, name in enumerate(changed)}
    checks = [[] for _ in changed]
    for test, names, _ in parts:
        read = [level_of[n] for n in names if n in level_of]
        if read:
            checks[max(read)].append(test)
    if any(not pool for pool in pools):
        return None, spent
    if not changed:
        return (dict(base), spent + 1) if spent + 1 <= budget else (_OVER_BUDGET, spent + 1)
    last, env, total = len(changed) - 1, dict(base), [spent]

    class Over(Exception):
        pass

    def visit(level):
        for value in pools[level]:
            if level == last:
                total[0] += 1
                if total[0] > budget:
                    raise Over
            env[changed[level]] = value
            if all(test(env) is True for test in checks[level]):
                if level == last or visit(level + 1):
                    return True
            elif level < last:
                total[0] += 1
                if total[0] > budget:
                    raise Over
        return False

    try:
        return (env if visit(0) else None), total[0]
    except Over:
        return _OVER_BUDGET, None


_CHECKS = [
    (lambda a, b, k: (lambda env: env[a] > k), 1),
    (lambda a, b, k: (lambda env: env[a] % 3 != k % 3), 1),
    (lambda a, b, k: (lambda env: env[a] < env[b]), 2),
    (lambda a, b, k: (lambda env: env[a] + env[b] == k), 2),
    (lambda a, b, k: (lambda env: None), 1),
]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_search_spends_and_finds_exactly_what_the_specification_does(data) -> None:
    # Outcomes kept per value must not change the
    # answer or the budget spent, including where the budget runs out.
    from extractor.solve.search import _OVER_BUDGET, _first_assignment

    names = ["v0", "v1", "v2", "v3"][: data.draw(st.integers(0, 4))]
    pools = [data.draw(st.lists(st.integers(-3, 6), max_size=6, unique=True)) for _ in names]
    parts = []
    for _ in range(data.draw(st.integers(0, 5))):
        make, arity = data.draw(st.sampled_from(_CHECKS))
        if not names:
            break
        a, b = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(names))
        parts.append((make(a, b, data.draw(st.integers(-2, 8))), {a, b} if arity == 2 else {a}, None))
    base = {"unused": 0}
    spent, budget = data.draw(st.integers(0, 5)), data.draw(st.integers(0, 120))
    answer = _reference_first_assignment(tuple(names), pools, parts, base, spent, 10**9)[0]
    found = _first_assignment(tuple(names), pools, parts, base, spent, budget)
    if found[0] is not _OVER_BUDGET:
        assert found[0] == answer  # plain enumeration's answer, also where its budget ran out
    # Groups of variables no check reads together are searched apart: never more than the
    # enumeration of each group on its own (each level's prefixes at most once).
    groups = _groups_of(names, parts)
    worst = 1 + sum(len(group) * math.prod(len(pools[names.index(n)]) for n in group) for group in groups)
    if budget - spent >= worst:
        assert found[0] is not _OVER_BUDGET and found[1] - spent <= worst
    if len(groups) <= 1 and _reference_first_assignment(tuple(names), pools, parts, base, spent, budget)[0] is not _OVER_BUDGET:
        assert found == _reference_first_assignment(tuple(names), pools, parts, base, spent, budget)


def _groups_of(names: list[str], parts: list) -> list[set[str]]:  # noqa: ANN001 (test data)
    groups = [{n} for n in names]
    for _, read, _ in parts:
        joined = [g for g in groups if g & read]
        groups = [g for g in groups if not g & read] + [set().union(*joined)] if joined else groups
    return groups


def test_the_truth_of_a_constant_of_unknown_value_is_no_answer() -> None:
    """``x is not _empty`` keeps ``_empty`` (bound by a star import) by name; the truth of
    ``x`` holding that constant is neither true nor false, and the problem says why."""
    from extractor.model import Compare, Guard
    from extractor.solve.posing import build_problem

    guard = Guard(code="x is not _empty", tree=Compare(left="x", ops=("is not",), comparators=("_empty",)),
                  inputs=("x",), named=(("_empty", "unknown"),))
    problem = build_problem(guard, {})
    empty = problem.constants["_empty"]
    assert problem.holds(problem.env({"x": 0})) is True and problem.holds(problem.env({"x": empty})) is False
    assert problem.holds(problem.env({"x": empty}), "x") is None
    assert problem.refusals == {"unknown_constant"}


def test_a_constant_of_unknown_value_may_be_none_or_another_constant() -> None:
    """``ET is not pyET`` (both module variables a ``global`` statement rebinds elsewhere) and
    ``ET is not None`` have no answer: either may be None or the other; only the constant
    itself is known to be the same object."""
    from extractor.model import Compare, Guard
    from extractor.solve.posing import build_problem

    for code, right in (("ET is not pyET", "pyET"), ("ET is not None", "None")):
        named = (("ET", "unknown"), ("pyET", "unknown")) if right == "pyET" else (("ET", "unknown"),)
        guard = Guard(code=code, tree=Compare(left="ET", ops=("is not",), comparators=(right,)), inputs=(), named=named)
        problem = build_problem(guard, {})
        assert problem.holds(problem.env({})) is None


def _card_and_page(tmp_path, capsys, code: str):  # noqa: ANN001, ANN202 (pytest fixtures)
    """The one card of ``mod.py`` holding ``code``, and its page from ``extract -o``."""
    temp_tree(tmp_path / "tree", {"mod.py": code})
    assert run_cli(capsys, "extract", str(tmp_path / "tree"), "-o", str(tmp_path / "docs"), "-q").code == 0
    card = only(list(extract(str(tmp_path / "tree"), Options()).errors))
    return card, (tmp_path / "docs" / "errors" / f"{card.id}.md").read_text(encoding="utf-8")


def test_code_a_compiled_module_may_replace_is_never_verified_and_says_why(tmp_path, capsys) -> None:
    card, page = _card_and_page(tmp_path, capsys, "def check(x: int):\n    if x > 3:\n        raise ValueError('too big')\n\n"
                                "try:\n    from _accelerated import *\nexcept ImportError:\n    pass\n")
    assert (card.solved.trigger.status, card.solved.trigger.verified, card.solved.trigger.reason) == ("concrete", False, "replaced_by_compiled_module")
    assert "Not verified: the module imports a compiled module over this code when it can" in page
    assert card.compiled_override and "This code may not be what runs" in page


def test_every_card_of_replaced_code_says_it_may_not_run(tmp_path, capsys) -> None:
    # Also where no trigger is claimed (an internal state decides the raise).
    card, page = _card_and_page(tmp_path, capsys, "import os\ndef check(x: int):\n    if x > os.cpu_count():\n"
                                "        raise ValueError('too many')\n\nfrom _accelerated import *\n")
    assert card.compiled_override and not card.solved.trigger.verified
    assert "This code may not be what runs" in page


def test_a_fallback_for_a_build_whose_compiled_module_lacks_the_name_may_not_run(tmp_path, capsys) -> None:
    # socket.socketpair: the Python fallback is defined only where _socket has none
    card, _ = _card_and_page(tmp_path, capsys, "import _socket\nif hasattr(_socket, 'pair'):\n    pair = _socket.pair\nelse:\n"
                             "    def pair(proto=0):\n        if proto != 0:\n            raise ValueError('only protocol 0')\n")
    assert card.compiled_override and not card.solved.trigger.verified


def test_a_method_defined_under_a_test_of_its_class_body_is_defined_conditionally(tmp_path) -> None:
    # socket.socket._sendfile_use_sendfile: the raising fallback exists only where os has no sendfile
    code = ("import os\nclass Sock:\n    if hasattr(os, 'sendfile'):\n        def send(self):\n            return 0\n    else:\n"
            "        def send(self):\n            raise RuntimeError('no sendfile')\n")
    [card] = extract_snippet(tmp_path, code)
    assert [(c.kind, c.code) for c in card.statement.guard.context] == [("defined_if", "if not (hasattr(os, 'sendfile'))")]
    assert (card.solved.trigger.status, card.solved.trigger.reason, card.solved.trigger.verified) == ("internal", "defined_conditionally", False)


@pytest.mark.parametrize(("code", "kind"), [
    ("has_triton()", "environment"),
    ("is_torch_available()", "environment"),
    ("current_platform.is_cuda()", "environment"),
    ("os.path.exists(path)", "environment"),  # the file system
    ("sys.platform", "environment"),
    ("has_metaclass(node)", "internal"),  # a fact about the value passed, not the machine
    ("self.has_section(key)", "internal"),
    ("self.cache.get(key)", "internal"),
])
def test_atoms_of_the_machine_and_of_values(code: str, kind: str) -> None:
    assert atom_kind(code) == kind


def test_a_fix_that_makes_a_later_check_fail_is_not_offered(tmp_path) -> None:
    # ``timeout = ''`` passes ``timeout is None`` but the next check, ``'' <= 0``, raises
    # TypeError: the fix is the smallest value both checks accept.
    code = ("def f(timeout=None):\n    if timeout is None:\n        raise ValueError('timeout is required')\n"
            "    if timeout <= 0:\n        raise ValueError('only a positive timeout')\n    return timeout\n")
    card = next(c for c in extract_snippet(tmp_path, code) if c.at.line == 3)
    assert [fix.inputs for fix in card.solved.fixes] == [{"timeout": 1}]
    namespace: dict = {}
    exec(compile(code, "snippet.py", "exec"), namespace)  # noqa: S102 (this test's own snippet)
    assert namespace["f"](**card.solved.fixes[0].inputs) == 1


def test_a_later_check_that_fails_on_another_input_keeps_the_fix(tmp_path) -> None:
    # ``a + b`` fails with the trigger's ``b = None``: a value standing for the caller's own,
    # not what the fix of ``a`` changes.
    code = ("def f(a: int = 0, b=None):\n    if a > 5:\n        raise ValueError('a')\n"
            "    if a + b > 3:\n        raise ValueError('b')\n")
    card = next(c for c in extract_snippet(tmp_path, code) if c.at.line == 3)
    assert [fix.inputs for fix in card.solved.fixes] == [{"a": 5}]


def test_a_fix_beside_a_handled_try_body_is_offered(tmp_path) -> None:
    # The KeyError still happens and is caught; only ``fallback`` decides the raise.
    code = ("_UNSET = object()\ndef get(d: dict, key: str, fallback=_UNSET):\n    try:\n        return d[key]\n"
            "    except KeyError:\n        if fallback is _UNSET:\n            raise LookupError(key)\n        return fallback\n")
    card = only(extract_snippet(tmp_path, code))
    assert any(fix.changed == ("fallback",) for fix in card.solved.fixes), [f.description for f in card.solved.fixes]


def test_membership_in_a_string_and_a_rebound_parameter_followed_through_a_text_method(tmp_path) -> None:
    code = """
    def first(value):
        if value and value[0] in ')<>':
            raise ValueError("x")

    def stripped(s: str):
        s = s.strip()
        if len(s) > 3:
            raise ValueError('bad', s)
    """
    first, stripped = extract_snippet(tmp_path, code)
    # `value[0] in ')<>'`: text that starts with one of the string's characters
    assert first.solved.trigger.status == "concrete" and first.solved.trigger.inputs == {"value": ")x"}
    # `s = s.strip()` is followed (a text method): `len(s.strip()) > 3` is seeded as `len(s) > 3`
    assert stripped.statement.guard.code == "len(s.strip()) > 3"
    assert stripped.solved.trigger.verified and stripped.solved.trigger.inputs == {"s": "aaaa"} and stripped.solved.trigger.message == "('bad', 'aaaa')"


def test_a_constructor_card_lists_its_own_arguments_once(tmp_path) -> None:
    # vLLM's LlamaMLP: `hidden_size` is required and only stored before the raise; the card
    # listed it twice (`hidden_size`, `self.hidden_size`), then as missing: a store into `self`
    # that nothing reads on the way takes a value of its type. An attribute the constructor
    # assigns from a keyword is set through that keyword.
    code = """
    class MLP:
        def __init__(self, hidden_size: int, hidden_act: str) -> None:
            self.size = hidden_size
            if hidden_act != "silu":
                raise ValueError(f"Unsupported activation: {hidden_act}")

    class Attention:
        def __init__(self, paged: bool = False, page_size: int | None = None) -> None:
            self.paged = paged
            if self.paged and page_size is None:
                raise ValueError("page_size is required")
    """
    mlp, attention = extract_snippet(tmp_path, code)
    assert mlp.solved.trigger.inputs == {"hidden_act": "silu_x", "hidden_size": 1} and mlp.solved.trigger.missing == ()
    assert attention.solved.trigger.missing == () and attention.solved.trigger.verified
    # `self.paged` read after `self.paged = paged` is the argument, typed by its annotation
    # (it was the attribute, set as `paged=1`)
    assert attention.statement.guard.code == "paged and page_size is None"
    assert attention.solved.example.before.endswith("Attention(paged=True)")


def test_a_trigger_that_gives_a_value_and_its_attribute_is_not_verified(tmp_path) -> None:
    code = "def f(sock):\n    if sock is not None and sock.type != 2:\n        raise ValueError('bad socket type')\n"
    card = only(extract_snippet(tmp_path, code))
    assert set(card.solved.trigger.inputs) == {"sock", "sock.type"}
    assert (card.solved.trigger.verified, card.solved.trigger.reason, card.solved.example) == (False, "value_and_its_attribute", None)


@pytest.mark.parametrize(("test", "trigger", "fix"), [
    ('not name.isidentifier()', "1", "a"),
    ('not text.isdigit()', "x", "1"),
    ('not modality.startswith("image")', "", "image"),
    ('mode.endswith((".gz", ".xz"))', ".gz", ""),
])
def test_str_predicates_are_evaluated_and_seeded(tmp_path, test: str, trigger: str, fix: str) -> None:
    name = test.split(".", 1)[0].removeprefix("not ")
    code = f"def f({name}: str):\n    if {test}:\n        raise ValueError('bad')\n"
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.trigger.verified and card.solved.trigger.inputs == {name: trigger}
    assert [f.inputs for f in card.solved.fixes][:1] == [{name: fix}]


@pytest.mark.parametrize(("loop", "check", "trigger"), [
    ('name in raw.split(",")', 'not name.startswith("eth")', {"raw": ""}),
    ("key in config.keys()", 'key not in ("a", "b")', {"config": {"a_x": 0}}),
    ("v in config.values()", "v < 0", {"config": {"k": -1}}),
    ("v in sorted(items)", "v > 10", {"items": [11]}),
    ('name, value in config.items()', 'name == "x" and value < 0', {"config": {"x": -1}}),
])
def test_a_loop_over_a_pure_form_of_a_parameter_is_run_on_one_element(tmp_path, loop: str, check: str, trigger: dict) -> None:
    param = next(iter(trigger))
    code = f"def f({param}):\n    for {loop}:\n        if {check}:\n            raise ValueError('bad')\n"
    card = only(extract_snippet(tmp_path, code))
    assert (card.solved.trigger.status, card.solved.trigger.verified, card.solved.trigger.inputs) == ("concrete", True, trigger)
    # the example runs as the card says: "before" raises from the line, "after" does not
    namespace: dict = {}
    exec(compile(code, "mod.py", "exec"), namespace)  # the fixture's own code, written above
    with pytest.raises(ValueError, match="bad"):
        namespace["f"](**trigger)
    namespace["f"](**card.solved.fixes[0].inputs)


def test_a_property_of_a_parameters_class_is_computed_not_set_by_the_caller(tmp_path) -> None:
    code = ("class Spec:\n    def __init__(self, channels=None):\n        self.channels = channels\n"
            "    @property\n    def needs_normalization(self):\n        return self.channels is not None\n\n"
            "def load(spec: Spec, x: int):\n    if spec.needs_normalization and x < 0:\n        raise ValueError('cannot normalize')\n")
    card = only(extract_snippet(tmp_path, code))
    assert (card.solved.trigger.status, card.solved.trigger.verified) == ("internal", False)
    assert "spec.needs_normalization" in card.solved.trigger.assumes and "spec.needs_normalization" not in card.solved.trigger.inputs


def test_a_fix_value_of_an_arbitrary_type_is_said_to_be_one_example(tmp_path) -> None:
    # The stdlib review: ``amt=''`` to make ``amt is None`` false reads as advice to pass a
    # str. Where nothing declares the type, the fix says what the value must do.
    code = """
    def read(amt):
        if amt is None:
            raise ValueError("amt is required")

    def typed(amt: int | None):
        if amt is None:
            raise ValueError("amt is required")

    def cleared(amt):
        if amt is not None:
            raise ValueError("amt must be left out")
    """
    read, typed, cleared = extract_snippet(tmp_path, code)
    assert read.solved.fixes[0].stand_in and read.solved.fixes[0].description.startswith("set `amt` to a value of yours that makes `amt is None` false")
    assert not typed.solved.fixes[0].stand_in and typed.solved.fixes[0].inputs == {"amt": 0}
    assert not cleared.solved.fixes[0].stand_in and cleared.solved.fixes[0].inputs == {"amt": None}  # (the test picks the value)


def test_a_count_of_split_parts_is_seeded_with_texts_of_that_many_parts(tmp_path) -> None:
    # ipaddress: ``parts = ip_str.split(':')``, then ``len(parts) < 3`` raises.
    code = """
    def parse(ip_str: str):
        parts = ip_str.split(":")
        if len(parts) < 3:
            raise ValueError(f"At least 3 parts expected from {ip_str!r}")
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == 'len(ip_str.split(":")) < 3' and card.solved.trigger.verified
    assert card.solved.fixes and card.solved.fixes[0].inputs == {"ip_str": "a:a:a"}


def test_attributes_of_a_parameter_annotated_with_a_class_of_the_tree_are_its_fields(tmp_path) -> None:
    """``batch.items`` of ``batch: Batch`` reads Batch's declared field: its docs are on the
    card and its type shapes the trigger (a list, not the ``0`` an undeclared name gets)."""
    code = """
    from dataclasses import dataclass, field

    @dataclass
    class Batch:
        items: list[str] = field(default_factory=list)
        \"\"\"The queued item names.\"\"\"
        urgent: bool = False

    def submit(batch: Batch, limit: int = 3):
        if batch.urgent and len(batch.items) > limit:
            raise ValueError(f"{len(batch.items)} urgent items, the limit is {limit}")
    """
    card = solved(tmp_path, code)
    assert [(f.input, f.owner, f.declared.annotation, f.declared.doc) for f in card.docs.fields] == [
        ("batch.urgent", "mod.Batch", "bool", None), ("batch.items", "mod.Batch", "list[str]", "The queued item names."),
    ]
    assert card.solved.trigger.inputs["batch.urgent"] is True
    assert isinstance(card.solved.trigger.inputs["batch.items"], list) and len(card.solved.trigger.inputs["batch.items"]) == 4


def test_a_fix_leaving_a_field_alone_meets_its_declared_default_in_the_other_raises(tmp_path) -> None:
    """vLLM's CohereEmbedContent: ``type='image_url'`` fixes the text check but meets ``image_url=None``
    in the next test, so it is no fix; the fixes the card keeps, and a dict value, run clean."""
    code = """
    from dataclasses import dataclass

    @dataclass
    class Content:
        type: str
        text: str | None = None
        image_url: dict | None = None

        def __post_init__(self):
            if self.type == "text":
                if self.text is None:
                    raise ValueError("type='text' requires text")
            elif not self.image_url or not self.image_url.get("url"):
                raise ValueError("type='image_url' requires image_url.url")
    """
    text, image = extract_snippet(tmp_path, code)
    assert [f.inputs for f in text.solved.fixes] == [{"self.text": ""}]
    assert [f.inputs for f in image.solved.fixes] == [{"self.image_url": {"url": "x"}}]
    sys.path.insert(0, str(tmp_path))
    try:
        for card in (text, image):
            assert card.solved.example is not None and card.solved.example.after is not None
            with pytest.raises(ValueError) as raised:
                exec(card.solved.example.before, {})  # noqa: S102 (this test's own module, written above)
            assert str(raised.value) == card.message.template
            for after in (card.solved.example.after, *card.solved.example.fixes):
                exec(after, {})  # noqa: S102
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mod", None)


def test_attributes_of_an_input_set_to_none_are_no_input_of_the_trigger(tmp_path) -> None:
    """vLLM's VllmConfig: ``model_config = None`` past ``model_config is not None and ...``
    left ``model_config.multimodal_config.language_model_only = False`` on 30 concrete
    triggers, which no caller can give; the guard never reads it, so it is dropped."""
    code = """
    from dataclasses import dataclass

    @dataclass
    class Inner:
        only: bool = False

    @dataclass
    class Outer:
        inner: Inner | None = None
        mode: str = "a"

        def __post_init__(self):
            if not (self.inner is not None and self.inner.only) and self.mode == "b":
                raise ValueError("mode b needs inner.only")
    """
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.trigger.inputs == {"self.inner": None, "self.mode": "b"}
    assert card.solved.trigger.verified and card.solved.trigger.reason is None
    assert card.solved.example is not None and card.solved.example.before.endswith("Outer(mode='b')")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ValueError, match="mode b needs inner.only"):
            exec(card.solved.example.before, {})  # noqa: S102 (this test's own module, written above)
        exec(card.solved.example.after, {})  # noqa: S102
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mod", None)


def test_a_module_container_changed_in_place_is_no_constant(tmp_path) -> None:
    """vLLM's ``QUESTION_TYPES: dict = {}`` filled by a registering decorator, the stdlib's
    ``valid_seek_flags = {0, 1, 2}`` grown at import: the bound value is not what the guard
    reads, so no trigger is claimed from it; an untouched container keeps its value."""
    code = """
    REGISTRY = {}
    FLAGS = {0, 1, 2}
    FLAGS.add(3)
    KINDS = {"a", "b"}

    def register(name):
        def wrap(cls):
            REGISTRY[name] = cls
            return cls
        return wrap

    def lookup(name):
        if name not in REGISTRY:
            raise KeyError(f"unknown {name}")
        return REGISTRY[name]

    def seek(whence):
        if whence not in FLAGS:
            raise ValueError("bad whence")

    def kind(value):
        if value not in KINDS:
            raise ValueError("bad kind")
    """
    lookup, seek, kind = extract_snippet(tmp_path, code)
    for card in (lookup, seek):
        assert card.statement.guard.constants == () and not card.solved.trigger.verified and card.solved.fixes == ()
    assert kind.statement.guard.constants == (("KINDS", '{"a", "b"}'),) and kind.solved.trigger.verified
    assert [f.inputs for f in kind.solved.fixes] == [{"value": "a"}]


def test_a_fix_whose_test_reads_a_value_the_trigger_never_read_is_no_fix(tmp_path) -> None:
    """vLLM's get_kv_cache_torch_dtype: the trigger ``model_dtype = None`` stops at
    ``isinstance(model_dtype, str)``, so TABLE (of unknown value) is never read; ``model_dtype = ''`` then asks ``'' in TABLE``, and the search's stand-in for
    TABLE answered it. Only the fix decided without it stays."""
    code = """
    from torch import dtype_table

    TABLE = dtype_table()

    def pick(cache_dtype: str, model_dtype: str | None = None):
        if cache_dtype == "auto":
            if isinstance(model_dtype, str) and model_dtype in TABLE:
                return TABLE[model_dtype]
            raise ValueError(f"Invalid model dtype: {model_dtype}")
        return None
    """
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.trigger.inputs == {"cache_dtype": "auto", "model_dtype": None} and card.solved.trigger.verified
    assert [f.inputs for f in card.solved.fixes] == [{"cache_dtype": ""}]


def test_a_fix_is_unsure_where_another_raise_tests_a_value_the_function_computes(tmp_path) -> None:
    """marshmallow's Email: ``value = '@'`` gets past ``"@" not in value``, but the next raise tests
    ``user_part`` (computed from ``value``, with a pattern the tool does not know): it fires there
    ('' is no user), so the example shows no "after" and the fix says another raise may fire."""
    code = """
    import re

    USER = re.compile(r"[a-z]+")

    def email(value: str) -> str:
        if not value or "@" not in value:
            raise ValueError("not an email")
        user_part, domain_part = value.rsplit("@", 1)
        if not USER.match(user_part):
            raise ValueError("not an email")
        return value
    """
    card = next(c for c in extract_snippet(tmp_path, code) if c.at.line == 8)
    assert card.solved.trigger.inputs == {"value": ""} and card.solved.trigger.verified
    assert [f.inputs for f in card.solved.fixes] == [{"value": "@"}] and "another raise" in card.solved.fixes[0].description
    assert card.solved.example is not None and card.solved.example.after is None and card.solved.example.no_fix == "may_raise_elsewhere"


def test_any_and_a_protocol_take_plain_values(tmp_path) -> None:
    """marshmallow's validators: ``value: typing.Any`` takes any value, ``typing.Sized`` a text or a
    list; neither is "no value the tool can write" (``Length(max=1)('ab')``)."""
    code = """
    import typing

    def longest(value: typing.Sized, most: int = 1) -> None:
        if len(value) > most:
            raise ValueError("too long")

    def banned(value: typing.Any) -> None:
        if value == "x":
            raise ValueError("banned")

    def scaled(factor: typing.SupportsInt) -> None:
        if int(factor) < 0:
            raise ValueError("negative")
    """
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code)}
    assert cards["scaled"].solved.trigger.inputs == {"factor": -1} and cards["scaled"].solved.trigger.verified
    assert cards["longest"].solved.trigger.status == "concrete" and cards["longest"].solved.trigger.verified
    assert isinstance(cards["longest"].solved.trigger.inputs["value"], (str, list))
    assert cards["banned"].solved.trigger.inputs == {"value": "x"} and cards["banned"].solved.trigger.verified


def test_a_dict_known_by_its_keys_answers_membership_and_nothing_about_its_values(tmp_path) -> None:
    """vLLM's ``STR_DTYPE_TO_TORCH_DTYPE = {"half": torch.half, ...}``: its values are torch's,
    but ``dtype not in TABLE`` needs the keys only; a test that reads a value has no answer."""
    code = """
    from torch import float16, float32

    DTYPES = {
        "half": float16,  # a comment, which the constant's one-line source must not keep
        "float": float32,
    }

    def cast(dtype: str):
        if dtype not in DTYPES:
            raise ValueError(f"Unknown dtype {dtype}; pick one of {sorted(DTYPES)}")
        return DTYPES[dtype]

    def narrow(dtype: str):
        if DTYPES[dtype] == float16:
            raise ValueError("half is too narrow")
    """
    cast, narrow = extract_snippet(tmp_path, code)
    assert cast.statement.guard.constants == (("DTYPES", "{'half': float16, 'float': float32}"),)
    assert cast.solved.trigger.verified and cast.solved.trigger.inputs["dtype"] not in ("half", "float")
    assert cast.solved.trigger.message == f"Unknown dtype {cast.solved.trigger.inputs['dtype']}; pick one of ['float', 'half']"
    assert [f.inputs for f in cast.solved.fixes] == [{"dtype": "float"}]
    assert cast.solved.validator is None and cast.solved.validator_reason == "needs_named_constant"  # (its values: torch's)
    assert not narrow.solved.trigger.verified and narrow.solved.fixes == ()
    assert constant_of('{"half": float16, 1: 2}') == {"half": constant_of('{"x": float16}')["x"], 1: 2}
    assert constant_of('{"a": f(), **more}') is constant_of("not a constant")
    with pytest.raises(Unknown):  # (a value too long to keep is such a constant)
        evaluate("x in TABLE", {"x": 1, "TABLE": Named("TABLE", "unknown")})


def test_a_method_of_an_abstract_class_is_no_verified_trigger(tmp_path) -> None:
    """vLLM's WatermarkDetector(ABC): its __init__ checks its arguments, but Python refuses to
    create an instance while ``score`` is abstract, so ``Detector(context_width=0)`` raises
    TypeError. A classmethod runs without an instance; a subclass that defines ``score`` runs."""
    code = """
    from abc import ABC, abstractmethod

    class Detector(ABC):
        def __init__(self, context_width: int) -> None:
            if context_width < 1:
                raise ValueError("context_width must be positive")

        @abstractmethod
        def score(self) -> float: ...

        @classmethod
        def make(cls, n: int) -> None:
            if n < 0:
                raise ValueError("negative n")

    class Concrete(Detector):
        def score(self) -> float:
            return 1.0

        def own(self, n: int) -> None:
            if n > 3:
                raise ValueError("too big")

    class Unenforced:
        @abstractmethod
        def score(self) -> float: ...

        def check(self, n: int) -> None:
            if n < 0:
                raise ValueError("negative")
    """
    init, make, own, check = extract_snippet(tmp_path, code)
    assert (init.solved.trigger.status, init.solved.trigger.reason, init.solved.trigger.verified, init.solved.example) == ("concrete", "abstract_class", False, None)
    assert init.solved.trigger.inputs == {"context_width": 0} and not any(f.verified for f in init.solved.fixes)
    for card in (make, own, check):
        assert card.solved.trigger.verified and card.solved.trigger.reason is None


def test_a_stand_in_argument_lets_the_fixed_call_pass_the_other_raises(tmp_path) -> None:
    """``threshold`` is read by no test before the first raise: any float gets the call there,
    but the fixed call (width=1) meets the second test, which 0.0 fails."""
    code = """
    def detect(width: int, threshold: float) -> None:
        if width < 1:
            raise ValueError(f"width must be positive (threshold {threshold})")
        if not 0 < threshold < 1:
            raise ValueError("threshold must be between 0 and 1")
    """
    first, _ = extract_snippet(tmp_path, code)
    assert first.solved.trigger.inputs == {"width": 0, "threshold": 0.5} and first.solved.trigger.verified
    assert first.solved.trigger.message == "width must be positive (threshold 0.5)"  # (the message shows the stand-in)
    assert first.solved.example.after.endswith("detect(width=1, threshold=0.5)")


def test_math_predicates_and_object_are_evaluated_not_assumed(tmp_path) -> None:
    """vLLM's SamplingParams: ``not math.isfinite(self.temperature)`` was an atom the trigger
    assumed false; the stdlib's copyreg: ``base is not object`` assumed ``object = 1``."""
    code = """
    import math

    def sample(temperature: float) -> None:
        if not math.isfinite(temperature):
            raise ValueError(f"temperature must be a finite number, got {temperature}.")

    def reduce(base, proto: int):
        if proto < 2 and base is not object:
            raise TypeError("cannot pickle")
    """
    sample, reduce = extract_snippet(tmp_path, code)
    assert sample.solved.trigger.inputs == {"temperature": {"python": "float('inf')"}} and sample.solved.trigger.verified
    assert sample.solved.trigger.message == "temperature must be a finite number, got inf."
    assert sample.solved.example.before.endswith("sample(temperature=float('inf'))") and sample.solved.example.after.endswith("sample(temperature=0.0)")
    assert sample.solved.validator.code.startswith("import math\n") and sample.solved.validator.verified
    assert "(the trigger has `float('inf')`)" in sample.solved.fixes[0].description
    assert reduce.solved.trigger.assumes == {} and reduce.solved.trigger.verified
    assert {"base": {"python": "object"}} in [f.inputs for f in reduce.solved.fixes]


def test_sys_maxsize_is_pinned_not_assumed(tmp_path) -> None:
    """multiprocessing.heap's ``sys.maxsize <= size`` was an environment trigger "on a machine
    where sys.maxsize is 0"; it is Python's own constant (as a 64-bit build has it)."""
    code = """
    import sys

    def malloc(size: int):
        if size < 0:
            raise ValueError("negative size")
        if sys.maxsize <= size:
            raise OverflowError("Size {0:n} too large".format(size))
    """
    negative, large = extract_snippet(tmp_path, code)
    assert large.solved.trigger.status == "concrete" and large.solved.trigger.assumes == {} and large.solved.trigger.verified
    assert large.solved.trigger.inputs == {"size": sys.maxsize} and large.solved.trigger.message == f"Size {sys.maxsize:n} too large"
    assert large.solved.validator.code.startswith("import sys\n") and large.solved.validator.verified
    assert [f.inputs for f in negative.solved.fixes] == [{"size": 0}] and negative.solved.fixes[0].verified  # (the next test is decided)


def test_raising_a_parameter_is_no_verified_trigger(tmp_path) -> None:
    """test.lock_tests' ``with_lock(err=None)``: ``raise err`` raises what the caller passes;
    the trigger's ``err = ''`` made ``raise`` itself fail with TypeError."""
    code = """
    def with_lock(err=None):
        if err is not None:
            raise err
    """
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.trigger.status == "concrete" and card.solved.trigger.reason == "raises_an_input" and not card.solved.trigger.verified
    assert card.solved.example is None


def test_texts_split_by_unpacking_are_followed(tmp_path) -> None:
    """ssl's ``_dnsname_match``: ``leftmost, sep, remainder = dn.partition('.')`` then
    ``leftmost.count('*') > 1`` left ``wildcards`` an assumed value beside ``dn = 'x'``; a fix
    that breaks the unpacking's count (``text = 'a'`` for ``key, value = text.split('=')``)
    raises there instead, and is none."""
    code = """
    def dnsname_match(dn: str, hostname: str):
        if not dn:
            return False
        leftmost, sep, remainder = dn.partition('.')
        wildcards = leftmost.count('*')
        if wildcards > 1:
            raise ValueError("too many wildcards in certificate DNS name: {!r}.".format(dn))
        return True

    def parse_pair(text: str):
        key, value = text.split("=")
        if not key:
            raise ValueError(f"empty key in {text!r}")
        return key, value
    """
    match, pair = extract_snippet(tmp_path, code)
    assert match.statement.guard.code == "dn and len(dn.partition('.')) == 3 and dn.partition('.')[0].count('*') > 1"
    assert match.solved.trigger.inputs["dn"] == "**" and match.solved.trigger.verified and match.solved.trigger.assumes == {}
    assert pair.solved.trigger.inputs == {"text": "=a"} and pair.solved.trigger.verified
    assert all(len(f.inputs["text"].split("=")) == 2 for f in pair.solved.fixes)


def test_texts_that_mix_separators_and_searched_characters(tmp_path) -> None:
    """ssl's ``_dnsname_match`` past its first test: one ``*``, then where it stands against
    the ``.`` of ``dn.partition('.')``; each trigger is one text (the search sets one value)."""
    code = """
    def dnsname_match(dn: str):
        if not dn:
            return False
        wildcards = dn.count('*')
        if not wildcards:
            return True
        if wildcards > 1:
            raise ValueError("too many wildcards")
        dn_leftmost, sep, dn_remainder = dn.partition('.')
        if '*' in dn_remainder:
            raise ValueError("wildcard can only be present in the leftmost label")
        if not sep:
            raise ValueError("sole wildcard without additional labels")
        if dn_leftmost != '*':
            raise ValueError("partial wildcards in leftmost label")
        return True
    """
    cards = extract_snippet(tmp_path, code)
    assert [c.solved.trigger.inputs["dn"] for c in cards] == ["**", "a.*", "*", "a*.a"]
    assert all(c.solved.trigger.verified for c in cards)


def test_a_bare_test_of_an_untyped_value_gives_a_stand_in_fix_shown_last(tmp_path) -> None:
    """importlib.util's resolve_name: ``not package`` says nothing of package's type, so 1 is
    one example of a value that passes it (a str is what ``_resolve`` needs); the example's
    "after" shows the fix of a known type instead (``name=''``: a str, it calls startswith)."""
    code = "def resolve(name, package):\n    if name.startswith('.') and not package:\n        raise ImportError('no package')\n    return _resolve(name, package)\n"
    card = only(extract_snippet(tmp_path, code))
    by_input = {f.changed[0]: f for f in card.solved.fixes}
    assert by_input["package"].stand_in and "a value of yours that makes `not package` false" in by_input["package"].description
    assert not by_input["name"].stand_in
    assert card.solved.example is not None and card.solved.example.after.endswith("resolve(name='', package=0)")


def test_a_fix_names_the_test_where_control_turns_away(tmp_path) -> None:
    """turtle's ``_color``: ``'aaaa'`` makes ``len(cstr) != 4`` false, but control leaves
    earlier, at ``if not cstr.startswith('#'): return``; the fix says so."""
    code = ("def color(cstr):\n    if not cstr.startswith('#'):\n        return cstr\n    if len(cstr) == 7:\n        return 1\n"
            "    elif len(cstr) == 4:\n        return 2\n    else:\n        raise ValueError('bad colorstring')\n")
    card = only(extract_snippet(tmp_path, code))
    assert card.solved.fixes and all(f.target == "leave" and "so that `cstr.startswith('#')` is false: an earlier `return`" in f.description
                              for f in card.solved.fixes), [f.description for f in card.solved.fixes]


def test_no_example_builds_an_object_through_varargs_or_by_a_required_alias(tmp_path) -> None:
    """Seen on PyPI packages: ``MSSQLImpl(*arg, **kw)`` hands its arguments on to a constructor
    that needs six (alembic), and fastapi's ``Parameter(in_=...)`` fails: pydantic takes the
    field by its alias ``in``. An aliased field with a default is simply not passed."""
    code = ("from pydantic import BaseModel, Field\n\n"
            "class Base:\n    def __init__(self, dialect, connection):\n        self.dialect = dialect\n\n"
            "class Impl(Base):\n    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n\n"
            "    def alter(self, nullable: bool):\n        if nullable:\n            raise ValueError('nullable')\n\n"
            "class Param(BaseModel):\n    name: str = ''\n    in_: str = Field(alias='in')\n\n"
            "    def check(self, size: int):\n        if size < 0:\n            raise ValueError('negative size')\n\n"
            "class Schema(BaseModel):\n    schema_: str = Field(default='', alias='$schema')\n\n"
            "    def check(self, size: int):\n        if size < 0:\n            raise ValueError('negative size')\n")
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code)}
    assert (cards["Impl.alter"].solved.example, cards["Impl.alter"].solved.example_reason) == (None, "constructor_unknown")
    assert (cards["Param.check"].solved.example, cards["Param.check"].solved.example_reason) == (None, "constructor_unknown")
    assert cards["Schema.check"].solved.example.before.endswith("Schema().check(size=-1)")


def test_a_test_the_evaluator_cannot_decide_is_no_proof_of_unreachability(tmp_path) -> None:
    """functools.total_ordering's ``roots = {op for op in _convert if getattr(cls, op, None) is not
    getattr(object, op, None)}`` / ``if not roots: raise``: the comprehension's ``getattr`` of its
    own target is nothing the evaluator computes, so no value is known to reach the raise, and
    none is known not to (the card had said "unreachable")."""
    from .helpers import extract_snippet, only

    code = ("_convert = {'__lt__': 1, '__le__': 2}\n\n\ndef total_ordering(cls):\n"
            "    roots = {op for op in _convert if getattr(cls, op, None) is not getattr(object, op, None)}\n"
            "    if not roots:\n        raise ValueError('must define at least one ordering operation')\n    return cls\n")
    card = only(extract_snippet(tmp_path, code))
    assert (card.solved.trigger.status, card.solved.trigger.reason) == ("unsolved", "no_candidate_satisfies")


def test_a_variable_equal_to_an_expression_of_others_takes_its_value(tmp_path) -> None:
    """solve.derived: ``a == b * 3`` holds for no candidate of ``a`` fixed in advance; the
    search tries ``b * 3`` once ``b`` has its value, and in the other order where the guard's
    own order derives nothing (``b`` is read by ``a``'s expression but comes after it)."""
    card = solved(tmp_path, "def f(a: int, b: int):\n    if a == b * 3 and b > 1000:\n        raise ValueError('x')\n")
    assert card.solved.trigger.verified and card.solved.trigger.inputs == {"a": 3003, "b": 1001}


def test_tuple_set_and_frozenset_parameters_get_candidates_of_their_own_types(tmp_path) -> None:
    """seeds._generic: a ``tuple[...]`` takes tuples (a list is no value of it), a ``set`` and a
    ``frozenset`` their own kind, elements of the declared type; before, none had a candidate."""
    card = solved(tmp_path, "def f(a: tuple[int, ...], b: tuple[int, ...]):\n    if len(a) != len(b):\n        raise ValueError('x')\n")
    assert card.solved.trigger.verified and card.solved.trigger.inputs == {"a": {"python": "()"}, "b": {"python": "(0,)"}}
    card = solved(tmp_path, "def g(names: set[str], allowed: frozenset[str]):\n    if names - allowed:\n        raise ValueError('x')\n")
    assert card.solved.trigger.verified
    assert card.solved.trigger.inputs == {"names": {"python": "{'x'}"}, "allowed": {"python": "frozenset()"}}


def test_a_classmethod_reads_a_class_constant_but_not_a_registry_the_class_fills(tmp_path) -> None:
    """construction.fresh_trigger(on_class): ``cls.UNITS`` of a tuple is what the class body
    gives at any call; a ``cls._known = {}`` that ``register`` fills in place (at import,
    as vLLM's factories are) is not: no trigger is claimed from its empty value."""
    code = ("class Units:\n    UNITS = ('day', 'week')\n    _known = {}\n\n    @classmethod\n    def register(cls, name):\n"
            "        cls._known[name] = True\n\n    @classmethod\n    def unit(cls, name: str):\n        if name not in cls.UNITS:\n"
            "            raise ValueError('unit')\n\n    @classmethod\n    def lookup(cls, name: str):\n        if name not in cls._known:\n"
            "            raise KeyError('lookup')\n\n\nUnits.register('day')\n")
    cards = {card.at.function: card.solved.trigger for card in extract_snippet(tmp_path, code)}
    assert (cards["Units.unit"].status, cards["Units.unit"].verified, cards["Units.unit"].constructed) == \
        ("concrete", True, {"cls.UNITS": {"python": "('day', 'week')"}})
    assert (cards["Units.lookup"].status, cards["Units.lookup"].verified) == ("internal", False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=5), max_size=5), st.sampled_from([1, 7, 64, 256]))
def test_mappings_over_keys_come_fewest_keys_first_without_the_whole_product(sizes, limit) -> None:
    """``seeds._fewest_first`` gives what sorting the whole product would (fewest keys set
    first, then in order), cut at ``limit``; six keys of 15 options each stay cheap."""
    from itertools import product

    from extractor.solve.seeds import _fewest_first

    whole = sorted(product(*(range(n) for n in sizes)), key=lambda c: (sum(1 for i in c if i), c))
    assert _fewest_first(sizes, limit) == whole[:limit]
    assert len(_fewest_first([15] * 6, 256)) == 256
