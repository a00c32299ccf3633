"""link.constructors: the parameters a call of a tree's class passes, ``__new__`` included."""

from __future__ import annotations

import ast
import textwrap

import pytest

from extractor import extract
from extractor.collect.declarations import base_init
from extractor.link.constructors import Constructors
from extractor.model import Owner
from extractor.options import Options

from .helpers import extract_snippet, temp_tree
from .test_instances import facts_of

MODULE = textwrap.dedent("""
    from abc import ABC, ABCMeta

    class Pair(tuple):
        def __new__(cls, a, b=1):
            return super().__new__(cls, (a, b))

    class Both:
        def __new__(cls, a):
            return super().__new__(cls)
        def __init__(self, a, b=2):
            self.a = a

    class Base:
        def __init__(self, x):
            self.x = x

    class OverBase(Base):
        def __new__(cls, y):
            return super().__new__(cls)

    class Plain:
        def __new__(cls, n):
            return super().__new__(cls)

    class Child(Pair):
        pass

    class Meta(metaclass=Registry):
        def __new__(cls, q):
            return super().__new__(cls)

    class Outside(SomeBase):
        def __new__(cls, r):
            return super().__new__(cls)

    class Abstract(metaclass=ABCMeta):
        pass

    class Number(Abstract):
        def __new__(cls, value=0):
            return super().__new__(cls)

    class Shape(ABC):
        def __new__(cls, sides):
            return super().__new__(cls)
""")


@pytest.mark.parametrize(("cls", "expected"), [
    ("Pair", ("a", "b")),  # a tuple subclass: tuple's __init__ is object's
    ("Both", ("a", "b")),  # __init__ takes the call's arguments too: its signature is the one checked
    ("OverBase", None),  # Base.__init__ gets the call's arguments as well
    ("Plain", ("n",)),
    ("Child", ("a", "b")),  # inherited
    ("Meta", None),  # a metaclass of the project's may call it otherwise
    ("Outside", None),  # a base outside the tree may have an __init__
    ("Number", ("value",)),  # ABCMeta calls __new__ and __init__ as type does (numbers.Rational -> fractions.Fraction)
    ("Shape", ("sides",)),  # abc.ABC has object's __init__
])
def test_new_gives_the_signature_where_no_init_also_takes_the_arguments(cls: str, expected: tuple[str, ...] | None) -> None:
    project, facts = facts_of(MODULE)
    found = Constructors(project).signature(f"{facts.module}.{cls}")
    assert (None if found is None else tuple(p.name for p in found)) == expected


RECORDS = textwrap.dedent("""
    from dataclasses import dataclass

    @dataclass
    class Window:
        size: int | None = None
        step: int = 1
        label: str = ""

        def __post_init__(self):
            if self.size is None:
                self.size = 8
            object.__setattr__(self, "label", self.label.strip())

            def later(other):
                other.step = 2  # another object's: not this one's

    @dataclass
    class Wide(Window):
        depth: int = 0

    @dataclass
    class Frame:
        window: Window | None = None
""")


@pytest.mark.parametrize(("cls", "attribute", "built", "expected"), [
    ("Window", "label", False, "label"),  # read in __post_init__ or before it: the caller's value
    ("Window", "label", True, None),  # read once built: what __post_init__ made of it (object.__setattr__)
    ("Window", "size", True, "size"),  # assigned under one if: the caller's value where its test is false
    ("Window", "step", True, "step"),
    ("Wide", "label", True, None),  # the base's __post_init__ runs for the subclass too
    ("Wide", "depth", True, "depth"),
])
def test_a_field_post_init_assigns_is_not_the_callers_once_built(cls: str, attribute: str, built: bool, expected: str | None) -> None:
    project, facts = facts_of(RECORDS)
    found = Constructors(project).keyword(f"{facts.module}.{cls}", attribute, built=built)
    assert (None if found is None else found.name) == expected


def test_post_init_sets_keep_the_one_if_they_sit_in() -> None:
    _, facts = facts_of(RECORDS)
    window = next(c for c in facts.classes if c.qualname == "Window")
    assert [(s.attribute, s.test, s.reads) for s in window.post_init_sets] == [
        ("label", None, ()), ("size", "self.size is None", ("self.size",))]


def test_a_nested_record_is_always_built() -> None:
    project, facts = facts_of(RECORDS)
    constructors = Constructors(project)
    assert constructors.along(f"{facts.module}.Frame", ["window", "step"]) is not None
    assert constructors.along(f"{facts.module}.Frame", ["window", "label"]) is None


