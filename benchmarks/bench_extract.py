"""Extract time as a ratio to the floor: single-process ``ast.parse`` of the same files.

    python benchmarks/bench_extract.py PATH [--render]

The floor reads and parses every file the extract run reads, in one process, with
CPython's own parser: no Python-hosted analyzer can beat it. Prints seconds, the ratio and
peak memory (max RSS) of this process. A benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import ast
import resource
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from extractor.options import Options  # noqa: E402
from extractor.pipeline import extract  # noqa: E402
from extractor.render import render_docs  # noqa: E402
from extractor.sources import read_tree  # noqa: E402


def floor_seconds(root: str) -> tuple[float, int]:
    files, _ = read_tree(root, Options())
    start = time.perf_counter()
    for source in files:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(source.data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    return time.perf_counter() - start, len(files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--render", action="store_true", help="also time rendering the docs folder in memory")
    args = parser.parse_args()
    floor, count = floor_seconds(args.path)
    start = time.perf_counter()
    catalog = extract(args.path, Options())
    took = time.perf_counter() - start
    print(f"files: {count}  raise sites: {catalog.stats.raise_sites}  not analysed: {catalog.stats.files_failed}")
    print(f"floor (ast.parse, 1 process): {floor:.2f} s")
    print(f"extract:                      {took:.2f} s  = {took / floor:.1f}x the floor")
    if args.render:
        start = time.perf_counter()
        files = render_docs(catalog)
        rendered = time.perf_counter() - start
        print(f"render ({len(files)} files):     {rendered:.2f} s  = {rendered / floor:.1f}x the floor")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
