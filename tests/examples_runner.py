"""Run a card's example in a fresh interpreter and say what it raised, and from where.

Used by the test that executes the fixtures' examples (safe: this project wrote them), and
by hand on the stdlib in a sandbox (``python -m tests.examples_runner DOCS ROOT``). The
child prints one JSON line: the exception's class names along its MRO, its message, and
every traceback frame as (file, line).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

_CHILD = r"""
import json, sys, traceback
sys.dont_write_bytecode = True  # -I ignores PYTHONDONTWRITEBYTECODE

class Blocked(BaseException):
    pass

_WRITES = ("os.remove", "os.unlink", "os.rmdir", "os.rename", "os.replace", "os.mkdir", "os.chmod", "os.chown",
           "os.truncate", "os.symlink", "os.link", "shutil.rmtree", "shutil.copyfile", "shutil.move", "os.system",
           "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.kill", "subprocess.Popen", "socket.", "ctypes.")

def _audit(event, args):
    if event == "open" and len(args) > 1 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
        raise Blocked(f"sandbox: {event} {args[0]!r} for writing")
    if event.startswith(_WRITES):
        raise Blocked(f"sandbox: {event}")

sys.addaudithook(_audit)
code = sys.stdin.read()
try:
    exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
except BaseException as exc:
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)]
    names = [c.__name__ for c in type(exc).__mro__]
    print(json.dumps({"raised": names, "message": str(exc), "frames": frames}))
else:
    print(json.dumps({"raised": None}))
"""


@dataclass(frozen=True)
class Outcome:
    raised: list[str] | None  # class names along the MRO, or None
    message: str | None
    frames: list[tuple[str, int]]

    def raised_from(self, path: str, first: int, last: int) -> bool:
        frozen = "<frozen " + path.removesuffix(".py").removesuffix("/__init__").replace("/", ".") + ">"
        return any((name.endswith(os.sep + path) or name in (path, frozen)) and first <= line <= last for name, line in self.frames)


def run(code: str, root: str, timeout: float = 20.0) -> Outcome:
    """``code`` run with ``root`` first on sys.path, in an empty temporary folder; writes,
    deletions, subprocesses and sockets are refused by an audit hook (a guard against
    accidents, not a security boundary)."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {root!r})\n" + _CHILD],
                              input=code, capture_output=True, text=True, timeout=timeout, cwd=cwd, env={**env, "HOME": cwd})
    line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}"
    data = json.loads(line)
    return Outcome(data.get("raised"), data.get("message"), [tuple(f) for f in data.get("frames", [])])


def check(card: dict, root: str) -> list[str]:
    """What is wrong with the card's example when run (empty: before raises the card's class
    and message from the card's lines, after does not raise from them)."""
    example = card["example"]
    if example is None or example["style"] != "python":
        return []
    problems = []
    expected = card["exception"]["classes"][0].rsplit(".", 1)[-1] if card["exception"]["classes"] else None
    first, last = card["line"], card["end_line"]
    before = run(example["before"], root)
    if before.raised is None:
        problems.append("before: did not raise")
    else:
        if expected is not None and expected not in before.raised:
            problems.append(f"before: raised {before.raised[0]}: {before.message}, not {expected}")
        message = card["trigger"]["message"]
        if message is not None and before.message != message:
            problems.append(f"before: message {before.message!r}, card says {message!r}")
        if not before.raised_from(card["path"], first, last):
            problems.append(f"before: not raised from {card['path']}:{first} (frames {before.frames[-2:]})")
    after = run(example["after"], root)
    if after.raised is not None and after.raised_from(card["path"], first, last):
        problems.append(f"after: still raises from {card['path']}:{first}: {after.message}")
    return problems


def main(argv: list[str]) -> int:
    docs, root = argv
    with open(os.path.join(docs, "catalog.json"), encoding="utf-8") as handle:
        catalog = json.load(handle)
    cards = [c for c in catalog["errors"] if c["example"] and c["example"]["style"] == "python"]
    bad = 0
    for card in cards:
        try:
            problems = check(card, root)
        except subprocess.TimeoutExpired:
            problems = ["timeout"]
        if problems:
            bad += 1
            print(f"{card['path']}:{card['line']} {card['id']}: " + "; ".join(problems))
    print(f"{len(cards) - bad} of {len(cards)} examples behave as their cards say")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
