"""Caught by the library: a card's raise, its file's calls (collect.callers) -> the ``except``
clauses of the project that catch it on its way to callers, and whether users still see it.

Statically and bounded: the calls of the card's function in its own file, followed through
private callers (a call outside any catching handler in a private function is followed to
that function's own calls) up to ``collect.callers.MAX_LEVELS`` levels. A handler catches the
error when the class it names, resolved through the project, is the raised class or one of
its ancestors (``except Exception`` and a bare ``except`` included); a class the tree cannot
place is never taken to catch it. Python tries a try statement's clauses in order and the
innermost try first, so the first clause that catches it is the one that runs. A clause that
ends at a call of a raising helper (link.helpers, any file of the tree) raises what the helper
raises (outcome no_return); one that raises another error, exits or keeps the error for a
later raise makes the verdict ``replaced``, never ``hidden``.
"""

from __future__ import annotations

from ..model import CallSite, CatchingHandler, Caught, CaughtVisibility, ExceptionRef, FileFacts, FunctionCalls, Handler, HandlerOutcome
from ..model.codes import RaiseKind
from .helpers import MAX_DEPTH, resolve_helper
from .project import Project

MAX_HANDLERS = 12  # listed on a card; the verdict weighs them all
MAX_PATHS = 64  # calls followed per card


def caught_by(project: Project, facts: FileFacts, function: str | None, exception: ExceptionRef) -> Caught | None:
    """Where the handlers of ``facts``' file catch what the card raises on its way out of
    ``function``, and whether users can still see it; None where no call of the function
    is inside such a handler (or the file shows none)."""
    calls = {c.function: c for c in facts.calls}
    own = calls.get(function or "")
    if own is None or not own.calls or not exception.classes:
        return None
    raised = {*exception.classes, *exception.ancestors}
    walk = _Walk(project, facts, calls, raised)
    walk.follow(own, ())
    if not walk.handlers:
        return None
    return Caught(visibility=_visibility(facts, own, walk), handlers=tuple(walk.handlers[:MAX_HANDLERS]),
                  escapes=tuple(walk.escapes[:MAX_HANDLERS]))


class _Walk:
    """The calls followed from one card's function: the handlers that catch its error, and the
    calls through which it leaves the file's view uncaught."""

    def __init__(self, project: Project, facts: FileFacts, calls: dict[str, FunctionCalls], raised: set[str]) -> None:
        self.project, self.facts, self.calls, self.raised = project, facts, calls, raised
        self.handlers: list[CatchingHandler] = []
        self.escapes: list[CallSite] = []
        self.is_incomplete = False  # a function on the way has uses other than the calls seen, or is decorated
        self.budget = MAX_PATHS
        self.known: dict[str, bool] = {}

    def follow(self, function: FunctionCalls, through: tuple[str, ...]) -> None:
        for call in function.calls:
            self.budget -= 1
            handler = next((h for h in call.handlers if self.catches(h.catches)), None)
            if handler is not None:
                outcome, raises = self.helper_outcome(handler, call.caller)
                self.add(CatchingHandler(path=self.facts.path, line=handler.line, function=call.caller, catches=handler.catches,
                                         outcome=outcome, raises=raises, last=handler.last, carries=handler.carries,
                                         surfaces=handler.surfaces or outcome != handler.outcome, through=through))
                continue
            onward = self.calls.get(call.caller or "")
            if self.budget > 0 and onward is not None and onward.calls and onward.function not in through and _is_private(onward.function):
                self.is_incomplete |= not onward.is_complete or onward.is_decorated
                self.follow(onward, (*through, onward.function))
            else:
                self.escapes.append(CallSite(function=call.caller, line=call.line))

    def add(self, handler: CatchingHandler) -> None:
        if handler not in self.handlers:  # (two calls in one try statement: its clause once)
            self.handlers.append(handler)

    def helper_outcome(self, handler: Handler, caller: str | None) -> tuple[HandlerOutcome, str | None]:
        """The handler's outcome, and what it raises: a fallback that ends at a call of a raising
        helper (link.helpers) raises what the helper raises (its class as the helper's raise writes it)."""
        if handler.calls is None:
            return handler.outcome, handler.raises
        head = (caller or "").rpartition(".")[0]
        owner = head if head and any(c.qualname == head for c in self.facts.classes) else None
        callee, where = handler.calls, self.facts
        for _ in range(MAX_DEPTH):
            found = resolve_helper(self.project, where, callee, owner)
            if found is None:
                return handler.outcome, handler.raises
            where, helper = found
            if helper.raised.statement.kind != RaiseKind.HELPER_CALL:
                return HandlerOutcome.NO_RETURN, helper.raised.written
            callee, owner = helper.raised.written or "", helper.owner
        return handler.outcome, handler.raises

    def catches(self, written: tuple[str, ...]) -> bool:
        return any(self._catches(name) for name in written)

    def _catches(self, written: str) -> bool:
        if written not in self.known:
            symbol = self.project.resolve(self.facts, written)
            name = symbol.qualname if symbol is not None and symbol.kind in ("class", "builtin") else None
            self.known[written] = name is not None and name in self.raised
        return self.known[written]


def _is_private(qualname: str) -> bool:
    name = qualname.rsplit(".", 1)[-1]
    return name.startswith("_") and not name.endswith("__")


def _visibility(facts: FileFacts, own: FunctionCalls, walk: _Walk) -> CaughtVisibility:
    if walk.escapes:
        return CaughtVisibility.PARTLY
    if any(h.outcome == HandlerOutcome.RERAISE for h in walk.handlers):
        return CaughtVisibility.RERAISED
    if not _is_private(own.function) or own.function in (facts.exports or ()):
        return CaughtVisibility.PUBLIC
    if own.is_decorated:
        return CaughtVisibility.DECORATED
    if not own.is_complete or walk.is_incomplete:
        return CaughtVisibility.OTHER_USES
    if any(h.surfaces for h in walk.handlers):
        return CaughtVisibility.REPLACED
    return CaughtVisibility.HIDDEN
