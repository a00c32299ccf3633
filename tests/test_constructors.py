"""link.constructors: the parameters a call of a tree's class passes, ``__new__`` included."""

from __future__ import annotations

import textwrap

import pytest

from extractor.link.constructors import Constructors

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
