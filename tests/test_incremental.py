"""Incremental runs: cards reused from the cache are exactly the cards a cold run builds.

Each commit below changes only files *other* than the one whose cards it changes, so a
run that reused those cards without re-checking what linking read would be caught.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.cache import Cache
from extractor.model import FileFacts, dumps_data
from extractor.options import Options
from extractor.pipeline import extract_data

from .helpers import ROOT, make_git_repo, run_cli, temp_tree, tree_files

CONFIG = '''from dataclasses import dataclass

from helpers import HelperError

from .errors import AppError, Wrapped
from .sub import Sub


@dataclass
class Config:
    size: int = 1
    """How many items."""
    sub: Sub = None

    def check(self):
        if self.size > 10:
            raise AppError(f"size {self.size} must be <= 10")
        if self.sub.depth < 0:
            raise ValueError(f"depth {self.sub.depth} must be >= 0")


def wrap(x):
    if x:
        raise Wrapped("wrapped")


def helped(y):
    if y is None:
        raise HelperError("y is required")


def _guarded(n):
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")


def fail(reason):
    raise AppError(f"failed: {reason}")


class Checker:
    def refuse(self, what):
        raise ValueError(f"refused: {what}")

    def run(self, x):
        if x > 3:
            self.refuse(x)
'''

CLI = (
    "import argparse\n\nfrom app.config import Config\n\nparser = argparse.ArgumentParser()\n"
    'parser.add_argument("{flag}", {dest}type=int)\n\n\n'
    "def main():\n    args = parser.parse_args()\n    {build}\n"
)


HISTORY: list[tuple[str, dict[str, str | None]]] = [
    ("base", {
        "pyproject.toml": '[tool.raisedocs]\ncommand = "app"\n',
        "app/__init__.py": "",
        "app/errors.py": "class AppError(Exception):\n    pass\n",
        "app/sub.py": 'class Sub:\n    depth: int = 0\n    """How deep."""\n',
        "app/config.py": CONFIG,
        "app/cli.py": CLI.format(flag="--size", dest="", build="Config(size=args.size).check()"),
        "vendor/helpers.py": "class HelperError(LookupError):\n    pass\n",
    }),
    # The exception hierarchy changes in errors.py: AppError's ancestors, Wrapped resolves.
    ("hierarchy", {"app/errors.py": "class AppError(ValueError):\n    pass\n\n\nclass Wrapped(AppError):\n    pass\n"}),
    # A field's docs change in sub.py.
    ("docs", {"app/sub.py": 'class Sub:\n    depth: int = 0\n    """Nesting depth, 0 for none."""\n'}),
    # The CLI flag for `size` changes in cli.py.
    ("flags", {"app/cli.py": CLI.format(flag="--max-items", dest='dest="size", ', build="Config(size=args.size).check()")}),
    # The command builds Config only under a test in cli.py: the flag no longer surely reaches it.
    ("routes", {"app/cli.py": CLI.format(flag="--max-items", dest='dest="size", ', build="args.size and Config(size=args.size).check()")}),
    # A second module named `helpers` makes the import in config.py ambiguous.
    ("ambiguous", {"third/helpers.py": "class HelperError(KeyError):\n    pass\n"}),
    # errors.py disappears: AppError and Wrapped no longer resolve.
    ("removed", {"app/errors.py": None}),
    # A public function in a new module calls config.py's private helper: its card gains that entry.
    ("caller", {"app/api.py": "from .config import _guarded\n\n\ndef run(n):\n    _guarded(n)\n"}),
    # Another module calls config.py's raising helper: the helper's card lists the call.
    ("helper use", {"app/use.py": "from .config import fail\n\n\ndef go(z):\n    if z:\n        fail(z)\n"}),
    # A subclass elsewhere defines the helper method again: ``self.refuse`` may run either.
    ("override", {"app/strict.py": "from .config import Checker\n\n\nclass Strict(Checker):\n    def refuse(self, what):\n"
                                   "        return None\n"}),
    # Lines shift in the module that calls the private helper; nothing it calls changes.
    ("shifted", {"app/api.py": "from .config import _guarded\n\n# a comment\n\ndef run(n):\n    _guarded(n)\n"}),
    # Lines shift in the module the others import from; what it declares is the same.
    ("moved", {"app/config.py": "# a comment\n" + CONFIG}),
]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    repo = tmp_path_factory.mktemp("incremental") / "repo"
    return repo, make_git_repo(repo, HISTORY)


def _card(catalog: dict, line_text: str) -> dict:
    return next(c for c in catalog["errors"] if c["path"] == "app/config.py" and line_text in (c["message"]["template"] or ""))


def _calls(catalog: dict, line_text: str) -> list[str]:
    """The calls of the raising helper whose card it is, as path:line."""
    card = _card(catalog, line_text)
    return [f"{s['path']}:{s['line']}" for s in (card.get("helper_calls") or {}).get("sites", ())]


def _doc(catalog: dict, field: str) -> str:
    return next(f["doc"] for f in _card(catalog, "depth")["docs"]["fields"] if f["input"] == field)


def test_the_two_sides_of_a_diff_without_a_cache_analyse_the_files_they_share_once(history, monkeypatch) -> None:
    from extractor import incremental, tasks
    from extractor.collect.file import collect_file
    from extractor.incremental import Shared

    repo, shas = history
    options = Options(use_cache=False)
    collected: list[str] = []

    def counted(source, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 (collect_file's own)
        collected.append(source.path)
        return collect_file(source, *args, **kwargs)

    monkeypatch.setattr(tasks, "collect_file", counted)
    monkeypatch.setattr(incremental, "collect_file", counted)
    for old, new in zip(shas, shas[1:]):
        alone = extract_data(str(repo), dataclasses.replace(options, rev=new))
        every = len(collected)
        shared = Shared()
        extract_data(str(repo), dataclasses.replace(options, rev=old), shared=shared)
        del collected[:]
        # The new side reads what the old side analysed: its cards are a cold run's, from fewer files collected.
        assert dumps_data(extract_data(str(repo), dataclasses.replace(options, rev=new), shared=shared)) == dumps_data(alone), new
        assert len(collected) < every, (new, collected)
        del collected[:]


def test_every_revision_in_any_order_matches_a_cold_run(history, tmp_path) -> None:
    repo, shas = history
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    cold = {sha: extract_data(str(repo), dataclasses.replace(options, rev=sha, use_cache=False)) for sha in shas}
    for sha in [*shas, *reversed(shas), shas[2], shas[0], shas[6], shas[3], shas[4], shas[7], shas[5], shas[9], shas[8], shas[10]]:
        assert dumps_data(extract_data(str(repo), dataclasses.replace(options, rev=sha))) == dumps_data(cold[sha]), sha

    # The history really changes config.py's cards, though config.py itself changes only at the end.
    base, hierarchy, docs, flags, routes, ambiguous, removed, caller, used, override, _, moved = (cold[sha] for sha in shas)
    assert _card(base, "size")["exception"]["ancestors"] == ["Exception", "BaseException"]
    assert _card(hierarchy, "size")["exception"]["ancestors"] == ["ValueError", "Exception", "BaseException"]
    assert _card(base, "wrapped")["exception"]["reason"] == "outside_tree"
    assert _card(hierarchy, "wrapped")["exception"]["ancestors"][:2] == ["app.errors.AppError", "ValueError"]
    assert _doc(hierarchy, "self.sub.depth") == "How deep."
    assert _doc(docs, "self.sub.depth") == "Nesting depth, 0 for none."
    assert "--size" in _card(hierarchy, "size")["example"]["before"]
    assert "--size" in _card(docs, "size")["example"]["before"]
    assert "--max-items" in _card(flags, "size")["example"]["before"]
    assert _card(routes, "size")["example"]["style"] == "python"
    assert _card(flags, "required")["exception"]["classes"] == ["vendor.helpers.HelperError"]
    assert _card(ambiguous, "required")["exception"]["classes"] == ["helpers.HelperError"]
    assert _card(removed, "size")["exception"]["ancestors"] == []
    assert _card(removed, "n must be")["entries"]["reason"] == "no_public_entry"
    assert [p["entry"] for p in _card(caller, "n must be")["entries"]["paths"]] == ["app.api.run"]
    assert _card(caller, "failed:").get("helper_calls") is None and _calls(used, "failed:") == ["app/use.py:6"]
    assert [p["entry"] for p in _card(used, "failed:")["entries"]["paths"]] == ["app.config.fail", "app.use.go"]
    assert _calls(used, "refused:") == ["app/config.py:47"] and _calls(override, "refused:") == []
    assert _card(moved, "size")["line"] == _card(override, "size")["line"] + 1


def test_a_project_wide_answer_is_recorded_as_one_digest_not_every_module(history, tmp_path, monkeypatch) -> None:
    """The call graph reads every module: each linked entry keeps the tree's digest, not the
    names of all modules (which every file's entry held, a run's memory growing with the square
    of the tree), and still only what else it read."""
    repo, shas = history
    stored = []
    monkeypatch.setattr(Cache, "put_linked", lambda self, key, linked: stored.append(linked))
    extract_data(str(repo), Options(rev=shas[-1], use_cache=True, cache_dir=str(tmp_path / "cache")))
    config = next(entry for entry in stored if any(s["path"] == "app/config.py" for s in entry.summaries))
    # (vendor.helpers and third.helpers: modules of the tree config.py's cards never name)
    assert config.tree is not None and not {"vendor.helpers", "third.helpers"} & set(config.modules)


def test_an_unchanged_tree_reads_only_the_listing_and_the_cache(history, tmp_path, monkeypatch) -> None:
    repo, shas = history
    options = Options(rev=shas[-1], use_cache=True, cache_dir=str(tmp_path / "cache"))
    first = extract_data(str(repo), options)

    def no_blobs(*args: object) -> None:
        raise AssertionError("a warm run read file contents")

    monkeypatch.setattr("extractor.incremental.read_contents", no_blobs)
    monkeypatch.setattr(Cache, "get_file", no_blobs)
    monkeypatch.setattr(Cache, "get_by_path", no_blobs)  # neither libcst results nor solutions
    assert extract_data(str(repo), options) == first


UNIT = "def check(x):\n    if x > LIMIT:\n        raise ValueError(f'x ({x}) > {LIMIT}')\n"
FILE_HISTORY: list[tuple[str, dict[str, str | None]]] = [
    ("constant", {"m.py": "LIMIT = 10\n\n\n" + UNIT}),
    # Same definition text; the module binds LIMIT to another value: a new guard constant.
    ("rebound", {"m.py": "LIMIT = 20\n\n\n" + UNIT}),
    # LIMIT no longer bound by the module: a name bound at run time, never an input.
    ("unbound", {"m.py": UNIT}),
    # Lines shift above the unchanged definition.
    ("shifted", {"m.py": "def other(y):\n    if y:\n        raise KeyError(y)\n\n\n" + UNIT}),
]


def test_unchanged_definitions_reuse_their_libcst_results_only_where_sound(tmp_path) -> None:
    repo = tmp_path / "repo"
    shas = make_git_repo(repo, FILE_HISTORY)
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    cold = [extract_data(str(repo), dataclasses.replace(options, rev=sha, use_cache=False)) for sha in shas]
    for sha, expected in zip(shas, cold):
        assert dumps_data(extract_data(str(repo), dataclasses.replace(options, rev=sha))) == dumps_data(expected), sha
    guards = [next(c for c in catalog["errors"] if c["function"] == "check")["guard"] for catalog in cold]
    assert [g["constants"] for g in guards[:3]] == [[["LIMIT", "10"]], [["LIMIT", "20"]], []]
    assert guards[2]["named"] == [["LIMIT", "unknown"]] and guards[2]["inputs"] == ["x"] and guards[3] == guards[2]


def test_an_edit_relinks_only_the_cards_whose_index_keys_it_changes(history, tmp_path, monkeypatch) -> None:
    """Linking depends on the keys of the project-wide indexes it read (the calls into a
    function, a class's subclasses, a helper's calls), not on every module: an edit elsewhere
    relinks a file only where it changes one of them."""
    from extractor.incremental import _Linker

    repo, shas = history
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    linked: list[str] = []
    work = _Linker.work
    monkeypatch.setattr(_Linker, "work", lambda self, path: (linked.append(path), work(self, path))[1])
    steps = {"caller": 7, "helper use": 8, "override": 9, "shifted": 10, "moved": 11}
    extract_data(str(repo), dataclasses.replace(options, rev=shas[steps["caller"]]))
    relinked = {}
    for name in ("helper use", "override", "shifted", "moved"):
        linked.clear()
        extract_data(str(repo), dataclasses.replace(options, rev=shas[steps[name]]))
        relinked[name] = sorted(linked)
    # A new caller of config.py's helper: the new file, and config.py (the helper's calls and callers changed).
    assert relinked["helper use"] == ["app/config.py", "app/use.py"]
    # A subclass that defines the helper method again: the new file, and config.py (Checker's subclasses changed).
    assert relinked["override"] == ["app/config.py", "app/strict.py"]
    # Lines shift in app/api.py: its own cards only; the calls into _guarded are the same but for their line.
    assert relinked["shifted"] == ["app/api.py"]
    # Lines shift in app/config.py, which the others import from: its own cards, and use.py's,
    # which name it (the helper's place); api.py, strict.py and cli.py read only its names.
    assert relinked["moved"] == ["app/config.py", "app/use.py"]


def test_a_shift_computes_no_other_module_index_part_again(history, tmp_path, monkeypatch) -> None:
    """An index part reads other modules' interfaces (their declarations but lines): lines
    moving in config.py, which api.py, use.py and strict.py resolve names in, computes config.py's
    parts alone again; the cards still match a cold run's (test_every_revision_...)."""
    from extractor.link.indexes import Indexes

    repo, shas = history
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    computed: list[tuple[str, str]] = []
    compute = Indexes._computed
    monkeypatch.setattr(Indexes, "_computed",
                        lambda self, kind, module: (computed.append((kind.name, module)), compute(self, kind, module))[1])
    extract_data(str(repo), dataclasses.replace(options, rev=shas[-2]))
    assert {module for _, module in computed} >= {"app.api", "app.use", "app.strict", "app.config"}  # (cold: every module's)
    computed.clear()
    extract_data(str(repo), dataclasses.replace(options, rev=shas[-1]))
    assert computed and {module for _, module in computed} == {"app.config"}


