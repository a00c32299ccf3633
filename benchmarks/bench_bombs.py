"""Hostile inputs: time and peak memory of the bomb folder, and how the costs grow with size.

    python benchmarks/bench_bombs.py

First, ``raisedocs extract fixtures/bombs -o DOCS`` (cold, no cache) in a fresh process:
wall time and peak memory of the main process. Then each construct whose cost once grew
faster than its size, at 100, 400 and 1,600: sibling raises in one function (fix checking
re-evaluated every sibling guard), the terms of one comparison chain and of one ``or``
(guard normalisation), and the characters of a paste against a template of six holes
(``explain``'s matching). Near-linear growth shows as about 4x and 16x the time at 100;
past the guard budgets (README, "Limits") the sizes stop mattering. A benchmark, never a
timed test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractor.options import Options  # noqa: E402
from extractor.pipeline import extract_data  # noqa: E402
from extractor.publish.explain import match_message  # noqa: E402

SIZES = (100, 400, 1_600)

_RUN = (
    "import json, sys\n"
    "from extractor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
    "print(json.dumps([code, int(status.split()[0]) / 1024]))\n"
)


def bomb_folder() -> None:
    out = tempfile.mkdtemp(prefix="raisedocs-bombs-")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _RUN, "extract", str(ROOT / "fixtures" / "bombs"), "--no-cache", "-q", "-o", out + "/docs"],
                         env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    code, peak = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"fixtures/bombs (exit {code}): {wall:.1f} s wall, peak {peak:.0f} MiB (main process)\n")


def _extract_seconds(source: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "m.py").write_text(source, encoding="utf-8")
        start = time.perf_counter()
        extract_data(folder, Options(jobs=1))
        return time.perf_counter() - start


def siblings(n: int) -> float:
    return _extract_seconds("def f(x):\n" + "".join(f"    if x == {i}:\n        raise ValueError('value {i}')\n" for i in range(n)))


def chain(n: int) -> float:
    return _extract_seconds("def f(x, " + ", ".join(f"a{i}" for i in range(n)) + "):\n    if x < " + " < ".join(f"a{i}" for i in range(n)) + ":\n        raise ValueError('chain')\n")


def wide_or(n: int) -> float:
    return _extract_seconds("def f(x):\n    if " + " or ".join(f"x == {i}" for i in range(n)) + ":\n        raise ValueError('or')\n")


def paste(n: int) -> float:
    parts = []
    for index in range(6):
        parts += [{"type": "text", "text": f"value {index} is "}, {"type": "hole", "expr": f"v{index}"}]
    parts.append({"type": "text", "text": " and that is wrong"})
    card = {"id": "0" * 16, "path": "m.py", "line": 1, "message": {"parts": parts}}
    # Every literal of the template, the last one only before the others: a regex of lazy
    # groups backtracks through every placement; the matcher stops at its step budget.
    text = ("it said and that is wrong, then " + " ".join(f"value {i % 6} is {i}" for i in range(n)))[:n]
    start = time.perf_counter()
    match_message(text, {"errors": [card] * 50}, 3)
    return time.perf_counter() - start


def main() -> int:
    bomb_folder()
    print("| construct | " + " | ".join(f"n = {n:,}" for n in SIZES) + " | growth |\n|---|" + "---|" * (len(SIZES) + 1))
    for label, case in (("sibling raises in one function", siblings), ("terms of one comparison chain", chain),
                        ("terms of one `or`", wide_or), ("pasted characters, `explain` (50 cards)", paste)):
        seconds = [case(n) for n in SIZES]
        growth = " / ".join(f"{s / seconds[0]:.1f}x" for s in seconds[1:])
        print(f"| {label} | " + " | ".join(f"{s:.2f} s" for s in seconds) + f" | {growth} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
