"""The sandboxed side of ``raisedocs verify``: run one example and print what it raised.

Run as a script by a fresh interpreter (``python -I child.py CODE_FILE ROOT...``), never
imported by raisedocs: it imports nothing of raisedocs, so it runs under any Python the
user names with ``--python``. Before the example runs it
- leaves the network where the OS allows it (a new network namespace, Linux),
- lowers its resource limits (CPU seconds, address space, file size, processes),
- installs an audit hook (PEP 578) that refuses subprocesses, sockets and writes outside its
  working folder (a fresh temporary folder, also its HOME). What importing real packages
  needs, and cannot harm the machine, passes: ``ctypes`` (``import torch`` loads its
  libraries through it; the hook guards against accidents, not against code written to
  escape, which ``ctypes`` or any C extension could), writes to ``/dev/null`` and to a file
  descriptor the process itself opened, the read-only ``uname``, ``lscpu`` and ``file``
  commands (``platform.uname()``, ``platform.architecture()``), a new limit of a resource it
  does not limit itself within the hard one (vLLM's CLI raises its soft limit of open files),
  and, inside a network namespace of its own where nothing is reachable, sockets (urllib3
  probes IPv6 on import).
It prints one JSON line: the exception (class names along the MRO, message, the place of
the frame that raised it, the module a ``ModuleNotFoundError`` could not find), each
exception of its ``__cause__``/``__context__`` chain and each one a validation error among them holds
(pydantic's), and where the sandbox refused something.
"""

import ast
import json
import os
import sys
import traceback


class Blocked(BaseException):
    """The sandbox refused an operation (a BaseException: ``except Exception`` passes it on)."""


_REFUSED = (
    "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
    "socket.", "pty.", "resource.setrlimit", "sys.addaudithook", "webbrowser.",
)
_INFORMATION_COMMANDS = frozenset({"uname", "lscpu", "file"})  # read the machine, change nothing
_WRITES = ("os.remove", "os.unlink", "os.rmdir", "os.rename", "os.replace", "os.mkdir", "os.chmod", "os.chown",
           "os.truncate", "os.symlink", "os.link", "shutil.rmtree", "shutil.copyfile", "shutil.move", "shutil.copytree")


def _leave_network():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.unshare(0x40000000) == 0  # CLONE_NEWNET
    except Exception:  # noqa: BLE001 (not Linux, or not allowed: the audit hook still refuses sockets)
        return False


def _limit(seconds):
    try:
        import resource
    except ImportError:
        return
    for name, value in (("RLIMIT_CPU", seconds), ("RLIMIT_AS", 4 << 30), ("RLIMIT_FSIZE", 64 << 20), ("RLIMIT_NPROC", 64)):
        kind = getattr(resource, name, None)
        if kind is None:
            continue
        try:
            _, hard = resource.getrlimit(kind)
            wanted = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (wanted, hard))
        except (ValueError, OSError):
            pass


def _inside(path, folder):
    """Whether a write to ``path`` stays in the working folder: a path in it, ``/dev/null``,
    or a file descriptor (the process opened it, through this hook)."""
    if isinstance(path, int):
        return True
    try:
        real = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return real == os.devnull or real.startswith(folder + os.sep)


_LIMITED = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC")  # the limits _limit sets


def _harmless_limit(args):
    """``resource.setrlimit`` of a resource the sandbox does not limit, never above its hard
    limit: vLLM's CLI raises its soft limit of open files to the hard one."""
    try:
        import resource

        kind, (_, hard) = args
        if kind in {getattr(resource, name, None) for name in _LIMITED}:
            return False
        current = resource.getrlimit(kind)[1]
        infinity = resource.RLIM_INFINITY
        return current == infinity or (hard != infinity and hard <= current)  # (the OS refuses a soft limit above it)
    except Exception:  # noqa: BLE001 (arguments of another shape: refused)
        return False


def _information_command(args):
    """``subprocess.Popen``'s executable is one of the read-only information commands."""
    try:
        return bool(args) and os.path.basename(os.fsdecode(args[0])) in _INFORMATION_COMMANDS
    except (TypeError, ValueError):
        return False


def _hook(folder, isolated):
    def audit(event, args):
        if event == "open" and len(args) > 1 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
            if not _inside(args[0], folder):
                raise Blocked(f"sandbox: open {args[0]!r} for writing")
        elif event.startswith(_WRITES) and args and not _inside(args[0], folder):
            raise Blocked(f"sandbox: {event}")
        elif event == "subprocess.Popen" and _information_command(args):
            return
        elif event.startswith("socket.") and isolated:
            return  # a network namespace of its own: nothing to reach
        elif event == "resource.setrlimit" and _harmless_limit(args):
            return
        elif event.startswith(_REFUSED):
            raise Blocked(f"sandbox: {event}")

    return audit