def test_a_keyword_passed_on_to_the_base_constructor_sets_its_attribute(tmp_path) -> None:
    """vLLM's routers: ``super().__init__(top_k, eplb_state=eplb_state)``, and the base stores
    it: a caller sets ``self.eplb_state`` by constructing the subclass."""
    code = (
        "class Base:\n    def __init__(self, top_k, eplb_state=None):\n        self.top_k = top_k\n        self.eplb_state = eplb_state\n\n"
        "class Fused(Base):\n    def __init__(self, top_k, eplb_state=None):\n        super().__init__(top_k, eplb_state=eplb_state)\n\n"
        "    def check(self):\n        if self.eplb_state is None:\n            raise RuntimeError('no EPLB state')\n\n"
        "class Positional(Base):\n    def __init__(self, k, state=None):\n        super().__init__(k, state)\n\n"
        "    def check(self):\n        if self.eplb_state is None:\n            raise RuntimeError('no EPLB state')\n"
    )
    cards = {c.at.function: c for c in extract_snippet(tmp_path, code)}
    for function, keyword in (("Fused.check", "eplb_state"), ("Positional.check", "state")):
        card = cards[function]
        assert (card.solved.trigger.status, card.solved.trigger.inputs) == ("concrete", {"self.eplb_state": None}), function
        assert card.solved.fixes[0].description.startswith(f"set `{keyword}` to "), card.solved.fixes[0].description


def test_a_private_attribute_init_stores_from_a_public_argument_is_the_caller_s(tmp_path) -> None:
    """``self._items = items`` is set by ``items`` (a private attribute, a public keyword); one
    ``__init__`` also stores under a test is not; two attributes stored from one argument are
    tied: a fix never gives them different values, and the validator reads that argument."""
    code = (
        "class Catalog:\n    def __init__(self, items):\n        self._items = items\n\n"
        "    def price(self, name):\n        if name not in self._items:\n            raise KeyError(name)\n\n"
        "class Counter:\n    def __init__(self, start=0):\n        self._count = start\n        if start is None:\n            self._count = 0\n\n"
        "    def next(self):\n        if self._count is None:\n            raise RuntimeError('no start')\n\n"
        "class Tokens:\n    def __init__(self, limit=1):\n        self._limit = limit\n        self._free = limit\n\n"
        "    def give_back(self):\n        if self._free >= self._limit:\n            raise ValueError('all back')\n"
    )
    cards = {c.at.function: c.solved for c in extract_snippet(tmp_path, code)}
    assert (cards["Catalog.price"].trigger.status, cards["Catalog.price"].trigger.verified) == ("concrete", True)
    assert cards["Catalog.price"].example.before.startswith("from mod import Catalog\nCatalog(items=")
    assert cards["Counter.next"].trigger.status == "internal"
    tokens = cards["Tokens.give_back"]
    assert (tokens.trigger.status, tokens.trigger.verified, tokens.fixes) == ("concrete", True, ())
    assert tokens.example.before == "from mod import Tokens\nTokens().give_back()"
    assert "if free >= limit:" in tokens.validator.code  # (the guard as written: each attribute a parameter)


@pytest.mark.parametrize(("call", "expected"), [
    ("super().__init__(a, b=b)", (0, ["a"])),
    ("super(Child, self).__init__(a)", (0, ["a"])),  # (the class itself: the next class is its first base)
    ("Second.__init__(self, a)", (1, ["a"])),  # (a base by name: that one, the object passed first)
    ("super(Other, self).__init__(a)", None),  # (past another class: not the first base)
    ("Unrelated.__init__(self, a)", None),  # (no base of the class)
    ("Second.__init__(other, a)", None),  # (another object's)
    ("self.setup(a)", None),
])
def test_a_base_constructor_is_what_init_runs_by_super_or_by_name(call: str, expected: tuple[int, list[str]] | None) -> None:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    found = base_init(node, "self", "Child", ("First", "Second"))
    assert (None if found is None else (found[0], [ast.unparse(a) for a in found[1]])) == expected


def test_a_validator_the_tool_does_not_read_refuses_first_where_it_runs() -> None:
    owner = Owner(unread_validators=("Request.check_salt:salt,pepper", "Request.check_all"))
    assert owner.refuses_first([]) and owner.refuses_first(["model"])  # (a model's validator runs on every construction)
    field_only = Owner(unread_validators=("Request.check_salt:salt,pepper",))
    assert field_only.refuses_first(["pepper"]) and not field_only.refuses_first(["model"])  # (a field's, where the field is passed)
    assert not Owner().refuses_first(["salt"])


