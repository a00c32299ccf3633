"""Triggers: a linked Card -> the same card with domains, trigger, fixes, validator and example.

Everything here is verified in the restricted evaluator before it is published: the
trigger makes the guard true and makes the generated validator raise the card's message;
each fix makes the guard false, trips no other raise of the function, and makes the
validator pass. What cannot be verified says so (``verified: false`` and a reason).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from ..model import CONSTRUCTING, Card, CardContext, Domain, Fix, Opaque, Param, Trigger, Validator
from .arrays import cohere, incoherent_arrays
from .construction import constructs, fresh_trigger, past_construction
from .domains import (
    NO_VALUE,
    any_value,
    card_domains,
    default_source,
    default_value,
    literal_value,
    of_declared_type,
    param_domain,
    type_tested,
)
from .elements import index_target, loop_element, loop_input, loop_value
from .environ import ENVIRON, environ_setup
from .evaluate import EvalError, InstancesOf, Raised, run_validator
from .examples import build_example, is_class_level
from .fixes import bare_test, describe_fix, find_fixes, quiet_stand_ins
from .messages import message_refs, render_message, shown_message
from .passage import first_failing, loop_reads, names_read, unpacked_values
from .problem import Problem, Variable, build_problem, candidates, classes_of
from .search import Solution, search
from .state import reached, state_types
from .status import CLAIMED, PLAIN, Reads, atom_kind, caller_sets, missing_arguments, read_atoms, trigger_status, unread_attributes
from .validator import built_by_class, card_validator
from .values import to_json_value

log = logging.getLogger("raisedocs")


def _complete_env(env: dict[str, Any], refs: list[str], domains: dict[str, Domain], evaluates: tuple[str, ...]) -> dict[str, Any]:
    """Values for names only the message (or the raise's arguments) reads: their default, else
    the first value of their type under which nothing on the way fails (``evaluates``)."""
    full = dict(env)
    for name in refs:
        if name in full or any(name.startswith(k + ".") for k in full):
            continue
        domain = domains.get(name)
        if domain is not None and domain.has_default and default_value(domain) is not NO_VALUE:
            full[name] = default_value(domain)
        elif domain is not None:
            options = [*unpacked_values(name, evaluates), *candidates(Variable(name=name, domain=domain), [])]
            if options:
                full[name] = next((v for v in options if first_failing(evaluates, {**full, name: v}) is None), options[0])
    return full


def _run(validator: Validator, env: dict[str, Any]) -> Any:
    try:
        return run_validator(validator.code, {param: env.get(key) for param, key in validator.params.items()})
    except (EvalError, StopIteration):
        return EvalError


def solve_card(card: Card, ctx: CardContext) -> Card:
    """The card with its domains, trigger, fixes, validator and example filled in."""
    params = {p.name for p in ctx.params}
    refs = message_refs(card.message, params)
    # parameters only the raise's arguments read (``raise self.error(msg, len(name) + offset)``)
    raised_with = [n for n in names_read(ctx.evaluates, params) if n in ctx.unread and n not in refs]
    names = list(dict.fromkeys([*card.guard.inputs, *card.guard.opaque, *refs, *raised_with]))
    domains = card_domains(card, ctx.params, names, ctx.param_choices, _stored_params(ctx))
    domains.update(state_types(card.state, domains))  # (``self._closed``: False or True, as the class assigns it)
    published = tuple(domains[n] for n in names)
    if isinstance(card.guard.tree, Opaque):
        trigger = Trigger(status="unsolved", inputs={}, reason="guard_not_modelled")
        return replace(card, domains=published, trigger=trigger)
    try:
        state = frozenset(n for n in card.guard.inputs if not caller_sets(n, params, ctx.settable) or n in ctx.derived)
        # ``for x in xs``: the trigger sets ``xs = [x]``, where the caller sets xs, the guard does not read
        # xs itself (it would then need both at once) and reads x (else x is no value the trigger can choose).
        # (``xs`` may be a pure form over the input, ``raw.split(",")``, ``enumerate(xs)``: solve.elements;
        # ``for k, v in d.items()``: both targets set through ``d``, at least one read)
        forms: dict[str, tuple[str, tuple[str, ...]]] = {}  # each target -> (iterable, the loop's targets)
        turns: set[str] = set()  # targets that count a loop's turns: 0 on the one turn the trigger gives it
        keywords = {p.name for p in ctx.params if p.kind == "starstar"}
        for x, xs in card.guard.loops:
            targets = tuple(x.split(", "))
            base = loop_input(xs)
            if base is not None and caller_sets(base, params, ctx.settable) and base not in card.guard.inputs \
                    and (x in card.guard.opaque if len(targets) == 1 else any(t in card.guard.opaque for t in targets)):
                if xs in keywords and len(targets) == 1:  # ``for key in kwargs``: the keywords' names
                    xs = f"{xs}.keys()"
                    domains[x] = replace(domains.get(x) or Domain(input=x, source="opaque"), types=("str",))
                forms.update({t: (xs, targets) for t in targets})
                if (index := index_target(xs, targets)) is not None:  # (the one turn is the first)
                    domains[index] = replace(domains.get(index) or Domain(input=index, source="opaque"), choices=("0",), types=("int",))
                    turns.add(index)
        loops = {x: loop_input(xs) for x, (xs, _) in forms.items()}  # target -> the input set through it
        preferred = _preferred(card, ctx)
        problem = build_problem(card.guard, domains, state, ctx.named, frozenset(loops), preferred, ctx.instances)
    except EvalError:
        return replace(card, domains=published, trigger=Trigger(status="unsolved", inputs={}, reason="guard_not_expression"))
    solution = search(problem)
    outside: tuple[str, ...] = ()  # inputs given a value outside their declared type
    if solution.status != "solved" and (widened := type_tested(domains, card.guard.code)):
        # ``if not isinstance(records, list): raise TypeError(...)`` of ``records: list``: no
        # value of the declared type reaches it, and the test is there for the others.
        wide = build_problem(card.guard, {**domains, **widened}, state, ctx.named, frozenset(loops), preferred, ctx.instances)
        if (wider := search(wide)).status == "solved":
            problem, solution = wide, wider
            outside = tuple(n for n in widened if n in wider.changed and not of_declared_type(wider.assignment[n], domains[n]))
    typed = problem  # (its isinstance classes known: what a plain value the class assigns is tested with, solve.state)
    if solution.status != "solved" and classes_of(problem.constants):
        # Plain values alone do not reach it (``isinstance(dt, datetime) and ...`` needs a real
        # datetime): the tests become atoms again, values the trigger can only assume.
        problem = build_problem(card.guard, domains, state, ctx.named, frozenset(loops), preferred)
        solution = search(problem)
    every_atom = {n for n, v in problem.variables.items() if v.is_atom}
    atoms = read_atoms(problem, solution.assignment, every_atom, card.guard.opaque) if solution.status == "solved" else every_atom
    if any(atom_kind(a) == "internal" for a in atoms) and (" or " in card.guard.code or " if " in card.guard.code):
        # a path that reads no internal value (the other side of an ``or``, of a join)?
        variables = {n: v for n, v in problem.variables.items() if not v.is_atom or atom_kind(n) != "internal"}
        if (direct := search(replace(problem, variables=variables, _base=None))).status == "solved":
            solution, atoms = direct, read_atoms(problem, direct.assignment, every_atom, card.guard.opaque)
    status, status_reason = trigger_status(card.guard, sorted(atoms))
    constructed: dict[str, Any] = {}  # attributes read as a new object has them (the trigger builds one)
    if status_reason == "assumes_internal_values" and ctx.constructed and not is_class_level(card):
        fresh = fresh_trigger(card, ctx, problem, atoms, domains, state, frozenset(loops), preferred)
        if fresh is not None:
            problem, solution, constructed = fresh
            every_atom = {n for n, v in problem.variables.items() if v.is_atom}
            atoms = read_atoms(problem, solution.assignment, every_atom, card.guard.opaque)
            status, status_reason = trigger_status(card.guard, sorted(atoms))
    built = past_construction(card, ctx, domains, problem, solution, state, loops) if status in CLAIMED else None
    if built is not None:
        solution = built
        names.extend(n for n in solution.changed if n not in names)
        atoms = read_atoms(problem, solution.assignment, every_atom, card.guard.opaque)
        status, status_reason = trigger_status(card.guard, sorted(atoms))
    if solution.status != "solved":
        trigger = Trigger(status=solution.status, inputs={}, reason=solution.reason, conflicts=solution.conflicts)
        return replace(card, domains=published, trigger=trigger, state=reached(card.state, typed, {}))
    # Names only the message reads get values where a caller gives them (a parameter left at
    # its default); a local, a caught exception or a constant of unknown value gets none, and
    # the message is then not claimed.
    env = _complete_env(solution.assignment, [r for r in [*refs, *raised_with] if caller_sets(r, params, ctx.settable)], domains, ctx.evaluates)
    env.update(dict.fromkeys(sorted(turns - env.keys()), 0))  # (the message may name the count)
    unread = unread_attributes(problem, env)  # (``model_config = None``: its attributes are no input)
    if unread:
        env = {name: value for name, value in env.items() if name not in unread}
        solution = replace(solution, changed=tuple(n for n in solution.changed if n not in unread))
    env = cohere(env, problem.holds)  # (an array's shape as long as its ndim)
    keys = list(dict.fromkeys([*problem.variables, *(r for r in refs if r in env and r not in problem.constants)]))
    # (a new object's value is no input a standalone check could take)
    validator, validator_reason = card_validator(card, ctx, problem, keys, domains) if not constructed else (None, "needs_value_no_caller_sets")
    shown = Reads(env)
    message = _message(card, shown)
    if atoms < (read := atoms | (every_atom & shown.read)):  # a value only the message reads is assumed too
        atoms, (status, status_reason) = read, trigger_status(card.guard, sorted(read))
    raised = _run(validator, env) if validator is not None else None
    expected_class = card.exception.classes[0].rsplit(".", 1)[-1] if card.exception.classes else None
    # The trigger is verified when the guard holds under it; where a validator exists it
    # must also raise the card's class with exactly the rendered message.
    # (Where the class makes the message, the validator passes the site's own arguments: its
    # first is not the text, which the card's template renders from the same arguments.)
    reproduces = validator is None or (
        message is not None and isinstance(raised, Raised) and raised.exception == expected_class
        and (raised.message == message or built_by_class(card.message))
    )
    if len(set(forms.values())) < len(card.guard.loops) and status in CLAIMED:
        status, status_reason = "internal", "inside_for_loop"  # a loop whose element the trigger cannot set
    for xs, targets in sorted(set(forms.values())):
        if targets[0] not in env and len(targets) == 1:
            continue
        if (value := loop_value(xs, loop_element(targets, env))) is not NO_VALUE:
            env[loops[targets[0]]] = value
        elif status in CLAIMED:
            status, status_reason = "internal", "inside_for_loop"  # no argument runs the loop on that element
    # Verified: the guard holds under the trigger (and the validator reproduces the message),
    # the trigger is one a caller can act on, and the whole path to the raise was modelled.
    inputs = {n: to_json_value(env[n]) for n in [*names, *loops.values()] if n in env and n not in every_atom
              and n not in problem.constants and caller_sets(n, params, ctx.settable)}
    if status in CLAIMED:  # a required parameter nothing reads before the raise takes any value of its type
        for param in ctx.params:
            if param.name in ctx.unread and param.default is None and param.kind not in ("star", "starstar") and param.name not in env \
                    and param.name not in ("self", "cls"):  # (the object itself is built or given, never a value)
                if (value := any_value(param.annotation or param.used_as)) is not NO_VALUE:
                    env[param.name] = value
                    inputs[param.name] = to_json_value(value)
    missing = _missing(card, ctx, set(inputs), bool(constructed)) if status in CLAIMED else []
    # A trigger that sets attributes (or reads a new object's) builds the object first: its construction must not raise.
    builds = not any(n in ctx.settable for n in inputs) and not constructed or constructs(problem, ctx, env)
    if card.compiled_override and status in CLAIMED:
        status_reason = "replaced_by_compiled_module"  # what runs may be C code (``from _operator import *``)
    # ``sock = ''`` with ``sock.type = 2``: no value is both (the inputs are searched as leaves)
    # (an assumed one beside its attribute, ``model_config = 0`` and ``model_config.quantization``, is not shown)
    named = {*inputs, *(n for n in atoms if n in env)}
    parents = {n for n in named if isinstance(env.get(n), PLAIN) and any(o.startswith(n + ".") for o in named)}
    arrays = bool(incoherent_arrays({n: env[n] for n in named if n in env}))
    refused = bool(ctx.abstract) and not is_class_level(card)  # Python makes no object of the class: a subclass's runs it
    # ``raise err`` of a parameter: what is raised is the caller's exception, which no plain value is
    raised_input = card.exception.reason == "raised_variable" and card.exception.written in inputs
    incoherent = bool(parents) or arrays
    # a statement on the way, or the raise's own arguments, fail first on these values
    blocked = first_failing(ctx.evaluates, {**_param_defaults(ctx), **env}) is not None
    looped = loop_reads(inputs, card.guard.looped)  # (a loop on the way, which is not run, reads a value it sets)
    for failed, why in ((parents, "value_and_its_attribute"), (refused, "abstract_class"), (arrays, "incoherent_arrays"),
                        (raised_input, "raises_an_input"), (blocked, "fails_on_the_way"), (looped, "loop_on_the_way"),
                        (not builds, "construction_not_shown"), (not reproduces, "not_reproduced")):
        if failed and status in CLAIMED and status_reason is None:
            status_reason = why  # (the first reason the trigger is not verified)
    trigger_ok = (problem.holds(env) is True and reproduces and status in CLAIMED and not card.guard.approximations and not missing
                  and builds and not card.compiled_override and not incoherent and not refused and not raised_input and not (blocked or looped))
    found, quiet = _fixes(card, ctx, problem, env, validator, trigger_ok, loops, forms, every_atom - atoms)
    for name, value in quiet.items():  # stand-ins the fixed call runs past the other raises with
        env[name], inputs[name] = value, to_json_value(value)
    if quiet and message is not None:
        message = _message(card, Reads(env))  # (the message may show a stand-in)
    fixes = [fix for fix, _, _ in found]
    if validator is not None:
        validator = replace(validator, verified=trigger_ok and all(f.verified for f in fixes))
    trigger = Trigger(
        status=status,
        inputs=inputs,
        assumes={n: to_json_value(env[n]) for n in sorted(atoms) if n in env and n not in parents},  # (a join's side its test chose: no value)
        changed=tuple(loops.get(n, n) for n in solution.changed if n in atoms or n not in every_atom),
        reason=status_reason,
        message=shown_message(card, message, env, ctx.own_str),
        verified=trigger_ok,
        missing=tuple(missing),
        outside=tuple(n for n in outside if n in inputs),
        constructed={n: to_json_value(v) for n, v in sorted(constructed.items())},
    )
    example = _example(card, ctx, problem, solution, env, found, loops) if trigger_ok else None  # only what was shown to raise
    return replace(card, domains=published, trigger=trigger, fixes=tuple(fixes), validator=validator,
                   validator_reason=validator_reason, example=example, state=reached(card.state, typed, env))



def _message(card: Card, reads: Reads) -> str | None:
    """The card's message under the values ``reads`` gives (None where it cannot be computed)."""
    try:
        return render_message(card.message, reads) if card.message.parts is not None else None
    except EvalError:
        return None


def _stored_params(ctx: CardContext) -> dict[str, Param]:
    """The attributes (``self.http2``) constructing the object sets straight from one of its
    constructor's parameters, with that parameter."""
    by_name = {p.name: p for p in ctx.constructor or ()}
    return {name: by_name[path[0]] for name, path in ctx.settable.items() if len(path) == 1 and path[0] in by_name}


def _param_defaults(ctx: CardContext) -> dict[str, Any]:
    """The parameters' defaults that are literals: what a call that leaves them out passes."""
    return {p.name: value for p in ctx.params if p.default is not None and (value := literal_value(p.default)) is not NO_VALUE}


def _missing(card: Card, ctx: CardContext, given: set[str], constructing: bool = False) -> list[str]:
    params = [(p.name, p.default is None and p.kind not in ("star", "starstar")) for p in ctx.params]
    if (card.function or "").rsplit(".", 1)[-1] in ("__init__", "__new__"):
        return missing_arguments(params, None, given, ctx.settable, False, own_constructor=True)
    constructor = [(p.name, p.default is None and p.kind not in ("star", "starstar")) for p in ctx.constructor] if ctx.constructor is not None else None
    return missing_arguments(params, constructor, given, ctx.settable, constructing or bool(set(card.entry) & CONSTRUCTING))


def _fixes(card: Card, ctx: CardContext, problem: Problem, env: dict[str, Any], validator: Validator | None,
           trigger_ok: bool, loops: dict[str, str], forms: dict[str, tuple[str, tuple[str, ...]]],
           unread: set[str]) -> tuple[list[tuple[Fix, Any, bool]], dict[str, Any]]:
    """Fixes, each with the Python value it sets (a loop element's fix sets the input the
    loop iterates so that it runs on that element: ``xs = [x]``) and whether no other raise of the function may fire
    under it (one whose test reads values the tool does not know). ``unread``: the atoms the
    trigger's guard never reads; the search gave them a value, but a fix whose test reads one
    (``model_dtype = ''`` then asks ``'' in TABLE``, a table of unknown value) is no fix.
    Also the stand-in arguments' values under which the fixed calls pass the other raises
    (fixes.quiet_stand_ins)."""
    parts = [(p.role, p.code) for p in card.guard.parts]
    fixes: list[tuple[Fix, Any, bool]] = []
    placeholders = frozenset(n for n in ctx.unread if n in env and n not in problem.variables)  # any value of their type
    # What the other raises' tests see besides the fix's values: the parameters' defaults, and
    # the classes of their isinstance tests whose plain instances are known.
    defaults = _param_defaults(ctx)
    # (and the declared defaults of the fields they read: ``type='image_url'`` meets ``image_url=None``)
    defaults.update({name: value for name, default, factory in ctx.field_defaults
                     if (value := literal_value(default_source(default, factory))) is not NO_VALUE})
    defaults.update({written: InstancesOf(types) for written, types in ctx.function_instances})
    known = {name: value for name, value in env.items() if name not in unread}
    for candidate in find_fixes(problem, known, parts, list(ctx.siblings), placeholders=placeholders, defaults=defaults):
        name = candidate.changed[0]
        before, after = env[name], candidate.assignment[name]
        array = name.rpartition(".")[0]
        if name.endswith(".shape") and incoherent_arrays({n: v for n, v in {**env, name: after}.items() if n.rpartition(".")[0] == array}):
            continue  # (a shape its array's ndim refuses; a fix of ndim reads as another array: "pass a 1-D one")
        shown = name
        if name in loops:
            xs, targets = forms[name]
            shown = loops[name]
            before, after = (loop_value(xs, loop_element(targets, values)) for values in (env, {**env, name: after}))
            if before is NO_VALUE or after is NO_VALUE:
                continue  # no argument runs the loop on that element
        verified = problem.holds(candidate.assignment) is False and (validator is None or _run(validator, candidate.assignment) is None)
        variable = problem.variables[name]
        # (not where the test picks the value: None for ``x is not None``, a class, an isinstance type)
        # (a bare test of the value, ``not package``, says nothing of its type either: ``1`` is one example)
        stand_in = (not variable.is_atom and not variable.domain.types and variable.prefer is None
                    and (type(after) is not type(before) or bare_test(candidate.part, name))
                    and after is not None and not isinstance(after, type) and f"isinstance({name}," not in candidate.part)
        label = name if variable.is_atom else ".".join(ctx.settable[name]) if name in ctx.settable else shown  # (a field: its keyword)
        description = describe_fix(candidate, label, before, after, atom=variable.is_atom, stand_in=stand_in)
        fixes.append((Fix(
            inputs={shown: to_json_value(after)},
            changed=(shown,),
            description=description,
            target=candidate.target,
            verified=verified and validator is not None and trigger_ok and not candidate.undecided,
            stand_in=stand_in,
        ), after, not candidate.undecided))
    stand_ins = {p.name: candidates(Variable(p.name, param_domain(p.name, p)), [env[p.name]]) for p in ctx.params if p.name in placeholders}
    sure = [{**env, fix.changed[0]: value} for fix, value, decided in fixes if decided and fix.changed[0] in env]
    return fixes, quiet_stand_ins(problem, sure, list(ctx.siblings), stand_ins, defaults) if stand_ins and sure else {}


def _example(card: Card, ctx: CardContext, problem: Problem, solution: Solution, env: dict[str, Any],
             found: list[tuple[Fix, Any, bool]], loops: dict[str, str]) -> Any:
    changed = [loops.get(n, n) for n in solution.changed if n != ENVIRON]
    setup = environ_setup(problem.tree, env[ENVIRON]) if ENVIRON in solution.changed and isinstance(env.get(ENVIRON), dict) else ""
    if setup is None:
        return None  # a variable the guard reads by a computed name: the example cannot set it
    settable = set(card.guard.inputs) | set(loops.values()) | set(ctx.settable)  # (the object's own settings too)
    if any(n not in settable for n in changed):
        return None
    if card.kind == "reraise" and card.exception.written is None:
        return None  # a bare ``raise`` raises the try body's error, from the body's line: that error's card
    class_level = is_class_level(card)  # (called on the class: no object is built)
    if not class_level and not constructs(problem, ctx, env):
        return None  # building the object would raise first
    before = {n: env[n] for n in changed}
    # A Python call needs its required parameters too; they take the trigger's values.
    required = {p.name: env.get(p.name, NO_VALUE) for p in ctx.params if p.default is None and p.name not in ("self", "cls")}
    # The example's fixes: those under which no other raise of the function may fire.
    fixes = [(fix, value) for fix, value, sure in found if sure]
    no_fix = "none_found" if not found else "may_raise_elsewhere" if not fixes else "not_writable"
    after = None  # no fix the example can show: it reproduces the error only
    writable = [(fix, value) for fix, value in fixes if fix.changed[0] in settable]  # (not the state the trigger assumes)
    writable.sort(key=lambda pair: pair[0].stand_in)  # (the "after" shows a value of a known type first: a stand-in may fail further on)
    if writable:
        name, value = writable[0][0].changed[0], writable[0][1]
        if class_level or constructs(problem, ctx, {**env, name: value}):
            after = {**before, name: value}
    example = build_example(card, ctx, before, after, required, setup)
    if example is None and after is not None:
        example = build_example(card, ctx, before, None, required, setup)  # the fix cannot be written as a call
    if example is not None:
        example = replace(example, placeholders=tuple(sorted(n for n in required if n in ctx.unread and n not in card.guard.inputs)))
    if example is None or example.after is None:
        return replace(example, no_fix=no_fix) if example is not None else None
    further = []  # the same call with each further fix, for verify to run
    for other, other_value in writable[1:]:
        other_name = other.changed[0]
        if class_level or constructs(problem, ctx, {**env, other_name: other_value}):
            built = build_example(card, ctx, before, {**before, other_name: other_value}, required, setup)
            if built is not None and built.style == example.style:
                further.append(built.after)
    return replace(example, fixes=tuple(further))


def _preferred(card: Card, ctx: CardContext) -> dict[str, str]:
    """The type each untyped name's values are tried in first: a parameter's evident type
    (Param.used_as); for a value the body rebinds a parameter to (``value_1``), that
    parameter's evident or declared type (a preference, never a constraint: ``value =
    value.strip()`` is still a str, ``args = parser.parse_args(args)`` is not a list)."""
    preferred = {p.name: p.used_as for p in ctx.params if p.used_as is not None}
    rebound = {base for _, base, kind in card.guard.versions if kind == "rebound"}
    declared = card_domains(card, ctx.params, sorted(rebound), ctx.param_choices) if rebound else {}
    for shown, base, kind in card.guard.versions:
        types = [t for t in declared[base].types if ":" not in t and t != "NoneType"] if base in declared else []
        guess = preferred.get(base) or (types[0] if len(types) == 1 else None)
        if kind == "rebound" and guess is not None:
            preferred[shown] = guess
    return preferred


def solve_one(item: tuple[Card, CardContext, bool]) -> Card:
    """The per-card boundary: a bug of ours while solving one card leaves it unsolved, with why."""
    card, context, strict = item
    try:
        return solve_card(card, context)
    except Exception as exc:
        if strict:
            raise
        log.debug("solving failed for %s:%s", card.path, card.line, exc_info=True)
        reason = f"internal_error: {type(exc).__name__}"
        return replace(card, trigger=Trigger(status="unsolved", inputs={}, reason=reason))
