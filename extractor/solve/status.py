"""Trigger statuses: a solved guard and the path around the raise -> what a caller can do with it.

A found assignment is only as good as what it assigns. The inputs of the entry (parameters,
fields of the object, CLI flags) are set by a caller; an *environment* atom (``sys.platform``,
``os.path.exists(path)``, ``importlib.util.find_spec("x")``, an ``is_*_available()`` helper)
is a fact of the machine the caller can arrange; anything else is *internal* state: results
of methods on other objects, locals bound several times, caught exceptions. A raise inside an
``except`` handler needs its try body to raise first, and one inside a ``for`` loop needs an
element to reach it: neither is modelled yet, so neither is claimed. The statuses, each with
what it means, are ``model.codes.TriggerStatus``.

Only ``concrete`` and ``environment`` triggers (``CLAIMED``) whose whole path was modelled are "verified".
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..model import ContextKind, Guard, Reason, TriggerStatus
from ..model.pytext import try_parse_expression
from .problem import Problem

_ENVIRONMENT_NAMES = frozenset({"sys.platform", "sys.version_info", "sys.byteorder", "os.name", "os.sep", "os.environ"})
_ENVIRONMENT_CALLS = frozenset({
    "os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.islink", "os.path.lexists", "os.access",
    "os.getenv", "os.environ.get", "shutil.which", "importlib.util.find_spec", "platform.system",
    "platform.machine", "platform.python_implementation", "sys.getwindowsversion", "os.cpu_count",
})
# is_torch_available(), is_flashinfer_available(), current_platform.is_cuda(), has_triton()...
_ENVIRONMENT_HELPER = re.compile(
    r"(?:^|\.)(?:is_\w+_available|has_\w+|is_(?:cuda|rocm|tpu|xpu|cpu|hpu|neuron|mps|windows|linux|macos|darwin)\w*)$")
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\s*\(")


def atom_kind(code: str) -> TriggerStatus:
    """ENVIRONMENT or INTERNAL, for an atom of a guard (a call's code, or a name)."""
    head = code.split("[", 1)[0]
    if head in _ENVIRONMENT_NAMES or code.startswith("os.environ"):
        return TriggerStatus.ENVIRONMENT
    match = _CALL.match(code)
    name = match.group(1) if match else None
    if name is not None and (name in _ENVIRONMENT_CALLS or name.startswith("current_platform.")
                             or _ENVIRONMENT_HELPER.search(name) and _literal_arguments(code)):
        return TriggerStatus.ENVIRONMENT
    if " in os.environ" in code:
        return TriggerStatus.ENVIRONMENT
    return TriggerStatus.INTERNAL


_SPEC = re.compile(r"""^importlib\.util\.find_spec\((['"])([\w.]+)\1\)$""")


def spec_module(code: str) -> str | None:
    """``h2`` of ``importlib.util.find_spec('h2')`` (how collect.paths reads ``import h2``)."""
    found = _SPEC.match(code)
    return found.group(2) if found else None


def _literal_arguments(code: str) -> bool:
    """Whether a call passes only literals (``has_triton()``, ``is_cuda_available(0)``): a
    helper named like a machine check but given a value (``has_metaclass(node)``) tells
    about that value, not the machine."""
    call = try_parse_expression(code)
    return isinstance(call, ast.Call) and all(isinstance(a, ast.Constant) for a in [*call.args, *(k.value for k in call.keywords)])


def caller_sets(name: str, params: set[str], settable: dict[str, tuple[str, ...]]) -> bool:
    """Whether a caller sets input ``name``: a parameter of the entry (or an attribute of
    one), or an attribute of ``self`` that constructing the object sets (``settable``)."""
    root = name.split(".", 1)[0]
    if root in ("self", "cls"):
        return name in settable
    return root in params


def missing_arguments(params: list[tuple[str, bool]], constructor: list[tuple[str, bool]] | None, given: set[str],
                      settable: dict[str, tuple[str, ...]], constructing: bool, own_constructor: bool = False) -> list[str]:
    """The required arguments (``(name, required)`` pairs of the entry, and of the owner's
    constructor when the trigger builds the object) that the trigger gives no value for
    (``given``: the inputs it sets). A method whose trigger sets no attribute runs on any
    object the caller has; one that sets attributes needs the whole constructor call.
    ``own_constructor``: the entry is the constructor (``__init__``, ``__new__``): its parameters are the
    call's, not listed again as ``self.x``; an attribute the trigger sets goes in through the
    keyword the constructor assigns it from (``settable``), else the call cannot set it
    ("self": an object the tree shows no way to build so)."""
    roots = {name.split(".", 1)[0] for name in given}  # ``args.size`` gives a value for ``args``
    missing = [name for name, required in params if required and name not in ("self", "cls") and name not in roots]
    if own_constructor:
        through = {settable[name][0] for name in given if name in settable}
        missing = [name for name in missing if name not in through]
        unsettable = any(name.split(".", 1)[0] == "self" and name not in settable for name in given)
        return [*missing, "self"] if unsettable else missing
    if constructing or any(name in settable for name in given):
        if constructor is None:
            return [*missing, "self"]  # the object cannot be built from what the tree shows
        set_keywords = {settable[name][0] for name in given if name in settable}
        missing.extend(f"self.{name}" for name, required in constructor if required and name not in set_keywords and name not in given)
    return missing


def unmodelled_path(guard: Guard) -> Reason | None:
    """Why reaching the raise needs more than its guard (a reason code), or None."""
    kinds = {context.kind for context in guard.context}
    if ContextKind.DEFINED_IF in kinds:
        return Reason.DEFINED_CONDITIONALLY  # the definition exists only where the module's test held at import
    if ContextKind.CAUGHT in kinds:
        return Reason.CAUGHT_IN_FUNCTION  # the function's own handler catches it: the caller may never see it
    if ContextKind.EXCEPT in kinds:
        return Reason.RAISED_WHILE_HANDLING  # the try body must raise the caught class first
    if ContextKind.FINALLY in kinds:
        return Reason.RAISED_IN_FINALLY
    if any(context.kind in (ContextKind.LOOP, ContextKind.LOOP_ELSE) and context.code.startswith("for ") for context in guard.context):
        return Reason.INSIDE_FOR_LOOP  # an element must reach it (and an earlier one not leave)
    return None


def trigger_status(guard: Guard, atoms: list[str]) -> tuple[TriggerStatus, Reason | None]:
    """The status of a solved guard and its reason code; ``atoms``: the atoms (calls, locals,
    unresolved names) its solution assumes values for."""
    exits = [a for a in guard.approximations if a.endswith("_exit_ignored")]
    if guard.code == "True" and not guard.context and not exits:
        return TriggerStatus.UNCONDITIONAL, None
    if guard.code == "True" and exits:
        # An earlier ``try``/loop/``with`` may return first (ipaddress.ip_address returns from
        # its try bodies): the raise is reached only when that does not happen.
        return TriggerStatus.INTERNAL, Reason.EARLIER_EXIT_NOT_MODELLED
    path = unmodelled_path(guard)
    if path is not None:
        return TriggerStatus.INTERNAL, path
    internal = sorted(code for code in atoms if atom_kind(code) == TriggerStatus.INTERNAL)
    if internal:
        return TriggerStatus.INTERNAL, Reason.ASSUMES_INTERNAL_VALUES
    if atoms:
        return TriggerStatus.ENVIRONMENT, Reason.ASSUMES_ENVIRONMENT
    return TriggerStatus.CONCRETE, None


class Reads(dict[str, Any]):
    """An environment that records the keys an evaluation looks up (the evaluator reads a
    bound input or atom with ``get``: ``evaluate.core``)."""

    def __init__(self, env: dict[str, Any]) -> None:
        super().__init__(env)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            self.read.add(key)
        return super().get(key, default)


def read_atoms(problem: Problem, env: dict[str, Any], atoms: set[str], opaque: tuple[str, ...]) -> set[str]:
    """The atoms (calls, opaque names) that the guard reads under the solution ``env``: one
    it never looks up (past a short-circuit ``or``, in a branch of a join not taken:
    ``(value_1 if c else value)`` with ``c`` false) is nothing the trigger assumes. A join's
    opaque side counts where its test chooses it, read or not: that branch ran the code that
    made the value (gzip's ``fileobj = open(filename, ...)`` when ``fileobj is None``)."""
    recorded = Reads(env)
    problem.holds(recorded)
    read = atoms & recorded.read
    for node in ast.walk(problem.tree):
        if isinstance(node, ast.IfExp):
            for side, when in ((node.body, True), (node.orelse, False)):
                if isinstance(side, ast.Name) and side.id in opaque and side.id not in read:
                    chosen = problem.holds(env, ast.unparse(node.test))
                    if chosen is None or chosen is when:  # the name, or the atoms that hold it
                        word = re.compile(rf"(?<![\w.]){re.escape(side.id)}(?!\w)")
                        read |= {side.id, *(a for a in atoms if word.search(a))}
    return read


PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


def unread_attributes(problem: Problem, env: dict[str, Any]) -> set[str]:
    """The attributes (``model_config.multimodal_config``) of an input the solution gives a
    plain value (``model_config = None``) that the guard never looks up under it: past the
    short-circuit ``model_config is not None and ...`` they are no value of the trigger, and
    no caller could give a None one. Kept where the guard does not hold without them."""
    parents = [name for name, value in env.items() if isinstance(value, PLAIN)]
    children = {name for name in env if any(name.startswith(parent + ".") for parent in parents)}
    if not children:
        return set()
    recorded = Reads(env)
    if problem.holds(recorded) is not True:
        return set()
    unread = children - recorded.read
    return unread if unread and problem.holds({k: v for k, v in env.items() if k not in unread}) is True else set()
