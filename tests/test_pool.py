"""The process pool survives its workers: a worker that dies costs only its own item."""

from __future__ import annotations

import os
import signal

from extractor import extract, tasks
from extractor.model import Detailed, Reason
from extractor.options import Options

from .helpers import temp_tree

FILES = {f"m{i:02d}.py": f"def f{i}(x: int):\n    if x > {i}:\n        raise ValueError('too big')\n" for i in range(40)}
FILES["boom.py"] = "def boom(x: int):\n    if x < 0:\n        raise ValueError('negative')\n"


def _outcome(catalog) -> tuple[list[tuple[str, str]], dict[str, object]]:
    failures = [(f.path, f.error) for f in catalog.failures]
    return failures, {card.path: card.solved.trigger.reason for card in catalog.errors}


def test_a_worker_that_dies_collecting_a_file_fails_that_file_alone(tmp_path, monkeypatch) -> None:
    temp_tree(tmp_path, FILES)
    real = tasks.collect_file

    def crashing(source, options, memo=None):
        if source.path == "boom.py":
            os.kill(os.getpid(), signal.SIGKILL)  # as a native crash or a kill would
        return real(source, options, memo)

    monkeypatch.setattr(tasks, "collect_file", crashing)  # the forked workers inherit it
    failures, reasons = _outcome(extract(str(tmp_path), Options(jobs=2)))
    assert failures == [("boom.py", "the worker process died (a crash, a signal or its memory limit)")]
    assert reasons == {f"m{i:02d}.py": None for i in range(40)}


def test_a_worker_that_dies_solving_a_file_leaves_its_cards_unsolved(tmp_path, monkeypatch) -> None:
    temp_tree(tmp_path, FILES)
    real = tasks.solve_one

    def crashing(item):
        if item[0].path == "boom.py":
            os._exit(137)  # as the OOM killer would
        return real(item)

    monkeypatch.setattr(tasks, "solve_one", crashing)
    failures, reasons = _outcome(extract(str(tmp_path), Options(jobs=2)))
    assert failures == []
    assert reasons == {**{f"m{i:02d}.py": None for i in range(40)}, "boom.py": Detailed(code=Reason.INTERNAL_ERROR, value="worker_died")}


def test_a_worker_past_its_memory_limit_fails_that_file_alone(tmp_path, monkeypatch) -> None:
    from extractor.collect import file as collect

    temp_tree(tmp_path, FILES)
    monkeypatch.setenv("RAISEDOCS_STRICT", "0")  # a per-file failure, as users get it
    real = collect._analyse

    def hungry(path, *args):
        if path == "boom.py":
            bytearray(8 << 30)  # past the worker's address-space limit: MemoryError, not the OOM killer
        return real(path, *args)

    monkeypatch.setattr(collect, "_analyse", hungry)
    failures, reasons = _outcome(extract(str(tmp_path), Options(jobs=2)))
    assert failures == [("boom.py", "MemoryError:")]
    assert reasons == {f"m{i:02d}.py": None for i in range(40)}


def test_workers_die_with_the_run_that_started_them(tmp_path) -> None:
    import subprocess
    import sys
    import time

    slow = (FILES["boom.py"].replace("boom", "slow") + "".join(f"    if x == {i}:\n        raise ValueError('{i}')\n" for i in range(150)))
    temp_tree(tmp_path, {f"s{i:02d}.py": slow for i in range(40)})
    run = subprocess.Popen([sys.executable, "-m", "extractor", "extract", str(tmp_path), "--jobs", "2", "--no-cache", "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: list[int] = []
    deadline = time.monotonic() + 60
    while not children and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
        try:
            with open(f"/proc/{run.pid}/task/{run.pid}/children", encoding="ascii") as handle:
                children = [int(pid) for pid in handle.read().split()]
        except OSError:
            break
    assert children, "the run started no workers"
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    time.sleep(1.0)
    alive = [pid for pid in children if _running(pid)]
    assert alive == []


def _running(pid: int) -> bool:
    """Whether the process is there and no zombie (one that ends while it is read is not)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            return "zombie" not in handle.read()
    except OSError:  # (gone: FileNotFoundError, or ProcessLookupError mid-read)
        return False


def test_a_bug_linking_one_site_costs_that_card_its_details_only(tmp_path, monkeypatch) -> None:
    from extractor.link import cards

    temp_tree(tmp_path, {"m.py": FILES["boom.py"] + FILES["m00.py"]})
    monkeypatch.setenv("RAISEDOCS_STRICT", "0")
    real = cards.resolve_exception

    def buggy(project, facts, site):
        if site.at.function == "boom":
            raise KeyError("a bug of ours")
        return real(project, facts, site)

    monkeypatch.setattr(cards, "resolve_exception", buggy)
    catalog = extract(str(tmp_path), Options())
    assert [(c.at.function, c.exception.display, c.exception.reason) for c in catalog.errors] == [
        ("boom", "ValueError", Detailed(code=Reason.INTERNAL_ERROR, value="KeyError")), ("f0", "ValueError", None)]


def test_a_card_that_cannot_be_rendered_gets_a_page_saying_so(monkeypatch) -> None:
    from extractor import render
    from extractor.model import to_data
    from extractor.publish import render as rendering

    from .helpers import FIXTURES

    monkeypatch.setenv("RAISEDOCS_STRICT", "0")
    monkeypatch.setattr(rendering, "render_card", lambda *args: {}["missing"])
    docs = dict(render(to_data(extract(str(FIXTURES / "offload"), Options()))))
    pages = [text for rel, text in docs.items() if rel.startswith("errors/") and rel.endswith(".md")]
    assert len(pages) == 8 and all("could not be rendered (KeyError)" in page for page in pages)  # (4 raises, 4 field constraints)
