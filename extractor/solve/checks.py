"""Triggers: the checks a claimed trigger must pass to be verified, each with its examples.

A check is a code (the reason a trigger it fires on is not verified), a predicate over the
draft, and short modules beside it, as Fixit's rules carry theirs:
``valid`` ones where the check passes (the trigger is verified), ``invalid`` ones where it
fires (the card's trigger reason is the code). tests/test_checks.py runs every example
through extraction.

Order matters: ``CHECKS`` runs in order and the first that fires gives the reason.
``INSIDE_FOR_LOOP`` runs earlier, as soon as the loops' inputs are set: it leaves the trigger
``internal``, which the passes after it read (no stand-in arguments, no missing ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..model import Domain
from ..model.codes import CALLED, CLAIMED, CONSTRUCTING, EntryKind, RaiseKind, Reason, TriggerStatus
from .arrays import incoherent_arrays
from .construction import constructs
from .domains import literal_value
from .draft import Draft, param_defaults
from .evaluate import Raised
from .examples import decorator_names, is_class_level
from .passage import first_failing, loop_reads, names_read
from .rules import read_annotation, unwrapped
from .status import PLAIN
from .validator import built_by_class


@dataclass(frozen=True, slots=True)
class Snippet:
    """A tiny module and the function whose one raise the example is about."""

    source: str
    function: str = "f"


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """A reason a claimed trigger is not verified, and when it holds."""

    code: Reason  # its description is the check's wording
    fires: Callable[[Draft], bool]
    valid: tuple[Snippet, ...]  # the check passes: the trigger is verified
    invalid: tuple[Snippet, ...]  # the check fires: the trigger's reason is the code
    overrides: bool = False  # the code replaces the status's own reason (``assumes_environment``), not only an empty one
    status: TriggerStatus | None = None  # the status it leaves (None: the trigger's own)


def value_parents(draft: Draft) -> set[str]:
    """The values a trigger gives beside an attribute of theirs (``sock = ''`` with ``sock.type = 2``:
    no value is both; the inputs are searched as leaves). The trigger shows no such value among
    its assumptions (``model_config = 0`` beside ``model_config.quantization``)."""
    named = {*draft.inputs, *(n for n in draft.atoms if n in draft.env)}
    return {n for n in named if isinstance(draft.env.get(n), PLAIN) and any(o.startswith(n + ".") for o in named)}


def _incoherent(draft: Draft) -> bool:
    named = {*draft.inputs, *(n for n in draft.atoms if n in draft.env)}
    return bool(incoherent_arrays({n: draft.env[n] for n in named if n in draft.env}))


def _abstract(draft: Draft) -> bool:
    return bool(draft.frame.ctx.owner.abstract) and not is_class_level(draft.frame.card)


def _helper_on_the_way(draft: Draft) -> bool:
    return any(draft.problem.holds(draft.env, code) is not False for code in draft.frame.ctx.place.earlier_helpers)


def _check_on_the_way(draft: Draft) -> bool:
    return any(not code or draft.problem.holds(draft.env, code) is not False for code in draft.frame.ctx.place.earlier_checks)


def _undefined(draft: Draft) -> bool:
    return bool(draft.frame.ctx.owner.undefined) and not is_class_level(draft.frame.card)


def _raises_input(draft: Draft) -> bool:
    exception = draft.frame.card.exception
    return exception.reason == "raised_variable" and exception.written in draft.inputs


def _raised_not_shown(draft: Draft) -> bool:
    """A raise any call reaches whose exception or message the tool does not compute (a concrete
    trigger's message is reproduced by its validator instead: NOT_REPRODUCED), or whose way
    reads the object's state that the trigger does not give (``"".join(self.subset)`` of a new
    object's None), that raises a class the object names (``raise self.Unsupported(...)``), or
    whose object may fail to build (Owner.plain_construction; an abstract class)."""
    card, ctx = draft.frame.card, draft.frame.ctx
    if draft.status != TriggerStatus.UNCONDITIONAL:
        return False
    unknown = card.statement.kind == RaiseKind.RERAISE or bool(card.exception.factory) or len(card.exception.classes) != 1
    if unknown or card.message.parts is None or draft.message is None:
        return True
    this = ctx.signature.params[0].name if card.docs.owner and ctx.signature.params else None
    if this is None or is_class_level(card):
        return False
    if not ctx.owner.plain_construction or EntryKind.ABSTRACT_ENFORCED in card.entry:
        return True  # (building the object may fail first: a constructor that calls anything, an abstract class)
    read = names_read(ctx.passage.evaluates, draft.frame.params)
    return (card.exception.written or "").startswith(this + ".") or any(n.startswith(this + ".") and n not in draft.env for n in read)


def _fails_on_the_way(draft: Draft) -> bool:
    ctx = draft.frame.ctx
    return first_failing(ctx.passage.evaluates, {**param_defaults(ctx), **draft.env}) is not None


def _construction_not_shown(draft: Draft) -> bool:
    ctx = draft.frame.ctx
    sets_attributes = any(n in ctx.owner.settable for n in draft.inputs) or bool(draft.constructed)
    return sets_attributes and not is_class_level(draft.frame.card) and (not constructs(draft.problem, ctx, draft.env)
                                                                         or _built_from_another_type(draft))


def _at_default(domain: Domain, value: Any) -> bool:
    """Whether ``value`` is the field's declared default (``mode: CompilationMode = None``): a caller passes nothing."""
    return domain.has_default and domain.default is not None and literal_value(domain.default) == value


def _built_from_another_type(draft: Draft) -> bool:
    """A constructor that runs more than stores (Owner.plain_construction) given, for an attribute
    it sets that is declared as a class only, a plain value of no type a library coerces into one
    (a number, a bool, a container; not a text or a dict, which pydantic may make an Enum member
    or a model of), or None the type does not take: ``base_layer = 0`` of ``base_layer:
    LinearBase``, whose ``self.base_layer.input_size`` it reads. It may fail on it first."""
    ctx, card = draft.frame.ctx, draft.frame.card
    if ctx.owner.plain_construction or set(card.entry) & CONSTRUCTING:
        return False  # (where the raise is construction's own, ``__post_init__``'s isinstance test, it is the point)
    for name in draft.inputs:
        domain = draft.frame.domains.get(name)
        value = draft.env.get(name)
        if name not in ctx.owner.settable or domain is None or not domain.annotation or isinstance(value, (str, dict)) \
                or not isinstance(value, PLAIN) or _at_default(domain, value):
            continue
        types = read_annotation(unwrapped(domain.annotation)).types
        classes = [t for t in types if t != "NoneType"]
        if classes and all(t.startswith("object:") and t not in ("object:Any", "object:object") for t in classes) \
                and not (value is None and "NoneType" in types):
            return True
    return False


_CACHING = frozenset({"cache", "lru_cache"})
_UNHASHABLE = (list, dict, set, bytearray)


def _cached_unhashable(draft: Draft) -> bool:
    """The function is cached, and the trigger passes it a value that cannot be hashed."""
    if decorator_names(draft.frame.card).isdisjoint(_CACHING):
        return False
    params = {p.name for p in draft.frame.ctx.signature.params}
    return any(name in params and isinstance(draft.env.get(name), _UNHASHABLE) for name in draft.inputs)


def _not_reproduced(draft: Draft) -> bool:
    """Where the class makes the message, the validator passes the site's own arguments: its
    first is not the text, which the card's template renders from the same arguments."""
    card, raised = draft.frame.card, draft.raised
    if draft.validator is None:
        return False
    expected = card.exception.classes[0].rsplit(".", 1)[-1] if card.exception.classes else None
    return not (draft.message is not None and isinstance(raised, Raised) and raised.exception == expected
                and (raised.message == draft.message or built_by_class(card.message)))


# What a Linux machine has, for the names a guard may test the platform by.
_LINUX = {"sys.platform": "linux", "os.name": "posix", "platform.system()": "Linux"}


def _other_platform(draft: Draft) -> bool:
    """The code imports a module of another platform (collect.platforms), or the trigger
    assumes a platform under which Linux's values do not make the guard true."""
    if draft.frame.ctx.place.platform_module is not None:
        return True
    assumed = {k for k in draft.env if any(k == name or k.startswith((name + ".", name + "[")) for name in _LINUX)}
    if not assumed:
        return False
    here = {k: v for k, v in draft.env.items() if k not in assumed}
    here.update({name: value for name, value in _LINUX.items() if any(k == name or k.startswith(name) for k in assumed)})
    return draft.problem.holds(here) is not True


INSIDE_FOR_LOOP = Check(
    code=Reason.INSIDE_FOR_LOOP,
    fires=lambda draft: draft.unset_loop,
    status=TriggerStatus.INTERNAL,
    valid=(Snippet('''
        def f(text: str):
            for part in text.split(","):
                if part == "":
                    raise ValueError("empty part")
        '''),),
    invalid=(Snippet('''
        def f(text: str):
            for part in text.split(","):
                if "," in part:  # no text splits into such a part
                    raise ValueError("comma")
        '''), Snippet('''
        def f(items: list, n: int):
            for item in items:  # the guard does not read the element
                if n > 3:
                    raise ValueError("n")
        ''')),
)

REPLACED_BY_COMPILED_MODULE = Check(
    code=Reason.REPLACED_BY_COMPILED_MODULE,
    fires=lambda draft: draft.frame.card.compiled_override,
    overrides=True,
    valid=(Snippet('''
        def f(x: int):
            if x > 3:
                raise ValueError("too big")
        '''),),
    invalid=(Snippet('''
        def f(x: int):
            if x > 3:
                raise ValueError("too big")

        try:
            from _accelerated import *
        except ImportError:
            pass
        '''),),
)

OTHER_PLATFORM = Check(
    code=Reason.OTHER_PLATFORM,
    fires=_other_platform,
    overrides=True,
    status=TriggerStatus.ENVIRONMENT,
    valid=(Snippet('''
        import sys

        def f(x: int):
            if sys.platform != "win32" and x < 0:  # Linux is not win32
                raise ValueError("negative")
        '''),),
    invalid=(Snippet('''
        import sys

        def f():
            if sys.platform == "win32":
                raise OSError("not on Windows")
        '''), Snippet('''
        import winreg

        def f(x: int):
            if x < 0:
                raise ValueError("negative")
        '''), Snippet('''
        def f(x: int):
            import msvcrt
            if x < 0:
                raise ValueError("negative")
        ''')),
)

VALUE_AND_ITS_ATTRIBUTE = Check(
    code=Reason.VALUE_AND_ITS_ATTRIBUTE,
    fires=lambda draft: bool(value_parents(draft)),
    valid=(Snippet('''
        def f(sock):
            if sock.type != 2:
                raise ValueError("bad socket type")
        '''),),
    invalid=(Snippet('''
        def f(sock):
            if sock is not None and sock.type != 2:  # sock = 0 beside sock.type = 1
                raise ValueError("bad socket type")
        '''),),
)

ABSTRACT_CLASS = Check(
    code=Reason.ABSTRACT_CLASS,
    fires=_abstract,
    valid=(Snippet('''
        class Detector:
            def __init__(self, width: int) -> None:
                if width < 1:
                    raise ValueError("width must be positive")
        ''', "Detector.__init__"),),
    invalid=(Snippet('''
        from abc import ABC, abstractmethod

        class Detector(ABC):
            def __init__(self, width: int) -> None:
                if width < 1:
                    raise ValueError("width must be positive")

            @abstractmethod
            def score(self) -> float: ...
        ''', "Detector.__init__"),
        Snippet('''
        import abc

        from torch import nn

        class Encoder(abc.ABC, nn.Module):  # (a base outside the tree: its own abstract forward still counts)
            def __init__(self, layer: str) -> None:
                super().__init__()
                if layer != "conv":
                    raise ValueError(f"unknown layer {layer}")

            @abc.abstractmethod
            def forward(self, x): ...
        ''', "Encoder.__init__")),
)

UNDEFINED_ATTRIBUTES = Check(
    code=Reason.UNDEFINED_ATTRIBUTES,
    fires=_undefined,
    valid=(Snippet('''
        class Compiler:
            executables = {"cc": "gcc"}

            def __init__(self) -> None:
                self.tools = dict(self.executables)

            def name(self, kind: str) -> str:
                if kind not in ("static", "shared"):
                    raise ValueError("unknown kind")
                return kind
        ''', "Compiler.name"),),
    invalid=(Snippet('''
        class Compiler:
            def __init__(self) -> None:
                self.tools = dict(self.executables)  # given by each subclass

            def name(self, kind: str) -> str:
                if kind not in ("static", "shared"):
                    raise ValueError("unknown kind")
                return kind
        ''', "Compiler.name"),),
)

INCOHERENT_ARRAYS = Check(
    code=Reason.INCOHERENT_ARRAYS,
    fires=_incoherent,
    valid=(Snippet('''
        def f(a, b):
            if a.ndim == 2 and a.shape[0] != b.shape[0]:
                raise ValueError("rows differ")
        '''), Snippet('''
        import torch

        def f(dtype: torch.dtype | None = None):
            if dtype is not None and dtype.itemsize == 1:  # dtype = torch.int8, whose own itemsize is 1
                raise ValueError("8-bit")
        ''')),
    invalid=(Snippet('''
        def f(a, b):
            if a.dtype != b.dtype:  # a.dtype = 0 beside b.dtype = 1: no dtype is a number
                raise ValueError("dtypes differ")
        '''),),
)

RAISES_AN_INPUT = Check(
    code=Reason.RAISES_AN_INPUT,
    fires=_raises_input,
    valid=(Snippet('''
        def f(err=None):
            if err is not None:
                raise ValueError(err)
        '''),),
    invalid=(Snippet('''
        def f(err=None):
            if err is not None:
                raise err
        '''),),
)

RAISED_NOT_SHOWN = Check(
    code=Reason.RAISED_NOT_SHOWN,
    fires=_raised_not_shown,
    valid=(Snippet('''
        def f(name):
            raise NotImplementedError(f"{name} is not supported")
        '''),),
    invalid=(Snippet('''
        def f(obj):
            raise ValueError("{0.name} is not supported".format(obj))  # (obj = 0 has no name: AttributeError first)
        '''), Snippet('''
        class Extractor:
            subset = None

            def end(self):
                text = "".join(self.subset)  # (a new object's None: TypeError first)
                raise ValueError(text)
        ''', "Extractor.end")),
)

FAILS_ON_THE_WAY = Check(
    code=Reason.FAILS_ON_THE_WAY,
    fires=_fails_on_the_way,
    valid=(Snippet('''
        def f(version: str, removed: str) -> None:
            shown = f"{removed}.0"
            if version >= removed:
                raise RuntimeError(f"removed in {shown}")
        '''),),
    invalid=(Snippet('''
        def f(version: str, removed: str) -> None:
            shown = f"{removed[0]}.{removed[1]}"  # IndexError on removed = ''
            if version >= removed:
                raise RuntimeError(f"removed in {shown}")
        '''),),
)

HELPER_ON_THE_WAY = Check(
    code=Reason.HELPER_ON_THE_WAY,
    fires=_helper_on_the_way,
    valid=(Snippet('''
        def fail(message: str) -> None:
            raise ValueError(message)

        def f(size: int) -> None:
            if size > 100:
                fail("too large")
            if size < 0:
                raise ValueError("negative size")
        ''', "f"),),
    invalid=(Snippet('''
        def fail(message: str) -> None:
            raise ValueError(message)

        def f(size: int, strict: bool = False) -> None:
            if strict or size < -5:
                fail("not allowed")
            if size < 0:
                raise ValueError("negative size")
        ''', "f"),),
)

CHECK_ON_THE_WAY = Check(
    code=Reason.CHECK_ON_THE_WAY,
    fires=_check_on_the_way,
    valid=(Snippet('''
        def _validate(rows: int) -> None:
            if rows > 1000:
                raise ValueError("too many rows")

        def f(rows: int, cols: int) -> None:
            _validate(rows)
            if cols > rows:
                raise ValueError("more columns than rows")
        ''', "f"),),
    invalid=(Snippet('''
        def _validate(rows: int, limit: int) -> None:
            if rows > limit:
                raise ValueError("too many rows")

        def f(rows: int, cols: int) -> None:
            _validate(rows, 10 * cols)
            if cols < 0:
                raise ValueError("negative columns")
        ''', "f"),),
)

CACHED_UNHASHABLE = Check(
    code=Reason.CACHED_UNHASHABLE,
    fires=_cached_unhashable,
    valid=(Snippet('''
        import functools

        @functools.lru_cache(maxsize=None)
        def f(name: str):
            if len(name) > 3:
                raise ValueError("name too long")
        '''),),
    invalid=(Snippet('''
        from functools import cache

        @cache
        def f(items: list):
            if len(items) > 3:
                raise ValueError("too many items")
        '''),),
)

ARGUMENT_PASSED_ON = Check(
    code=Reason.ARGUMENT_PASSED_ON,
    fires=lambda draft: bool(draft.passed_on),
    valid=(Snippet('''
        def make_layer(size: int, activation: str) -> None:
            if activation != "relu":
                raise ValueError(f"unsupported activation: {activation}")
            build(size)
        ''', "make_layer"),),
    invalid=(Snippet('''
        def make_layer(size: int, activation: str) -> None:
            weights = build(size)  # (may refuse the size the trigger gives)
            if activation != "relu":
                raise ValueError(f"unsupported activation: {activation}")
        ''', "make_layer"),),
)

LOOP_ON_THE_WAY = Check(
    code=Reason.LOOP_ON_THE_WAY,
    fires=lambda draft: loop_reads(draft.inputs, draft.frame.card.statement.guard.looped),
    valid=(Snippet('''
        class O:
            ATTRS = ["a"]

            def set_attrs(self, attrs):
                for attr in self.ATTRS:
                    print(attr)
                if attrs:
                    raise TypeError("invalid")
        ''', "O.set_attrs"),),
    invalid=(Snippet('''
        class O:
            ATTRS = ["a"]

            def set_attrs(self, attrs):
                for attr in self.ATTRS:
                    if attr in attrs:  # TypeError on attrs = 1
                        del attrs[attr]
                if attrs:
                    raise TypeError("invalid")
        ''', "O.set_attrs"),),
)

CONSTRUCTION_NOT_SHOWN = Check(
    code=Reason.CONSTRUCTION_NOT_SHOWN,
    fires=_construction_not_shown,
    valid=(Snippet('''
        class Box:
            def __init__(self, size: int = 1) -> None:
                if size < 1:
                    raise ValueError("size must be positive")
                self.size = size

            def take(self, n: int) -> None:
                if n > self.size:
                    raise ValueError("too many")
        ''', "Box.take"),
        Snippet('''
        from dataclasses import dataclass

        class Mesh:
            pass

        @dataclass
        class Layout:
            mesh: Mesh

            def __post_init__(self) -> None:  # (construction's own test of the type: any value reaches it)
                if not isinstance(self.mesh, Mesh):
                    raise TypeError("layout mesh must be a Mesh")
        ''', "Layout.__post_init__")),
    invalid=(Snippet('''
        class Box:
            def __init__(self, size: int = 1, cap=object()) -> None:
                self.size = size
                self.cap = cap
                if self.cap is None:  # of a default that is no literal
                    raise ValueError("no cap")

            def take(self, n: int) -> None:
                if n > self.size:
                    raise ValueError("too many")
        ''', "Box.take"),
        Snippet('''
        class Linear:
            input_size = 1

        class Column(Linear):
            pass

        class Adapter:
            def __init__(self, base: Linear) -> None:
                self.base = base
                self.input_size = self.base.input_size  # (AttributeError on the trigger's plain value)

            def create(self, n: int) -> None:
                if not isinstance(self.base, Column):
                    raise NotImplementedError("only column layers")
        ''', "Adapter.create")),
)

NOT_REPRODUCED = Check(
    code=Reason.NOT_REPRODUCED,
    fires=_not_reproduced,
    valid=(Snippet('''
        def f(data):
            if not isinstance(data, str):
                raise TypeError(f"data must be str, not {type(data).__name__}")
        '''),),
    invalid=(Snippet('''
        def f(data):
            if not isinstance(data, str):
                raise TypeError(f"data must be str, not {data.__class__.__name__}")  # (no __class__: no message)
        '''),),
)

# In order: the first that fires gives the reason.
CHECKS = (OTHER_PLATFORM, REPLACED_BY_COMPILED_MODULE, VALUE_AND_ITS_ATTRIBUTE, ABSTRACT_CLASS, UNDEFINED_ATTRIBUTES, INCOHERENT_ARRAYS,
          RAISES_AN_INPUT, RAISED_NOT_SHOWN, CACHED_UNHASHABLE, FAILS_ON_THE_WAY, HELPER_ON_THE_WAY, CHECK_ON_THE_WAY, LOOP_ON_THE_WAY,
          ARGUMENT_PASSED_ON, CONSTRUCTION_NOT_SHOWN, NOT_REPRODUCED)
RULES = (INSIDE_FOR_LOOP, *CHECKS)  # every check, with its examples


def check_loops(draft: Draft) -> Draft:
    """A claimed trigger inside a loop it cannot run on its element is internal (INSIDE_FOR_LOOP)."""
    return _demoted(draft, INSIDE_FOR_LOOP) if draft.status in CLAIMED and INSIDE_FOR_LOOP.fires(draft) else draft


def verify(draft: Draft) -> Draft:
    """The trigger is verified when the guard holds under it, it is claimed or any call reaches
    the raise (CALLED), the whole path to the raise was modelled, it gives every required
    argument, and no check fires. Such a trigger with no reason of its own takes the first
    check that fires (one that ``overrides`` replaces its own reason too: an environment
    trigger's ``assumes_environment``)."""
    fired = [check for check in CHECKS if check.fires(draft)]  # (the verdict needs every one)
    if draft.status in CALLED:
        first = next((check for check in fired if draft.reason is None or check.overrides), None)
        draft = _demoted(draft, first) if first is not None else draft
    verified = (draft.problem.holds(draft.env) is True and draft.status in CALLED and not draft.frame.card.statement.guard.approximations
                and not draft.missing and not fired)
    return replace(draft, verified=verified, parents=value_parents(draft))  # (a parent is no assumption the trigger shows)


def _demoted(draft: Draft, check: Check) -> Draft:
    return replace(draft, status=check.status or draft.status, reason=check.code)
