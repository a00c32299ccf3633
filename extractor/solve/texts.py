"""Seeds for text tests: texts of about as many parts as ``len(text.split(":"))`` is compared
with, with as many ``*`` as ``text.count("*")`` is, and texts a ``str`` test such as
``startswith`` or ``isdigit`` is true and false for."""

from __future__ import annotations

import ast
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ..collect.declarations import dotted_name
from .domains import NO_VALUE
from .operands import MAX_WITNESS_LENGTH, constant_value, variable_of

if TYPE_CHECKING:
    from .problem import Problem


# ``text.isdigit()`` and the like: text for which the test is true, and text for which it is not
STR_TESTS: dict[str, list[str] | None] = {
    "startswith": None, "endswith": None, "isdigit": ["1", "x"], "isdecimal": ["1", "x"], "isnumeric": ["1", "x"],
    "isalpha": ["a", "1"], "isalnum": ["a1", "-"], "isidentifier": ["a", "1"], "isascii": ["a", "\u00e9"],
    "isupper": ["A", "a"], "islower": ["a", "A"], "isspace": [" ", "a"],
}


def seed_str_test(node: ast.Call, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``text.startswith("image")`` -> ``"image"``, ``"imagex"``; ``text.isdigit()`` -> ``"1"``, ``"x"``."""
    func = node.func
    if not isinstance(func, ast.Attribute):  # (the caller checked)
        return
    name, _ = variable_of(func.value, problem)
    if name is None:
        return
    method = func.attr
    known = STR_TESTS[method]
    if known is not None:
        seeds.setdefault(name, []).extend(known)
        return
    value = constant_value(node.args[0], env) if len(node.args) == 1 else NO_VALUE
    affixes: list[str] = []
    if isinstance(value, str):
        affixes = [value]
    elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        affixes = list(value)
    for affix in affixes[:4]:
        seeds.setdefault(name, []).extend([affix, affix + "x" if method == "startswith" else "x" + affix])


def seed_split_count(node: ast.Compare, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``len(text.split(":")) < 3``: texts of about that many parts (``"a:a:a"``), and for an
    exact count, with an empty first or last part (``":a"``: ``key, value = text.split(":")``
    then ``not key``);
    ``len(name.partition("."))`` (always 3): a text with the separator and one without.
    ``text.count("*") > 1`` (of the text or of a part of it): about that many."""
    operands = [node.left, *node.comparators]
    for left, right in pairwise(operands):
        for side, other in ((left, right), (right, left)):
            count = constant_value(other, env)
            if type(count) is not int:
                continue
            if isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and side.func.attr == "count" and len(side.args) == 1 \
                    and isinstance(side.args[0], ast.Constant) and isinstance(side.args[0].value, str) and side.args[0].value:
                name = _text_root(side.func.value, problem)
                if name is not None:
                    text = side.args[0].value
                    seeds.setdefault(name, []).extend(text * m for m in (count - 1, count, count + 1) if 0 <= m <= MAX_WITNESS_LENGTH)
                continue
            if not (isinstance(side, ast.Call) and dotted_name(side.func) == "len" and len(side.args) == 1):
                continue
            split = side.args[0]
            if not (isinstance(split, ast.Call) and isinstance(split.func, ast.Attribute) and split.func.attr in _SPLITS
                    and not split.keywords and len(split.args) <= 2):  # (``split(":", 1)``: at most 2 parts)
                continue
            sep = split.args[0].value if split.args and isinstance(split.args[0], ast.Constant) else " " if not split.args else None
            name, _ = variable_of(split.func.value, problem)
            if name is None or not isinstance(sep, str) or not sep:
                continue
            if split.func.attr in ("partition", "rpartition"):
                seeds.setdefault(name, []).extend([f"a{sep}a", "a", f"{sep}a"])
                continue
            exact = any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)  # (``a, b = text.split(":")``)
            for m in (count - 1, count, count + 1):
                if 1 <= m <= MAX_WITNESS_LENGTH:
                    seeds.setdefault(name, []).append(sep.join(["a"] * m))
                    if exact:
                        seeds[name].extend([sep.join([""] + ["a"] * (m - 1)), sep.join(["a"] * (m - 1) + [""])])


_SPLITS = ("split", "rsplit", "partition", "rpartition")


def _text_root(node: ast.expr, problem: Problem) -> str | None:
    """The variable a text expression is cut from: ``dn`` of ``dn.partition(".")[0]``."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in (*_SPLITS, "strip", "lower", "upper"):
            node = node.func.value
        else:
            return variable_of(node, problem)[0]


def seed_text_mixes(tree: ast.expr, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """Texts that mix a variable's separators with the characters its tests look for: for
    ``dn.count('*')`` beside ``'*' in dn.partition('.')[2]``, ``"a.*"``, ``"*.a"``, ``".*"``,
    ``"*.*"``, ``"a*.a"`` and ``"a."`` (a search tries one value per variable, so each mix
    must be one text)."""
    seps: dict[str, set[str]] = {}
    chars: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and 0 < len(node.args[0].value) <= 4:
            found = seps if node.func.attr in _SPLITS else chars if node.func.attr in ("count", "startswith", "endswith") else None
            name = _text_root(node.func.value, problem) if found is not None else None
            if found is not None and name is not None:
                found.setdefault(name, set()).add(node.args[0].value)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and 0 < len(node.left.value) <= 4:
            name = _text_root(node.comparators[0], problem)
            if name is not None:
                chars.setdefault(name, set()).add(node.left.value)
    for name, separators in sorted(seps.items()):
        for sep in sorted(separators):
            mixes = [f"a{sep}"]
            for char in sorted(chars.get(name, ())):
                mixes.extend([f"a{sep}{char}", f"{char}{sep}a", f"{sep}{char}", f"{char}{sep}{char}", f"a{char}{sep}a"])
            seeds.setdefault(name, []).extend(mixes)