def test_an_edit_renders_again_only_the_pages_it_changes(tmp_path, capsys, monkeypatch) -> None:
    """A file's pages are kept under a digest of all they are rendered from: after an edit,
    the other files' pages come from the cache, and the folder is the one a cold run writes."""
    from extractor.publish import render

    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    if x > {i}:\n        raise ValueError(f'x ({{x}}) > {i}')\n" for i in range(4)}
    tree = temp_tree(tmp_path / "tree", {**files, "pkg/__init__.py": ""})
    cache = str(tmp_path / "cache")
    assert run_cli(capsys, "extract", str(tree), "-o", str(tmp_path / "docs"), "--cache-dir", cache, "-q").code == 0
    before = {p.name: p.stat().st_ino for p in (tmp_path / "docs" / "errors").iterdir()}
    rendered: list[str] = []
    pages = render._pages
    monkeypatch.setattr(render, "_pages",
                        lambda work, page: (rendered.extend(json.loads(t)["path"] for t in work[0]), pages(work, page))[1])
    (tree / "pkg" / "m2.py").write_text("# edited\n" + files["pkg/m2.py"], encoding="utf-8")
    assert run_cli(capsys, "extract", str(tree), "-o", str(tmp_path / "docs"), "--cache-dir", cache, "-q").code == 0
    assert rendered == ["pkg/m2.py"]
    # The folder is replaced whole, but a page with the same bytes is linked from the old one, not written.
    after = {p.name: p.stat().st_ino for p in (tmp_path / "docs" / "errors").iterdir()}
    kept = {name for name in after if before.get(name) == after[name]}
    assert len(after) == 4 and len(kept) == 3
    assert "pkg/m2.py" in (tmp_path / "docs" / "errors" / (after.keys() - kept).pop()).read_text(encoding="utf-8")
    assert run_cli(capsys, "extract", str(tree), "-o", str(tmp_path / "cold"), "--no-cache", "-q").code == 0
    assert tree_files(tmp_path / "docs") == tree_files(tmp_path / "cold")
    # ``check`` of the folder after another edit renders that file's pages alone, and finds them stale.
    rendered.clear()
    (tree / "pkg" / "m1.py").write_text("# edited\n" + files["pkg/m1.py"], encoding="utf-8")
    run = run_cli(capsys, "check", str(tmp_path / "docs"), "--path", str(tree), "--cache-dir", cache)
    assert run.code == 1 and rendered == ["pkg/m1.py"] and "stale: catalog.json" in run.out.splitlines()


