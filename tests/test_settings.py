"""Options travel with the catalog: ``[tool.raisedocs]`` and what the run was given are
recorded in catalog.json, and ``check`` runs the same again unless told otherwise."""

from __future__ import annotations

import json

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
