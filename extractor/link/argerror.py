"""argparse's ``error``, the linking half: a call statement ``X.error(message)`` whose ``X``
collect.argerror bound to a class as written -> a raise of ``SystemExit`` (kind parser_error)
with the call's message, where that class is ``argparse.ArgumentParser`` or a class of the
tree deriving from it, and no class of the tree on the way (nor, for ``self`` or a
parameter, one deriving from it) defines ``error`` again. ``ArgumentParser.error`` prints the
usage and ``prog: error: message`` on stderr and calls ``exit(2)``: link.wrapping's argparse
row says what the caller sees.
"""

from __future__ import annotations

from dataclasses import replace

from ..collect.argerror import SELF
from ..model import FileFacts, SiteFact
from ..model.codes import RaiseKind
from .helpers import _overridden
from .project import BUILTIN_EXCEPTIONS, Project

ARGUMENT_PARSER = "argparse.ArgumentParser"


def parser_class(project: Project, facts: FileFacts, site: SiteFact) -> str | None:
    """The class (module.qualname) of the parser whose ``error`` the call statement ``site``
    calls, where it is argparse's ``ArgumentParser.error``; None otherwise, or where the tree
    cannot say."""
    receiver = site.receiver
    if receiver is None:
        return None
    if receiver == SELF:
        if site.owner is None or site.at.function != f"{site.owner}.{(site.at.function or '').rsplit('.', 1)[-1]}":
            return None  # (not a method right in its class's body)
        cls = f"{facts.module}.{site.owner}"
    else:
        symbol = project.resolve(facts, receiver)
        if symbol is None or symbol.kind not in ("class", "outside"):
            return None
        cls = symbol.qualname
    if not _inherits_error(project, cls) or _overridden(project, cls, "error"):
        return None  # (an object of a class of the tree deriving from it may run its own ``error``)
    return cls


def _inherits_error(project: Project, cls: str) -> bool:
    """Whether ``cls`` is ``argparse.ArgumentParser``, or a class of the tree deriving from it
    whose ``error`` is argparse's: no class on the way defines or binds it, and none is outside
    the tree (it may define it)."""
    for current in (cls, *project.ancestors(cls)):
        if current == ARGUMENT_PARSER:
            return True
        found = project.class_fact(current)
        if found is None:
            if current in BUILTIN_EXCEPTIONS or current in ("object", "builtins.object"):
                continue
            return False
        fact = found[1]
        if "error" in fact.assigned or any(method == "error" for method, _ in fact.methods) or any(f.name == "error" for f in fact.fields):
            return False
    return False


def parser_error_site(site: SiteFact) -> SiteFact:
    """The call statement as a raise of ``SystemExit`` whose message is the call's argument
    (the exit status, 2, is what the exception holds: ``exit`` prints the message first)."""
    statement = replace(site.raised.statement, kind=RaiseKind.PARSER_ERROR)
    return replace(site, raised=replace(site.raised, statement=statement, written="SystemExit", is_call=True))
