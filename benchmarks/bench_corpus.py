"""A corpus build and publish, end to end, as a knowledge base's publisher runs them.

    python benchmarks/bench_corpus.py [LIST] [--jobs N] [--work DIR] [--json OUT]

LIST defaults to ``benchmarks/corpus/top100.txt`` (100 pure-Python packages from PyPI,
pinned). Each step runs ``python -m extractor corpus ...`` in a fresh process, timed from
spawn to exit, its CPU the children's (the coordinator, Dask's workers and every extract),
with the largest resident set of any of those processes:

1. ``build``: a cold build into an empty state folder (downloads included);
2. ``rebuild``: the same command again (everything current: nothing is built);
3. ``publish``: the dataset and the site, into an empty folder.

It then reports the state's counts (projects built and failed, and why; cards, verified
triggers, examples; the slowest project), the site's size, its largest card page, and,
with Chromium and Playwright installed, the home page's load and a pasted message's search
in the browser. A benchmark, never a timed test: this machine's timings drift.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUERY = "Invalid URL 'x': No scheme supplied. Perhaps you meant https://x?"


def run(*args: str) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "extractor", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args[:2])} exited {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(proc.stderr.strip().splitlines()[-1], file=sys.stderr)
    # (ru_maxrss of the children: the largest resident set of any process the step ran, in KiB)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(after.ru_maxrss / 1024)}


def state_counts(state: Path) -> dict[str, Any]:
    with sqlite3.connect(state / "state.sqlite") as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute("SELECT * FROM projects WHERE position IS NOT NULL")]
    done = [r for r in rows if r["status"] == "done"]
    slowest = max(done, key=lambda r: r["wall"] or 0) if done else None
    return {
        "projects": len(rows), "built": len(done),
        "failed": {r["key"]: f"{r['reason']}: {r['detail']}" for r in rows if r["status"] == "failed"},
        "cards": sum(r["cards"] for r in done), "verified": sum(r["verified"] for r in done),
        "examples": sum(r["examples"] for r in done), "files": sum(r["files"] for r in done),
        "extract_cpu_s": round(sum(r["cpu"] or 0 for r in done), 1),
        "slowest": {"project": slowest["key"], "wall_s": slowest["wall"], "cards": slowest["cards"]} if slowest else None,
        "empty": sorted(r["key"] for r in done if not r["cards"]),
    }


def site_figures(site: Path) -> dict[str, Any]:
    pages = list(site.glob("*/errors/*.html"))
    largest = max(pages, key=lambda p: p.stat().st_size) if pages else None
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    return {"files": sum(1 for p in site.rglob("*") if p.is_file()), "mb": round(total / 1e6, 1), "card_pages": len(pages),
            "largest_page_kb": round(largest.stat().st_size / 1000, 1) if largest else 0,
            "largest_page": largest.relative_to(site).as_posix() if largest else None,
            "search_mb": round(sum(p.stat().st_size for p in (site / "search").iterdir()) / 1e6, 1)}


def browser_figures(site: Path) -> dict[str, Any] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        start = time.monotonic()
        page.goto((site / "index.html").as_uri())
        home = time.monotonic() - start
        start = time.monotonic()
        found = page.evaluate("q => window.raisedocsCorpusSearch(q).then(r => r.map(x => x.entry.href))", QUERY)
        search = time.monotonic() - start
        loaded = page.evaluate("() => [...document.scripts].filter(s => s.src.includes('/search/')).length")
        largest = site_figures(site)["largest_page"]
        start = time.monotonic()
        page.goto((site / largest).as_uri())
        slowest = time.monotonic() - start
        browser.close()
    return {"home_load_s": round(home, 2), "search_s": round(search, 2), "search_first": found[0] if found else None,
            "search_shards_loaded": loaded, "largest_page_load_s": round(slowest, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("list", nargs="?", default=str(ROOT / "benchmarks" / "corpus" / "top100.txt"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", help="Folder for the state and the site (default: a temporary one, removed).")
    parser.add_argument("--json", help="Write the figures here as JSON too.")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="raisedocs-bench-corpus-"))
    state, site = work / "state", work / "site"
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    figures: dict[str, Any] = {"jobs": args.jobs, "list": os.path.relpath(args.list, ROOT)}
    figures["build"] = run("corpus", "build", args.list, "--state", str(state), "-j", str(args.jobs), "-q")
    figures["rebuild"] = run("corpus", "build", args.list, "--state", str(state), "-j", str(args.jobs), "-q")
    figures["publish"] = run("corpus", "publish", "--state", str(state), "-o", str(site), "--base-url", "https://errors.example.org/")
    figures["state"] = state_counts(state)
    figures["site"] = site_figures(site)
    figures["browser"] = browser_figures(site)
    text = json.dumps(figures, indent=2, sort_keys=True)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
