"""Extract time as a ratio to the floor: single-process ``ast.parse`` of the same files.

    python benchmarks/bench_extract.py PATH [--jobs N] [--rev-pair OLD NEW]

The floor reads nothing twice and parses every file the extract run reads, in one process,
with CPython's own parser: no Python-hosted analyzer can beat it (best of three passes).
Prints, in one run: the floor, a cold extract (empty cache, N processes), a warm re-run of
the unchanged tree, the render of the docs folder, a diff of two git revisions (each from
the cache as the old side's run left it, as in CI), and peak memory: of this benchmark's
process, and of one cold extract run alone in a fresh process. This machine's
timings drift, so every timed stage but the render is the best of three repetitions.
A benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from extractor.incremental import Shared  # noqa: E402
from extractor.inputs import select_sources  # noqa: E402
from extractor.options import Options  # noqa: E402
from extractor.pipeline import extract_data  # noqa: E402
from extractor.publish.diff import diff_catalogs  # noqa: E402
from extractor.publish.render import render_docs  # noqa: E402
from extractor.sources import SourceFile, read_contents  # noqa: E402


def floor_seconds(root: str, options: Options, repeat: int = 3) -> tuple[float, int]:
    """The fastest of ``repeat`` passes: this machine's timings vary, and the least
    disturbed pass is the fairest (and strictest) reference."""
    selection = select_sources(root, options)
    listed, options = selection.files, selection.options
    files = [f for f in read_contents(root, options.rev, listed) if isinstance(f, SourceFile)]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for source in files:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ast.parse(source.data)  # type: ignore[arg-type]
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
        best = min(best, time.perf_counter() - start)
    return best, len(files)


def timed(label: str, floor: float, fn, repeat: int = 1):  # noqa: ANN001, ANN201
    """Run ``fn`` ``repeat`` times (the cheap, repeatable stages) and print the fastest."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<34} {best:7.2f} s = {best / floor:5.2f}x the floor")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rev-pair", nargs=2, metavar=("OLD", "NEW"), help="two revisions of the git repository at PATH to diff")
    parser.add_argument("--changed", type=int, default=40, help="without --rev-pair: files changed between the two synthetic revisions")
    args = parser.parse_args()
    cache_dir = tempfile.mkdtemp(prefix="raisedocs-bench-")
    options = Options(jobs=args.jobs, use_cache=True, cache_dir=cache_dir)
    floor, count = floor_seconds(args.path, Options())
    print(f"files: {count}  jobs: {args.jobs}")
    print(f"{'floor (ast.parse, 1 process, best of 3)':<34} {floor:7.2f} s")
    def cold() -> dict:
        shutil.rmtree(cache_dir, ignore_errors=True)  # each repetition starts from an empty cache
        return extract_data(args.path, options)

    catalog = timed("cold extract (empty cache, best of 3)", floor, cold, repeat=3)
    timed("warm extract (unchanged tree, best of 3)", floor, lambda: extract_data(args.path, options), repeat=3)
    timed(f"render ({2 * len(catalog['errors']) + 2} files)", floor, lambda: sum(len(text) for _, text in render_docs(catalog)))
    if args.rev_pair:
        old, new = args.rev_pair
        repo = args.path
    else:
        repo, old, new = synthetic_history(args.path, args.changed)
    extract_data(repo, _with_rev(options, old))  # what the previous CI run left in the cache
    snapshot = tempfile.mkdtemp(prefix="raisedocs-bench-")
    shutil.copytree(cache_dir, snapshot, dirs_exist_ok=True)

    def diff_from_snapshot() -> object:
        # Each repetition starts from the cache as the old side's run left it (restored
        # untimed below), so every one analyses the changed files afresh.
        # As `raisedocs diff REPO@OLD REPO@NEW` does: one process, the shared files analysed once.
        shared = Shared()
        return diff_catalogs(extract_data(repo, _with_rev(options, old), shared=shared), extract_data(repo, _with_rev(options, new), shared=shared))

    best = float("inf")
    for _ in range(3):
        shutil.rmtree(cache_dir)
        shutil.copytree(snapshot, cache_dir)
        start = time.perf_counter()
        diff_from_snapshot()
        best = min(best, time.perf_counter() - start)
    label = f"diff {old[:10]}..{new[:10]} (old side cached, best of 3)"
    print(f"{label:<34} {best:7.2f} s = {best / floor:5.2f}x the floor")
    stats = catalog["stats"]
    print(f"raise sites: {stats['raise_sites']}  cards: {stats['cards']}  solved: {stats['solved']}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory (max RSS) of this benchmark: {own:.0f} MiB, {children:.0f} MiB largest child")
    main, worker = cold_run_peak(args.path, args.jobs)
    print(f"peak memory (max RSS) of one cold extract: {main:.0f} MiB main process, {worker:.0f} MiB largest worker")
    for folder in (cache_dir, snapshot, *([] if args.rev_pair else [repo])):
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def cold_run_peak(path: str, jobs: int) -> tuple[float, float]:
    """Peak RSS of one cold extract, alone in a fresh process (this benchmark's own process
    holds several catalogs at once): its main process and its largest worker, in MiB."""
    import json
    import subprocess

    cache_dir = tempfile.mkdtemp(prefix="raisedocs-bench-")
    code = (
        "import json, resource, sys\n"
        "from extractor.options import Options\n"
        "from extractor.pipeline import extract_data\n"
        f"extract_data({path!r}, Options(jobs={jobs}, use_cache=True, cache_dir={cache_dir!r}))\n"
        # ru_maxrss would keep the peak of the process this one was forked from (Linux
        # carries it across exec); VmHWM belongs to this program's memory alone.
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "try:\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "    own = int(status.split()[0]) / 1024\n"
        "except (OSError, IndexError, ValueError):\n"
        "    pass\n"
        "print(json.dumps([own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024]))\n"
    )
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    main, worker = json.loads(out.strip().splitlines()[-1])
    return main, worker