_CORE = '''def _check(n):
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")


def fail(msg):
    raise KeyError(msg)


class Base:
    def refuse(self, x):
        raise TypeError(f"refused {x}")

    def run(self, x):
        if x > 1:
            self.refuse(x)
'''
# Each module's versions: a line shift, a helper gone, callers and subclasses appearing.
_VERSIONS: dict[str, tuple[str, ...]] = {
    "pkg/core.py": (_CORE, "# shifted\n" + _CORE, _CORE.replace("def fail(msg):\n    raise KeyError(msg)\n", "")),
    "pkg/api.py": ("", "from .core import _check\n\n\ndef check(n):\n    _check(n)\n",
                   "from .core import fail\n\n\ndef go(z):\n    if z:\n        fail(z)\n",
                   "# shifted\nfrom .core import _check\n\n\ndef check(n):\n    _check(n)\n"),
    "pkg/sub.py": ("", "from .core import Base\n\n\nclass Strict(Base):\n    def refuse(self, x):\n        return None\n",
                   "from .core import Base\n\n\nclass Other(Base):\n    pass\n"),
    "pkg/__init__.py": ("", "from .core import Base\n"),
}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(*(st.integers(0, len(v) - 1) for v in _VERSIONS.values())), min_size=2, max_size=4))
def test_any_sequence_of_edits_gives_what_a_cold_run_gives(tmp_path_factory, states) -> None:
    """Differential: each state of the tree, reached by editing the one before with the
    cache kept, extracts exactly what a cold run of that state does."""
    base = tmp_path_factory.mktemp("edits")
    options = Options(use_cache=True, cache_dir=str(base / "cache"))
    for state in states:
        for (path, versions), index in zip(_VERSIONS.items(), state):
            temp_tree(base / "tree", {path: versions[index]})
        warm = extract_data(str(base / "tree"), options)
        assert dumps_data(warm) == dumps_data(extract_data(str(base / "tree"), Options(use_cache=False))), state


