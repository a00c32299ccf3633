"""Triggers: the passes from a checked trigger to its fixes and its example (solve.triggers runs them).

Each fix is verified in the restricted evaluator: it makes the guard false, trips no other
raise of the function, and makes the validator pass. The example is written only for a
verified trigger: the call that raises, and the same call with a fix that passes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..model import CardContext, Example, Fix
from ..model.codes import NoFix, Reason, ReasonCode, TriggerStatus
from .arrays import fold_arrays, frame_annotations, incoherent_arrays, library_value
from .construction import constructs, fix_constructs
from .domains import NO_VALUE, default_source, literal_value, param_domain
from .draft import Draft, param_defaults
from .elements import loop_element, loop_value
from .environ import ENVIRON, environ_setup
from .evaluate import InstancesOf
from .examples import build_example, is_class_level
from .fixes import FixCandidate, bare_test, describe_fix, find_fixes, quiet_stand_ins
from .passes import card_message, validator_outcome
from .posing import dtype_names
from .problem import Variable
from .rules import may_refuse, stand_in, validated_field
from .seeds import candidates
from .status import Reads
from .values import Modelled, Present, to_json_value

Found = tuple[Fix, Any, bool]  # a fix, the Python value it sets, and whether no other raise may fire under it


def fix(draft: Draft) -> Draft:
    """The trigger's fixes (``_fixes``), the stand-in arguments under which the fixed calls pass
    the other raises (given as the trigger's values too), and whether the validator is verified."""
    frame = draft.frame
    found, quiet = _fixes(draft)
    env, inputs, message = dict(draft.env), dict(draft.inputs), draft.message
    for name, value in quiet.items():
        env[name], inputs[name] = value, to_json_value(value)
    if quiet and message is not None:
        message = card_message(frame.card, Reads(env))  # (the message may show a stand-in)
    validator = draft.validator
    if validator is not None:
        validator = replace(validator, verified=draft.verified and all(f.verified for f, _, _ in found))
    return replace(draft, env=env, inputs=inputs, message=message, validator=validator, found=tuple(found))


def _fixes(draft: Draft) -> tuple[list[Found], dict[str, Any]]:
    """Fixes, each with the Python value it sets (a loop element's fix sets the input the loop
    iterates so that it runs on that element: ``xs = [x]``) and whether no other raise of the
    function may fire under it (one whose test reads values the tool does not know). The atoms
    the trigger's guard never reads got a value from the search, but a fix whose test reads one
    (``model_dtype = ''`` then asks ``'' in TABLE``, a table of unknown value) is no fix. Also
    the stand-in arguments' values under which the fixed calls pass the other raises
    (fixes.quiet_stand_ins)."""
    frame, problem, env = draft.frame, draft.problem, draft.env
    ctx = frame.ctx
    parts = [(p.role, p.code) for p in frame.card.statement.guard.parts]
    placeholders = frozenset(n for n in ctx.signature.unread if n in env and n not in problem.variables)  # any value of their type
    defaults = _sibling_defaults(ctx)
    # (a tensor the trigger gives has its own dtype and device: a flat ``x.dtype`` would hide them)
    defaults = {name: value for name, value in defaults.items() if not isinstance(env.get(name.rpartition(".")[0]), Modelled)}
    unread = draft.every_atom - draft.atoms
    known = {name: value for name, value in env.items() if name not in unread}
    fixes: list[Found] = []
    for candidate in find_fixes(problem, known, parts, list(ctx.place.siblings), placeholders=placeholders, defaults=defaults,
                                computed=ctx.place.computed):
        if (found := _fix(draft, candidate)) is not None:
            fixes.append(found)
    stand_ins = {p.name: candidates(Variable(p.name, param_domain(p.name, p)), [env[p.name]])
                 for p in ctx.signature.params if p.name in placeholders}
    sure = [i for i, (fix, _, decided) in enumerate(fixes) if decided and fix.changed[0] in env]
    if not (stand_ins and sure):
        return fixes, {}
    envs = [{**env, fixes[i][0].changed[0]: fixes[i][1]} for i in sure]
    quiet, loud = quiet_stand_ins(problem, envs, list(ctx.place.siblings), stand_ins, defaults)
    for position in loud:  # (another raise fires under it with the stand-ins the example writes: not sure)
        fix, value, _ = fixes[sure[position]]
        fixes[sure[position]] = (fix, value, False)
    return fixes, quiet


_ARRAY_PARTS = (".shape", ".ndim", ".dtype")


def _array_parts(values: dict[str, Any], env: dict[str, Any]) -> dict[str, Any]:
    """The trigger's other values of a tensor ``values`` gives an attribute of (``x.ndim = 1``
    changed, ``x.shape = torch.Size([2])`` only the message reads, and ``x`` itself): the example
    builds the tensor the message shows (``torch.empty(2)``, not a 1-d one of its own)."""
    arrays = {name.rpartition(".")[0] for name in values if name.endswith(_ARRAY_PARTS)}
    return {name: value for name, value in env.items() if name not in values
            and (name in arrays or name.endswith(_ARRAY_PARTS) and name.rpartition(".")[0] in arrays)}


def _sibling_defaults(ctx: CardContext) -> dict[str, Any]:
    """What the other raises' tests see besides the fix's values: the parameters' defaults,
    the declared defaults of the fields they read (``type='image_url'`` meets
    ``image_url=None``), the classes of their isinstance tests whose plain instances are known,
    and the dtype, device and flags of the tensor a parameter declared one is built as where
    the trigger sets none (``q.dtype`` float32: ``q.dtype not in (torch.bfloat16, ...)`` fires
    under a fix of ``q.ndim``; its shape follows the trigger's ``ndim``: arrays.fold_arrays)."""
    defaults = param_defaults(ctx)
    defaults.update(_array_defaults(ctx))
    defaults.update({name: value for name, default, factory in ctx.owner.field_defaults
                     if (value := literal_value(default_source(default, factory))) is not NO_VALUE})
    defaults.update({written: InstancesOf(types) for written, types in ctx.names.function_instances})
    return defaults


def _array_defaults(ctx: CardContext) -> dict[str, Any]:
    """``x.dtype``, ``x.device`` and ``x.is_cuda``-like flags of each parameter declared a
    tensor or an array, as the example's model of it has them; and the dtypes the other
    raises' tests name (``torch.bfloat16``), which the card's own guard may not."""
    found: dict[str, Any] = {}
    for param in ctx.signature.params:
        model = library_value(param.annotation)
        if model is not None and model.is_array:
            found.update({f"{param.name}.{name}": value for name, value in model.attributes if name not in ("shape", "ndim")})
    for code in ctx.place.siblings if found else ():
        found.update(dtype_names(code))
    return found


def _fix(draft: Draft, candidate: FixCandidate) -> Found | None:
    """The fix a candidate makes, or None (an array shape its ``ndim`` refuses; an attribute of a
    dtype, a device or a path the trigger gives, which is that value's own; a loop element no
    argument runs the loop on; a field validator's value its field's type refuses first)."""
    frame, env, validator = draft.frame, draft.env, draft.validator
    name = candidate.changed[0]
    before, after = env[name], candidate.assignment[name]
    if (field := validated_field(frame.ctx, name)) is not None and may_refuse(field, after):
        return None  # (a field validator's value its field's type may refuse first: no value a user can pass)
    array = name.rpartition(".")[0]
    if name.endswith(".shape") and incoherent_arrays({n: v for n, v in {**env, name: after}.items() if n.rpartition(".")[0] == array}):
        return None  # (a shape its array's ndim refuses; a fix of ndim reads as another array: "pass a 1-D one")
    if isinstance(model := env.get(array), Modelled) and model.fixed:
        return None  # (``x.itemsize`` of ``x = torch.int8``: the dtype's own; a fix sets ``x``)
    shown = name
    if name in frame.loops:
        xs, targets = frame.forms[name]
        shown = frame.loops[name]
        before, after = (loop_value(xs, loop_element(targets, values)) for values in (env, {**env, name: after}))
        if before is NO_VALUE or after is NO_VALUE:
            return None  # no argument runs the loop on that element
    verified = draft.problem.holds(candidate.assignment) is False \
        and (validator is None or validator_outcome(validator, candidate.assignment) is None)
    variable = draft.problem.variables[name]
    # (not where the test picks the value: None for ``x is not None``, a class, an isinstance type)
    # (a bare test of the value, ``not package``, says nothing of its type either: ``1`` is one example)
    stand_in = (not variable.is_atom and not variable.domain.types and variable.prefer is None
                and (type(after) is not type(before) or bare_test(candidate.part, name))
                and after is not None and not isinstance(after, type) and f"isinstance({name}," not in candidate.part)
    settable = frame.ctx.owner.settable
    label = name if variable.is_atom else ".".join(settable[name]) if name in settable else shown  # (a field: its keyword)
    # (``x.ndim`` of a declared tensor: the fix is another tensor, one of that many dimensions)
    folded = fold_arrays({name: after}, frame_annotations(frame)) if name.endswith(".ndim") and label == name else {}
    return Fix(
        inputs={shown: to_json_value(after)},
        changed=(shown,),
        description=describe_fix(candidate, label, before, after, atom=variable.is_atom, stand_in=stand_in,
                                 array=folded.get(array) if name not in folded else None),
        target=candidate.target,
        verified=verified and validator is not None and draft.verified and not candidate.undecided,
        stand_in=stand_in,
    ), after, not candidate.undecided


def exemplify(draft: Draft) -> Draft:
    """The example, for a verified trigger only (only what was shown to raise), or why there is none."""
    if not draft.verified:
        return draft
    example = _example(draft)
    return replace(draft, example=example) if isinstance(example, Example) else replace(draft, example_reason=example)


def _example(draft: Draft) -> Example | ReasonCode:
    """The call that raises, and the same call with the first fix under which no other raise
    may fire and which a caller can write; why not where the call cannot be written."""
    frame, problem, env = draft.frame, draft.problem, draft.env
    card, ctx = frame.card, frame.ctx
    setup = _example_setup(draft)
    if isinstance(setup, Reason):
        return setup
    class_level = is_class_level(card)  # (called on the class: no object is built)
    filled = _argument_stand_ins(draft)  # (the other required fields of the arguments the example builds)
    before = {**{n: env[n] for n in [*_changed(draft), *draft.stand_ins]}, **filled}
    before.update(_array_parts(before, env))
    # A Python call needs its required parameters too; they take the trigger's values.
    required = {p.name: env.get(p.name, NO_VALUE) for p in ctx.signature.params if p.default is None and p.name not in ("self", "cls")}
    # The example's fixes: those under which no other raise of the function may fire.
    fixes = [(fix, value) for fix, value, sure in draft.found if sure]
    no_fix = NoFix.EVERY_CALL if draft.status == TriggerStatus.UNCONDITIONAL else NoFix.NONE_FOUND if not draft.found \
        else NoFix.MAY_RAISE_ELSEWHERE if not fixes else NoFix.NOT_WRITABLE
    writable = [(fix, value) for fix, value in fixes if fix.changed[0] in _settable(draft)]  # (not the state the trigger assumes)
    writable.sort(key=lambda pair: pair[0].stand_in)  # (the "after" shows a value of a known type first: a stand-in may fail further on)
    # A tensor's attributes as the tensor (``x.shape = [3]``: ``x=torch.empty(3)``; solve.arrays)
    annotations = frame_annotations(frame)
    before = fold_arrays(before, annotations)
    required = {name: before.get(name, value) for name, value in required.items()}
    example: Example | ReasonCode | None = None
    # The "after": the first fix that builds the object and can be written as a call (else none: it reproduces the error only)
    checks_after = False  # (a fix that the class's checks run once its fields pass may refuse: Owner.after_checks)
    for index, (fix, value) in enumerate(writable):
        if fix_constructs(problem, ctx, {**env, fix.changed[0]: value}, class_level=class_level):
            example = build_example(card, ctx, before, fold_arrays({**before, fix.changed[0]: value}, annotations), required, setup,
                                    draft.steps)
            if isinstance(example, Example):
                writable = writable[index:]
                break
        elif ctx.owner.after_checks and (class_level or constructs(problem, ctx, {**env, fix.changed[0]: value})):
            checks_after = True
    if not isinstance(example, Example):
        example = build_example(card, ctx, before, None, required, setup, draft.steps)
    if not isinstance(example, Example):
        return example
    placeholders = sorted([*(n for n in required if n in ctx.signature.unread and n not in card.statement.guard.inputs),
                           *draft.placeholders,
                           *(".".join(ctx.owner.settable[n]) for n in draft.stand_ins), *filled])
    example = replace(example, placeholders=tuple(placeholders))
    if example.after is None:
        return replace(example, no_fix=NoFix.CHECKS_AFTER_UNSEEN if checks_after else no_fix)
    further = []  # the same call with each further fix, for verify to run
    requires = set(example.requires)
    for other, value in writable[1:]:
        if fix_constructs(problem, ctx, {**env, other.changed[0]: value}, class_level=class_level):
            built = build_example(card, ctx, before, fold_arrays({**before, other.changed[0]: value}, annotations), required, setup,
                                  draft.steps)
            if isinstance(built, Example) and built.style == example.style and built.after is not None:  # (never None: it has a fix)
                further.append(built.after)
                requires.update(built.requires)
    return replace(example, fixes=tuple(further), requires=tuple(sorted(requires)))


def _argument_stand_ins(draft: Draft) -> dict[str, Any]:
    """A stand-in (solve.rules) for each required field of each argument the example builds
    (Owner.arguments) that the trigger gives no value of its own: ``p.f`` -> value."""
    env = draft.env
    found = {}
    for argument in draft.frame.ctx.owner.arguments:
        if argument.param in env and not isinstance(env[argument.param], Present):
            continue  # (the trigger passes the argument itself: the example does not build it)
        for doc in argument.required:
            if doc.input not in env and (value := stand_in(doc)) is not NO_VALUE:
                found[doc.input] = value
    return found


def _example_setup(draft: Draft) -> str | Reason:
    """The Python the example runs first (the environment the trigger assumes: solve.environ),
    or why no example can be written."""
    frame, problem, env = draft.frame, draft.problem, draft.env
    card = frame.card
    setup = environ_setup(problem.tree, env[ENVIRON]) if ENVIRON in draft.solution.changed and isinstance(env.get(ENVIRON), dict) else ""
    if setup is None:
        return Reason.COMPUTED_ENVIRONMENT_NAME
    if any(n not in _settable(draft) for n in _changed(draft)):
        return Reason.VALUE_NOT_PASSED
    built = {argument.param for argument in frame.ctx.owner.arguments}
    if any(name.split(".", 1)[0] in built for name in draft.outside):
        return Reason.CONSTRUCTION_NOT_SHOWN  # (a value outside its field's declared type: the class may refuse it)
    if card.statement.kind == "reraise" and card.exception.written is None:
        return Reason.RERAISE  # a bare ``raise`` raises the try body's error, from the body's line: that error's card
    if not is_class_level(card) and not constructs(problem, frame.ctx, env):
        return Reason.CONSTRUCTION_NOT_SHOWN  # building the object would raise first
    return setup


def _changed(draft: Draft) -> list[str]:
    """What the trigger changes, as a caller writes it (a loop's input, not its element): as
    ``Trigger.changed`` has it, without the atoms it assumes no value for (``callable(f)``
    where ``f is None`` decides first, ``sys.platform`` where the test does not read it)."""
    return [draft.frame.loops.get(n, n) for n in draft.solution.changed
            if n != ENVIRON and (n in draft.atoms or n not in draft.every_atom)]


def _settable(draft: Draft) -> set[str]:
    """What an example may set: the guard's inputs, the loops' inputs, the object's own settings."""
    frame = draft.frame
    return set(frame.card.statement.guard.inputs) | set(frame.loops.values()) | set(frame.ctx.owner.settable)
