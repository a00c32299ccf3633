"""Python text: a long run of one item is written as a product that evaluates back; an expression is parsed once, its tree shared and never changed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import extractor
from extractor.model.pytext import REPEATED_FROM, compares_with_none, one_class, parse_expression, repeated_text, try_parse_expression


@given(st.one_of(st.text(max_size=60), st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["", "a"]), st.none(), st.booleans()), max_size=60)))
def test_a_product_is_the_same_value(value) -> None:
    text = repeated_text(value)
    if text is None:
        return
    assert len(value) >= REPEATED_FROM
    left, count = text.rsplit(" * ", 1)
    item = ast.literal_eval(left)
    assert item * int(count) == value and type(item * int(count)) is type(value)


def test_gettext_s_long_plural_is_written_once() -> None:
    assert repeated_text("a" * 1001) == "'a' * 1001"
    assert repeated_text([0] * 30) == "[0] * 30"
    assert repeated_text("ab" * 30) is None and repeated_text("a" * 5) is None and repeated_text([0, 1] * 20) is None


def test_an_expression_is_parsed_once_and_its_tree_shared() -> None:
    tree = parse_expression("len(items) > limit")
    assert try_parse_expression("len(items) > limit") is tree
    assert ast.unparse(tree) == "len(items) > limit" and isinstance(tree, ast.Compare)


@pytest.mark.parametrize("text", ["x >", " x", "x\0", "import os", "(" * 300 + ")" * 300])
def test_text_that_is_no_expression(text: str) -> None:
    """Not stripped (a leading space is an indent, offsets index the text as given); past the
    parser's limits or holding a NUL byte: not an expression either."""
    assert try_parse_expression(text) is None
    with pytest.raises(SyntaxError, match="not an expression"):
        parse_expression(text)


def test_callers_that_rewrite_a_tree_leave_the_shared_one_unchanged() -> None:
    """The callers that rewrite a parsed tree (link.messages substitutes a class's parameters by
    the call's arguments, solve.environ inlines lazy attributes and ``os.getenv``) rewrite a
    copy: the next reader of the text gets the tree as parsed."""
    from extractor.link.messages import substituted
    from extractor.model import Argument
    from extractor.solve.environ import read_guard

    hole, argument = "f'{len(x)}' + y.name", "items[0]"
    before = ast.dump(parse_expression(hole)), ast.dump(parse_expression(argument))
    bound = {"x": Argument(code=argument), "y": Argument(code="other")}
    assert substituted(parse_expression(hole), bound, {"x", "y"}) == "f'{len(items[0])}' + other.name"
    assert (ast.dump(parse_expression(hole)), ast.dump(parse_expression(argument))) == before

    guard, lazy = "os.getenv('A') == '1' and envs.B > 0", "int(os.getenv('B', '0'))"
    before = ast.dump(parse_expression(guard)), ast.dump(parse_expression(lazy))
    tree, reads_environ = read_guard(guard, (("envs.B", lazy),))
    assert reads_environ and ast.unparse(tree) == "os.environ.get('A') == '1' and int(os.environ.get('B', '0')) > 0"
    assert (ast.dump(parse_expression(guard)), ast.dump(parse_expression(lazy))) == before


def test_link_solve_and_publish_parse_expressions_through_the_shared_cache() -> None:
    """Expression text (a guard, a part, a placeholder, an argument) is parsed by
    ``model.pytext`` alone; ``ast.parse`` and ``compile`` there read whole statements only
    (a generated validator, an example)."""
    root = Path(extractor.__file__).parent
    found = []
    for path in sorted(p for stage in ("link", "solve", "publish") for p in (root / stage).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("ast.parse", "compile"):
                mode = next((k.value for k in node.keywords if k.arg == "mode"), node.args[2] if len(node.args) > 2 else None)
                if not (mode is None and ast.unparse(node.func) == "ast.parse") and not (isinstance(mode, ast.Constant) and mode.value == "exec"):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


@pytest.mark.parametrize(("annotation", "cls"), [
    ("Cache", "Cache"), ("Cache | None", "Cache"), ("None | cfg.Cache", "cfg.Cache"), ("Optional[Cache]", "Cache"), ("'Cache | None'", "Cache"),
    ("list[Choice] | None", None), ("SkipValidation[Config]", None), ("A | B", None), ("Any | None", None), ("object", None), (None, None),
])
def test_one_class_is_a_name_alone_or_with_none(annotation, cls) -> None:
    assert one_class(annotation) == cls


@pytest.mark.parametrize(("code", "expected"), [
    ("cache is not None and strict", True), ("cache is None", True), ("cache != None", True), ("x or cache == None", True),
    ("self.cache is None", False), ("my_cache is None", False), ("cache.size is None", False), ("cache", False),
])
def test_a_none_comparison_is_of_the_name_itself(code, expected) -> None:
    assert compares_with_none("cache", code) is expected