INTERFACE = ("import os\n\n\nclass A(Exception):\n    size: int = 0\n\n    def run(self):\n        raise KeyError('x')\n\n\n"
             "def helper(n):\n    raise ValueError(n)\n")


def _interface(text: str) -> str:
    from extractor.collect.file import collect_file
    from extractor.sources import SourceFile

    facts = collect_file(SourceFile.from_bytes("pkg/m.py", text.encode()), Options())
    assert isinstance(facts, FileFacts)
    return facts.interface


def test_a_module_interface_leaves_out_lines_and_keeps_what_names_resolve_to() -> None:
    base = _interface(INTERFACE)
    assert len(base) == 32 and _interface("# moved\n\n" + INTERFACE) == base
    assert _interface(INTERFACE.replace("def helper", "def other")) != base
    assert _interface(INTERFACE.replace("class A(Exception)", "class A(ValueError)")) != base
    assert _interface(INTERFACE.replace("size: int", "depth: int")) != base
    assert _interface(INTERFACE.replace("import os", "import sys")) != base


def test_a_module_interface_is_the_same_under_any_hash_seed() -> None:
    code = "from tests.test_incremental import _interface, INTERFACE; print(_interface(INTERFACE))"
    found = {subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout for seed in ("1", "2")}
    assert len(found) == 1 and len(found.pop().strip()) == 32


