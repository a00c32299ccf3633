"""The restricted evaluator runs nothing outside its allow-list."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from extractor.solve.evaluate import FAILS, EvalError, Raised, evaluate, outcome, parse_expr, run_validator
from extractor.solve.values import StableFrozenSet

from .helpers import ROOT


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
        # no plain value is an instance of a builtin exception class (a wrap validator's ``isinstance(data, ValueError)``)
        ("isinstance(data, ValueError) or isinstance(data, (KeyError, dict))", {"data": {}}, True),
        ("type(x).__name__", {"x": 1.5}, "float"),
        ("os.path.exists(p)", {"os.path.exists(p)": False}, False),
        ("f'{x!r:>5}|{y:.2f}'", {"x": "a", "y": 1}, "  'a'|1.00"),
        ("x[0] in set(',;') | set(')')", {"x": ")x"}, True),
        ("(flags & 4) >> 2 | 1 << 3", {"flags": 6}, 9),
        # comprehensions, as Python runs them
        ("not all(type(m) is str for m in names)", {"names": ["a", 0]}, True),
        ("any(1 / x for x in xs)", {"xs": [1, 0]}, True),  # lazy: stops before dividing by zero
        ("[x * 2 for x in xs if x]", {"xs": [0, 1, 2]}, [2, 4]),
        ("[a + b for a in xs for b in xs]", {"xs": [1, 2]}, [2, 3, 3, 4]),
        ("{k: v for k, v in d.items()}", {"d": {"a": 1}}, {"a": 1}),
        ("sum(c in 'rwax' for c in mode)", {"mode": "rw+"}, 2),
        ("[x for x in xs] + [x]", {"xs": [1], "x": 9}, [1, 9]),  # the target is the comprehension's own
        ("all(len(m) for m in xs)", {"xs": ["a"], "len(m)": 0}, True),  # an outer atom that names a target is not read inside
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
    ("code", "env"),
    [
        ("str(x for x in xs)", {"xs": [1]}),  # a generator's text holds an address
        ("[x for x in n]", {"n": 3}),  # an int is not iterable: TypeError, as in Python
        ("[(a, b) for a, b in xs]", {"xs": [(1, 2), (3,)]}),  # unpacking one value into two
        ("[x for x in range(10 ** 9)]", {}),
        ("[x for x in xs for y in xs]", {"xs": list(range(100))}),  # 10,000 items: past the step budget
    ],
)
def test_comprehensions_refuse_what_they_cannot_run(code: str, env: dict) -> None:
    with pytest.raises(EvalError):
        evaluate(code, env)


def test_a_comprehension_reads_the_outer_environment_through_get() -> None:
    """(status.Reads records what an evaluation reads: an atom read only inside a
    comprehension is still an assumption of the trigger.)"""
    from extractor.solve.status import Reads

    env = Reads({"xs": ["a"], "known": ["a"]})
    assert evaluate("any(x in known for x in xs)", env) is True
    assert env.read == {"xs", "known"}


@pytest.mark.parametrize(
    "code",
    ["[0] * 1000 * 1000", "'ab' * 60000", "x + x", "f'{1:>100000000}'", "1 << 10 ** 9", "1 << (1 << 40)"],
)
def test_huge_values_are_refused(code: str) -> None:
    with pytest.raises(EvalError):
        evaluate(code, {"x": "a" * 60_000})


def test_set_order_does_not_depend_on_the_hash_seed() -> None:
    # A set the evaluator builds iterates the same in every run (a message that prints one of
    # texts is refused: test_the_order_of_a_set_of_texts_is_never_claimed).
    code = (
        "from extractor.solve.evaluate import evaluate\n"
        "print(repr(evaluate(\"{'alpha', 'beta', 'gamma', 'delta', 'eps'}\", {})), "
        "evaluate(\"', '.join(sorted(frozenset({'alpha', 'beta', 'gamma', 'delta', 'eps'})))\", {}), "
        "evaluate(\"{3, 1, 2}\", {}), "
        "repr({'alpha', 'beta', 'gamma', 'delta', 'eps'}))\n"
    )
    runs = []
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        runs.append(out.rsplit(" {", 1))  # ours, then Python's own set repr
    assert len({ours for ours, _ in runs}) == 1
    assert runs[0][0] == "{'alpha', 'beta', 'delta', 'eps', 'gamma'} alpha, beta, delta, eps, gamma {1, 2, 3}"
    assert len({theirs for _, theirs in runs}) > 1  # the hazard is real: Python's own order varies


@pytest.mark.parametrize(
    ("code", "env", "value"),
    [
        # Refusals happen when a node is reached, never when the guard is compiled.
        ("x or __import__('os')", {"x": 1}, 1),
        ("x and y.__class__", {"x": 0}, 0),
        ("x if x else {**y}", {"x": 2}, 2),
        ("isinstance(x, MyClass) or True", {"x": 1}, None),
        # A bound input or opaque atom wins over computing the node.
        ("len(x) > 2", {"len(x)": 5, "x": []}, True),
        ("cfg.items[0]", {"cfg.items[0]": "bound", "cfg.items": ["computed"]}, "bound"),
    ],
)
def test_lazy_refusal_and_bound_atoms(code: str, env: dict, value: object) -> None:
    if value is None:
        with pytest.raises(EvalError, match="isinstance with a class outside the allow-list: MyClass"):
            evaluate(code, env)
    else:
        assert evaluate(code, env) == value


def test_a_compiled_tree_still_pickles() -> None:
    # Guards compiled in one process may be sent to another: the compiled form is not sent.
    import pickle

    from extractor.solve.evaluate import evaluate_tree, parse_expr

    tree = parse_expr("a + 1 > b")
    assert evaluate_tree(tree, {"a": 2, "b": 2}) is True
    copy = pickle.loads(pickle.dumps(tree))
    assert evaluate_tree(copy, {"a": 0, "b": 2}) is False


@pytest.mark.parametrize(("code", "env", "expected"), [
    # A plain value without the attribute or method fails as Python fails (AttributeError) ...
    ('m[0].get("role") == "x"', {"m": [0]}, FAILS),
    ("x.foo > 1", {"x": None}, FAILS),
    ('x.startswith("a")', {"x": 0}, FAILS),
    ('m[0].get("role")', {"m": []}, FAILS),  # (IndexError, on the way to the method)
    # ... while a value it has, an attribute the environment binds, or an unknown receiver is no failure.
    ('m[0].get("role") == "x"', {"m": [{}]}, False),
    ("x.foo > 1", {"x": 0, "x.foo": 2}, True),
    ("x.real > 1", {"x": 0}, None),
    ("obj.method()", {}, None),
    ("helper(x)", {"x": 0}, None),
])
def test_a_missing_attribute_of_a_plain_value_fails(code: str, env: dict, expected: object) -> None:
    assert outcome(parse_expr(code))(env) == expected
    if expected == FAILS:  # (and ``__raises__`` says which class: AttributeError, or the IndexError above)
        assert evaluate(f"__raises__({code}, (AttributeError, IndexError))", env) is True


def test_str_and_int_mixin_enum_members_equal_their_values() -> None:
    """``class S(str, Enum)``, StrEnum and IntEnum members are their values to ``==``, ``in``,
    order and hashing, as Python's are; a plain member is equal to itself only."""
    from enum import Enum, IntEnum

    from extractor.solve.values import Named

    class Strategy(str, Enum):
        NO = "no"

    class Level(IntEnum):
        HIGH = 2

    no = Named("Strategy.NO", "enum", "str", "no")
    high = Named("Level.HIGH", "enum", "IntEnum", 2)
    plain = Named("Color.RED", "enum")
    env = {"Strategy.NO": no, "Level.HIGH": high, "Color.RED": plain}
    for code in ("'no' == Strategy.NO", "'no' in (Strategy.NO,)", "3 > Level.HIGH", "Level.HIGH.value == 2",
                 "{Strategy.NO: 1}.get('no') == 1", "'steps' != Strategy.NO"):
        assert evaluate(code, env) is True, code
        assert eval(code, {"Strategy": Strategy, "Level": Level}) is True, code  # (Python agrees)
    assert evaluate("'RED' == Color.RED", env) is False
    assert evaluate("f'{Strategy.NO!r} {Level.HIGH} {Strategy.NO!s}'", env) == f"{Strategy.NO!r} {Level.HIGH} {Strategy.NO!s}"
    with pytest.raises(EvalError):  # (``format`` of a str-mixin member: its text changed in Python 3.12)
        evaluate("f'{Strategy.NO}'", env)
    with pytest.raises(EvalError):
        evaluate("Color.RED < 1", env)


