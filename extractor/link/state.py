"""The object's own state on a card: where the owner class assigns an attribute its guard reads.

A method's guard often reads an attribute no caller sets directly (``if self._closed:``); the
trigger can only assume a value for it. What the tree does show is where that value comes
from: each assignment of the attribute in a method of the owner class or of an in-tree class
it derives from (``__init__`` sets ``False``, ``close`` sets ``True``), and class attributes
(collect.declarations), with the source of the module constant a value names where the tree gives
it (``self._state = IDLE``). Solving then says which of those values reach the raise (solve.state).
Assignments in subclasses, elsewhere in the tree or through ``setattr`` are not seen: the
card says which classes were read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from ..model import STEP_DEPTH, ClassFact, EffectPath, FileFacts, MethodEffect, MethodStep, ObjectState, SiteFact, StateWrite
from ..model.pytext import own_expression, try_parse_expression
from .placeholders import lineage
from .project import Project

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
MAX_WRITES = 12  # per attribute: past that the list says little a reader can act on


def state_writes(project: Project, owner: str, receiver: str, inputs: Iterable[str],
                 settable: Mapping[str, object]) -> tuple[StateWrite, ...]:
    """For each input ``receiver.attribute`` (one attribute deep) that no constructor keyword
    sets, where the class ``owner`` (module-qualified) and its in-tree bases assign it."""
    wanted = {i for i in inputs if i.startswith(receiver + ".") and i.count(".") == 1 and i not in settable}
    if not wanted:
        return ()
    found: dict[str, list[StateWrite]] = {name: [] for name in sorted(wanted)}
    for _, known in lineage(project, owner):
        if known is None:
            continue
        facts, cls = known
        constants = dict(facts.constants)
        for attribute, store in cls.stores:
            writes = found.get(f"{receiver}.{attribute}")
            if writes is not None and len(writes) < MAX_WRITES:
                writes.append(StateWrite(
                    input=f"{receiver}.{attribute}", owner=cls.qualname, path=facts.path, store=store,
                    constant=_constant(project, facts, constants, store.value),
                ))
    return tuple(write for writes in found.values() for write in writes)


def constructed_state(project: Project, owner: str, writes: tuple[StateWrite, ...]) -> ObjectState:
    """The object's state as constructing the class ``owner`` leaves it: the attributes among
    ``writes`` it leaves at one known value, with that value's source. The ``__init__`` that
    runs (the first class of the lineage that defines one, every class before it in the
    tree) assigns it once, outside any block, a literal or a module constant's literal; no
    other ``__init__`` of the lineage assigns it, nor a method that ``__init__`` calls, nor
    ``__post_init__`` or ``__new__`` (``Config.__init__``'s ``self.loaded = False``: a new
    Config is not loaded). Where no ``__init__`` assigns it, a class body's literal is the
    value (``retries = 0``; no ``__init__`` in the lineage at all: ``object``'s runs)."""
    init_class = None
    for qualname, known in lineage(project, owner):
        if known is None:
            return ObjectState()  # a class outside the tree may define the __init__ that runs
        if "__init__" in dict(known[1].methods):
            init_class = known[1]
            break
    running = {*(init_class.init_calls if init_class is not None else ()), "__post_init__", "__new__"}  # (what construction runs)
    by_input: dict[str, list[StateWrite]] = {}
    for write in writes:
        by_input.setdefault(write.input, []).append(write)
    found = []
    from_class = []
    for name, assigned in sorted(by_input.items()):
        inits = [w for w in assigned if w.store.method == "__init__"]
        if any(w.store.method in running for w in assigned):
            continue
        source = _init_value(inits, init_class) if inits else _class_value(assigned)
        if source is not None:
            found.append((name, source))
            from_class.extend([] if inits else [name])
    return ObjectState(constructed=tuple(found), from_class=tuple(from_class))


def _init_value(inits: list[StateWrite], init_class: ClassFact | None) -> str | None:
    """The literal the ``__init__`` that runs assigns the attribute once, outside any block."""
    if init_class is None or len(inits) != 1 or inits[0].owner != init_class.qualname or inits[0].store.conditional:
        return None
    source = inits[0].constant or inits[0].store.value
    return source if source is not None and _is_literal(source) else None


def _class_value(assigned: list[StateWrite]) -> str | None:
    """The literal one class body of the lineage assigns the attribute, where no ``__init__``
    does: what a new object reads until a method assigns its own (``retries = 0``)."""
    body = [write for write in assigned if write.store.method is None]
    source = body[0].constant or body[0].store.value if len(body) == 1 else None
    return source if source is not None and _is_literal(source) else None


def method_steps(project: Project, owner: str, this: str, writes: tuple[StateWrite, ...]) -> tuple[MethodStep, ...]:
    """The methods a caller may call without arguments on an object of ``owner`` (collect.effects)
    that assign one of the attributes ``writes`` lists, by name: each as the class ``owner`` defines
    it, else as the one class of its lineage that does (none where two do, whose order the walk
    does not know, or where a class outside the tree may), its tests and stores written in the
    card's receiver ``this`` and with module constants' literal sources in place of their names;
    with the methods it calls on its object, read the same way."""
    wanted = {write.input.removeprefix(this + ".") for write in writes}
    effects = _lineage_effects(project, owner)
    steps = []
    for method, (facts, effect, defining) in sorted(effects.items()):
        if effect.is_bare and any(name in wanted for path in effect.paths for name, _ in path.stores):
            step = _step(project, facts, effect, defining, this)
            steps.append(replace(step, called=_called(project, effects, step, this)))
    return tuple(steps)


def _lineage_effects(project: Project, owner: str) -> dict[str, tuple[FileFacts, MethodEffect, str]]:
    """Each method of ``owner``'s lineage whose effect is read, as the class that runs it has it (see method_steps)."""
    definers: dict[str, list[str]] = {}
    effects: dict[tuple[str, str], tuple[FileFacts, MethodEffect]] = {}
    whole = True  # (every class of the lineage in the tree)
    for qualname, known in lineage(project, owner):
        if known is None or qualname is None:
            whole = False
            break
        facts, cls = known
        for name, _ in cls.methods:
            definers.setdefault(name, []).append(qualname)
        effects.update({(qualname, effect.method): (facts, effect) for effect in cls.effects})
    return {method: (*effects[owners[0], method], owners[0]) for method, owners in definers.items()
            if (owners[0] == owner or (len(owners) == 1 and whole)) and (owners[0], method) in effects}


def _step(project: Project, facts: FileFacts, effect: MethodEffect, defining: str, this: str) -> MethodStep:
    return MethodStep(method=effect.method, owner=defining, paths=tuple(_renamed(project, facts, effect, this, p) for p in effect.paths))


def _called(project: Project, effects: dict[str, tuple[FileFacts, MethodEffect, str]], step: MethodStep,
            this: str) -> tuple[MethodStep, ...]:
    """The methods ``step`` calls on its object that the lineage defines and whose ways are read,
    and those they call, ``STEP_DEPTH`` deep, by name."""
    found: dict[str, MethodStep] = {}
    work = [(step, 0)]
    while work:
        current, depth = work.pop()
        for name in sorted({call for path in current.paths for call in path.calls} - found.keys() - {step.method}):
            if name in effects and depth < STEP_DEPTH:
                facts, effect, defining = effects[name]
                found[name] = _step(project, facts, effect, defining, this)
                work.append((found[name], depth + 1))
    return tuple(found[name] for name in sorted(found))


def step_reads(steps: tuple[MethodStep, ...], this: str) -> tuple[str, ...]:
    """The attributes of the receiver ``this`` the steps' tests read, and those of the methods they
    call (``this._writing``): a new object's values of them decide which ways through a step it takes."""
    found: set[str] = set()
    every = [*steps, *(called for step in steps for called in step.called)]
    trees = (try_parse_expression(test) for step in every for path in step.paths for test in path.tests)
    for tree in filter(None, trees):
        found.update(ast.unparse(node) for node in ast.walk(tree)
                     if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == this)
    return tuple(sorted(found))


def _renamed(project: Project, facts: FileFacts, effect: MethodEffect, this: str, path: EffectPath) -> EffectPath:
    """``path`` in the card's names: ``this.attribute``, a constant's literal source for its name."""
    constants = dict(facts.constants)
    stores = tuple((f"{this}.{name}", _constant(project, facts, constants, source) or source) for name, source in path.stores)
    tests = tuple(_put_in(project, facts, constants, test, effect, this) for test in path.tests)
    return EffectPath(tests=tests, stores=stores, calls=path.calls, is_raise=path.is_raise)


def _put_in(project: Project, facts: FileFacts, constants: Mapping[str, str], code: str, effect: MethodEffect, this: str) -> str:
    """``code`` with the method's receiver renamed ``this`` and each name of a module constant
    with a literal source replaced by it (not a name the method binds itself)."""
    receiver, bound = effect.receiver, set(effect.bound)
    tree = own_expression(code)
    if tree is None:
        return code
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == receiver:
            node.id = this
        elif isinstance(node, ast.Name) and node.id not in bound and (source := _constant(project, facts, constants, node.id)) is not None \
                and _is_literal(source):
            node.id = f"({source})"
    return ast.unparse(tree)


def _is_literal(source: str) -> bool:
    try:
        ast.literal_eval(source)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _constant(project: Project, facts: FileFacts, constants: Mapping[str, str], value: str | None) -> str | None:
    """The source of the constant a dotted name denotes: the module's own, or one it imports."""
    if value is None or not _DOTTED.fullmatch(value) or value in ("True", "False", "None"):
        return None
    if value in constants:
        return constants[value]
    found = project.named_constant(facts, value)
    return found[1] if found is not None and found[0] == "value" else None


def receiver(site: SiteFact) -> str | None:
    """The object's name in a method that holds the raise itself (its first parameter), None
    elsewhere (a function, a staticmethod, a function nested in a method)."""
    if site.owner is None or site.at.function is None or site.at.function.rpartition(".")[0] != site.owner:
        return None
    params = site.signature.params
    if "staticmethod" in site.at.decorators or not params or params[0].kind in ("star", "starstar", "keyword"):
        return None
    return params[0].name
