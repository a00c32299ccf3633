"""Runner: catalog data -> each card's example run in a sandboxed child, judged against the card.

``verify_catalog`` runs the Python example of every card whose trigger is verified, "before"
and "after", each in a fresh interpreter (``child.py``) with a timeout, a fresh temporary
working folder and HOME, empty stdin, and a minimal environment; a child that fails is
simply gone, the next call gets a new one. The outcome of a card:

- ``confirmed``: "before" raised the card's class (or a subclass) with exactly the card's
  message, from the card's site (the frame that raised it, or one of its cause/context chain);
  for a field constraint's card, a ``ValidationError`` whose ``errors()`` hold the card's error
  type for the card's field (``different_message``: a ValidationError without it);
- ``wrapped``: the same, found in the cause/context chain of another exception, which is
  what reached the caller (recorded as observed: a framework such as pydantic or
  ``@strict`` wrapped it);
- ``different_message``: the right class from the site, another message (both are kept);
- ``raised_elsewhere``: something else raised, or from another place (what, and where);
- ``did_not_raise``; ``timeout``;
- ``not_runnable``: no example (values no call can write), a CLI example whose console script
  is not found, the sandbox refused what it needed, the child failed, a module outside the
  card's project is not installed (``missing_dependency``, the module as ``detail``), or the
  code reached for the network, which the sandbox cuts off (``needs_network``: a name lookup
  failed; a model's files to download).

A CLI example runs in the same sandbox: its first word is a console script, found in the
metadata of what ``settings.python`` has installed (with ``settings.roots`` on its path), else
in ``[project.scripts]`` of a root's (or its parent's) pyproject.toml, the source tree that
declares it; the child sets ``sys.argv`` to the line's words and calls the script's function, as
the installed script would. Its exit status is what it raised: ``SystemExit`` with a status
other than 0 (argparse's usage error, 2) is judged as any exception, with the card's error
found in its cause/context chain (``wrapped``) where the parser reported it.

"After" (the example's fix), and the same call with each further fix of the card, holds
when it does not raise from the site.

A field constraint's card may also hold command lines that pass the refused value, and the
fix's, through the field's flag (``command_line``, ``command_line_fix``): they run as CLI
examples do, and their outcome is the verification's ``command_line`` (a ``LineRun``). A
parser that builds the record from its flag's value reports pydantic's error and exits
(argparse: status 2): the ValidationError in the chain of that ``SystemExit`` is ``wrapped``.
``--env NAME=VALUE`` adds to the child's minimal environment what the command needs to start
(vLLM's CLI: ``VLLM_TARGET_DEVICE=cpu`` on a machine without an accelerator).
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..model import ExampleStyle, FixOutcome, RaiseKind, Reason, VerifyOutcome

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
OUTCOMES = tuple(VerifyOutcome)
WRONG = (VerifyOutcome.DIFFERENT_MESSAGE, VerifyOutcome.RAISED_ELSEWHERE, VerifyOutcome.DID_NOT_RAISE)


@dataclass(frozen=True)
class Settings:
    python: str = sys.executable
    roots: tuple[str, ...] = ()  # folders put first on the child's sys.path (a source tree)
    timeout: float = 10.0
    jobs: int = 2
    exclude: tuple[str, ...] = ()  # globs of card paths left unrun (no verification block)
    env: tuple[tuple[str, str], ...] = ()  # variables the child's environment gets besides the minimal one (``--env``)


def run_child(code: str, settings: Settings) -> dict[str, Any]:
    """What running ``code`` raised, as the child reports it; ``{"timeout": True}`` or
    ``{"failed": reason}`` when there is no report."""
    with tempfile.TemporaryDirectory(prefix="raisedocs-verify-") as folder:
        code_file = os.path.join(folder, "example.py")
        with open(code_file, "w", encoding="utf-8") as handle:
            handle.write(code)
        work = os.path.join(folder, "work")
        os.mkdir(work)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "TMPDIR": work, "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", **dict(settings.env),
        }
        seconds = max(1, int(settings.timeout))
        try:
            proc = subprocess.run(
                [settings.python, "-I", CHILD, code_file, str(seconds), *settings.roots],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=settings.timeout + 5, cwd=work, env=env, check=False,
            )
        except subprocess.TimeoutExpired:
            return {"timeout": True}
        except OSError as exc:
            return {"failed": f"cannot start {settings.python}: {exc.strerror or exc}"}
    lines = proc.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else None
    except ValueError:
        report = None
    if not isinstance(report, dict):
        if proc.returncode < 0 and -proc.returncode in (9, 24):  # SIGKILL, SIGXCPU: the CPU limit
            return {"timeout": True}
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"failed": f"the child exited with status {proc.returncode}: {tail[:200]}"}
    return report


def _at_site(raised: dict[str, Any], card: dict[str, Any]) -> bool:
    """Whether the frame that raised it is the card's: the innermost one, or for a card that
    re-raises a caught exception (``raise exc``) the frame's entry in the traceback, which
    goes on below it to where the exception was first raised."""
    frozen = "<frozen " + card["path"].removesuffix(".py").removesuffix("/__init__").replace("/", ".") + ">"

    def here(at: list[Any] | None) -> bool:  # (a frozen module, os or zipimport, names its frames "<frozen os>")
        if not at:
            return False
        return at[0] in (card["path"], frozen) and card["line"] <= at[1] <= card["end_line"]

    if card.get("kind") == RaiseKind.RERAISE:
        return any(here(at) for at in raised.get("frames", ()))
    if card.get("kind") == RaiseKind.HELPER_CALL and card.get("through"):
        # A call of a raising helper: the helper's raise is the innermost frame, and the card's
        # call is on the way to it.
        through = card["through"]
        at: list[Any] = raised.get("at") or []
        return len(at) == 2 and at[0] == through["raise_path"] and through["raise_line"] <= at[1] <= through["raise_end_line"] \
            and any(here(frame) for frame in raised.get("frames", ()))
    return here(raised.get("at"))


_CUT = re.compile(r" … \[cut: ([\d,]+) characters in all\]$")
MAX_OBSERVED = 2_000  # characters of an observed message kept in the catalog
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_TEMPORARY = re.compile(r"\S*raisedocs-verify-[^/\s]+/work")


def same_message(expected: str, observed: str | None) -> bool:
    """The card's message is the observed one; a message the card cut for size (collect's
    MAX_TEXT_CHARS marker) agrees with a text of that length that starts the same."""
    if observed is None:
        return False
    cut = _CUT.search(expected)
    if cut is None:
        return observed == expected
    return observed.startswith(expected[: cut.start()]) and len(observed) == int(cut.group(1).replace(",", ""))


def _class_ok(raised: dict[str, Any], card: dict[str, Any]) -> bool:
    classes = card["exception"]["classes"]
    return not classes or classes[0].rsplit(".", 1)[-1] in raised["classes"]


def judge_before(card: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """The outcome of "before", with what was observed where it is not ``confirmed``."""
    if report.get("timeout"):
        return {"outcome": VerifyOutcome.TIMEOUT}
    if "failed" in report:
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.CHILD_FAILED, "detail": report["failed"]}
    raised = report.get("raised")
    if raised is None:
        return {"outcome": VerifyOutcome.DID_NOT_RAISE}
    if report.get("blocked"):
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.SANDBOX_REFUSED, "detail": raised["message"]}
    judged = _judge_constraint(card, raised, report) if card.get("constraint") else _judge_raise(card, raised, report)
    if judged is not None:
        return judged
    if (missing := missing_dependency(card, report)) is not None:
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.MISSING_DEPENDENCY, "detail": missing}
    if (offline := network_failure(report)) is not None:
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.NEEDS_NETWORK, "detail": offline}
    if report.get("phase") == "import" and not raised.get("missing"):  # (the card's own raise aside: judged above)
        detail = f"{raised['classes'][0]}: {(raised['message'] or '').partition(chr(10))[0][:200]}"
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.IMPORT_FAILED, "detail": detail}
    return {"outcome": VerifyOutcome.RAISED_ELSEWHERE, "observed": _observed(raised)}


def missing_dependency(card: dict[str, Any], report: dict[str, Any]) -> str | None:
    """The module a ``ModuleNotFoundError`` on the way could not find (raised, or a cause or
    context of what was raised), where it is outside the card's project: a dependency that is
    not installed, not a wrong card. A module of the project itself is the card's concern."""
    own = top_module(card["path"])
    for candidate in (report["raised"], *report.get("chain", ())):
        missing = candidate.get("missing")
        if missing and missing.split(".", 1)[0] != own:
            return str(missing)
    return None


