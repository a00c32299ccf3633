"""Raising helpers, the linking half: a call statement that may call a raising helper
(collect.helpers) -> the helper it calls and the raise that helper ends at, as a site of
the caller's function; and, for a helper's own card, the project's calls of it.

A callee is resolved as Python would find it, where the tree shows it, and not guessed
otherwise: ``self.fail``/``cls.fail`` is the method of the caller's class or of the nearest
in-tree class it derives from that defines it (nothing is resolved past a base class outside
the tree, which may define it too, nor where the class or its object binds the name
otherwise, nor where a class of the tree that derives from the caller's defines it again: the
object may be one of those, a method meant to be overridden); ``fail`` is the module-level function the caller's module defines or imports.
The helper it names must be one collect found (every path through it ends at its tail). A
tail that is itself a call of a helper is followed (``_fail(msg)`` -> ``fail(msg, None)`` ->
``raise UsageError(msg)``).

The call's arguments are bound to the helper's parameters as Python binds them (defaults
filling the rest), and put into the arguments of the helper's raise (link.messages
``fill_template``): ``raise BadParameter(message, ctx=ctx)`` called as
``self.fail(f"{value!r} is not a valid integer.", param, ctx)`` raises
``BadParameter(f"{value!r} is not a valid integer.", ctx=ctx)``, and the message is then
composed through the class as any raise's is (link.messages.compose).
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..collect.messages import unknown
from ..model import Argument, FileFacts, Helper, HelperSite, HelperUses, MessageTemplate, Passage, RaiseFacts, SiteFact, Through
from ..model.codes import RaiseKind, Reason
from ..model.pytext import try_parse_expression
from .indexes import IndexKind, Part, register
from .messages import bind_arguments, fill_template, substituted
from .project import Project, method_class

MAX_DEPTH = 8  # helpers calling helpers, followed
MAX_SITES = 24  # calls a helper's card lists (it counts them all)
_SELF = ("self", "cls")
_MESSAGE_KEYWORDS = ("message", "msg")


@dataclass(frozen=True, slots=True)
class Expansion:
    """What a call of a raising helper raises: the raise it ends at (in ``facts``, a method of
    ``owner``), with its arguments in the caller's terms (None: they could not be bound), and
    the helpers on the way (the called one first)."""

    facts: FileFacts
    owner: str | None
    raised: RaiseFacts
    arguments: tuple[Argument, ...] | None
    chain: tuple[tuple[FileFacts, Helper], ...]
    evaluates: tuple[str, ...] = ()  # what the helpers' ways to their tails evaluate, in the caller's terms (``token['start']``)


def resolve_helper(project: Project, facts: FileFacts, callee: str, owner: str | None) -> tuple[FileFacts, Helper] | None:
    """The raising helper a call of ``callee`` (as written in ``facts``' module, in a method of
    class ``owner`` or module-level code) runs; None where it is none, or the tree cannot say."""
    head, _, rest = callee.partition(".")
    if head in _SELF:
        if owner is None or not rest or "." in rest:
            return None
        cls = f"{facts.module}.{owner}"
        found = _method_helper(project, cls, rest)
        # The object may be of a subclass: one of the tree that defines the method again runs its own.
        return found if found is not None and not _overridden(project, cls, rest) else None
    if rest:
        return None
    symbol = project.resolve(facts, callee)
    if symbol is None or symbol.kind != "function" or symbol.facts is None:
        return None
    return _helper_named(symbol.facts, symbol.qualname)


def _method_helper(project: Project, cls: str, name: str) -> tuple[FileFacts, Helper] | None:
    found = method_class(project, cls, name)
    return _helper_named(found[0], f"{found[0].module}.{found[1].qualname}.{name}") if found is not None else None


def _overridden(project: Project, cls: str, name: str) -> bool:
    """Whether a class of the tree that derives from ``cls`` defines ``name``."""
    return any(found is not None and (name in found[1].assigned or any(method == name for method, _ in found[1].methods))
               for found in map(project.class_fact, filter(None, descendants(project, cls))))


def descendants(project: Project, cls: str, limit: int | None = None) -> Iterator[str | None]:
    """The classes of the tree deriving from ``cls``, breadth first (each level by name); None
    after ``limit`` of them, where the walk stops (no limit: every one)."""
    seen: set[str] = set()
    work = deque(sorted(project.indexes.get(SUBCLASSES, cls)))
    while work:
        current = work.popleft()
        if current in seen:
            continue
        if limit is not None and len(seen) >= limit:
            yield None
            return
        seen.add(current)
        yield current
        work.extend(sorted(project.indexes.get(SUBCLASSES, current)))


def _subclasses_part(project: Project, facts: FileFacts) -> Part:
    """A module's classes, each under the in-tree classes it names as bases."""
    items: list[tuple[str, Any]] = []
    for cls in facts.classes:
        for base in cls.bases:
            symbol = project.resolve(facts, base)
            if symbol is not None and symbol.kind == "class":
                items.append((symbol.qualname, f"{facts.module}.{cls.qualname}"))
    return Part(items=tuple(items))


