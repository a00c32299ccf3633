"""The subclass ``OSError(errno, strerror, ...)`` creates: Python picks it from the number.

``OSError.__new__``, called on ``OSError`` itself (or an alias: ``IOError``,
``EnvironmentError``) with two to five arguments, returns the subclass registered for the
first one: ``OSError(errno.ENOENT, "...")`` is a ``FileNotFoundError``, which an ``except
FileNotFoundError`` catches. The table is CPython's (``Objects/exceptions.c``). A number
written as a literal maps only where its name is the same number on Linux, macOS and
Windows (the low POSIX numbers), so the card does not depend on where it is made.
"""

from __future__ import annotations

from ..model import FileFacts, SiteFact
from .project import Project

_BY_NAME = {
    **dict.fromkeys(("EAGAIN", "EALREADY", "EINPROGRESS", "EWOULDBLOCK"), "BlockingIOError"),
    "ECHILD": "ChildProcessError",
    **dict.fromkeys(("EPIPE", "ESHUTDOWN"), "BrokenPipeError"),
    "ECONNABORTED": "ConnectionAbortedError",
    "ECONNREFUSED": "ConnectionRefusedError",
    "ECONNRESET": "ConnectionResetError",
    "EEXIST": "FileExistsError",
    "ENOENT": "FileNotFoundError",
    "EISDIR": "IsADirectoryError",
    "ENOTDIR": "NotADirectoryError",
    "EINTR": "InterruptedError",
    **dict.fromkeys(("EACCES", "EPERM", "ENOTCAPABLE"), "PermissionError"),
    "ESRCH": "ProcessLookupError",
    "ETIMEDOUT": "TimeoutError",
}
_SAME_EVERYWHERE = {
    1: "EPERM", 2: "ENOENT", 3: "ESRCH", 4: "EINTR", 10: "ECHILD", 13: "EACCES", 17: "EEXIST", 20: "ENOTDIR", 21: "EISDIR", 32: "EPIPE",
}


def errno_subclass(project: Project, facts: FileFacts, site: SiteFact, resolved: str) -> str | None:
    """The builtin subclass the site's ``OSError(...)`` call creates; None where it creates
    OSError itself, or the number is not known."""
    arguments = site.raised.passage.arguments
    if resolved != "OSError" or not site.raised.is_call or arguments is None or not 2 <= len(arguments) <= 5:
        return None
    if any(a.keyword is not None for a in arguments):
        return None
    code = arguments[0].code.strip()
    if code.isdigit():
        name = _SAME_EVERYWHERE.get(int(code))
    else:
        symbol = project.resolve(facts, code)
        module, _, name = (symbol.qualname if symbol is not None else "").rpartition(".")
        if module != "errno":
            return None
    return _BY_NAME.get(name or "")