_UNREACHABLE = ("[Errno 101]", "[Errno 113]")  # ENETUNREACH, EHOSTUNREACH


def network_failure(report: dict[str, Any]) -> str | None:
    """What failed for want of the network, where the child ran in a network namespace of its
    own (nothing is reachable there): a name lookup (``socket.gaierror``) or an unreachable
    network among what was raised and its chain; None where nothing did."""
    if not report.get("network_isolated"):
        return None
    for candidate in (report["raised"], *report.get("chain", ())):
        message = candidate.get("message") or ""
        if "gaierror" in candidate["classes"] or message.startswith(_UNREACHABLE):
            return f"{candidate['classes'][0]}: {message.partition(chr(10))[0][:200]}"
    return None


def _holds_error(card: dict[str, Any], raised: dict[str, Any]) -> bool:
    """Whether a field constraint's error is among what a ``ValidationError`` holds: its type, for its field."""
    constraint = card["constraint"]
    return "ValidationError" in raised["classes"] and [constraint["error_type"], constraint["field"]] in raised.get("errors", [])


def _judge_raise(card: dict[str, Any], raised: dict[str, Any], report: dict[str, Any]) -> dict[str, Any] | None:
    """A raise card's "before": its error at its line (raised, or in the chain of what was:
    wrapped), with its message; None where it was not found (raised elsewhere)."""
    expected = card["trigger"].get("message")
    for candidate in (raised, *report.get("chain", ())):
        if _at_site(candidate, card) and _class_ok(candidate, card):
            if expected is not None and not same_message(expected, candidate["message"]):
                return {"outcome": VerifyOutcome.DIFFERENT_MESSAGE, "observed": _observed(candidate)}
            return _found(candidate, raised)
    return None