SUBCLASSES = register(IndexKind(name="subclasses", part=_subclasses_part, decode=lambda place, item: item))


def _helper_named(facts: FileFacts, qualname: str) -> tuple[FileFacts, Helper] | None:
    local = qualname[len(facts.module) + 1:] if qualname.startswith(facts.module + ".") else None
    found = next((h for h in facts.helpers if h.function == local), None)
    return (facts, found) if found is not None else None


def expand_call(project: Project, facts: FileFacts, site: SiteFact) -> Expansion | None:
    """What the call statement ``site`` (kind helper_call) raises; None where it calls no
    raising helper the tree shows."""
    arguments = site.raised.passage.arguments
    chain: list[tuple[FileFacts, Helper]] = []
    evaluates: list[str] = []
    seen: set[tuple[str, str]] = set()
    callee, owner, where = site.raised.written or "", site.owner, facts
    while len(chain) < MAX_DEPTH:
        found = resolve_helper(project, where, callee, owner)
        if found is None or (key := (found[0].path, found[1].function)) in seen:
            return None
        seen.add(key)
        chain.append(found)
        where, helper = found
        tail = helper.raised
        evaluates.extend(_put_codes(tail.passage.evaluates, helper, arguments))
        arguments = _put(tail.passage.arguments, helper, arguments) if tail.is_call else ()
        if tail.statement.kind != RaiseKind.HELPER_CALL:
            return Expansion(facts=where, owner=helper.owner, raised=tail, arguments=arguments, chain=tuple(chain),
                             evaluates=tuple(evaluates))
        callee, owner = tail.written or "", helper.owner
    return None


