"""Triggers: the passes from a linked card to a trigger's values (solve.triggers runs them in order).

Frame the card, pose its guard as a problem, search it, widen the types, assume the classes'
tests, read the atoms the trigger assumes, build the object (a fresh one, or past its
construction), complete the values, make and run the validator, set the loops' inputs, and
choose the inputs a caller passes. Each takes a Draft (or the Frame) and returns the next.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ..model import CONSTRUCTING, Card, CardContext, Domain, Param, Validator
from ..model.codes import CALLED, CLAIMED, DomainSource, Reason, TriggerStatus
from .aliases import read_imported
from .arrays import TorchSize, cohere, fold_arrays, frame_annotations, library_value, own_shapes
from .byname import read_by_name
from .construction import fresh_trigger, past_construction
from .domains import NO_VALUE, card_domains, default_value, field_domain, literal_tested, none_tested, of_declared_type, type_tested
from .draft import Draft, Form, Frame
from .elements import index_target, loop_element, loop_input, loop_value
from .evaluate import EvalError, run_validator
from .examples import is_class_level
from .messages import message_refs, render_message
from .passage import first_failing, names_read, unpacked_values
from .posing import build_problem
from .problem import Problem, Variable, classes_of
from .required import fill_passed_on, fill_required
from .rules import required_stand_ins
from .search import search
from .seeds import candidates
from .state import state_types
from .status import Reads, atom_kind, caller_sets, missing_arguments, read_atoms, trigger_status, unread_attributes
from .steps import stepped_trigger
from .validator import card_validator
from .values import Modelled, to_json_value


def frame_card(card: Card, ctx: CardContext) -> Frame:
    """The names a trigger may set (the guard's inputs and opaque names, and what the message
    and the raise's arguments read) and their domains; the guard as the solver reads it
    (``getattr(x, "a", d)`` as ``x.a``: solve.byname)."""
    card = read_imported(read_by_name(card), ctx)
    params = {p.name for p in ctx.signature.params}
    refs = message_refs(card.message, params)
    raised_with = [n for n in names_read(ctx.passage.evaluates, params) if n in ctx.signature.unread and n not in refs]
    names = list(dict.fromkeys([*card.statement.guard.inputs, *card.statement.guard.opaque, *refs, *raised_with]))
    domains = card_domains(card, ctx.signature.params, names, ctx.place.param_choices, _stored_params(ctx), ctx.place.param_literals)
    domains.update(state_types(card.solved.state, domains))  # (``self._closed``: False or True, as the class assigns it)
    if (validated := ctx.owner.validated) is not None:  # (an "after" field validator's value passed the field's type check)
        domains.update((n, replace(field_domain(validated), input=n)) for n in names if n in params and n in ctx.owner.settable)
    return Frame(card=card, ctx=ctx, params=params, refs=tuple(refs), raised_with=tuple(raised_with), names=tuple(names),
                 domains=domains, published=tuple(domains[n] for n in names))


def pose(frame: Frame) -> tuple[Frame, Problem]:
    """The frame with the loops the trigger runs once, and the guard as a problem to search.

    Raises:
        EvalError: the guard is no expression the evaluator reads.
    """
    card, ctx, guard = frame.card, frame.ctx, frame.card.statement.guard
    state = frozenset(n for n in guard.inputs if not caller_sets(n, frame.params, ctx.owner.settable) or n in ctx.owner.derived)
    domains, forms, turns = _loop_forms(frame)
    loops = {x: base for x, (xs, _) in forms.items() if (base := loop_input(xs)) is not None}  # target -> the input set through it
    frame = replace(frame, domains=domains, state=state, forms=forms, turns=frozenset(turns), loops=loops, preferred=_preferred(card, ctx))
    problem = build_problem(guard, domains, state, ctx.names.named, frozenset(loops), frame.preferred, ctx.names.instances)
    own_shapes(problem.variables.values(), frame_annotations(frame))
    return frame, problem


def _loop_forms(frame: Frame) -> tuple[dict[str, Domain], dict[str, Form], set[str]]:
    """``for x in xs``: the trigger sets ``xs = [x]``, where the caller sets xs, the guard does not read
    xs itself (it would then need both at once) and reads x (else x is no value the trigger can choose).
    (``xs`` may be a pure form over the input, ``raw.split(",")``, ``enumerate(xs)``: solve.elements;
    ``for k, v in d.items()``: both targets set through ``d``, at least one read.) The domains with
    the targets' types, each target's loop, and the targets that count a loop's turns."""
    guard, ctx, domains = frame.card.statement.guard, frame.ctx, dict(frame.domains)
    forms: dict[str, Form] = {}
    turns: set[str] = set()
    keywords = {p.name for p in ctx.signature.params if p.kind == "starstar"}
    for x, xs in guard.loops:
        targets = tuple(x.split(", "))
        base = loop_input(xs)
        if base is not None and caller_sets(base, frame.params, ctx.owner.settable) and base not in guard.inputs \
                and (x in guard.opaque if len(targets) == 1 else any(t in guard.opaque for t in targets)):
            if xs in keywords and len(targets) == 1:  # ``for key in kwargs``: the keywords' names
                xs = f"{xs}.keys()"
                domains[x] = replace(domains.get(x) or Domain(input=x, source=DomainSource.OPAQUE), types=("str",))
            forms.update({t: (xs, targets) for t in targets})
            if (index := index_target(xs, targets)) is not None:  # (the one turn is the first)
                domain = domains.get(index) or Domain(input=index, source=DomainSource.OPAQUE)
                domains[index] = replace(domain, choices=("0",), types=("int",))
                turns.add(index)
    return domains, forms, turns


def _preferred(card: Card, ctx: CardContext) -> dict[str, str]:
    """The type each untyped name's values are tried in first: a parameter's evident type
    (Param.used_as); for a value the body rebinds a parameter to (``value_1``), that
    parameter's evident or declared type (a preference, never a constraint: ``value =
    value.strip()`` is still a str, ``args = parser.parse_args(args)`` is not a list)."""
    preferred = {p.name: p.used_as for p in ctx.signature.params if p.used_as is not None}
    rebound = {base for _, base, kind in card.statement.guard.versions if kind == "rebound"}
    declared = card_domains(card, ctx.signature.params, sorted(rebound), ctx.place.param_choices, literals=ctx.place.param_literals) \
        if rebound else {}
    for shown, base, kind in card.statement.guard.versions:
        types = [t for t in declared[base].types if ":" not in t and t != "NoneType"] if base in declared else []
        guess = preferred.get(base) or (types[0] if len(types) == 1 else None)
        if kind == "rebound" and guess is not None:
            preferred[shown] = guess
    return preferred


def _stored_params(ctx: CardContext) -> dict[str, Param]:
    """The attributes (``self.http2``) constructing the object sets straight from one of its
    constructor's parameters, with that parameter."""
    by_name = {p.name: p for p in ctx.owner.constructor or ()}
    return {name: by_name[path[0]] for name, path in ctx.owner.settable.items() if len(path) == 1 and path[0] in by_name}


def search_guard(frame: Frame, problem: Problem) -> Draft:
    """The first search, over the declared domains."""
    return Draft(frame=frame, problem=problem, solution=search(problem), typed=problem, names=frame.names)


def widen(draft: Draft) -> Draft:
    """``if not isinstance(records, list): raise TypeError(...)`` of ``records: list``: no value
    of the declared type reaches it, and the test is there for the others (so is ``if prompt is
    None`` of ``prompt: str``). Searched again with the types the guard tests, None added where it
    tests for None; the inputs given a value outside their declared type are noted."""
    frame = draft.frame
    if draft.solution.status == "solved" or not (widened := _widened(frame)):
        return draft
    ctx = frame.ctx
    # One input widened at a time first (``prompt is None or images is None``: prompt alone), then all
    tries = [{name: domain} for name, domain in widened.items()][:_MAX_SINGLE_WIDENINGS]
    for chosen in tries + [widened] if len(widened) > 1 else tries:
        wide = build_problem(frame.card.statement.guard, {**frame.domains, **chosen}, frame.state, ctx.names.named,
                             frozenset(frame.loops), frame.preferred, ctx.names.instances)
        if (wider := search(wide)).status == "solved":
            outside = tuple(n for n in chosen if n in wider.changed and not of_declared_type(wider.assignment[n], frame.domains[n]))
            return replace(draft, problem=wide, typed=wide, solution=wider, outside=outside)
    return draft


_MAX_SINGLE_WIDENINGS = 4


def _widened(frame: Frame) -> dict[str, Domain]:
    """The inputs whose declared type the guard tests (``isinstance``), tests against None, or
    reads where it is a ``Literal``'s values; not where a decorator may check the arguments'
    types first (``@validate_call``, ``@beartype``, a pydantic ``@field_validator``'s value)."""
    code = frame.card.statement.guard.code
    if type_checked(frame.card):
        return type_tested(frame.domains, code)
    literal = literal_tested(frame.domains, code)
    return {**literal, **none_tested({**frame.domains, **literal}, code), **type_tested(frame.domains, code)}


def type_checked(card: Card) -> bool:
    """Whether a decorator of the card's function may check its arguments' types first."""
    return any(_TYPE_CHECKING_DECORATOR.search(d) for d in card.at.decorators)


# (``validate_call``, pydantic's ``field_validator``: the value passed pydantic's type check first)
_TYPE_CHECKING_DECORATOR = re.compile(r"validat|strict|beartype|typecheck|check_type", re.IGNORECASE)


def assume_classes(draft: Draft) -> Draft:
    """Plain values alone do not reach it (``isinstance(dt, datetime) and ...`` needs a real
    datetime): the tests become atoms again, values the trigger can only assume."""
    if draft.solution.status == "solved" or not classes_of(draft.problem.constants):
        return draft
    frame = draft.frame
    problem = build_problem(frame.card.statement.guard, frame.domains, frame.state, frame.ctx.names.named, frozenset(frame.loops),
                            frame.preferred)
    return replace(draft, problem=problem, solution=search(problem))


def assume_objects(draft: Draft) -> Draft:
    """Plain values alone do not reach it (``callable(func)`` or ``hasattr(stream, "read")`` true
    needs an object of some class): those tests become atoms again, values the trigger can only assume."""
    code = draft.frame.card.statement.guard.code
    if draft.solution.status == "solved" or ("callable(" not in code and "hasattr(" not in code):
        return draft
    frame = draft.frame
    ctx = frame.ctx
    problem = build_problem(frame.card.statement.guard, frame.domains, frame.state, ctx.names.named, frozenset(frame.loops),
                            frame.preferred, ctx.names.instances, objects=True)
    return replace(draft, problem=problem, solution=search(problem))


def assume_atoms(draft: Draft) -> Draft:
    """The atoms the trigger assumes values for (those the guard reads under it), and its status."""
    every_atom = {n for n, v in draft.problem.variables.items() if v.is_atom}
    if draft.solution.status == "solved":
        return _assumed(replace(draft, every_atom=every_atom))
    return _status(replace(draft, every_atom=every_atom, atoms=every_atom))


def avoid_internal(draft: Draft) -> Draft:
    """A path that reads no internal value (the other side of an ``or``, of a join), where one exists."""
    code, problem = draft.frame.card.statement.guard.code, draft.problem
    if not any(atom_kind(a) == TriggerStatus.INTERNAL for a in draft.atoms) or (" or " not in code and " if " not in code):
        return draft
    variables = {n: v for n, v in problem.variables.items() if not v.is_atom or atom_kind(n) != TriggerStatus.INTERNAL}
    if (direct := search(replace(problem, variables=variables, _base=None))).status != "solved":
        return draft
    return _assumed(replace(draft, solution=direct))


def construct_fresh(draft: Draft) -> Draft:
    """A trigger that reads the object's internal attributes as a new object has them
    (solve.construction.fresh_trigger), where every internal value it assumes is one; else as a
    method a caller calls on a new object leaves them (solve.steps)."""
    frame = draft.frame
    state = frame.ctx.state
    if draft.reason != "assumes_internal_values" or not (state.constructed or state.steps):
        return draft
    loops = frozenset(frame.loops)
    on_class = is_class_level(frame.card)  # (a classmethod reads ``cls._ATTRS`` as its class body gives it: no object, no method first)
    fresh = fresh_trigger(frame.card, frame.ctx, draft.atoms, frame.domains, frame.state, loops, frame.preferred, on_class)
    steps: tuple[str, ...] = ()
    if fresh is not None:
        problem, solution, constructed = fresh
    elif not on_class and (stepped := stepped_trigger(frame.card, frame.ctx, draft.problem, draft.atoms, frame.domains, frame.state,
                                                      loops, frame.preferred)) is not None:
        problem, solution, constructed, method = stepped
        steps = (method,)
    else:
        return draft
    every_atom = {n for n, v in problem.variables.items() if v.is_atom}
    return _assumed(replace(draft, problem=problem, solution=solution, constructed=constructed, steps=steps, every_atom=every_atom))


def construct_past(draft: Draft) -> Draft:
    """A claimed trigger whose object's construction raises first, searched again past it
    (solve.construction.past_construction)."""
    frame = draft.frame
    if draft.status not in CLAIMED:
        return draft
    built = past_construction(frame.card, frame.ctx, frame.domains, draft.problem, draft.solution, frame.state, frame.loops)
    if built is None:
        return draft
    names = list(draft.names)
    names.extend(n for n in built.changed if n not in names)
    return _assumed(replace(draft, solution=built, names=tuple(names)))


def _assumed(draft: Draft) -> Draft:
    """The draft with the atoms its solution reads, and its status."""
    atoms = read_atoms(draft.problem, draft.solution.assignment, draft.every_atom, draft.frame.card.statement.guard.opaque)
    return _status(replace(draft, atoms=atoms))


def _status(draft: Draft) -> Draft:
    status, reason = trigger_status(draft.frame.card.statement.guard, sorted(draft.atoms))
    return replace(draft, status=status, reason=reason)


def complete_values(draft: Draft) -> Draft:
    """The trigger's values: the solution's, with values for names only the message reads where a
    caller gives them (a parameter left at its default; a local, a caught exception or a
    constant of unknown value gets none, and the message is then not claimed), 0 for a loop's
    count, without the attributes of a plain value the guard never reads, with the arrays'
    shapes as long as their ``ndim``, and each array the search gave beside its attributes built
    with them (``x = torch.empty(4)`` beside ``x.shape = (1, 16)``, where ``x.stride(0)`` read
    the latter: the restated guard reads ``x`` alone), where the guard still holds."""
    frame, problem, solution = draft.frame, draft.problem, draft.solution
    ctx = frame.ctx
    refs = [r for r in [*frame.refs, *frame.raised_with] if caller_sets(r, frame.params, ctx.owner.settable)]
    env = _complete_env(solution.assignment, refs, frame.domains, ctx.passage.evaluates, frame_annotations(frame))
    env.update(dict.fromkeys(sorted(frame.turns - env.keys()), 0))  # (the message may name the count)
    unread = unread_attributes(problem, env)  # (``model_config = None``: its attributes are no input)
    if unread:
        env = {name: value for name, value in env.items() if name not in unread}
        solution = replace(solution, changed=tuple(n for n in solution.changed if n not in unread))
    env = cohere(env, problem.holds)
    env = _with_own_attributes(env, frame_annotations(frame), problem.holds)
    return replace(draft, env=_torch_sizes(env, frame_annotations(frame), problem.holds), solution=solution)


def _torch_sizes(env: dict[str, Any], annotations: Mapping[str, str | None],
                 holds: Callable[[dict[str, Any]], bool | None]) -> dict[str, Any]:
    """``env`` with each ``x.shape`` it gives as plain sizes (a seed, a value a conjunct derives)
    beside a torch tensor ``x`` (given, or declared) as the ``torch.Size`` the tensor has, where
    the guard still holds: a message prints it as torch does (``torch.Size([1, 1])``, not ``(1, 1)``)."""
    for name, value in sorted(env.items()):
        base = name.removesuffix(".shape")
        if base == name or type(value) not in (list, tuple) or not all(type(n) is int for n in value):
            continue
        model = env.get(base)
        model = model if isinstance(model, Modelled) else library_value(annotations.get(base))
        if model is not None and model.kind == "Tensor" and holds(trial := {**env, name: TorchSize(value)}) is True:
            env = trial
    return env


def _with_own_attributes(env: dict[str, Any], annotations: Mapping[str, str | None],
                         holds: Callable[[dict[str, Any]], bool | None]) -> dict[str, Any]:
    """``env`` with each array it gives beside that array's ``shape``, ``ndim`` or ``dtype``
    rebuilt with them (arrays.fold_arrays), one at a time, where the guard holds under it."""
    for name, value in sorted(fold_arrays(env, annotations).items(), key=lambda item: item[0]):
        if name in env and value is not env[name] and isinstance(env[name], Modelled) and holds(trial := {**env, name: value}) is True:
            env = trial
    return env


def _complete_env(env: dict[str, Any], refs: list[str], domains: dict[str, Domain], evaluates: tuple[str, ...],
                  annotations: Mapping[str, str | None]) -> dict[str, Any]:
    """Values for names only the message (or the raise's arguments) reads: their default, else
    the first value of their type under which nothing on the way fails (``evaluates``); an
    attribute of a declared tensor or array through the tensor's model (``{A.shape}`` of ``A:
    torch.Tensor``: a ``torch.Size``, as torch prints it, never a plain tuple)."""
    full = dict(env)
    for name in refs:
        if name in full or any(name.startswith(k + ".") for k in full):
            continue
        base, _, attribute = name.partition(".")
        if attribute and "." not in attribute and (model := library_value(annotations.get(base))) is not None and model.is_array:
            try:
                full[name] = model.attribute(attribute)  # (the example builds the tensor from it: arrays.fold_arrays)
                continue
            except AttributeError:
                pass
        domain = domains.get(name)
        if domain is not None and domain.has_default and default_value(domain) is not NO_VALUE:
            full[name] = default_value(domain)
        elif domain is not None:
            options = [*unpacked_values(name, evaluates), *candidates(Variable(name=name, domain=domain), [])]
            if options:
                full[name] = next((v for v in options if first_failing(evaluates, {**full, name: v}) is None), options[0])
    return full


def make_validator(draft: Draft) -> Draft:
    """The card's validator (solve.validator), over the problem's variables and the values the
    message reads; a new object's value is no input a standalone check could take."""
    if draft.constructed:
        return replace(draft, validator=None, validator_reason=Reason.NEEDS_VALUE_NO_CALLER_SETS)
    frame, problem, env = draft.frame, draft.problem, draft.env
    keys = list(dict.fromkeys([*problem.variables, *(r for r in frame.refs if r in env and r not in problem.constants)]))
    validator, reason = card_validator(frame.card, frame.ctx, problem, keys, frame.domains)
    return replace(draft, validator=validator, validator_reason=reason)


def show_message(draft: Draft) -> Draft:
    """The card's message under the trigger; a value only the message reads is assumed too."""
    shown = Reads(draft.env)
    draft = replace(draft, message=card_message(draft.frame.card, shown))
    if draft.atoms < (read := draft.atoms | (draft.every_atom & shown.read)):
        return _status(replace(draft, atoms=read))
    return draft


def card_message(card: Card, reads: Reads) -> str | None:
    """The card's message under the values ``reads`` gives (None where it cannot be computed)."""
    try:
        return render_message(card.message, reads) if card.message.parts is not None else None
    except EvalError:
        return None


def reproduce(draft: Draft) -> Draft:
    """What the validator raises under the trigger (solve.checks.NOT_REPRODUCED reads it)."""
    return replace(draft, raised=validator_outcome(draft.validator, draft.env) if draft.validator is not None else None)


def validator_outcome(validator: Validator, env: dict[str, Any]) -> Any:
    """What ``validator`` raises (or returns) on ``env``'s values; EvalError where it cannot run."""
    try:
        return run_validator(validator.code, {param: env.get(key) for param, key in validator.params.items()})
    except (EvalError, StopIteration):
        return EvalError


def set_loop_elements(draft: Draft) -> Draft:
    """Each loop's input set so that the loop runs once, on the element the trigger needs
    (``xs = [x]``); a loop whose element the trigger cannot set, or that no argument runs on
    that element, is noted (solve.checks.INSIDE_FOR_LOOP)."""
    frame, env = draft.frame, dict(draft.env)
    unset = len(set(frame.forms.values())) < len(frame.card.statement.guard.loops)
    for xs, targets in sorted(set(frame.forms.values())):
        if targets[0] not in env and len(targets) == 1:
            continue
        if (value := loop_value(xs, loop_element(targets, env))) is not NO_VALUE:
            env[frame.loops[targets[0]]] = value
        else:
            unset = True
    return replace(draft, env=env, unset_loop=unset)


def choose_inputs(draft: Draft) -> Draft:
    """The values a caller passes (not atoms, constants or what no caller sets), a value of its
    type for each required parameter nothing reads before the raise, and the required
    arguments the trigger still gives no value for."""
    frame, env = draft.frame, dict(draft.env)
    ctx = frame.ctx
    inputs = {n: to_json_value(env[n]) for n in [*draft.names, *frame.loops.values()] if n in env and n not in draft.every_atom
              and n not in draft.problem.constants and caller_sets(n, frame.params, ctx.owner.settable)}
    if draft.status not in CALLED:
        return replace(draft, env=env, inputs=inputs)
    # A tensor parameter whose attributes the trigger gives (``x.shape = [3]``): one of those
    # (``torch.empty(3)``); or, where the search gave it a tensor of other attributes beside them
    # (``x = torch.empty(2, 3)`` with ``x.ndim = 1``), one that has them
    for name, value in sorted(fold_arrays(env, frame_annotations(frame)).items(), key=lambda item: item[0]):  # (one at a time: in order)
        if value is not env.get(name) and (name in frame.params or name in inputs) and problem_holds(draft, {**env, name: value}):
            env[name], inputs[name] = value, to_json_value(value)
    placeholders = fill_required(ctx, env, inputs, type_checked(frame.card))
    passed_on = fill_passed_on(ctx, env, inputs)
    missing = _missing(frame.card, ctx, set(inputs), bool(draft.constructed))
    # The object's other required fields, where the trigger builds it: values their own rules accept
    filled = required_stand_ins(ctx, missing)
    env.update(filled)
    inputs.update({name: to_json_value(value) for name, value in filled.items()})
    return replace(draft, env=env, inputs=inputs, missing=tuple(m for m in missing if m not in filled), stand_ins=tuple(filled),
                   placeholders=placeholders, passed_on=passed_on)


def problem_holds(draft: Draft, env: dict[str, Any]) -> bool:
    return draft.problem.holds(env) is True


def _missing(card: Card, ctx: CardContext, given: set[str], constructing: bool = False) -> list[str]:
    params = [(p.name, p.default is None and p.kind not in ("star", "starstar")) for p in ctx.signature.params]
    if (card.at.function or "").rsplit(".", 1)[-1] in ("__init__", "__new__"):
        return missing_arguments(params, None, given, ctx.owner.settable, False, own_constructor=True)
    constructor = [(p.name, p.default is None and p.kind not in ("star", "starstar")) for p in ctx.owner.constructor] \
        if ctx.owner.constructor is not None else None
    return missing_arguments(params, constructor, given, ctx.owner.settable, constructing or bool(set(card.entry) & CONSTRUCTING))
