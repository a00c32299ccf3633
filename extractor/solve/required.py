"""Required arguments: a realistic value of its declared type for each required parameter
a trigger leaves unset, where the way to the raise is the same under it.

A parameter nothing reads before the raise (``Signature.unread``) takes a value of its
declared (or evident) type: a plain value, a library type's model (a tensor, a dtype, a
device, a ``torch.nn.Module()``), or the first member of the Enum class of the tree it names
(``CardContext.place.param_choices``). One that only simple statements of pure expressions
read (``Signature.pure_reads``: ``n = len(text)``, ``self.size = size``) takes the first
realistic value under which each statement's test holds.

Any other required parameter a statement on the way reads (an argument of a call the tool
does not follow: ``self.up_proj = ColumnParallelLinear(input_size=hidden_size)``, a loop, a
test outside the guard) takes the first realistic value of its declared type too
(``fill_passed_on``), so that the trigger is a whole call; the card names it, and the trigger
is not verified (solve.checks.ARGUMENT_PASSED_ON): the value may not pass what reads it.
"""

from __future__ import annotations

from typing import Any

from ..model import CardContext, Param
from .arrays import instance_value
from .declared import fits
from .domains import NO_VALUE, any_value, choice_value
from .draft import param_defaults
from .evaluate import outcome, parse_expr
from .passage import first_failing
from .values import to_json_value


def fill_required(ctx: CardContext, env: dict[str, Any], inputs: dict[str, Any], type_checked: bool = False) -> tuple[str, ...]:
    """A value of its type for each required parameter nothing reads before the raise, and
    for each that pure statements read (their tests true for it). Such a test may read
    another parameter given a value here (``if scale is not None:`` around what reads
    ``query``), so the parameters are taken again while one gains a value. ``type_checked``:
    a decorator may check the arguments' types (``@validate_call``), so no None stand-in.
    Returns the parameters given None though pure statements read them (``_fill_stand_ins``)."""
    reads = dict(ctx.signature.pure_reads)
    grew = True
    while grew:
        grew = False
        for param in ctx.signature.params:
            if not _unset(param, env):
                continue
            if param.name in ctx.signature.unread:
                value = _unread_value(param, ctx, type_checked)
            else:
                value = _path_value(param, reads[param.name], env, ctx) if param.name in reads else NO_VALUE
            if value is not NO_VALUE:
                env[param.name], inputs[param.name], grew = value, to_json_value(value), True
    _fill_together(ctx, reads, env, inputs)
    return () if type_checked else _fill_stand_ins(ctx, reads, env, inputs)


def fill_passed_on(ctx: CardContext, env: dict[str, Any], inputs: dict[str, Any]) -> tuple[str, ...]:
    """A realistic value of its declared (or evident) type (``_passed_value``) for each required
    parameter still without a value, which a statement on the way reads that the tool does not
    follow; those parameters. One of no type with such a value stays missing, and so does one
    only pure statements read (``fill_required`` found no value under which their tests hold:
    they would fail)."""
    pure = dict(ctx.signature.pure_reads)
    scope = {**param_defaults(ctx), **env}
    filled = []
    for param in ctx.signature.params:
        kind = param.annotation or param.used_as
        if not _unset(param, env) or kind is None or param.name in pure or any(n.startswith(param.name + ".") for n in env):
            continue  # (one whose attributes the trigger gives, ``output.dtype``, is the object they are of: not missing)
        value = _passed_value(param, kind, ctx, scope)
        if value is not NO_VALUE:
            env[param.name] = scope[param.name] = value
            inputs[param.name] = to_json_value(value)
            filled.append(param.name)
    return tuple(filled)


def _passed_value(param: Param, kind: str, ctx: CardContext, scope: dict[str, Any]) -> Any:
    """The first realistic value of the type (``_typical``, then the first member of the tree's
    Enum it names) that is of it, those surely of it first (``()`` for ``tuple[Task, ...]``, not
    ``(1,)``), None first where the type takes it (what a call it is passed to reads as "not
    given": ``kv_sharing_target_layer_name: str | None``), under which no statement on the way
    the evaluator runs surely fails; else NO_VALUE."""
    tried = [value for value in _realistic(param, kind, ctx) if fits(kind, value)]
    tried.sort(key=lambda value: value is not None)  # (stable: the others keep their order)
    sure = [value for value in tried if fits(kind, value, strict=True)]
    for value in [*sure, *(value for value in tried if not any(value is s for s in sure))]:
        if first_failing(ctx.passage.evaluates, {**scope, param.name: value}) is None:
            return value
    return NO_VALUE


def _unset(param: Param, env: dict[str, Any]) -> bool:
    """A required parameter (no default, not ``*args``/``**kwargs``, not the receiver) the
    trigger gives no value yet."""
    return param.default is None and param.kind not in ("star", "starstar") and param.name not in env \
        and param.name not in ("self", "cls")


