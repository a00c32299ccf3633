"""Independent count of raise statements under a folder, with plain ``ast`` (no raisedocs code).

    python benchmarks/count_raises.py PATH [--catalog catalog.json]

Walks every ``.py`` file (skipping the same default folders raisedocs skips), parses the
raw bytes with ``ast.parse`` as CPython would, and counts ``ast.Raise`` nodes. With
``--catalog`` it compares the totals with a raisedocs catalog and exits 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import sys
import warnings

SKIP = (".git", ".hg", ".svn", ".tox", ".nox", "build", "dist",
        "node_modules", "__pycache__", "site-packages", "*.egg-info")  # and any folder holding pyvenv.cfg (a virtualenv)


def count(root: str) -> dict[str, int]:
    files = parsed = raises = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not any(fnmatch.fnmatchcase(d, p) for p in SKIP)
                       and not os.path.isfile(os.path.join(dirpath, d, "pyvenv.cfg"))]
        for name in filenames:
            if not name.endswith(".py"):
                continue
            files += 1
            try:
                with open(os.path.join(dirpath, name), "rb") as handle:
                    data = handle.read()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
                continue
            parsed += 1
            raises += sum(isinstance(node, ast.Raise) for node in ast.walk(tree))
    return {"files": files, "parsed": parsed, "raise_sites": raises}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--catalog")
    args = parser.parse_args()
    found = count(args.path)
    print(json.dumps(found))
    if args.catalog:
        with open(args.catalog, encoding="utf-8") as handle:
            stats = json.load(handle)["stats"]
        analysed = stats["files"] - stats["files_failed"]
        same = (stats["files"], analysed, stats["raise_sites"]) == (found["files"], found["parsed"], found["raise_sites"])
        print(f"raisedocs: files={stats['files']} analysed={analysed} raise_sites={stats['raise_sites']} -> {'MATCH' if same else 'MISMATCH'}")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
