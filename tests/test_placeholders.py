"""Placeholder methods (link.placeholders): what their cards claim about reaching the raise,
checked by running fixtures/callers/shop/plugins.py (written for this project, safe to run)
in a child interpreter.

- "placeholder": a subclass that does not define the method raises from the card's line;
  one that defines it does not.
- "abstract_enforced": creating an instance of a subclass that does not define it fails
  with TypeError, and an override's ``super()`` call reaches the card's line.
- "abstract_unenforced": such an instance is created, and the call raises.
- "class_level": calling it on the class raises, with no instance.
- "refuses": a class the owner derives from defines the method too, and the owner's
  subclasses that do not define it again raise from the card's line.
"""

from __future__ import annotations

import json
import subprocess
import sys

from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, extract_snippet, run_cli

ROOT = FIXTURES / "callers"

_PROBE = r"""
import importlib, inspect, json, sys, traceback
module, owner, method, codes, line = sys.argv[1:6]
cls = getattr(importlib.import_module(module), owner)
codes = codes.split(",")

def raised_at(call):
    try:
        call()
    except NotImplementedError as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return frame.lineno == int(line) and frame.filename.endswith("plugins.py")
    return False

def arguments(function):
    return [None] * (len(inspect.signature(function).parameters) - 1)

out = {}
bare = type("Bare", (cls,), {})
if "refuses" in codes:
    instance = bare()
    bound = getattr(instance, method)
    required = [p for p in inspect.signature(bound).parameters.values() if p.default is p.empty and p.kind <= p.KEYWORD_ONLY]
    out["subclass_call_raises"] = raised_at(lambda: bound(*[None] * len(required)))
    out["inherited_elsewhere"] = any(method in vars(base) for base in cls.__mro__[1:])
elif "class_level" in codes:
    out["class_call_raises"] = raised_at(lambda: getattr(cls, method)())
    out["subclass_call_raises"] = raised_at(lambda: getattr(bare, method)())
else:
    try:
        instance = bare()
    except TypeError:
        out["bare_instance"] = "TypeError"
    else:
        out["bare_instance"] = "created"
        out["bare_call_raises"] = raised_at(lambda: getattr(instance, method)(*arguments(getattr(cls, method))))
    base = getattr(cls, method)
    def override(self, *args):
        return base(self, *args)  # what super().method(...) runs
    calling_super = type("CallsSuper", (cls,), {method: override})()
    out["super_call_raises"] = raised_at(lambda: getattr(calling_super, method)(*arguments(base)))
    defining = type("Defines", (cls,), {method: lambda self, *args: "done"})()
    out["defined_call_returns"] = getattr(defining, method)(*arguments(base)) == "done"
print(json.dumps(out))
"""


def _cards(tmp_path, capsys) -> list[dict]:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(ROOT), "-o", str(out), "--no-cache").code == 0
    return [c for c in load_catalog(str(out / "catalog.json"))["errors"] if {"placeholder", "refuses"} & set(c["entry"])]


def _probe(card: dict) -> dict:
    owner, method = card["function"].rsplit(".", 1)
    module = card["path"].removesuffix(".py").replace("/", ".")
    run = subprocess.run([sys.executable, "-c", _PROBE, module, owner, method, ",".join(card["entry"]), str(card["line"])],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(run.stdout)


def test_placeholder_cards_of_the_fixture(tmp_path, capsys) -> None:
    codes = {c["function"]: c["entry"] for c in _cards(tmp_path, capsys)}
    assert codes == {
        "Exporter.export": ["placeholder", "abstract_enforced"],
        "Formatter.format": ["placeholder"],
        "Legacy.run": ["placeholder", "abstract_unenforced"],
        "Source.load": ["placeholder", "class_level"],
        "Encoder.encode_row": ["placeholder", "abstract_unknown"],
        "FixedFormatter.format": ["refuses"],
        "Tally.fromkeys": ["refuses"],
        "Step.__call__": ["placeholder"],  # (``object.__call__`` is the metaclass's: not inherited)
    }


def test_what_placeholder_cards_claim_holds_when_run(tmp_path, capsys) -> None:
    expected = {
        "placeholder": {"bare_instance": "created", "bare_call_raises": True, "super_call_raises": True, "defined_call_returns": True},
        "abstract_enforced": {"bare_instance": "TypeError", "super_call_raises": True, "defined_call_returns": True},
        "abstract_unenforced": {"bare_instance": "created", "bare_call_raises": True, "super_call_raises": True, "defined_call_returns": True},
        "class_level": {"class_call_raises": True, "subclass_call_raises": True},
        "refuses": {"subclass_call_raises": True, "inherited_elsewhere": True},
    }
    checked = 0
    for card in _cards(tmp_path, capsys):
        claim = card["entry"][-1]
        if claim in expected:  # ("abstract_unknown" claims nothing about the run)
            assert _probe(card) == expected[claim], card["function"]
            checked += 1
    assert checked == 7


def test_placeholder_card_offers_the_override_as_its_fix(tmp_path, capsys) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(ROOT), "-o", str(out), "--no-cache", "--site", str(tmp_path / "site")).code == 0
    card = next(c for c in load_catalog(str(out / "catalog.json"))["errors"] if c["function"] == "Exporter.export")
    markdown = (out / "errors" / f"{card['id']}.md").read_text(encoding="utf-8")
    assert "Define `export` in the class of the object it is called on (a subclass of `Exporter`)" in markdown
    assert "creating an instance of a class that does not define the method fails first, with `TypeError`" in markdown
    html = next((tmp_path / "site").rglob(f"{card['id']}.html")).read_text(encoding="utf-8")
    assert "Define <code>export</code> in the class of the object it is called on" in html