def _found(candidate: dict[str, Any], raised: dict[str, Any]) -> dict[str, Any]:
    """The card's error was found as ``candidate``: ``confirmed`` where it is what was raised,
    else ``wrapped`` (the caller got another exception, which holds it: a framework or a
    command's parser wrapped it)."""
    if candidate is not raised:
        return {"outcome": VerifyOutcome.WRAPPED, "observed": _observed(raised)}
    return {"outcome": VerifyOutcome.CONFIRMED}


def _judge_constraint(card: dict[str, Any], raised: dict[str, Any], report: dict[str, Any]) -> dict[str, Any] | None:
    """A field constraint's "before": pydantic's ValidationError holding the card's error for
    the card's field (where pydantic raises it is pydantic's, never a line of the tree), raised
    or in the chain of what was (``wrapped``: a command's parser reported it and exited); None
    where no ValidationError was raised (raised elsewhere)."""
    chain = (raised, *report.get("chain", ()))
    for candidate in chain:
        if _holds_error(card, candidate):
            return _found(candidate, raised)
    refused = next((c for c in chain if "ValidationError" in c["classes"]), None)
    if refused is not None:
        return {"outcome": VerifyOutcome.DIFFERENT_MESSAGE, "observed": _observed(refused)}
    return None


def _observed(raised: dict[str, Any]) -> dict[str, Any]:
    at = raised.get("at")
    message = raised["message"]
    if message is not None:  # what differs from run to run: object addresses, the temporary folder
        message = _TEMPORARY.sub("<work>", _ADDRESS.sub("0x…", message))
    if message is not None and len(message) > MAX_OBSERVED:
        message = f"{message[:MAX_OBSERVED]} … [cut: {len(message):,} characters in all]"
    return {"exception": raised["classes"][0], "message": message, "at": f"{at[0]}:{at[1]}" if at else None}