def _put(inner: tuple[Argument, ...] | None, helper: Helper, given: tuple[Argument, ...] | None) -> tuple[Argument, ...] | None:
    """The arguments of the helper's tail call (``inner``, over its parameters) with the call's
    arguments (``given``) bound to those parameters; None where that cannot be done."""
    if inner is None:
        return None
    bound = bind_arguments(helper.params, list(given)) if given is not None else None
    names = {p.name for p in helper.params}
    out = []
    for arg in inner:
        tree = try_parse_expression(arg.code)
        if tree is None:
            return None
        if not names & {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
            out.append(arg)  # (reads none of the helper's parameters: the same whatever the call passes)
            continue
        if bound is None:
            return None
        if isinstance(tree, ast.Name) and tree.id in bound:
            out.append(replace(bound[tree.id], keyword=arg.keyword))
            continue
        code = substituted(tree, bound, names)
        if code is None:
            return None
        message = fill_template(arg.message, bound, names, "") if arg.message is not None and arg.message.parts is not None else None
        out.append(Argument(code=code, keyword=arg.keyword, message=message))
    return tuple(out)


def _put_codes(codes: tuple[str, ...], helper: Helper, given: tuple[Argument, ...] | None) -> list[str]:
    """What a helper's way to its tail evaluates (``lex_position = token['start']``: ``token['start']``)
    with the call's arguments (``given``) put for its parameters: those that read its
    parameters only (and builtins); one that reads a local of its own, or that cannot be bound,
    is left out (what the evaluator cannot compute is no evidence either way: solve.passage)."""
    names = {p.name for p in helper.params}
    bound = bind_arguments(helper.params, list(given)) if given is not None else None
    out = []
    for code in codes:
        tree = try_parse_expression(code.lstrip("*"))
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree is not None else set()
        if tree is None or bound is None or not read or not read <= names:
            continue
        found = substituted(tree, bound, names)
        if found is not None:
            out.append(code[: len(code) - len(code.lstrip("*"))] + found)
    return out


def helper_site(site: SiteFact, expansion: Expansion) -> SiteFact:
    """The call statement as a raise of what the helper raises, with the call's arguments in
    it: what resolving its exception, composing its message and solving read; and what the
    helpers evaluate on their way to it, which may fail first (``token['start']``)."""
    tail = expansion.raised
    passage = Passage(evaluates=(*site.raised.passage.evaluates, *expansion.evaluates), arguments=expansion.arguments)
    raised = replace(tail, statement=site.raised.statement, message=_message(tail, expansion.arguments), passage=passage)
    return replace(site, raised=raised)


def _message(tail: RaiseFacts, arguments: tuple[Argument, ...] | None) -> MessageTemplate:
    """The message argument of the raise, as ``cstpass._call_message`` picks it."""
    if not tail.is_call:
        return tail.message
    if arguments is None:
        return unknown("helper", Reason.HELPER_ARGUMENTS_UNBOUND)
    positional = [a for a in arguments if a.keyword is None]
    if len(positional) > 1:
        return unknown("multiple_args", Reason.MULTIPLE_ARGUMENTS)
    found = positional[0] if positional else next((a for k in _MESSAGE_KEYWORDS for a in arguments if a.keyword == k), None)
    if found is None:
        return unknown("none", Reason.NO_ARGUMENTS if not arguments else Reason.KEYWORD_ARGUMENTS_ONLY)
    if found.message is None:
        return unknown("helper", Reason.HELPER_ARGUMENTS_UNBOUND)
    return found.message


def through_of(expansion: Expansion) -> Through:
    """The card's account of the helper a call runs."""
    first_facts, first = expansion.chain[0]
    return Through(
        helper=f"{first_facts.module}.{first.function}", path=first_facts.path, line=first.line,
        raise_path=expansion.facts.path, raise_line=expansion.chain[-1][1].tail, raise_end_line=expansion.chain[-1][1].tail_end,
        via=tuple(f"{f.module}.{h.function}" for f, h in expansion.chain[1:]),
    )


def _helper_calls_part(project: Project, facts: FileFacts) -> Part:
    """A module's calls of raising helpers of the tree, each under the helper's module.qualname."""
    items: list[tuple[str, Any]] = []
    for call in facts.helper_calls:
        resolved = resolve_helper(project, facts, call.callee, call.owner)
        if resolved is not None:
            items.append((f"{resolved[0].module}.{resolved[1].function}", [call.function, call.line]))
    return Part(items=tuple(items))


HELPER_CALLS = register(IndexKind(name="helper_calls", part=_helper_calls_part,
                                  decode=lambda place, item: HelperSite(path=place.path, function=item[0], line=item[1]),
                                  view=lambda place, item: [place.path, *item]))


def helper_uses(project: Project, facts: FileFacts, site: SiteFact) -> HelperUses | None:
    """The calls of the raising helper whose tail ``site`` is; None where it is none's, or the
    project never calls it (a function that always raises is not a helper to anyone then)."""
    helper = next((h for h in facts.helpers if h.function == site.at.function and h.tail == site.at.line), None)
    if helper is None:
        return None
    sites = sorted(project.indexes.get(HELPER_CALLS, f"{facts.module}.{helper.function}"), key=lambda s: (s.path, s.line))
    if not sites:
        return None
    return HelperUses(count=len(sites), sites=tuple(sites[:MAX_SITES]))