_UNDEFINED = '''
import sys


class Base:
    if sys.platform == "win32":
        def _start(self):
            return "win"
    else:
        def _start(self):
            return "posix"

    def __init__(self):
        self.started = self._start()
        if hasattr(self, "_extra"):
            self.extra = self._extra
        self.tools = dict(self.executables)  # each subclass gives it

    def pick(self, kind):
        if kind not in ("static", "shared"):
            raise ValueError("unknown kind")
        return kind


class Unix(Base):
    executables = {"cc": "gcc"}

    def build(self, kind):
        if kind not in ("static", "shared"):
            raise ValueError("unknown kind to build")
        return kind
'''


def test_a_constructor_reading_what_only_subclasses_define_is_no_verified_trigger(tmp_path) -> None:  # noqa: ANN001
    """``Base()`` fails with AttributeError (it reads ``self.executables``), so the card of
    ``Base.pick`` claims no verified trigger; ``Unix`` defines it, and its method's trigger
    stands. The methods ``Base`` binds under an ``if`` and the attribute it tests with
    ``hasattr`` count as defined."""
    cards = {card.at.function: card for card in extract_snippet(tmp_path, _UNDEFINED)}
    pick, build = cards["Base.pick"].solved.trigger, cards["Unix.build"].solved.trigger
    assert pick is not None and not pick.verified and pick.reason == "undefined_attributes"
    assert build is not None and build.verified
    run = subprocess.run([sys.executable, "-c", "import mod; mod.Base()"], cwd=tmp_path, capture_output=True, text=True)
    assert "AttributeError" in run.stderr and "executables" in run.stderr
    run = subprocess.run([sys.executable, "-c", "import mod; mod.Unix().build('x')"], cwd=tmp_path, capture_output=True, text=True)
    assert "ValueError: unknown kind to build" in run.stderr


_ANNOTATED = '''
from dataclasses import dataclass


class Engine:
    model_config: dict  # (set by the class that mixes this in)


class Pooling(Engine):
    def __init__(self):
        self.task = self.model_config.get("task")

    def encode(self, prompts):
        if isinstance(prompts, dict) and "data" in prompts:
            raise ValueError("'data' is only for the plugin task")
        return prompts


@dataclass
class Record:
    size: int

    def check(self, kind):
        if kind not in ("a", "b"):
            raise ValueError("unknown kind")


class Made:
    count: int

    def __new__(cls):
        self = super().__new__(cls)
        self.count = 0
        return self

    def __init__(self):
        self.total = self.count + 1

    def check(self, kind):
        if kind not in ("a", "b"):
            raise ValueError("unknown kind to make")
'''


def test_an_annotation_without_a_value_defines_nothing_in_a_plain_class(tmp_path) -> None:  # noqa: ANN001
    """``model_config: dict`` in a plain class body binds no attribute: ``Pooling()`` fails with
    AttributeError, so ``Pooling.encode`` claims no verified trigger; a dataclass's field is
    set by its generated ``__init__``, and ``Made``'s by its ``__new__``."""
    cards = {card.at.function: card for card in extract_snippet(tmp_path, _ANNOTATED)}
    encode, check = cards["Pooling.encode"].solved.trigger, cards["Record.check"].solved.trigger
    assert encode is not None and not encode.verified and encode.reason == "undefined_attributes"
    assert check is not None and check.verified
    made = cards["Made.check"].solved.trigger
    assert made is not None and made.verified
    run = subprocess.run([sys.executable, "-c", "import mod; mod.Pooling()"], cwd=tmp_path, capture_output=True, text=True)
    assert "AttributeError" in run.stderr and "model_config" in run.stderr