_SALTED = """
from typing import Any
from pydantic import BaseModel, Field, model_validator
from helpers import check_salt


class Request(BaseModel):
    priority: int = Field(default=0, ge=0)
    salt: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _salt(cls, data: Any) -> Any:
        check_salt(data.get("salt"))
        return data
"""


@pytest.mark.parametrize(("helper", "example"), [
    # returns at once on None: a construction that passes no salt gets past it
    ("def check_salt(salt):\n    if salt is None:\n        return\n    if not salt:\n        raise ValueError('empty')\n",
     "Request(priority=-1)"),
    ("def check_salt(salt):\n    '''One if.'''\n    if salt is not None and not salt:\n        raise ValueError('empty')\n",
     "Request(priority=-1)"),
    # may refuse None (or what it does is not read): it runs on every construction, so no example is claimed
    ("def check_salt(salt):\n    if not isinstance(salt, str):\n        raise ValueError('no salt')\n", None),
    ("def check_salt(salt):\n    if salt is None:\n        log(salt)\n    return salt\n", None),
])
def test_a_before_validators_helper_that_returns_on_none_lets_other_fields_through(tmp_path, helper: str, example: str | None) -> None:
    temp_tree(tmp_path, {"mod.py": _SALTED, "helpers.py": helper})
    card = next(c for c in extract(str(tmp_path), Options()).errors if c.constraint is not None and c.constraint.field == "priority")
    written = card.solved.example.before.splitlines()[-1] if card.solved.example else None
    assert (written, card.solved.trigger.verified) == (example, example is not None)


def test_a_required_field_another_validator_reads_gets_a_value_of_its_declared_type(tmp_path) -> None:
    """vLLM's AnthropicMessagesRequest: building it for ``max_tokens``' card must pass
    ``validate_model``'s ``not v``; a truthy value of ``model: str`` is a text, not ``1``, which
    pydantic would refuse as a second error."""
    code = textwrap.dedent('''
        from pydantic import BaseModel, field_validator


        class Request(BaseModel):
            model: str
            max_tokens: int

            @field_validator("model")
            @classmethod
            def validate_model(cls, v):
                if not v:
                    raise ValueError("Model is required")
                return v

            @field_validator("max_tokens")
            @classmethod
            def validate_max_tokens(cls, v):
                if v <= 0:
                    raise ValueError("max_tokens must be positive")
                return v
    ''')
    card = next(c for c in extract_snippet(tmp_path, code) if c.solved.trigger.message == "max_tokens must be positive")
    assert card.solved.example is not None and card.solved.example.before.splitlines()[-1] == "Request(max_tokens=0, model='x')"


def test_a_constraints_fix_skips_a_value_its_class_surely_refuses(tmp_path) -> None:
    """vLLM's ``ProfilerConfig(profiler='torch')`` raised from ``__post_init__`` (no
    ``torch_profiler_dir``): the fix leaves the field at its default, None (which pydantic
    passes through unchecked), not a choice the class may refuse."""
    code = textwrap.dedent('''
        from typing import Literal
        from pydantic.dataclasses import dataclass


        @dataclass
        class Profiler:
            kind: Literal["torch", "cuda"] | None = None
            folder: str = ""

            def __post_init__(self) -> None:
                if self.kind == "torch" and not self.folder:
                    raise ValueError("the torch profiler needs a folder")
    ''')
    card = next(c for c in extract_snippet(tmp_path, code) if c.constraint is not None)
    assert card.solved.fixes[0].inputs == {"self.kind": None}
    assert card.solved.example is not None and card.solved.example.after.splitlines()[-1] == "Profiler(kind=None)"


def test_an_after_field_validators_value_has_its_fields_type(tmp_path) -> None:
    """pydantic checks ``model: str`` before ``validate_model`` runs: its ``not v`` is met by
    ``''`` (which the example passes), never by ``0``, which pydantic refuses first."""
    code = textwrap.dedent('''
        from pydantic import BaseModel, field_validator


        class Request(BaseModel):
            model: str

            @field_validator("model")
            @classmethod
            def validate_model(cls, v):
                if not v:
                    raise ValueError("Model is required")
                return v
    ''')
    card = next(c for c in extract_snippet(tmp_path, code) if c.solved.trigger.message == "Model is required")
    assert card.solved.trigger.inputs == {"v": ""}
    assert card.solved.example is not None and card.solved.example.before.splitlines()[-1] == "Request(model='')"
