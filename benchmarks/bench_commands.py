"""Wall time of each user-facing command, end to end, as a CI job or a person runs it.

    python benchmarks/bench_commands.py TREE [--tree2 PATH] [--runs 3] [--jobs N]
                                             [--only floor,extract-cold,...] [--json OUT] [--peers]

Every command runs in a fresh process (``python -m extractor ...``, as the ``raisedocs``
entry point does), timed from spawn to exit, ``--runs`` times; the table gives the median,
the range and the ratio of the median to the floor's:

- ``floor``: a fresh ``python`` (default settings, the garbage collector on) that reads and
  ``ast.parse``s, in one process, every ``.py`` file extract reads of TREE (the selection of
  ``extractor.inputs.select_sources``, so ``[tool.raisedocs]`` settings and the default
  excludes count);
- ``extract-cold``: ``extract TREE -o NEW_DOCS --no-cache``, into a folder that does not
  exist yet (removed before each run);
- ``extract-empty-cache``: the same with an emptied ``--cache-dir`` (a first CI run, which
  also writes the cache);
- ``extract-warm-cache``: the same with the cache of an earlier run of the unchanged tree
  (every card from the cache, the folder rendered);
- ``extract-warm``: ``extract TREE -o DOCS`` with that cache, DOCS up to date (a CI run on
  an unchanged tree: recognised from the folder's state, nothing analysed);
- ``extract-edit``: ``extract EDIT_TREE -o EDIT_DOCS`` with the warm cache, after one file of
  a copy of TREE was edited since the last run, which wrote EDIT_DOCS (a CI run on a pull
  request that changes one file). Each run edits anew: a comment line ``# edit N`` above the
  file's first line, so every later line shifts and the content is one no run has seen. The
  file is the one with the median size of those holding a card;
- ``check-edit``: ``check EDIT_DOCS --path EDIT_TREE`` the same way (exit 1: stale);
- ``check``: ``check DOCS --path TREE``, warm, on fresh docs (exit 0);
- ``explain``: ``explain MESSAGE --catalog DOCS``, the message of the first card with a
  template and a concrete trigger (from the folder's ``search-index.json``);
- ``diff-docs``: ``diff DOCS DOCS2`` of two docs folders;
- ``diff-revs``: ``diff REPO@OLD REPO@NEW --no-cache`` of a throwaway git repository;
- ``diff-trees``: ``diff TREE TREE2 --no-cache`` of two plain source folders.

With ``--peers``, the peer tools installed beside this Python run over the same TREE in the
same run, timed the same way (their exit status, which reports what they found, is not a
failure): ``peer-ruff`` (``ruff check --select DOC501``: the raise names a docstring lacks;
Rust), ``peer-pydoclint`` (docstrings against signatures and raises) and ``peer-griffe``
(``griffe dump`` of TREE's top-level packages: the API as JSON).

The second side is ``--tree2`` (another release of the project, say), or else TREE with
``--changed`` files edited deterministically (``bench_extract.synthetic_history``). Every
command gets a private cache folder, never the user's; docs folders, caches and the
repository are built untimed first, in one temporary folder removed at the end. The
ratios of the diffs are to TREE's floor although they read two trees. Exits 1 when a
command exits other than 0 (``check`` stale, ``explain`` with no match, ``diff`` failing).
A benchmark, never a timed test: this machine's timings drift.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_extract import synthetic_history  # also puts the checkout's root on sys.path

from extractor.inputs import select_sources
from extractor.options import Options

ROOT = str(Path(__file__).resolve().parent.parent)

# The floor's whole program: the files named in the JSON list argv[1], read and parsed.
FLOOR_CODE = """\
import ast, json, sys, warnings
warnings.simplefilter("ignore")
with open(sys.argv[1], encoding="utf-8") as handle:
    paths = json.load(handle)
for path in paths:
    with open(path, "rb") as source:
        data = source.read()
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One command to time: its argv, what to do (untimed) before each run, and its
    readable form for the table (temporary paths named TREE, DOCS, ...)."""

    name: str
    argv: tuple[str, ...]
    shown: str
    prepare: Callable[[], None] | None = None
    any_exit: bool = False  # a peer's exit status says whether it found problems, not whether it ran
    stale: bool = False  # ``check`` after an edit: exit 1 (the docs are stale) is the expected outcome


@dataclass(slots=True, kw_only=True)
class Result:
    """The wall times of one case's runs, and the failure that stopped it, if any."""

    case: Case
    times: list[float] = field(default_factory=list)
    failure: str | None = None


