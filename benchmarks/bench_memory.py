"""Peak memory of ``raisedocs extract TREE -o DOCS`` (cold, no cache) as the tree grows.

    python benchmarks/bench_memory.py STDLIB --copies 1 4 8 [--jobs 2]
    python benchmarks/bench_memory.py TREE                      # one tree as it is

With ``--copies``, TREE is hard-linked N times side by side (``copy0/ ... copyN-1/``) into a
scratch folder, so the tree grows N-fold with the same kind of code. Each run is the whole
command in a fresh process: extract, render and the atomic write of the docs folder. Prints
the files and lines read, the wall time, the peak of the main process (VmHWM) and of the
largest worker. A benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SKIP = {"site-packages", "__pycache__", ".git"}

_RUN = (
    "import json, resource, sys\n"
    "from extractor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    # ru_maxrss would keep the peak of the process this one was forked from (Linux carries it
    # across exec); VmHWM belongs to this program's memory alone.
    "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
    "own = int(status.split()[0]) / 1024\n"
    "print(json.dumps([code, own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024]))\n"
)


def copies(tree: str, count: int, scratch: str) -> str:
    """``count`` hard-linked copies of the .py files of ``tree`` under one folder."""
    target = os.path.join(scratch, f"x{count}")
    for index in range(count):
        for folder, dirs, files in os.walk(tree):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP)
            rel = os.path.relpath(folder, tree)
            for name in files:
                if name.endswith(".py"):
                    out = os.path.join(target, f"copy{index}", rel, name)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    os.link(os.path.join(folder, name), out)
    return target


def size(tree: str) -> tuple[int, int]:
    files = lines = 0
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in _SKIP]
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(folder, name), "rb") as handle:
                    lines += handle.read().count(b"\n")
    return files, lines


def measure(tree: str, jobs: int, scratch: str) -> dict[str, float]:
    out = os.path.join(scratch, "docs")
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _RUN, "extract", tree, "--no-cache", "-q", "--jobs", str(jobs), "-o", out],
                         env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    code, main, worker = json.loads(run.stdout.strip().splitlines()[-1])
    if code != 0:
        raise SystemExit(f"extract exited {code}: {run.stderr.strip()}")
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "main": main, "worker": worker}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree")
    parser.add_argument("--copies", type=int, nargs="*", default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="raisedocs-mem-")
    try:
        trees = [(f"{n}x", copies(args.tree, n, scratch)) for n in args.copies] if args.copies else [("1x", args.tree)]
        print("| tree | files | lines | wall | peak main | peak worker |\n|---|---|---|---|---|---|")
        for label, tree in trees:
            files, lines = size(tree)
            found = measure(tree, args.jobs, scratch)
            print(f"| {label} | {files:,} | {lines:,} | {found['wall']:.0f} s | {found['main']:.0f} MiB | {found['worker']:.0f} MiB |", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
