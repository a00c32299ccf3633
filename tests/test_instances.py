"""link.instances: which plain values are instances of the classes a guard's isinstance tests name."""

from __future__ import annotations

import textwrap

import pytest

from extractor.collect.file import collect_file
from extractor.link.instances import instance_types
from extractor.link.project import Project
from extractor.model import FileFacts
from extractor.options import Options
from extractor.sources import SourceFile

from .helpers import extract_snippet, only

MODULE = textwrap.dedent("""
    import numbers as n
    from abc import ABC
    from collections.abc import Sequence
    import torch

    class Plain:
        pass

    class Child(Plain, Exception):
        pass

    class Abstract(ABC):
        pass

    class Registered(ABC):
        pass

    class Below(Registered):
        pass

    Registered.register(int)

    class Meta(metaclass=type):
        pass

    class Hook:
        @classmethod
        def __subclasshook__(cls, other):
            return True

    class FromOutside(torch.nn.Module):
        pass

    class Unknown(SomethingElse):
        pass
""")


def facts_of(code: str) -> tuple[Project, FileFacts]:
    facts = collect_file(SourceFile.from_bytes("pkg/mod.py", code.encode()), Options())
    assert isinstance(facts, FileFacts)
    return Project({facts.module: facts.path}, lambda path: facts), facts


@pytest.mark.parametrize(("written", "expected"), [
    ("n.Integral", ("int", "bool")),  # the standard library's, through an import alias
    ("Sequence", ("str", "bytes", "list", "tuple")),
    ("torch.Tensor", ()),
    ("ValueError", ()),  # a builtin exception class
    ("Plain", ()),
    ("Child", ()),  # in-tree bases and a builtin one
    ("FromOutside", ()),  # a plain outside base
    ("Abstract", ()),  # an ABC nothing in the tree registers a virtual subclass with
    ("Registered", None),  # one whose ``register`` the tree reads: int is one
    ("Below", ()),  # (a class deriving from it: int is no instance of it)
    ("Meta", None),  # a metaclass may answer isinstance itself
    ("Hook", None),
    ("Unknown", None),  # a base outside the tree, not known
    ("int", None),  # the evaluator's own
])
def test_instances(written: str, expected: tuple[str, ...] | None) -> None:
    project, facts = facts_of(MODULE)
    found = instance_types(project, facts, f"not isinstance(x, {written})")
    assert found.get(written) == expected


def test_the_table_answers_as_python_does_for_the_standard_librarys_classes() -> None:
    import importlib

    from extractor.link.instances import KNOWN
    from extractor.solve.evaluate.builtins import InstancesOf
    from extractor.solve.values import StableFrozenSet, StableSet

    samples = [0, 1, True, 1.5, 1j, "", "x", b"", [], [0], (), (0,), {}, {"x": 0}, StableSet(), StableFrozenSet(), None]
    checked = 0
    for name, types in KNOWN.items():
        module, _, attr = name.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue  # an outside package not installed here (torch, numpy)
        for value in samples:
            try:
                expected = isinstance(value, cls)
            except TypeError:
                continue
            assert isinstance(value, InstancesOf(types).types) == expected, (name, value)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    "test, status, inputs",
    [
        # asynchat's push: no plain value is a bytearray or memoryview, so 0 reaches the raise
        ("not isinstance(data, (bytes, bytearray, memoryview))", "concrete", {"data": 0}),
        ("not isinstance(data, type)", "concrete", {"data": 0}),
        # a test that needs an instance no plain value is: assumed, as before
        ("isinstance(data, Exception)", "internal", {}),
    ],
)
def test_builtin_classes_no_candidate_is_an_instance_of(tmp_path, test: str, status: str, inputs: dict) -> None:
    card = only(extract_snippet(tmp_path, f"def push(data):\n    if {test}:\n        raise TypeError('no')\n"))
    assert (card.solved.trigger.status, card.solved.trigger.inputs) == (status, inputs)
    assert card.solved.trigger.verified is (status == "concrete")


@pytest.mark.parametrize(
    "code, fix",
    [
        # pickle's _loads: any value that is not a str gets past the test; 0 is one example
        ("import io\n\ndef loads(s):\n    if isinstance(s, str):\n        raise TypeError('no')\n    return io.BytesIO(s)\n",
         "set `s` to a value that is not a `str`, for example `0` (the trigger has `''`), so that `isinstance(s, str)` is false"),
        ("def push(data):\n    if not isinstance(data, (bytes, bytearray)):\n        raise TypeError('no')\n",
         "set `data` to an instance of one of `bytes`, `bytearray`, for example `b''` (the trigger has `0`), "
         "so that `not isinstance(data, (bytes, bytearray))` is false"),
    ],
)
def test_a_fix_of_a_type_test_says_which_type(tmp_path, code: str, fix: str) -> None:
    card = only(extract_snippet(tmp_path, code))
    assert [f.description for f in card.solved.fixes] == [fix]