def judge_after(card: dict[str, Any], report: dict[str, Any]) -> FixOutcome:
    """Whether the example's fix keeps control away from the site (``holds``: it raised
    nothing; ``raises_other``: it left the site alone but raised another error)."""
    if report.get("timeout"):
        return FixOutcome.TIMEOUT
    raised = report.get("raised")
    if "failed" in report or (raised is not None and report.get("blocked")):
        return FixOutcome.NOT_RUN
    chain = (raised, *report.get("chain", ())) if raised is not None else ()
    if any(_holds_error(card, r) if card.get("constraint") else _at_site(r, card) for r in chain):
        return FixOutcome.STILL_RAISES
    if raised is not None and network_failure(report) is not None:
        return FixOutcome.NOT_RUN  # (it went past the site, to a download the sandbox cannot make)
    return FixOutcome.RAISES_OTHER if raised is not None else FixOutcome.HOLDS


def verify_card(card: dict[str, Any], settings: Settings) -> dict[str, Any] | None:
    """The verification block of one card (None for a card with no verified trigger)."""
    trigger = card.get("trigger") or {}
    if not trigger.get("verified") or any(fnmatch.fnmatchcase(card["path"], glob) for glob in settings.exclude):
        return None
    example = card.get("example")
    if example is None:  # (a field constraint's command lines may still run: a Python call may need arguments no line does)
        lines = {"command_line": verify_line(card, settings)} if card.get("command_line") else {}
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.NO_EXAMPLE, **lines}
    python = example["style"] == ExampleStyle.PYTHON
    result = _judged(card, settings, example["before"], example.get("after"), example.get("fixes", ()), cli=not python)
    if card.get("command_line"):
        result["command_line"] = verify_line(card, settings)
    return result