class Workspace:
    """The inputs the commands need, each built (untimed) on first use in one temporary
    folder: docs folders, caches, the file list of the floor, the two-revision repository."""

    def __init__(self, tree: str, tree2: str | None, changed: int, jobs: int) -> None:
        self.tree = os.path.abspath(tree)
        self.given_tree2 = os.path.abspath(tree2) if tree2 else None
        self.changed = changed
        self.jobs = jobs
        self.work = tempfile.mkdtemp(prefix="raisedocs-bench-commands-")
        self.cache = os.path.join(self.work, "cache")  # warm: filled by building the docs

    def close(self) -> None:
        """Remove the workspace and all it holds."""
        shutil.rmtree(self.work, ignore_errors=True)

    def path(self, name: str) -> str:
        """A path inside the workspace."""
        return os.path.join(self.work, name)

    @functools.cached_property
    def files(self) -> list[str]:
        """The absolute paths of the files extract reads of TREE, in its order."""
        listed = select_sources(self.tree, Options()).files
        base = os.path.realpath(self.tree)
        return [os.path.join(base, *source.path.split("/")) for source in listed]

    @functools.cached_property
    def file_list(self) -> str:
        """``files`` as a JSON file, the floor's argument."""
        path = self.path("files.json")
        Path(path).write_text(json.dumps(self.files), encoding="utf-8")
        return path

    @functools.cached_property
    def history(self) -> tuple[str, str, str]:
        """A throwaway git repository: TREE, then TREE2 or TREE edited; and the two shas."""
        saved, tempfile.tempdir = tempfile.tempdir, self.work  # made inside ``work``, removed with it
        try:
            return synthetic_history(self.tree, self.changed, self.given_tree2)
        finally:
            tempfile.tempdir = saved

    @property
    def tree2(self) -> str:
        """The second source folder: ``--tree2``, else the repository's work tree (at its
        second commit; its ``.git`` is a default exclude)."""
        return self.given_tree2 or self.history[0]

    @functools.cached_property
    def docs(self) -> str:
        """TREE's docs folder, written with the warm cache (which this fills)."""
        return self.extract_docs(self.tree, "docs")

    @functools.cached_property
    def docs2(self) -> str:
        """The second tree's docs folder."""
        return self.extract_docs(self.tree2, "docs2")

    def extract_docs(self, tree: str, name: str) -> str:
        """Run ``extract TREE -o NAME`` with the warm cache; the docs folder.

        Raises:
            RuntimeError: the extract failed.
        """
        out = self.path(name)
        proc = subprocess.run(raisedocs("extract", tree, "-o", out, "-j", str(self.jobs), "--cache-dir", self.cache),
                              env=child_env(), capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"extract {tree} -o {out} exited {proc.returncode}: {last_lines(proc.stderr)}")
        return out

    @functools.cached_property
    def edit_tree(self) -> str:
        """A copy of TREE, its docs folder EDIT_DOCS written with the warm cache (untimed)."""
        copy = self.path("edit-tree")
        shutil.copytree(self.tree, copy, symlinks=True)
        self.extract_docs(copy, "edit-docs")
        return copy

    @functools.cached_property
    def edited(self) -> str:
        """The file of EDIT_TREE each edit changes: of the files holding a card, the one of median size."""
        with open(os.path.join(self.docs, "catalog.json"), encoding="utf-8") as handle:
            paths = sorted({card["path"] for card in json.load(handle)["errors"]})
        sized = sorted((os.path.getsize(os.path.join(self.edit_tree, *p.split("/"))), p) for p in paths)
        return os.path.join(self.edit_tree, *sized[len(sized) // 2][1].split("/"))

    def edit(self) -> None:
        """Edit ``edited`` anew: one more ``# edit N`` line above its first (a ``prepare`` step)."""
        text = Path(self.edited).read_text(encoding="utf-8")
        count = sum(1 for line in text.splitlines() if line.startswith("# edit "))
        Path(self.edited).write_text(f"# edit {count + 1}\n{text}", encoding="utf-8")

    @functools.cached_property
    def message(self) -> str:
        """The message ``explain`` is given (see ``pick_message``)."""
        with open(os.path.join(self.docs, "catalog.json"), encoding="utf-8") as handle:
            return pick_message(json.load(handle))

    def shown(self, argv: tuple[str, ...]) -> str:
        """``argv`` as the table shows it: ``raisedocs ...`` with each path by its role."""
        labels = {self.tree: "TREE", self.path("docs"): "DOCS", self.path("edit-tree"): "EDIT_TREE", self.path("edit-docs"): "EDIT_DOCS", self.path("out"): "DOCS", self.path("new-docs"): "NEW_DOCS", self.path("docs2"): "DOCS2",
                  self.cache: "CACHE", self.path("cold-cache"): "EMPTY_CACHE", self.path("files.json"): "FILES"}
        repo = self.__dict__.get("history", ("", "", ""))
        labels[self.given_tree2 or repo[0]] = "TREE2"
        labels.update({f"{repo[0]}@{repo[1]}": "REPO@OLD", f"{repo[0]}@{repo[2]}": "REPO@NEW"})
        if "message" in self.__dict__:
            labels[self.message] = "MESSAGE"
        if argv[1:3] == ("-m", "extractor"):
            head, rest = ["raisedocs"], argv[3:]
        elif argv[1:2] == ("-c",):
            head, rest = ["python", "-c", "FLOOR"], argv[3:]
        else:  # a peer tool, by its name
            head, rest = [os.path.basename(argv[0])], argv[1:]
        return " ".join(head + [labels.get(word, word) for word in rest])


def raisedocs(*args: str) -> tuple[str, ...]:
    """The argv that runs ``raisedocs ARGS`` from this checkout."""
    return (sys.executable, "-m", "extractor", *args)


def child_env() -> dict[str, str]:
    """The environment of every command: this one, with this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def last_lines(text: str, count: int = 3) -> str:
    """The last lines of a command's stderr, for a failure line."""
    return " | ".join(text.strip().splitlines()[-count:])


def pick_message(catalog: dict[str, Any]) -> str:
    """The trigger message of the first card (in catalog order) with a template and a
    concrete trigger; else the first trigger message; else the first template. Only a
    message with no space at either end: the command line would pass it as is, and a
    person pastes it stripped.

    Raises:
        ValueError: no card has a message.
    """
    cards = catalog.get("errors", [])

    def trigger_message(card: dict[str, Any]) -> str:
        message = (card.get("trigger") or {}).get("message") or ""
        return message if message.strip() == message else ""

    concrete = [trigger_message(c) for c in cards if (c.get("message") or {}).get("template")
                and (c.get("trigger") or {}).get("status") == "concrete" and trigger_message(c)]
    any_trigger = [trigger_message(c) for c in cards if trigger_message(c)]
    templates = [c["message"]["template"] for c in cards if (c.get("message") or {}).get("template")]
    for found in (concrete, any_trigger, templates):
        if found:
            return found[0]
    raise ValueError("no card of the catalog has a message to explain")


def emptied(*folders: str) -> Callable[[], None]:
    """A ``prepare`` step that removes ``folders`` (an empty cache, no docs folder yet)."""
    def remove() -> None:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    return remove


def build_case(name: str, ws: Workspace) -> Case:
    """The case called ``name``, its inputs built in ``ws``.

    Raises:
        KeyError: no case has that name.
    """
    jobs = ("-j", str(ws.jobs))
    out = ws.path("out")
    new = ws.path("new-docs")  # absent before each run of a case that writes it
    if name.startswith("extract") and not os.path.isdir(out):
        shutil.copytree(ws.docs, out)  # as in CI: the docs folder is there, and up to date
    builders: dict[str, Callable[[], tuple[tuple[str, ...], Callable[[], None] | None]]] = {
        "floor": lambda: ((sys.executable, "-c", FLOOR_CODE, ws.file_list), None),
        "extract-cold": lambda: (raisedocs("extract", ws.tree, "-o", new, *jobs, "--no-cache"), emptied(new)),
        "extract-empty-cache": lambda: (raisedocs("extract", ws.tree, "-o", new, *jobs, "--cache-dir", ws.path("cold-cache")),
                                        emptied(new, ws.path("cold-cache"))),
        "extract-warm-cache": lambda: (raisedocs("extract", ws.tree, "-o", new, *jobs, "--cache-dir", ws.cache), emptied(new)),
        "extract-warm": lambda: (raisedocs("extract", ws.tree, "-o", out, *jobs, "--cache-dir", ws.cache), None),
        "extract-edit": lambda: (raisedocs("extract", ws.edit_tree, "-o", ws.path("edit-docs"), *jobs, "--cache-dir", ws.cache), ws.edit),
        "check-edit": lambda: (raisedocs("check", ws.path("edit-docs"), "--path", ws.edit_tree, *jobs, "--cache-dir", ws.cache), ws.edit),
        "check": lambda: (raisedocs("check", ws.docs, "--path", ws.tree, *jobs, "--cache-dir", ws.cache), None),
        "explain": lambda: (raisedocs("explain", ws.message, "--catalog", ws.docs, "--cache-dir", ws.cache), None),
        "diff-docs": lambda: (raisedocs("diff", ws.docs, ws.docs2, "--cache-dir", ws.cache), None),
        "diff-revs": lambda: (raisedocs("diff", f"{ws.history[0]}@{ws.history[1]}", f"{ws.history[0]}@{ws.history[2]}",
                                        *jobs, "--no-cache"), None),
        "diff-trees": lambda: (raisedocs("diff", ws.tree, ws.tree2, *jobs, "--no-cache"), None),
    }
    argv, prepare = builders[name]()
    return Case(name=name, argv=argv, shown=ws.shown(argv), prepare=prepare, stale=name == "check-edit")


CASES = ("floor", "extract-cold", "extract-empty-cache", "extract-warm-cache", "extract-warm", "extract-edit", "check-edit", "check", "explain",
         "diff-docs", "diff-revs", "diff-trees")
PEERS = ("peer-ruff", "peer-pydoclint", "peer-griffe")


def peer_case(name: str, ws: Workspace) -> Case | None:
    """A peer tool run over the same tree, where it is installed beside this Python (else
    None): ruff's DOC501 (the raise names a docstring lacks), pydoclint (docstrings against
    signatures and raises), griffe (the API's JSON dump, of the tree's top-level packages)."""
    bin_dir = os.path.dirname(sys.executable)
    tools = {"peer-ruff": "ruff", "peer-pydoclint": "pydoclint", "peer-griffe": "griffe"}
    tool = shutil.which(tools[name], path=bin_dir) or shutil.which(tools[name])
    if tool is None:
        return None
    if name == "peer-ruff":
        argv = (tool, "check", "--isolated", "--no-cache", "--preview", "--select", "DOC501", "--exit-zero", "--quiet", ws.tree)
    elif name == "peer-pydoclint":
        argv = (tool, "--quiet", ws.tree)
    else:
        packages = sorted(p.name.removesuffix(".py") for p in Path(ws.tree).iterdir()
                          if (p / "__init__.py").is_file() or p.suffix == ".py" and p.stem.isidentifier())
        argv = (tool, "dump", *packages, "--search", ws.tree, "--output", ws.path("griffe.json"))
    return Case(name=name, argv=argv, shown=ws.shown(argv), any_exit=True)


def time_case(case: Case, runs: int) -> Result:
    """Run ``case`` ``runs`` times in fresh processes; stop at the first unexpected exit."""
    result = Result(case=case)
    for _ in range(runs):
        if case.prepare is not None:
            case.prepare()
        start = time.perf_counter()
        proc = subprocess.run(case.argv, env=child_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if proc.returncode != (1 if case.stale else 0) and not case.any_exit:
            result.failure = f"exit {proc.returncode}: {last_lines(proc.stderr or proc.stdout)}"
            break
        result.times.append(elapsed)
    return result


def format_table(results: list[Result]) -> str:
    """The Markdown table: command, median wall, min-max, median / the floor's median."""
    floor = next((statistics.median(r.times) for r in results if r.case.name == "floor" and r.times), None)
    lines = ["| command | median wall | min–max | × floor |", "|---|---|---|---|"]
    for r in results:
        label = f"{r.case.name}: `{r.case.shown}`"
        if not r.times:
            lines.append(f"| {label} | failed | | |")
            continue
        median = statistics.median(r.times)
        ratio = f"{median / floor:.2f}x" if floor else "n/a"
        lines.append(f"| {label} | {median:.2f} s | {min(r.times):.2f}–{max(r.times):.2f} s | {ratio} |")
    return "\n".join(lines)


def checkout_commit() -> str:
    """The short sha of this checkout's HEAD (read only), or ``unknown``."""
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
                          env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    return proc.stdout.strip() or "unknown"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``--only`` checked against the known cases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree")
    parser.add_argument("--tree2", help="the second source tree (e.g. another release); default: TREE with --changed files edited")
    parser.add_argument("--changed", type=int, default=10, help="without --tree2: files edited for the second revision")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", help=f"comma-separated cases to run, of: {','.join(CASES)}")
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="write the raw times here")
    parser.add_argument("--peers", action="store_true",
                        help=f"also time the peer tools installed here ({', '.join(PEERS)}), in the same run")
    args = parser.parse_args(argv)
    chosen = {c.strip() for c in args.only.split(",") if c.strip()} if args.only else set(CASES)
    unknown = sorted(chosen - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    args.cases = [c for c in CASES if c in chosen]  # in this order whatever --only says: the floor first
    if args.runs < 1 or args.jobs < 1:
        parser.error("--runs and --jobs must be at least 1")
    for tree in (args.tree, args.tree2):
        if tree is not None and not os.path.isdir(tree):
            parser.error(f"not a folder: {tree}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Build the inputs, time the chosen cases, print the table; 1 when a command failed."""
    args = parse_args(argv)
    ws = Workspace(args.tree, args.tree2, args.changed, args.jobs)
    results: list[Result] = []
    failures: list[Result] = []
    try:
        for name in args.cases:
            try:
                case = build_case(name, ws)
            except (RuntimeError, ValueError, subprocess.CalledProcessError) as exc:
                results.append(Result(case=Case(name=name, argv=(), shown="(inputs)"), failure=f"setup: {exc}"))
                continue
            print(f"{name}: {case.shown}", file=sys.stderr)
            results.append(time_case(case, args.runs))
        for name in PEERS if args.peers else ():
            peer = peer_case(name, ws)
            if peer is None:
                print(f"{name}: not installed, left out", file=sys.stderr)
                continue
            print(f"{name}: {peer.shown}", file=sys.stderr)
            results.append(time_case(peer, args.runs))
        header = (f"TREE {ws.tree}, TREE2 " + (ws.given_tree2 or f"TREE with {args.changed} files edited")
                  + f": {len(ws.files)} files; --jobs {args.jobs}; median of {args.runs} run(s); "
                  + f"{datetime.date.today().isoformat()}, commit {checkout_commit()}")
        print(header)
        print()
        print(format_table(results))
        if "message" in ws.__dict__:
            print(f"\nMESSAGE: {ws.message!r}")
        failures = [r for r in results if r.failure]
        for r in failures:
            print(f"FAILED {r.case.name}: {shlex.join(r.case.argv) or r.case.shown}: {r.failure}", file=sys.stderr)
        if args.json_out:
            write_json(args.json_out, args, ws, results)
    finally:
        ws.close()
    return 1 if failures else 0


def write_json(path: str, args: argparse.Namespace, ws: Workspace, results: list[Result]) -> None:
    """The raw times of every case, with what was run, as JSON."""
    data = {
        "tree": ws.tree, "tree2": ws.given_tree2, "files": len(ws.files), "jobs": args.jobs, "runs": args.runs,
        "date": datetime.date.today().isoformat(), "commit": checkout_commit(), "python": sys.version.split()[0],
        "cases": {r.case.name: {"command": r.case.shown, "times": r.times, "failure": r.failure,
                                "median": statistics.median(r.times) if r.times else None} for r in results},
    }
    Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