@pytest.mark.parametrize(("code", "env", "value"), [
    ("callable(f)", {"f": 0}, False), ("callable(f)", {"f": None}, False),
    ("hasattr(s, 'read')", {"s": ""}, False), ("hasattr(s, 'join')", {"s": ""}, True), ("hasattr(s, '__iter__')", {"s": [1]}, True),
])
def test_callable_and_hasattr_of_a_plain_value(code: str, env: dict, value: object) -> None:
    assert evaluate(code, env) == value


def test_callable_and_hasattr_of_another_value_are_refused() -> None:
    from extractor.solve.arrays import path_value
    from extractor.solve.values import Named
    for env in ({"x": path_value()}, {"x": Named("Mode.A", "a")}, {"x": int}):
        for code in ("callable(x)", "hasattr(x, 'name')"):
            with pytest.raises(EvalError):
                evaluate(code, env)


@pytest.mark.parametrize(("code", "env", "value"), [
    ("__raises__(operator.index(x), (TypeError,))", {"x": ""}, True),
    ("__raises__(operator.index(x), (TypeError,))", {"x": 3}, False),
    ("__raises__(struct.unpack('>l', data)[0], (struct.error,))", {"data": b""}, True),
    ("struct.unpack('>l', data)[0]", {"data": b"\x00\x00\x00\x01"}, 1),
    ("__raises__(label.encode('ascii'), (UnicodeEncodeError,))", {"label": "\u00e9"}, True),
    ("label.encode('utf-8')", {"label": "a"}, b"a"),
])
def test_operator_index_struct_unpack_and_encode_evaluate(code: str, env: dict, value: object) -> None:
    assert evaluate(code, env) == value


@pytest.mark.parametrize("code", ["label.encode('rot13')", "label.encode(codec)", "label.encode('ascii', 'custom')"])
def test_encode_takes_the_standard_text_codecs_only(code: str) -> None:
    with pytest.raises(EvalError):
        evaluate(code, {"label": "a", "codec": "hex"})


@pytest.mark.parametrize(
    ("code", "known"),
    [
        ('f"{s}"', False),  # (texts: their hashes change with PYTHONHASHSEED)
        ('", ".join(s)', False),
        ("str(s)", False),
        ('f"{n}"', True),  # (small ints: CPython orders them by value)
        ('", ".join(sorted(s))', True),
        ("len(s) == 2 and 'a' in s", True),  # (what does not depend on the order)
        ('f"{one}"', True),
    ],
)
def test_the_order_of_a_set_of_texts_is_never_claimed(code: str, known: bool) -> None:
    env = {"s": StableFrozenSet({"a", "b"}), "n": StableFrozenSet({1, 2}), "one": StableFrozenSet({"a"})}
    if known:
        evaluate(code, env)
    else:
        with pytest.raises(EvalError):
            evaluate(code, env)
