"""Lookup latency of ``raisedocs explain`` on a docs folder (or catalog.json).

    python benchmarks/bench_explain.py DOCS [--runs 5] [--message TEXT]

Times the whole command in a fresh process, as a user meets it, three ways:

- ``index``: the docs folder's own ``search-index.json`` (what ``extract -o`` writes);
- ``cached``: a catalog.json without one, its index already in the cache (second lookup on);
- ``first``: that catalog.json with an empty cache (the index is built and kept);

and, for comparison, ``--validate`` (the whole catalog checked against the JSON Schema, as
every lookup did before the index). Prints the median wall time of each, in seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_MESSAGE = "offload_num_in_group (4) must be <= offload_group_size (2)"


def _run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "extractor", "explain", *args], env=env, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--message", default=DEFAULT_MESSAGE)
    options = parser.parse_args()
    catalog = os.path.join(options.docs, "catalog.json") if os.path.isdir(options.docs) else options.docs
    work = tempfile.mkdtemp(prefix="bench-explain-")
    try:
        plain = os.path.join(work, "catalog.json")  # a catalog with no index beside it
        shutil.copyfile(catalog, plain)
        cache = os.path.join(work, "cache")
        env = dict(os.environ)
        times: dict[str, list[float]] = {"index": [], "cached": [], "first": [], "validate": []}
        for _ in range(options.runs):
            if os.path.isfile(os.path.join(os.path.dirname(catalog), "search-index.json")):
                times["index"].append(_run([options.message, "--catalog", catalog, "--no-cache"], env))
            shutil.rmtree(cache, ignore_errors=True)
            times["first"].append(_run([options.message, "--catalog", plain, "--cache-dir", cache], env))
            times["cached"].append(_run([options.message, "--catalog", plain, "--cache-dir", cache], env))
        times["validate"].append(_run([options.message, "--catalog", plain, "--no-cache", "--validate"], env))
        size = os.path.getsize(catalog) / 2**20
        print(f"catalog {catalog}: {size:.1f} MiB; median of {options.runs} runs (validate: 1)")
        for kind, values in times.items():
            if values:
                print(f"  {kind:9} {statistics.median(values):6.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
