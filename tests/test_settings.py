"""Options travel with the catalog: ``[tool.raisedocs]`` and what the run was given are
recorded in catalog.json, and ``check`` runs the same again unless told otherwise."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from extractor.publish.catalog_file import load_catalog

from .helpers import extracted, git, make_git_repo, run_cli, temp_tree

TREE = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n",
    "tests/test_core.py": "def test_f():\n    raise AssertionError('a test, left out')\n",
}


def test_check_reruns_the_options_the_docs_were_extracted_with(capsys, tmp_path) -> None:
    root = temp_tree(tmp_path / "src", TREE)
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(docs), "--exclude", "tests", "--excerpt-lines", "5", "--no-cache").code == 0
    recorded = load_catalog(str(docs / "catalog.json"))["options"]
    assert (recorded["exclude"], recorded["excerpt_lines"]) == (["tests"], 5)
    # No option given: the recorded ones are used, and the folder is up to date.
    assert run_cli(capsys, "check", str(docs), "--path", str(root), "--no-cache").code == 0
    # An option given overrides the recorded one; the message says how to regenerate.
    run = run_cli(capsys, "check", str(docs), "--path", str(root), "--excerpt-lines", "6", "--no-cache")
    assert run.code == 1
    assert f"regenerate with: raisedocs extract {root} -o {docs} --exclude tests --excerpt-lines 6" in run.err


def test_the_projects_tool_raisedocs_table_holds_the_options(capsys, tmp_path) -> None:
    tree = {**TREE, "pyproject.toml": '[tool.raisedocs]\nexclude = ["tests"]\nexcerpt-lines = 3\ncolour = "blue"\n'}
    root = temp_tree(tmp_path / "src", tree)
    docs = tmp_path / "docs"
    run = run_cli(capsys, "extract", str(root), "-o", str(docs), "--no-cache")
    assert run.code == 0
    assert "[tool.raisedocs] colour: not a raisedocs setting" in run.err
    catalog = load_catalog(str(docs / "catalog.json"))
    assert [c["path"] for c in catalog["errors"]] == ["pkg/core.py"]  # tests/ left out by the table
    assert catalog["options"]["excerpt_lines"] == 3
    # The command line wins over the table.
    run = run_cli(capsys, "extract", str(root), "--excerpt-lines", "7", "--no-cache", "-q")
    assert json.loads(run.out)["options"]["excerpt_lines"] == 7
    assert run_cli(capsys, "check", str(docs), "--path", str(root), "--no-cache").code == 0


def test_defaults_a_user_expects(capsys, tmp_path) -> None:
    tree = {**TREE, "pyproject.toml": '[project]\nname = "shop"\n', ".venv/pyvenv.cfg": "home = /usr\n", ".venv/lib/x.py": "raise KeyError\n"}
    root = temp_tree(tmp_path / "src", tree)
    run = run_cli(capsys, "extract", str(root), "--no-cache", "--exception", "NoSuchError", "--repo-url", "https://github.com/a/b")
    catalog = json.loads(run.out)
    assert catalog["source"]["root"] == "shop"  # [project] name, not the folder's
    assert catalog["errors"] == []
    assert "--exception NoSuchError matched no card" in run.err
    assert "--repo-url without --rev gives no permalinks" in run.err
    assert "the default excludes left out 1 folder (.venv)" in run.err


def test_an_unpacked_distribution_is_named_by_its_metadata_or_its_sole_package(capsys, tmp_path) -> None:
    code = {"pkg/__init__.py": "", "pkg/core.py": TREE["pkg/core.py"]}
    wheel = temp_tree(tmp_path / "wheel", {**code, "pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: shop-lib\nVersion: 1.0\n\nName: not this\n"})
    sdist = temp_tree(tmp_path / "sdist", {**code, "PKG-INFO": "Metadata-Version: 2.1\nName: shop-sdist\n"})
    bare = temp_tree(tmp_path / "src", code)  # a wheel's package unpacked into src/: the package, not "src"
    two = temp_tree(tmp_path / "lib", {**code, "other/__init__.py": ""})  # two packages: the folder
    roots = [json.loads(run_cli(capsys, "extract", str(root), "--no-cache", "-q").out)["source"]["root"] for root in (wheel, sdist, bare, two)]
    assert roots == ["shop-lib", "shop-sdist", "pkg", "lib"]


def test_a_checkout_is_named_by_its_remote_and_repo_url_alone_pins_its_head(capsys, tmp_path) -> None:
    root = tmp_path / "checkout"
    (sha,) = make_git_repo(root, [("one", {"pkg/__init__.py": "", "pkg/core.py": TREE["pkg/core.py"]})])
    git(root, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    (root / "pkg" / "core.py").write_text("raise SystemExit('uncommitted')\n")  # the work tree differs from HEAD
    (root / ".git" / "info" / "exclude").write_text("__pycache__/\n")
    run = run_cli(capsys, "extract", str(root), "--no-cache", "--repo-url", "https://github.com/acme/widgets")
    catalog = json.loads(run.out)
    assert catalog["source"] == {"root": "widgets", "repo_url": "https://github.com/acme/widgets", "rev": sha}  # the remote's name
    assert f"reading and pinning the checkout's HEAD ({sha[:10]})" in run.err and "no permalinks" not in run.err
    assert all(card["permalink"].startswith(f"https://github.com/acme/widgets/blob/{sha}/") for card in catalog["errors"])
    assert "uncommitted" not in run.out
    # Without --repo-url the work tree is read; a folder inside the checkout is not named by it.
    assert "uncommitted" in run_cli(capsys, "extract", str(root), "--no-cache").out
    assert json.loads(run_cli(capsys, "extract", str(root / "pkg"), "--no-cache").out)["source"]["root"] == "pkg"
    # --quiet prints nothing but errors; a .git folder left out needs no note.
    run = run_cli(capsys, "extract", str(root), "--no-cache", "--quiet", "--repo-url", "https://github.com/acme/widgets")
    assert run.code == 0 and run.err == ""
    assert "default excludes" not in run_cli(capsys, "extract", str(root), "--no-cache").err


def test_no_tests_leaves_out_test_code_and_travels(capsys, tmp_path) -> None:
    from extractor.options import is_test_path

    assert [p for p in ("tests/a.py", "pkg/test/b.py", "test_c.py", "pkg/d_test.py", "conftest.py", "pkg/contest.py", "pkg/latest.py")
            if is_test_path(p)] == ["tests/a.py", "pkg/test/b.py", "test_c.py", "pkg/d_test.py", "conftest.py"]
    root = temp_tree(tmp_path / "src", TREE)
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(docs), "--no-tests", "--no-cache").code == 0
    catalog = load_catalog(str(docs / "catalog.json"))
    assert [c["path"] for c in catalog["errors"]] == ["pkg/core.py"] and catalog["options"]["skip_tests"] is True
    assert run_cli(capsys, "check", str(docs), "--path", str(root), "--no-cache").code == 0


def test_card_json_is_an_option_the_folder_keeps(capsys, tmp_path) -> None:
    root = temp_tree(tmp_path / "src", TREE)
    plain, kept = tmp_path / "plain", tmp_path / "kept"
    assert run_cli(capsys, "extract", str(root), "-o", str(plain), "--no-cache").code == 0
    assert run_cli(capsys, "extract", str(root), "-o", str(kept), "--card-json", "--no-cache").code == 0
    assert not list((plain / "errors").glob("*.json")) and len(list((kept / "errors").glob("*.json"))) == 2
    assert run_cli(capsys, "check", str(kept), "--path", str(root), "--no-cache").code == 0


def test_a_src_layout_names_modules_from_below_src(capsys, tmp_path) -> None:
    tree = {
        "src/shop/__init__.py": "",
        "src/shop/errors.py": "class ShopError(ValueError):\n    pass\n",
        "src/shop/core.py": "from .errors import ShopError\n\n\ndef f(x):\n    if x < 0:\n        raise ShopError('negative')\n",
        "lib/__init__.py": "",  # a package named lib is not a source root
        "lib/util.py": "def g(y):\n    if y:\n        raise KeyError(y)\n",
    }
    root = temp_tree(tmp_path / "repo", tree)
    cards = {c["path"]: c for c in extracted(run_cli(capsys, "extract", str(root), "--no-cache", "-q").out)["errors"]}
    shop = cards["src/shop/core.py"]
    assert shop["exception"]["classes"] == ["shop.errors.ShopError"]
    assert shop["example"]["before"].startswith("from shop.core import f\n")
    assert cards["lib/util.py"]["example"]["before"].startswith("from lib.util import g\n")


# --- the docs folder pins the repository's name and URL ---------------------------------------

CODE = {"pkg/__init__.py": "", "pkg/core.py": TREE["pkg/core.py"]}


def _committed_docs(repo: Path, capsys, *flags: str) -> None:
    """``repo`` (no remote) with its docs extracted into ``repo/docs`` and committed."""
    make_git_repo(repo, [("code", CODE)])
    git(repo, "tag", "v1")
    assert run_cli(capsys, "extract", str(repo), "-o", str(repo / "docs"), "--no-cache", "-q", *flags).code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")


def _clone(repo: Path, into: Path, remote: str | None = "git@github.com:acme/gadgets.git") -> Path:
    git(repo.parent, "clone", "-q", str(repo), str(into))
    if remote is not None:
        git(into, "remote", "set-url", "origin", remote)
    return into


def _names(docs: Path) -> tuple[str, str | None, str, str]:
    """What names the repository: the catalog's source and options, and index.md's title."""
    catalog = load_catalog(str(docs))
    return (catalog["source"]["root"], catalog["source"]["repo_url"], catalog["options"]["repo_name"],
            (docs / "index.md").read_text(encoding="utf-8").splitlines()[0])


def test_a_fresh_clone_with_another_remote_and_folder_passes_check(capsys, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "widgets"
    _committed_docs(repo, capsys)
    assert _names(repo / "docs") == ("widgets", None, "widgets", "# widgets · error catalog")  # named by its folder
    clone = _clone(repo, tmp_path / "elsewhere")
    monkeypatch.chdir(clone)
    # The clone alone would be named "gadgets", by its remote; the docs keep "widgets".
    assert json.loads(run_cli(capsys, "extract", ".", "--no-cache", "-q").out)["source"]["root"] == "gadgets"
    for flags in ((), ("--full",)):  # the state file's digest, and a whole regeneration, agree
        run = run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", *flags)
        assert (run.code, run.out, run.err) == (0, "", "raisedocs: docs is up to date\n")
    # extract -o into the folder keeps its name too: nothing to write, nothing to commit.
    run = run_cli(capsys, "extract", ".", "-o", "docs", "--no-cache")
    assert run.code == 0 and "raisedocs: docs is unchanged" in run.err
    assert git(clone, "status", "--porcelain") == ""


def test_a_commits_docs_keep_having_no_url_in_a_clone_on_github(capsys, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "widgets"
    _committed_docs(repo, capsys, "--rev", "v1")
    assert _names(repo / "docs")[:3] == ("widgets", None, "widgets")
    monkeypatch.chdir(_clone(repo, tmp_path / "elsewhere"))
    # origin is on GitHub now; the docs had no URL, so no permalinks, and no card changes.
    for flags in ((), ("--full",)):
        assert run_cli(capsys, "check", "docs", "--path", ".", "--rev", "v1", "--no-cache", *flags).code == 0
    assert "permalink" not in run_cli(capsys, "extract", ".", "--rev", "v1", "-o", "docs", "--no-cache").out
    assert _names(Path("docs"))[:3] == ("widgets", None, "widgets")


def test_a_clone_of_dot_or_into_a_temporary_folder_is_never_named_by_it(capsys, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "widgets"
    _committed_docs(repo, capsys)
    # `git clone . ../copy` records origin as ".../widgets/.": named "widgets", not ".".
    git(repo, "clone", "-q", ".", "../copy")
    assert git(tmp_path / "copy", "config", "remote.origin.url").endswith("/.")
    monkeypatch.chdir(tmp_path / "copy")
    assert json.loads(run_cli(capsys, "extract", ".", "--no-cache", "-q").out)["source"]["root"] == "widgets"
    assert run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", "--full").code == 0
    # A clone in a temporary folder, from a temporary folder: its package names it, and its
    # committed docs check clean.
    with tempfile.TemporaryDirectory() as temp:
        made = _clone(repo, Path(temp) / "tmpq8x_2k0z", remote=None)  # a folder tempfile could make
        monkeypatch.chdir(_clone(made, Path(temp) / "tmp.Xa8s9dKq2Z", remote=None))  # one `mktemp -d` could make
        assert json.loads(run_cli(capsys, "extract", ".", "--no-cache", "-q").out)["source"]["root"] == "pkg"
        assert run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", "--full").code == 0
    monkeypatch.chdir(tmp_path)


def test_a_name_given_or_set_in_tool_raisedocs_wins_over_the_recorded_one(capsys, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "widgets"
    _committed_docs(repo, capsys)
    monkeypatch.chdir(_clone(repo, tmp_path / "elsewhere"))
    run = run_cli(capsys, "check", "docs", "--path", ".", "--repo-name", "shop", "--no-cache")
    assert run.code == 1 and "stale: index.md" in run.out
    assert "regenerate with: raisedocs extract . -o docs --repo-name shop\n" in run.err
    assert run_cli(capsys, "extract", ".", "-o", "docs", "--repo-name", "shop", "--no-cache", "-q").code == 0
    assert _names(Path("docs")) == ("shop", None, "shop", "# shop · error catalog")
    assert run_cli(capsys, "check", "docs", "--path", ".", "--no-cache").code == 0  # the folder keeps it
    # [tool.raisedocs] repo-name wins over the recorded name too (the command line over both).
    Path("pyproject.toml").write_text('[project]\nname = "widgets-lib"\n\n[tool.raisedocs]\nrepo-name = "Widgets"\n')
    run = run_cli(capsys, "check", "docs", "--path", ".", "--no-cache")
    assert run.code == 1 and "regenerate with: raisedocs extract . -o docs\n" in run.err
    assert run_cli(capsys, "extract", ".", "-o", "docs", "--no-cache", "-q").code == 0
    assert _names(Path("docs"))[::2] == ("Widgets", "Widgets")
    assert run_cli(capsys, "check", "docs", "--path", ".", "--repo-name", "shop", "--no-cache").code == 1
    # Without the table, the recorded name stays; [project] name does not replace it.
    Path("pyproject.toml").write_text('[project]\nname = "widgets-lib"\n')
    assert run_cli(capsys, "check", "docs", "--path", ".", "--no-cache", "--full").code == 0


def test_an_old_catalog_without_a_recorded_name_checks_as_before(capsys, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "widgets"
    make_git_repo(repo, [("code", CODE)])
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(repo), "-o", str(docs), "--no-cache", "-q").code == 0
    catalog = docs / "catalog.json"
    catalog.write_text(catalog.read_text(encoding="utf-8").replace('"repo_name":"widgets"', '"repo_name":null'), encoding="utf-8")
    # The name is found again as it was (the folder's): only catalog.json, which now records it, differs.
    run = run_cli(capsys, "check", str(docs), "--path", str(repo), "--no-cache")
    assert (run.code, run.out) == (1, "stale: catalog.json\n")
    # Found again, it follows the remote, as before: every page that shows it is stale.
    git(repo, "remote", "add", "origin", "git@github.com:acme/gadgets.git")
    run = run_cli(capsys, "check", str(docs), "--path", str(repo), "--no-cache")
    assert run.code == 1 and "stale: index.md" in run.out and "stale: errors/" in run.out
    assert run_cli(capsys, "extract", str(repo), "-o", str(docs), "--no-cache", "-q").code == 0
    assert _names(docs)[::2] == ("gadgets", "gadgets")


def test_only_a_proper_name_names_a_repository(capsys, tmp_path) -> None:
    from extractor.inputs import is_proper_name

    assert [n for n in ("", " ", ".", "..", "tmpq8x_2k0z", "tmp.Xa8s9dKq2Z", "tmp", "tmpfiles", "widgets", "src") if is_proper_name(n)] == [
        "tmp", "tmpfiles", "widgets", "src"]
    # A temporary folder inside a checkout is named by the checkout's top folder.
    repo = tmp_path / "widgets"
    make_git_repo(repo, [("code", {"tmpq8x_2k0z/mod.py": TREE["pkg/core.py"]})])
    assert json.loads(run_cli(capsys, "extract", str(repo / "tmpq8x_2k0z"), "--no-cache", "-q").out)["source"]["root"] == "widgets"
    # Loose modules in a temporary folder: nothing names them, and the note says so.
    loose = temp_tree(tmp_path / "tmp2v0c9qla", {"mod.py": TREE["pkg/core.py"]})
    run = run_cli(capsys, "extract", str(loose), "--no-cache")
    assert json.loads(run.out)["source"]["root"] == "unnamed"
    assert f"note: neither the tree, its remote nor its folder ({loose}) names the repository: cards show 'unnamed'" in run.err