def verify_line(card: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """The ``LineRun`` of a field constraint's command lines: ``command_line`` run as its
    console script and judged as the example is, then ``command_line_fix`` (where there is one)."""
    return _judged(card, settings, card["command_line"], card.get("command_line_fix"), None, cli=True)


def _judged(card: dict[str, Any], settings: Settings, before: str, after: str | None, fixes: Iterable[str] | None,
            cli: bool) -> dict[str, Any]:
    """``before`` run and judged, then ``after`` and each of ``fixes`` (None: no ``fixes`` key, a
    ``LineRun``'s); Python code, or command lines run as their console script (``cli``)."""
    code: Callable[[str], str | None] = functools.partial(cli_code, settings=settings) if cli else str
    first = code(before)
    if first is None:
        return {"outcome": VerifyOutcome.NOT_RUNNABLE, "reason": Reason.CLI_EXAMPLE}
    result = judge_before(card, run_child(first, settings))
    result["fix"] = judge_after(card, _run(code(after), settings)) if after is not None else None
    if fixes is not None:
        result["fixes"] = [judge_after(card, _run(code(line), settings)) for line in fixes]
    return result


def _run(code: str | None, settings: Settings) -> dict[str, Any]:
    return run_child(code, settings) if code is not None else {"failed": "the command line cannot be run"}


def cli_code(line: str, settings: Settings) -> str | None:
    """Python that runs the command line ``line`` as its console script would (``sys.argv`` its
    words, then the script's function; exit status 0 is no error); None where the line cannot
    be split or its console script is not found (``console_script``)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    target = console_script(words[0], settings.python, settings.roots) if words else None
    if target is None:
        return None
    module, _, attribute = target.partition(":")
    return (
        "import importlib\nimport sys\n\n"
        f"sys.argv = {words!r}\n"
        f"_entry = importlib.import_module({module.strip()!r})\n"
        f"for _name in {attribute.strip()!r}.split('.'):\n"
        "    _entry = getattr(_entry, _name)\n"
        "try:\n"
        "    _entry()\n"
        "except SystemExit as _exit:\n"
        "    if _exit.code not in (0, None):\n"
        "        raise\n"
    )


_SCRIPTS = r"""
import json, sys, importlib.metadata as md
sys.path[:0] = sys.argv[2:]
found = [ep.value for ep in md.entry_points(group="console_scripts", name=sys.argv[1])]
print(json.dumps(found[0] if found else None))
"""


@functools.lru_cache(maxsize=64)
def console_script(name: str, python: str, roots: tuple[str, ...]) -> str | None:
    """``module:function`` of the console script ``name``: installed for ``python`` (with
    ``roots`` on its path), else declared in ``[project.scripts]`` of the pyproject.toml in a
    root or its parent folder (the source tree being verified); None where neither has it."""
    try:
        proc = subprocess.run([python, "-I", "-c", _SCRIPTS, name, *roots], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60, check=False)
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        found = None
    if isinstance(found, str) and ":" in found:
        return found
    for root in roots:
        for folder in (root, os.path.dirname(root)):
            try:
                with open(os.path.join(folder, "pyproject.toml"), "rb") as handle:
                    scripts = tomllib.load(handle).get("project", {}).get("scripts", {})
            except (OSError, ValueError):
                continue
            if isinstance(scripts, dict) and isinstance(scripts.get(name), str) and ":" in scripts[name]:
                return str(scripts[name])
    return None


def verify_cards(cards: list[dict[str, Any]], settings: Settings,
                 progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any] | None]:
    """``verify_card`` of each card, ``settings.jobs`` children at a time, in card order."""
    done = 0
    results: list[dict[str, Any] | None] = [None] * len(cards)
    with ThreadPoolExecutor(max_workers=max(1, settings.jobs)) as pool:
        futures = {pool.submit(verify_card, card, settings): index for index, card in enumerate(cards)}
        for future, index in futures.items():
            results[index] = future.result()
            done += 1
            if progress is not None:
                progress(done, len(cards))
    return results


_PACKAGES = r"""
import json, sys, importlib.metadata as md, importlib.util, platform
sys.path[:0] = sys.argv[2:]
names = json.loads(sys.argv[1])
dists = md.packages_distributions()
found = {}
for name in names:
    if name in sys.stdlib_module_names:
        found[name] = ["python", platform.python_version()]
        continue
    for dist in sorted(dists.get(name, ())):
        try:
            found[name] = [dist, md.version(dist)]
            break
        except md.PackageNotFoundError:
            continue
print(json.dumps(found))
"""


def packages(tops: list[str], settings: Settings) -> dict[str, tuple[str, str]]:
    """Top-level module -> (distribution, version) as installed for ``settings.python``; the
    standard library's modules are ("python", its version); a module found nowhere is left out."""
    try:
        proc = subprocess.run([settings.python, "-I", "-c", _PACKAGES, json.dumps(sorted(set(tops))), *settings.roots],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return {}
    return {name: (dist, version) for name, (dist, version) in found.items()}


def top_module(path: str) -> str:
    """The top-level module of a repo-relative path (``vllm/config/x.py`` -> ``vllm``)."""
    first = path.split("/", 1)[0]
    return first.removesuffix(".py")


def verify_catalog(data: dict[str, Any], settings: Settings,
                   progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The catalog with a ``verification`` block on each card whose trigger is verified,
    naming the package and version run (the source tree's name where it is not installed)."""
    cards = data["errors"]
    installed = packages([top_module(c["path"]) for c in cards], settings)
    results = verify_cards(cards, settings, progress)
    tree = (data.get("source") or {}).get("root")
    out = []
    counts: dict[str, int] = {}
    for card, result in zip(cards, results):
        if result is not None:
            package, version = installed.get(top_module(card["path"]), (tree, None))
            result = {"package": package, "version": version, **_complete(result), "fixes": result.get("fixes", []),
                      "command_line": _complete(result["command_line"]) if result.get("command_line") else None}
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        out.append({**card, "verification": result})
    stats = {**data["stats"], "verification": dict(sorted(counts.items()))}
    return {**data, "errors": out, "stats": stats}


def _complete(run: dict[str, Any]) -> dict[str, Any]:
    """A run's outcome with every field of its record (``Verification``, ``LineRun``) written."""
    done = {"reason": None, "detail": None, "observed": None, "fix": None, **run}
    if done["observed"] is not None:
        done["observed"] = {"exception": None, "message": None, "at": None, **done["observed"]}
    return done


def fail_groups(data: dict[str, Any]) -> dict[str, int]:
    """Cards per ``--fail-on`` group: wrong (the example does not raise what the card says),
    not_runnable, timeout, fix_fails (the example's "after" still raises from the site, or
    raises another error: not a fix a user can apply as written)."""
    groups = {"wrong": 0, "not_runnable": 0, "timeout": 0, "fix_fails": 0}
    for card in data["errors"]:
        result = card.get("verification")
        if result is None:
            continue
        runs = [result, *([result["command_line"]] if result.get("command_line") else [])]
        outcomes = {run["outcome"] for run in runs}
        if outcomes & set(WRONG):
            groups["wrong"] += 1
        elif (stuck := next((r["outcome"] for r in runs if r["outcome"] in (VerifyOutcome.NOT_RUNNABLE, VerifyOutcome.TIMEOUT)), None)):
            groups[stuck] += 1
        if {FixOutcome.STILL_RAISES, FixOutcome.RAISES_OTHER} & {*(run.get("fix") for run in runs), *result.get("fixes", ())}:
            groups["fix_fails"] += 1
    return groups


def write_verified(data: dict[str, Any], target: str, catalog_file: str) -> None:
    """Write the verified catalog back: a docs folder re-rendered whole (atomically), or the
    catalog.json file replaced atomically."""
    from ..publish.output import write_docs, write_file_atomic
    from ..publish.render import render_chunks

    if os.path.isdir(target):
        write_docs(render_chunks(data), target)
    else:
        write_file_atomic(catalog_file, "".join(next(render_chunks(data))[1]))


def _unverified(card: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in card.items() if k != "verification"}, sort_keys=True)


def carry_verification(data: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a fresh extract) with the verification of each card of ``old`` that is the
    same card in every other field: what ``verify`` proved still holds, and a card whose
    example or code changed has none (so ``check`` calls the folder stale until verified)."""
    kept = {card["id"]: (_unverified(card), card.get("verification")) for card in old["errors"] if card.get("verification")}
    if not kept:
        return data
    out: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for card in data["errors"]:
        same = kept.get(card["id"])
        result = same[1] if same is not None and same[0] == _unverified(card) else None
        if result is not None:
            counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        out.append({**card, "verification": result})
    return {**data, "errors": out, "stats": {**data["stats"], "verification": dict(sorted(counts.items()))}}


def with_verification(catalog: Any, old: dict[str, Any] | None) -> Any:
    """The fresh catalog, with the verification of every card the folder's catalog ``old``
    proved and that did not change since (``verify``); the catalog itself where it has none."""
    if old is None or not any(card.get("verification") for card in old["errors"]):
        return catalog
    return carry_verification(catalog.data(), old)