def _fill_stand_ins(ctx: CardContext, reads: dict[str, tuple[str, ...]], env: dict[str, Any],
                    inputs: dict[str, Any]) -> tuple[str, ...]:
    """None for each required parameter still without a value that only pure statements read,
    where each of their tests holds for it: ``self.input_quant = input_quant`` stores any value
    alike, so the way to the raise is the same (a stand-in, as for a parameter nothing reads
    before the raise: ``_unread_value``); those parameters."""
    filled = []
    for param in ctx.signature.params:
        if param.name not in reads or not _unset(param, env):
            continue
        trial = {**param_defaults(ctx), **env, param.name: None}
        if all(outcome(parse_expr(code))(trial) is True for code in reads[param.name]):
            env[param.name], inputs[param.name] = None, None
            filled.append(param.name)
    return tuple(filled)


def _fill_together(ctx: CardContext, reads: dict[str, tuple[str, ...]], env: dict[str, Any], inputs: dict[str, Any]) -> None:
    """The required parameters pure statements read that are still without a value, each given
    its first realistic value at once, where every such statement's test then holds: one
    statement may read several of them (``end = start + count``), which no one value alone passes."""
    pending = [p for p in ctx.signature.params if p.name in reads and _unset(p, env) and (p.annotation or p.used_as)]
    values = {p.name: typical[0] for p in pending if (typical := _typical(p.annotation or p.used_as or ""))}
    if len(values) < 2:
        return
    trial = {**param_defaults(ctx), **env, **values}
    if all(outcome(parse_expr(code))(trial) is True for name in values for code in reads[name]):
        env.update(values)
        inputs.update({name: to_json_value(value) for name, value in values.items()})


def _path_value(param: Param, codes: tuple[str, ...], env: dict[str, Any], ctx: CardContext) -> Any:
    """A value of the parameter's declared (or evident) type for one that only simple
    statements of pure expressions read on the way (Signature.pure_reads, ``codes``: a test
    per statement, true where it runs without raising): one under which the evaluator finds
    every test true (over the trigger's values and the defaults) leaves the way to the raise
    as it was; else NO_VALUE."""
    kind = param.annotation or param.used_as
    if kind is None:
        return NO_VALUE  # (no type to take a realistic value of)
    scope = {**param_defaults(ctx), **env}
    for value in _realistic(param, kind, ctx):
        trial = {**scope, param.name: value}
        if all(outcome(parse_expr(code))(trial) is True for code in codes):
            return value
    return NO_VALUE


def _realistic(param: Param, kind: str, ctx: CardContext) -> list[Any]:
    """The values tried for a required parameter, in order: ``_typical``'s, then the first member
    of the tree's Enum its annotation names."""
    return [*_typical(kind), *_members(param, ctx)[:1]]


def _typical(kind: str) -> list[Any]:
    """Realistic values of a declared type, the first tried first: a positive int, a word, one
    element; then the type's plain value, and None where the type takes it."""
    first = any_value(kind)
    head = kind.strip().strip("'\"").split("|", 1)[0].split("[", 1)[0].strip().removeprefix("typing.")
    typical: dict[str, list[Any]] = {"int": [1, 2], "float": [1.0], "str": ["x"], "bytes": [b"x"], "list": [[1], ["x"]],
                                     "List": [[1], ["x"]], "tuple": [(1,), ("x",)], "dict": [{"x": 1}], "Dict": [{"x": 1}]}
    more = typical.get(head, [])
    # ``Tensor | None``: None too, where a test on the way wants it (``if scale is not None:``)
    optional = head == "Optional" or any(part.strip() == "None" for part in kind.strip().strip("'\"").split("|")[1:])
    return [*more, *([first] if first is not NO_VALUE else []), *([None] if optional and first is not None else [])]


def _unread_value(param: Param, ctx: CardContext, type_checked: bool = False) -> Any:
    """A value of the declared type of a parameter nothing reads before the raise (never the
    object itself: it is built or given); where the tool builds none of that type (a class it
    cannot construct: ``vllm_config: VllmConfig``), None: nothing on the way reads it, so the
    call reaches the raise with it (a stand-in the card names, which may fail further on); not
    where a decorator may check the types first (``type_checked``)."""
    kind = param.annotation or param.used_as
    value = any_value(kind)
    if value is NO_VALUE:
        value = next(iter(_members(param, ctx)), instance_value(kind) or NO_VALUE)
    return None if value is NO_VALUE and not type_checked else value


def _members(param: Param, ctx: CardContext) -> list[Any]:
    """The members of the Enum class of the tree the parameter's annotation names, in order."""
    return [choice_value(member) for member in ctx.place.param_choices.get(param.name, ())]
