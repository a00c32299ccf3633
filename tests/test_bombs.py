"""Bombs: small valid files that ask for unbounded work or memory. The run completes, in
bounded work, and every raise site still has a card that says why it was not solved."""

from __future__ import annotations

import ast
import collections

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor import extract
from extractor.options import Options
from extractor.solve.evaluate import EvalError, TooLarge, evaluate
from extractor.solve.evaluate.limits import EVAL_STEPS, MAX_INT_BITS, MAX_SIZE, size_of

from .helpers import FIXTURES

BOMBS = FIXTURES / "bombs"

# Per file: (trigger status, trigger reason, reason the guard was not modelled) -> cards.
EXPECTED = {
    "big_int.py": {("concrete", None, None): 1},  # a 400-digit literal: exact, never through float()
    "chain.py": {("unsolved", "no_candidate_satisfies", None): 1},  # x < x < ... (300 terms)
    "deep_if.py": {("concrete", None, None): 1},  # 90 nested ifs
    "empty_tuple_tests.py": {("unreachable", "no_value_in_finite_domains", None): 2, ("unsolved", "no_candidate_satisfies", None): 1},
    "format_width.py": {("unsolved", "value_too_large", None): 1},  # '%0999999999d' % 1
    "harmless.py": {("concrete", None, None): 1},
    "join_bomb.py": {("unsolved", "value_too_large", None): 1},
    "loop_bomb.py": {("unsolved", "value_too_large", None): 1},  # a comprehension of 25,000,000 turns
    "many_siblings.py": {("concrete", None, None): 99, ("unsolved", "guard_not_modelled", "guard_too_large"): 301},
    "power_tower.py": {("unsolved", "value_too_large", None): 1},  # ((((9**64)**64)**64)**64)**64
    "replace_bomb.py": {("unsolved", "value_too_large", None): 1},
    "sixty_params.py": {("concrete", None, None): 1},
    "str_bomb.py": {("unsolved", "value_too_large", None): 1},  # str([[0] * 100000] * 100000)
    "wide_and.py": {("unsolved", "guard_not_modelled", "too_deep_for_libcst"): 1},  # 8,000 operands: libcst would segfault
    "wide_or.py": {("concrete", None, None): 1},  # a 300-way or
}


def _outcomes(catalog) -> dict[str, dict[tuple, int]]:
    found: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for card in catalog.errors:
        tree = card.statement.guard.tree
        found[card.path][(card.solved.trigger.status, card.solved.trigger.reason, getattr(tree, "reason", None))] += 1
    return {path: dict(counts) for path, counts in found.items()}


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_bombs_complete_with_a_card_for_every_raise(jobs: int) -> None:
    catalog = extract(str(BOMBS), Options(jobs=jobs))
    sites = sum(isinstance(node, ast.Raise) for path in BOMBS.glob("*.py") for node in ast.walk(ast.parse(path.read_text())))
    assert (catalog.stats.raise_sites, len(catalog.errors), catalog.failures) == (sites, sites, ())
    assert _outcomes(catalog) == EXPECTED
    harmless = next(card for card in catalog.errors if card.path == "harmless.py")
    assert (harmless.solved.trigger.inputs, harmless.solved.trigger.verified) == ({"x": -1}, True)


def test_the_empty_tuple_keeps_its_parentheses() -> None:
    # `if ():` once failed the whole file (libcst refuses a zero-length tuple without them).
    catalog = extract(str(BOMBS), Options(include=("empty_tuple_tests.py",)))
    assert [card.statement.guard.code for card in catalog.errors] == ["()", "not () and ()", "not () and () and x"]


@pytest.mark.parametrize(("code", "env"), [
    ("'%0999999999d' % 1", {}),
    ("'%*d' % (10 ** 9, 1)", {}),
    ("('a' * 50000).join(['b' * 50000] * 50000)", {}),
    ("str([[0] * 100000] * 100000)", {}),
    ("('ab' * 50000).replace('a', 'a' * 50000)", {}),
    ("((((9 ** 64) ** 64) ** 64) ** 64) ** 64", {}),
    ("x * x * x * x * x * x", {"x": 10 ** 1000}),
    ("f'{x:>999999}'", {"x": 1}),
    ("sum([[0] * 1000] * 1000, [])", {}),
    ("round(5, -10 ** 9)", {}),
    ("[s] * 100 + [s] * 100", {"s": "a" * 1000}),
    ("any(a == 'x' for a in 'a' * 5000 for b in 'b' * 5000)", {}),
])
def test_values_past_the_limits_are_refused_before_they_are_built(code: str, env: dict) -> None:
    with pytest.raises(TooLarge):
        evaluate(code, env)


def test_values_within_the_limits_are_computed() -> None:
    assert evaluate("len('ab' * 50) + 2 ** 64", {}) == 100 + 2 ** 64
    assert evaluate("'%05d|%-3s|%.2f' % (42, 'x', 1.5)", {}) == "00042|x  |1.50"
    assert evaluate("', '.join(sorted(['b', 'a']))", {}) == "a, b"


# Arithmetic and string building with large literals: the evaluator answers or refuses
# (TooLarge, or another EvalError), never exhausts memory, and never spends past its budget.
_LEAVES = st.one_of(
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(repr),
    st.sampled_from(["9 ** 64", "10 ** 50", "'ab' * 5000", "'%0999d'", "[0] * 1000", "'x'", "(1, 2)", "[[0] * 300] * 300"]),
)


def _grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "*", "**", "%", "-", "//"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    calls = st.tuples(st.sampled_from(["str", "repr", "sorted", "len", "list", "sum"]), children).map(lambda t: f"{t[0]}({t[1]})")
    methods = st.tuples(children, st.sampled_from(["join", "replace"]), children).map(
        lambda t: f"{t[0]}.join([{t[2]}] * 3)" if t[1] == "join" else f"{t[0]}.replace('a', {t[2]})")
    fstrings = st.tuples(children, st.integers(min_value=0, max_value=10 ** 7)).map(lambda t: f"f'{{{t[0]}:>{t[1]}}}'")
    return st.one_of(binary, calls, methods, fstrings)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(_LEAVES, _grow, max_leaves=8))
def test_the_evaluator_answers_or_refuses_within_its_limits(code: str) -> None:
    from extractor.solve.evaluate import limits

    try:
        value = evaluate(code, {})
    except TooLarge:
        assert limits._spent[0] <= EVAL_STEPS + MAX_SIZE + len(code) + 10
        return
    except EvalError:
        return
    if isinstance(value, int):
        assert value.bit_length() <= MAX_INT_BITS + 1
    else:
        assert size_of(value) <= MAX_SIZE + 1
    assert limits._spent[0] <= EVAL_STEPS