# What a copy of a tree leaves out: a .git of its own would replace the throwaway history.
_COPY_IGNORE = shutil.ignore_patterns(".git", "__pycache__", "site-packages")


def synthetic_history(path: str, changed: int, tree2: str | None = None) -> tuple[str, str, str]:
    """A throwaway git repository holding PATH twice: as is, then with ``changed`` files,
    evenly spaced in path order, edited (a message reworded, a raise added); or, with
    ``tree2``, then holding that tree instead (another release of the same project).
    Returns the repository (its work tree at the second commit) and the two shas."""
    import subprocess

    repo = tempfile.mkdtemp(prefix="raisedocs-bench-repo-")
    shutil.copytree(path, repo, dirs_exist_ok=True, ignore=_COPY_IGNORE)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"}

    def git(*argv: str) -> str:
        return subprocess.run(["git", "-C", repo, *argv], env=env, check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "old")
    old = git("rev-parse", "HEAD")
    if tree2 is not None:
        for entry in os.listdir(repo):
            if entry != ".git":
                full = os.path.join(repo, entry)
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full)
                else:
                    os.remove(full)
        shutil.copytree(tree2, repo, dirs_exist_ok=True, ignore=_COPY_IGNORE)
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", "new")
        return repo, old, git("rev-parse", "HEAD")
    listed = select_sources(repo, Options()).files
    files = [f for f in read_contents(repo, None, listed) if isinstance(f, SourceFile)]
    # A typical commit: files spread evenly over the tree, not its first (or largest) ones;
    # in a tree with no `raise ValueError(`, any files (each still gets a raise added).
    candidates = [f for f in files if b"raise ValueError(" in f.data] or files
    step = max(1, len(candidates) // max(1, changed))
    for source in candidates[::step][:changed]:
        text = source.data.replace(b"raise ValueError(", b"raise ValueError('changed: ' + ", 1)
        text += b"\n\ndef _bench_added(x):\n    if x > 1:\n        raise ValueError('added')\n"
        Path(repo, source.path).write_bytes(text)
    git("commit", "-q", "-am", "new")
    return repo, old, git("rev-parse", "HEAD")


def _with_rev(options: Options, rev: str) -> Options:
    import dataclasses

    return dataclasses.replace(options, rev=rev)


if __name__ == "__main__":
    sys.exit(main())