def _place(filename, roots):
    """A frame's file as a path relative to the sys.path entry it comes from."""
    for root in roots:
        if filename.startswith(root + os.sep):
            return filename[len(root) + 1:].replace(os.sep, "/")
    return filename if filename.startswith("<") else os.path.basename(filename)


def _describe(exc, roots):
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return {
        "classes": [c.__name__ for c in type(exc).__mro__],
        "message": _text(exc),
        "errors": _errors(exc),
        "at": [_place(last.filename, roots), last.lineno] if last else None,
        "frames": [[_place(f.filename, roots), f.lineno] for f in frames[-64:]],
        # (the module an import could not find: a dependency that is not installed)
        "missing": exc.name if isinstance(exc, ModuleNotFoundError) and isinstance(exc.name, str) else None,
    }


def _wrapped(exc):
    """The exceptions a validation error raised in their place holds: pydantic's
    ``errors()[i]["ctx"]["error"]``, the ValueError a validator raised, with its traceback."""
    errors = getattr(exc, "errors", None)
    try:
        items = errors() if callable(errors) else []
    except Exception:  # noqa: BLE001 (an ``errors`` of another kind: nothing wrapped)
        return []
    found = []
    for item in items if isinstance(items, list) else []:
        context = item.get("ctx") if isinstance(item, dict) else None
        error = context.get("error") if isinstance(context, dict) else None
        if isinstance(error, BaseException):
            found.append(error)
    return found


def _chain(exc):
    """The exceptions of ``exc``'s cause/context chain (at most 8), then those that it and each
    of them hold as a validation error's (``_wrapped``: argparse's exit over a type function's
    error over pydantic's, which holds a ``__post_init__``'s ValueError), at most 12 in all."""
    linked, seen, found = exc.__cause__ or exc.__context__, {id(exc)}, []
    while linked is not None and id(linked) not in seen and len(found) < 8:
        seen.add(id(linked))
        found.append(linked)
        linked = linked.__cause__ or linked.__context__
    held = [wrapped for member in (exc, *found) for wrapped in _wrapped(member)]
    return (found + held)[:12]


def _errors(exc):
    """(type, last part of loc) of each error a validation error holds (pydantic's ``errors()``)."""
    errors = getattr(exc, "errors", None)
    try:
        items = errors() if callable(errors) else []
    except Exception:  # noqa: BLE001 (an ``errors`` of another kind: none)
        return []
    found = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("type"), str):
            loc = item.get("loc") or ()
            found.append([item["type"], str(loc[-1]) if isinstance(loc, (tuple, list)) and loc else None])
    return found[:64]


def _text(exc):
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 (a __str__ that fails: the message is unknown)
        return None


def _parts(code):
    """The example as its leading import statements, then the rest (``("import", module)``,
    ``("run", module)``): an error while importing means the example did not run here."""
    try:
        tree = ast.parse(code, "<example>")
    except SyntaxError:
        return [("run", code)]  # (compiling it raises in the run: an example that does not parse is the card's fault)
    count = 0
    while count < len(tree.body) and isinstance(tree.body[count], (ast.Import, ast.ImportFrom)):
        count += 1
    return [("import", ast.Module(body=tree.body[:count], type_ignores=[])), ("run", ast.Module(body=tree.body[count:], type_ignores=[]))]


def main():
    code_file, seconds, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    folder = os.path.realpath(os.getcwd())
    sys.path[:0] = extra
    sys.dont_write_bytecode = True
    roots = sorted({os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}, key=len, reverse=True)
    with open(code_file, encoding="utf-8") as handle:
        code = handle.read()
    isolated = _leave_network()
    _limit(seconds)
    sys.addaudithook(_hook(folder, isolated))
    result = {"network_isolated": isolated, "raised": None, "chain": []}
    namespace = {"__name__": "__example__"}
    phase = "import"
    try:
        for phase, part in _parts(code):
            exec(compile(part, "<example>", "exec"), namespace)  # noqa: S102 (running the example is this child's job)
    except BaseException as exc:  # noqa: BLE001 (whatever it raised is the answer)
        result["phase"] = phase
        result["raised"] = _describe(exc, roots)
        result["blocked"] = isinstance(exc, Blocked)
        result["chain"] = [_describe(linked, roots) for linked in _chain(exc)]
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # no atexit handler or thread of the example runs after the answer


if __name__ == "__main__":
    main()