def test_a_copy_of_an_analysed_tree_checks_its_index_parts_without_reading_every_module(tmp_path, monkeypatch) -> None:
    """A tree another folder's run analysed (a CI checkout at a new path) keeps no state of its
    own until an edit builds its indexes: each module's kept part then says its interface, so
    checking what the parts read reads no module's facts."""
    import shutil

    from extractor.sources import git_blob_sha

    files = {"pkg/__init__.py": "", "pkg/m0.py": "def f0(x):\n    if x:\n        raise ValueError(x)\n",
             **{f"pkg/m{i}.py": f"from .m{i - 1} import f{i - 1}\n\n\ndef f{i}(x):\n    f{i - 1}(x)\n" for i in range(1, 8)}}
    first = temp_tree(tmp_path / "first", files)
    copy = tmp_path / "copy"
    options = Options(use_cache=True, cache_dir=str(tmp_path / "cache"))
    extract_data(str(first), options)
    shutil.copytree(first, copy)
    extract_data(str(copy), options)  # (nothing changed: every card reused, no index built)
    (copy / "pkg" / "m3.py").write_text("# moved\n" + files["pkg/m3.py"], encoding="utf-8")
    read: list[str] = []
    get_file = Cache.get_file
    monkeypatch.setattr(Cache, "get_file", lambda self, key: (read.append(key), get_file(self, key))[1])
    edited = extract_data(str(copy), options)
    keys = {Cache.file_key(rel, git_blob_sha((copy / rel).read_bytes()), options): rel for rel in files}
    # The edited file's facts, and those linking its calls reads (down its imports, and the
    # package): none of the modules that import it (m4 to m7), whose parts it still checks.
    assert sorted(keys[key] for key in read) == ["pkg/__init__.py", "pkg/m0.py", "pkg/m1.py", "pkg/m2.py", "pkg/m3.py"]
    assert dumps_data(edited) == dumps_data(extract_data(str(copy), dataclasses.replace(options, use_cache=False)))


