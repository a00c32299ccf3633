"""The restricted evaluator runs nothing outside its allow-list."""

from __future__ import annotations

import pytest

from extractor.evaluate import EvalError, Raised, evaluate, run_validator


@pytest.mark.parametrize(
    "code",
    [
        '__import__("os").system("touch /tmp/raisedocs_eval")',
        'open("/tmp/raisedocs_eval", "w")',
        'eval("1")',
        "().__class__.__bases__",
        "x.__class__",
        "getattr(x, 'real')",
        "'a' * 10 ** 9",
        "2 ** 10000",
        "[y for y in range(3)]",
        "lambda: 1",
    ],
)
def test_outside_the_allow_list_is_refused(code: str) -> None:
    with pytest.raises(EvalError):
        evaluate(code, {"x": 1})


@pytest.mark.parametrize(
    ("code", "env", "value"),
    [
        ("x > 1 and y in ('a', 'b')", {"x": 2, "y": "a"}, True),
        ("not (0 <= x < 10)", {"x": 10}, True),
        ("len(self.items) >= self.max", {"self.items": [0, 0], "self.max": 2}, True),
        ("isinstance(x, (int, float)) and x % 2 == 1", {"x": 3}, True),
        ("type(x).__name__", {"x": 1.5}, "float"),
        ("os.path.exists(p)", {"os.path.exists(p)": False}, False),
        ("f'{x!r:>5}|{y:.2f}'", {"x": "a", "y": 1}, "  'a'|1.00"),
    ],
)
def test_allowed_expressions_evaluate(code: str, env: dict, value: object) -> None:
    assert evaluate(code, env) == value


def test_validator_is_interpreted_not_executed() -> None:
    source = 'def check(n: int) -> None:\n    """Doc."""\n    if n < 1:\n        raise ValueError(f"n ({n}) must be >= 1")\n'
    assert run_validator(source, {"n": 0}) == Raised(exception="ValueError", message="n (0) must be >= 1")
    assert run_validator(source, {"n": 1}) is None
    with pytest.raises(EvalError):
        run_validator("def check() -> None:\n    import os\n", {})


@pytest.mark.parametrize(
    "code",
    ["[0] * 1000 * 1000", "'ab' * 60000", "x + x", "f'{1:>100000000}'"],
)
def test_huge_values_are_refused(code: str) -> None:
    with pytest.raises(EvalError):
        evaluate(code, {"x": "a" * 60_000})
