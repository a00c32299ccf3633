"""Releases: extract a pinned commit, diff two revisions, check docs, cache, jobs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from extractor import extract
from extractor.cache import Cache
from extractor.options import Options

from .helpers import git, make_git_repo, run_cli, temp_tree, tree_files

V1 = {
    "pkg/__init__.py": "",
    "pkg/errors.py": "class AppError(Exception):\n    pass\n\n\nclass LimitError(AppError, ValueError):\n    pass\n",
    "pkg/core.py": '''from .errors import AppError, LimitError


def load(path, size):
    if size > 10:
        raise ValueError(f"size {size} is too large")
    if not path:
        raise ValueError("path is required")
    if size < 0:
        raise AppError("negative size")
    return path


def scale(n):
    if n > 3:
        raise LimitError(f"n ({n}) must be <= 3")
    return n
''',
    "pkg/old.py": "def gone(x):\n    if x:\n        raise KeyError(x)\n",
    "pkg/util.py": "def helper(v):\n    if v is None:\n        raise TypeError('v is required')\n    return v\n",
}

V2 = {
    "pkg/core.py": '''from .errors import AppError, LimitError


def load(path, size):
    if size > 100:
        raise ValueError(f"size {size} is too large")
    if not path:
        raise ValueError("a path is required")
    if size < 0:
        raise LimitError("negative size")
    return path


def scale(n):
    if n > 3:
        raise LimitError(f"n ({n}) must be <= 3")
    return n


def fresh(z):
    if z == 0:
        raise ZeroDivisionError("z must not be 0")
''',
    "pkg/old.py": None,
    "pkg/util.py": None,
    "pkg/helpers.py": "def helper(v):\n    if v is None:\n        raise TypeError('v is required')\n    return v\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "repo"
    shas = make_git_repo(path, [("v1", V1), ("v2", V2)])
    git(path, "tag", "v1", shas[0])
    git(path, "tag", "v2", shas[1])
    return path, shas


def test_extract_rev_reads_the_commit_not_the_dirty_work_tree(repo, capsys) -> None:
    path, shas = repo
    (path / "pkg" / "core.py").write_text("raise SystemExit('dirty')\n")
    (path / "pkg" / "untracked.py").write_text("raise SystemExit('untracked')\n")
    status_before = git(path, "status", "--porcelain")
    run = run_cli(capsys, "extract", str(path), "--rev", "v1", "--repo-url", "https://github.com/o/r", "--no-cache")
    assert run.code == 0, run.err
    catalog = json.loads(run.out)
    assert catalog["source"] == {"repo_url": "https://github.com/o/r", "rev": shas[0], "root": "repo"}
    assert [(c["path"], c["line"]) for c in catalog["errors"]] == [
        ("pkg/core.py", 6), ("pkg/core.py", 8), ("pkg/core.py", 10), ("pkg/core.py", 16), ("pkg/old.py", 3), ("pkg/util.py", 3),
    ]
    assert catalog["errors"][0]["permalink"] == f"https://github.com/o/r/blob/{shas[0]}/pkg/core.py#L6"
    assert git(path, "status", "--porcelain") == status_before
    assert git(path, "rev-parse", "HEAD") == shas[1]


def test_extract_rev_works_on_bare_repos_and_short_shas(repo, tmp_path, capsys) -> None:
    path, shas = repo
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    git(bare, "remote", "set-url", "origin", "git@github.com:acme/widgets.git")
    run = run_cli(capsys, "extract", str(bare), "--rev", shas[1][:8], "--no-cache")
    catalog = json.loads(run.out)
    assert catalog["source"] == {"repo_url": "https://github.com/acme/widgets", "rev": shas[1], "root": "widgets"}  # named by its remote
    assert run_cli(capsys, "extract", str(bare), "--rev", "nope").err == f"raisedocs: error: unknown revision in {bare}: nope\n"


def test_diff_reports_each_change_once(repo, capsys) -> None:
    path, _ = repo
    run = run_cli(capsys, "diff", f"{path}@v1", f"{path}@v2", "--format", "json", "--no-cache")
    assert run.code == 0, run.err
    changes = [(c["kind"], (c["new"] or c["old"])["path"], (c["new"] or c["old"])["line"], c["detail"]) for c in json.loads(run.out)["changes"]]
    assert changes == [
        ("added", "pkg/core.py", 22, None),
        ("removed", "pkg/old.py", 3, None),
        ("message_changed", "pkg/core.py", 8, None),
        ("guard_changed", "pkg/core.py", 6, "size > 10 -> size > 100"),
        ("exception_changed", "pkg/core.py", 10, "subclass: pkg.errors.AppError -> pkg.errors.LimitError"),
        ("moved", "pkg/helpers.py", 3, "path"),
    ]


def test_diff_markdown_and_fail_on(repo, capsys) -> None:
    path, _ = repo
    run = run_cli(capsys, "diff", f"{path}@v1", f"{path}@v2", "--fail-on", "removed", "--no-cache")
    assert run.code == 1
    assert run.out.startswith("# Error catalog changes: repo@")
    assert "## New errors (1)\n\n- `ZeroDivisionError`: z must not be 0 ([pkg/core.py:22](errors/" in run.out
    assert "## Errors with a different exception class (1)" in run.out and "was `AppError`, now a subclass of it" in run.out
    assert run_cli(capsys, "diff", f"{path}@v1", f"{path}@v1", "--fail-on", "added,removed", "--no-cache").code == 0
    assert run_cli(capsys, "diff", f"{path}@v1", f"{path}@v2", "--fail-on", "bogus").code == 2


def test_check_exit_codes(repo, tmp_path, capsys) -> None:
    path, _ = repo
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(path), "--rev", "v1", "-o", str(docs), "--no-cache").code == 0
    assert run_cli(capsys, "check", str(docs), "--path", str(path), "--rev", "v1", "--no-cache").code == 0
    run = run_cli(capsys, "check", str(docs), "--path", str(path), "--rev", "v2", "--no-cache")
    assert run.code == 1
    lines = run.out.splitlines()
    assert "stale: index.md" in lines and "stale: catalog.json" in lines
    assert any(line.startswith("missing: errors/") for line in lines) and any(line.startswith("orphaned: errors/") for line in lines)


def test_cache_hits_and_corrupt_entries_are_rewritten(repo, tmp_path) -> None:
    path, _ = repo
    cache_dir = tmp_path / "cache"
    options = Options(rev="v1", use_cache=True, cache_dir=str(cache_dir))
    first = extract(str(path), options)
    entries = sorted(cache_dir.rglob("*.json"))
    # Five files' facts, linked entries, their cards' texts and their modules' index parts
    # (link.indexes), and the tree's state of those parts; the libcst results and the solutions
    # of the three files with raises (a file without one has neither).
    assert len(entries) == 5 + 5 + 5 + 5 + 1 + 3 + 3
    # Every entry corrupt (well-formed but of the wrong shape, or truncated): all recomputed.
    for entry in entries:
        entry.write_text('{"kind": "facts", "data": {"path": 1}}' if entry.stat().st_size % 2 else "{trunc")
    again = extract(str(path), options)
    assert again == first
    # ... and rewritten: every entry passes its checksum again and reads as its kind.
    cache = Cache(str(cache_dir))
    keys = [p.stem for p in sorted(cache_dir.rglob("*.json"))]
    assert len(keys) == len(entries) and all(cache._read(k) is not None for k in keys)
    kinds = [cache.get_file(k) is not None or cache.get_linked(k) is not None for k in keys]
    assert kinds.count(True) == 5 + 5  # the facts, and the linked entries with their cards


def test_output_is_identical_for_every_job_count(tmp_path) -> None:
    # Enough files and cards that the process pool really runs (it skips small batches).
    files = {f"pkg/m{i:02}.py": f"def f{i}(x, y: int = {i}):\n    if x > y + {i}:\n        raise ValueError(f'x ({{x}}) > {i}')\n" for i in range(48)}
    make_git_repo(tmp_path / "big", [("only", files)])
    outputs = [extract(str(tmp_path / "big"), Options(rev="HEAD", jobs=jobs)) for jobs in (1, 2, 3)]
    assert len(outputs[0].errors) == 48 and all(c.solved.trigger.verified for c in outputs[0].errors)
    assert outputs[0] == outputs[1] == outputs[2]


def test_the_docs_folder_is_identical_for_every_job_count(tmp_path, capsys) -> None:
    """Workers render the card pages of a large tree (in order); one job renders them here."""
    files = {f"pkg/m{i:02}.py": f"def f{i}(x, y: int = {i}):\n    if x > y + {i}:\n        raise ValueError(f'x ({{x}}) > {i}')\n    if x < 0:\n        raise KeyError(x)\n" for i in range(48)}
    tree = temp_tree(tmp_path / "big", files)
    for jobs in ("1", "3"):
        assert run_cli(capsys, "extract", str(tree), "-o", str(tmp_path / jobs), "-j", jobs, "--no-cache", "--card-json", "-q").code == 0
    assert tree_files(tmp_path / "1") == tree_files(tmp_path / "3")
    assert len([p for p in tree_files(tmp_path / "1") if p.endswith(".md") and p.startswith("errors/")]) == 96


def test_rev_needs_a_git_repository(tmp_path, capsys) -> None:
    (tmp_path / "plain").mkdir()
    run = run_cli(capsys, "extract", str(tmp_path / "plain"), "--rev", "HEAD", "--no-cache")
    assert run.code == 2 and run.err.startswith("raisedocs: error: git rev-parse failed in") and run.err.count("\n") == 1
    assert os.listdir(tmp_path / "plain") == []


def test_cache_keeps_lone_surrogates(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text('def f():\n    raise ValueError("bad \\udcff byte")\n', encoding="utf-8")
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    first = extract(str(tmp_path / "src"), options)
    assert first.errors[0].message.template == "bad \udcff byte"
    assert extract(str(tmp_path / "src"), options) == first


def test_a_diffs_two_sides_share_decoded_entries_without_changing_either(repo, tmp_path) -> None:
    from extractor.incremental import Shared
    from extractor.pipeline import extract_data

    path, _ = repo
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    alone = {rev: extract_data(str(path), Options(rev=rev, use_cache=False)) for rev in ("v1", "v2")}
    shared = Shared()
    for rev in ("v1", "v2", "v1"):
        assert extract_data(str(path), Options(rev=rev, use_cache=True, cache_dir=options.cache_dir), shared=shared) == alone[rev]
        stats = alone[rev]["stats"]
        assert len(shared.linked) == stats["files"] - stats["files_failed"]  # replaced by this run's entries


@pytest.mark.parametrize("kept", [None, 1])
def test_a_lookup_answered_once_is_recorded_as_read_by_every_file_that_asks(kept: int | None, monkeypatch) -> None:
    # Linking answers `pkg.errors.AppError` once per run (or again, once the table of answers
    # is full: ``kept``); each file's record must still list the module, or a later change
    # there would not re-link the second file.
    from extractor.link import project as linking
    from extractor.link.project import Project
    from extractor.model import ClassFact, FileFacts

    if kept is not None:
        monkeypatch.setattr(linking, "MAX_ANSWERS", kept)

    facts = {
        "pkg/errors.py": FileFacts(path="pkg/errors.py", module="pkg.errors", classes=(ClassFact(qualname="AppError", line=1),)),
        "pkg/__init__.py": FileFacts(path="pkg/__init__.py", module="pkg"),
    }
    project = Project({"pkg.errors": "pkg/errors.py", "pkg": "pkg/__init__.py"}, lambda path: facts[path])
    project.record()
    for _ in range(2):
        assert project.class_fact("pkg.errors.AppError") is not None
        assert project.record().modules == {"pkg.errors": "pkg/errors.py"}
        assert project.class_fact("pkg.errors.Missing") is None
        assert project.record().modules == {"pkg.errors": "pkg/errors.py", "pkg": "pkg/__init__.py"}


def test_cache_entries_belong_to_the_code_that_wrote_them(tmp_path) -> None:
    # Installed from a git commit, raisedocs keeps version 0.1.0 across fixes: entries
    # written by other code must not be read.
    import shutil
    from pathlib import Path

    from extractor import cache

    package = tmp_path / "extractor"
    shutil.copytree(Path(cache.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache.code_digest(str(package))
    assert cache.CODE.endswith("-" + cache.code_digest(str(Path(cache.__file__).parent)))
    (package / "notes.txt").write_text("not code", encoding="utf-8")
    assert cache.code_digest(str(package)) == before
    solver = package / "solve" / "search.py"  # a subpackage module counts too
    solver.write_text(solver.read_text(encoding="utf-8") + "\n# a fix\n", encoding="utf-8")
    assert cache.code_digest(str(package)) != before
    assert cache.Cache(str(tmp_path / "c")).root == str(tmp_path / "c" / cache.CODE)


def test_folders_of_other_code_unused_for_two_weeks_are_deleted(tmp_path) -> None:
    # Only folders holding raisedocs' own marker: a user's 30-day-old folder whose name and
    # entries look like a cache's (a version number, two-hex shards) is never touched.
    import os
    import time

    from extractor import cache

    root = tmp_path / "cache"
    old_marked, old_bare, old_empty_mark, recent, foreign, lookalike = (root / n for n in (
        "0.1.0-0123456789abcdef", "0.0.9", "0.0.8", "0.1.0-fedcba9876543210", "my-notes", "1.5"))
    for folder in (old_marked / "ab", old_bare / "cd", old_empty_mark / "cd", recent / "ef", foreign / "ab", lookalike / "ab"):
        folder.mkdir(parents=True)
    (old_marked / "last-used").write_text(cache._MARK, encoding="utf-8")
    (old_empty_mark / "last-used").write_text("", encoding="utf-8")
    (recent / "last-used").write_text(cache._MARK, encoding="utf-8")
    month_ago = time.time() - 30 * 86400
    for path in (old_marked / "last-used", old_empty_mark / "last-used", old_bare, foreign, lookalike):
        os.utime(path, (month_ago, month_ago))
    store = cache.Cache(str(root))
    store.mark_used()
    assert sorted(p.name for p in root.iterdir()) == sorted([cache.CODE, "0.1.0-fedcba9876543210", "0.0.9", "0.0.8", "my-notes", "1.5"])
    assert (root / cache.CODE / "last-used").read_text(encoding="utf-8") == cache._MARK
    cache.Cache(None).mark_used()  # a disabled cache touches nothing


def test_a_cache_entry_is_trusted_only_under_its_own_key_and_as_a_regular_file(tmp_path) -> None:
    import os
    import shutil

    from extractor import cache

    store = cache.Cache(str(tmp_path / "c"))
    one, two, three = ("1" * 64, "2" * 64, "3" * 64)
    store.put_by_path(one, {"value": 1})
    store.put_by_path(two, {"value": 2})
    assert (store.get_by_path(one), store.get_by_path(two)) == ({"value": 1}, {"value": 2})
    shutil.copy(store._path(one), store._path(two))  # a valid entry copied over another key's
    assert store.get_by_path(two) == {}
    os.makedirs(os.path.dirname(store._path(three)), exist_ok=True)
    os.mkfifo(store._path(three))  # would hang a plain open
    assert store.get_by_path(three) == {}
    os.remove(store._path(one))
    os.symlink("/dev/zero", store._path(one))  # would exhaust memory
    assert store.get_by_path(one) == {}


def test_each_card_is_solved_once(monkeypatch) -> None:
    from extractor import pipeline, tasks
    from extractor.options import Options

    from .helpers import FIXTURES

    calls = []
    solve = tasks.solve_one
    monkeypatch.setattr(tasks, "solve_one", lambda item: calls.append(item[0].id) or solve(item))
    catalog = pipeline.extract_data(str(FIXTURES / "forms"), Options(jobs=1, use_cache=False))
    assert sorted(calls) == sorted(card["id"] for card in catalog["errors"])


def test_diff_site_is_a_page_of_the_changes_linking_the_new_cards(repo, tmp_path, capsys) -> None:
    path, _ = repo
    site = tmp_path / "changes"
    run = run_cli(capsys, "diff", f"{path}@v1", f"{path}@v2", "--site", str(site), "--link-base", "../site/errors/", "--no-cache")
    assert run.code == 0, run.err
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "<h2>New errors <span class=\"count\">1</span></h2>" in page
    assert 'href="../site/errors/' in page and "z must not be 0" in page
    assert (site / "assets" / "site.css").is_file() and "Content-Security-Policy" in page


def test_diff_extracts_a_revision_with_the_options_of_the_catalog_side(repo, tmp_path, capsys) -> None:
    path, _ = repo
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(path), "--rev", "v1", "-o", str(docs), "--exclude", "old.py", "--no-cache").code == 0
    # The v1 side is extracted with the docs' --exclude too: nothing differs.
    run = run_cli(capsys, "diff", str(docs), f"{path}@v1", "--format", "json", "--no-cache")
    assert run.code == 0 and json.loads(run.out)["changes"] == []
    # Given here, an option overrides the recorded one: pkg/old.py's raise is then new.
    run = run_cli(capsys, "diff", str(docs), f"{path}@v1", "--format", "json", "--exclude", "nothing", "--no-cache")
    assert [c["kind"] for c in json.loads(run.out)["changes"]] == ["added"]


def test_diff_of_two_plain_source_folders_extracts_both(tmp_path, capsys) -> None:
    for name, bound in (("a", 1), ("b", 2)):
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "m.py").write_text(f"def f(x):\n    if x > {bound}:\n        raise ValueError('x too big')\n")
    run = run_cli(capsys, "diff", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json", "--no-cache")
    assert run.code == 0, run.err
    assert [(c["kind"], c["new"]["path"]) for c in json.loads(run.out)["changes"]] == [("guard_changed", "pkg/m.py")]
    # A folder holding a catalog.json is a docs folder, read and not extracted.
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(tmp_path / "a"), "-o", str(docs), "--no-cache").code == 0
    run = run_cli(capsys, "diff", str(docs), str(tmp_path / "a"), "--format", "json", "--no-cache")
    assert run.code == 0 and json.loads(run.out)["changes"] == []


def test_pairing_stays_linear_when_every_path_moves(monkeypatch) -> None:
    # A renamed top folder: no id matches, and every message is reworded. Each old card must be
    # scored against its own function's cards only, not against all of them; and where every
    # function is renamed too, each old function against its own file's new ones.
    from extractor.model import to_data
    from extractor.publish import diff, pairing

    def card(root: str, i: int, function: str) -> dict:
        return {
            "id": f"{root}{i}", "path": f"{root}/sub{i % 7}/m{i}.py", "line": 3 + (root == "new"), "function": function, "exception": {
                "display": "ValueError", "classes": ["ValueError"], "ancestors": ["Exception", "BaseException"]},
            "message": {"template": f"bad {i}" + "!" * (root == "new")},
            "guard": {"code": f"x > {i}", "parts": [{"role": "own", "code": f"x > {i}"}]},
        }

    def catalog(root: str, function: str = "f") -> dict:
        return {"errors": [card(root, i, function) for i in range(600)], "failures": [], "source": {"root": root, "rev": None}}

    scored: list[int] = []
    for name in ("_alike", "_body_alike"):
        original = getattr(pairing, name)
        monkeypatch.setattr(pairing, name, lambda *args, original=original: scored.append(1) or original(*args))
    result = diff.diff_catalogs(catalog("old"), catalog("new"))
    assert len(scored) == 600
    assert {c.kind for c in result.changes} == {"message_changed"} and len(result.renamed) == 600
    assert diff.folder_moves(to_data(result)) == [{"old": "old", "new": "new", "files": 600, "errors": 0}]
    scored.clear()
    result = diff.diff_catalogs(catalog("old"), catalog("new", "_f"))  # (made private: a namesake)
    # Each function's body against its file's and at most _MOST_NAMESAKES namesakes', then its one card.
    assert 2 * 600 <= len(scored) <= (pairing._MOST_NAMESAKES + 2) * 600
    assert len(result.definitions) == 600 and {c.kind for c in result.changes} == {"message_changed"}