# Records of a card that hold a line of the card's own file (its place, its excerpt, its callers in the file).
_OWN_FILE_LINES = {"Location", "Excerpt", "CallSite"}


def test_every_line_a_card_holds_of_another_file_comes_with_that_file_path() -> None:
    """A linked entry is reused across edits that only move lines in a file none of its cards
    names (``Linked.shapes``): which holds only while every line of another file on a card sits
    in a record with that file's path (``Through``, ``HelperSite``, ``CatchingHandler``), or in
    one flattened into such a record (``FieldDoc``'s ``FieldFact``, ``StateWrite``'s
    ``AttributeStore``). A new record that holds a line fails here until it does."""
    import typing

    from extractor.model import Card
    from extractor.model.serialize import FLAT

    def fields(cls: type) -> dict[str, object]:
        hints = typing.get_type_hints(cls)
        return {f.name: hints[f.name] for f in dataclasses.fields(cls)}

    def records(hint: object) -> list[type]:
        found = [hint] if isinstance(hint, type) and dataclasses.is_dataclass(hint) else []
        return found + [r for arg in typing.get_args(hint) for r in records(arg)]

    unplaced: list[str] = []
    seen: set[tuple[type, bool]] = set()
    work: list[tuple[type, bool]] = [(Card, False)]
    while work:
        cls, placed = work.pop()
        if (cls, placed) in seen:
            continue
        seen.add((cls, placed))
        names = fields(cls)
        has_path = placed or any(name == "path" or name.endswith("_path") for name in names)
        lines = [n for n in names if n in ("line", "end_line", "start_line", "tail", "tail_end") or n.endswith("_line")]
        if lines and lines != ["command_line"] and not has_path and cls.__name__ not in _OWN_FILE_LINES:
            unplaced.append(f"{cls.__name__}.{lines[0]}")
        flat = {f.name for f in dataclasses.fields(cls) if f.metadata.get(FLAT)}
        work.extend((record, name in flat and has_path) for name, hint in names.items() for record in records(hint))
    assert unplaced == []
