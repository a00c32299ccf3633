"""The command line from the outside: exit codes, one-line errors, output discipline."""

from __future__ import annotations

import json
import os

from extractor.model.schema import schema_text, shipped_schema
from extractor.publish.catalog_file import load_catalog

from .helpers import FIXTURES, extracted, run_cli, run_module, temp_tree


def test_missing_path_is_one_line_and_exit_2(capsys, tmp_path) -> None:
    run = run_cli(capsys, "extract", str(tmp_path / "nope"), "-o", str(tmp_path / "out"))
    assert run.code == 2
    assert run.err == f"raisedocs: error: path does not exist: {tmp_path / 'nope'}\n"


def test_output_that_is_a_file_is_refused(capsys, tmp_path) -> None:
    (tmp_path / "out").write_text("x")
    run = run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(tmp_path / "out"))
    assert (run.code, run.err) == (2, f"raisedocs: error: output path is a file: {tmp_path / 'out'}\n")


def test_foreign_output_folder_is_never_replaced(capsys, tmp_path) -> None:
    temp_tree(tmp_path, {"docs/keep.md": "mine"})
    run = run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(tmp_path / "docs"))
    assert run.code == 2
    assert run.err == f"raisedocs: error: output folder holds files raisedocs did not write (keep.md); refusing to replace it: {tmp_path / 'docs'}\n"
    assert (tmp_path / "docs" / "keep.md").read_text() == "mine"


def test_unknown_option_is_one_line_and_exit_2(capsys) -> None:
    run = run_cli(capsys, "extract", "--bogus", "x")
    assert run.code == 2
    assert run.err.startswith("raisedocs: error: No such option") and "--bogus" in run.err
    assert run.err.count("\n") == 1


def test_rerun_replaces_previous_catalog(capsys, tmp_path) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(out)).code == 0
    stale = sorted((out / "errors").iterdir())[0]  # a card of the earlier catalog, listed in its manifest
    assert run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(out)).code == 0
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def test_failed_render_keeps_previous_catalog(capsys, tmp_path, monkeypatch) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "offload"), "-o", str(out)).code == 0
    before = (out / "catalog.json").read_text()

    calls = []

    def disk_full(*args, **kwargs):  # noqa: ANN002, ANN003
        calls.append(args[0])
        if len(calls) > 3:
            raise OSError(28, "No space left on device")
        return open(*args, **kwargs)

    monkeypatch.setattr("extractor.publish.output.open", disk_full, raising=False)
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "-o", str(out))
    monkeypatch.undo()
    assert (run.code, run.err) == (2, f"raisedocs: error: cannot write {out}: No space left on device\n")
    assert (out / "catalog.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def test_stdout_is_the_catalog_and_stderr_is_quiet(capsys) -> None:
    run = run_cli(capsys, "extract", str(FIXTURES / "offload"))
    assert run.code == 0
    assert json.loads(run.out)["stats"] == {
        "cards": 8, "files": 6, "files_failed": 0, "raise_sites": 4, "templates": 8,  # (and 4 field constraints' cards)
        "solved": 8, "verified": 8, "unreachable": 0, "unsolved": {}, "statuses": {"concrete": 8}, "verification": {},
    }
    assert run.err == (
        "raisedocs: 4 raise sites in 6 files (0 not analysed); 8 cards, 8 with a message template; "
        "triggers: concrete 8 (8 verified in the restricted evaluator; `raisedocs verify` runs the examples); unsolved by reason: none\n"
    )


def test_strict_exits_1_when_files_fail(capsys) -> None:
    assert run_cli(capsys, "extract", str(FIXTURES / "broken"), "--strict").code == 1
    assert run_cli(capsys, "extract", str(FIXTURES / "broken")).code == 0


def test_exception_filter_follows_the_hierarchy(capsys) -> None:
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "--exception", "FormsError")
    cards = extracted(run.out)["errors"]
    assert sorted({c["exception"]["display"] for c in cards}) == ["BadData", "MyValidationError", "errors.MyValidationError"]
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "--exception", "KeyError")
    cards = extracted(run.out)["errors"]
    assert sorted({c["exception"]["display"] for c in cards}) == ["KeyError", "KeyError | IndexError", "Missing"]


def test_a_filtered_catalog_relates_only_cards_it_holds(capsys, tmp_path) -> None:
    # Unfiltered, forms/ has ValueErrors related to other errors of the same function.
    everything = {c["id"]: c for c in extracted(run_cli(capsys, "extract", str(FIXTURES / "forms")).out)["errors"]}
    assert any(everything[r]["exception"]["display"] != "ValueError" for c in everything.values()
               if c["exception"]["display"] == "ValueError" for r in c["related"])
    run = run_cli(capsys, "extract", str(FIXTURES / "forms"), "--exception", "ValueError", "-o", str(tmp_path / "docs"))
    assert run.code == 0, run.err
    catalog = load_catalog(str(tmp_path / "docs" / "catalog.json"))
    ids = {c["id"] for c in catalog["errors"]}
    assert ids <= set(everything)  # the same ids as unfiltered
    assert all(set(c["related"]) <= ids for c in catalog["errors"])
    assert any(c["related"] for c in catalog["errors"])


def test_schema_command_prints_the_shipped_schema(capsys) -> None:
    run = run_cli(capsys, "schema")
    assert json.loads(run.out) == shipped_schema()
    assert run.out == schema_text(), "catalog.schema.json is stale: python -m extractor.model.schema > extractor/model/catalog.schema.json"


def test_the_diff_schema_is_shipped_and_printed(capsys) -> None:
    run = run_cli(capsys, "schema", "diff")
    assert run.out == schema_text("diff"), "diff.schema.json is stale: python -m extractor.model.schema diff > extractor/model/diff.schema.json"
    assert json.loads(run_cli(capsys, "schema", "search-index").out)["$id"] == "raisedocs-search-index/4"
    assert run_cli(capsys, "schema", "nothing").code == 2


def test_python_dash_m_and_determinism_across_hash_seeds(tmp_path) -> None:
    outputs = []
    for seed in ("0", "12345"):
        proc = run_module("extract", str(FIXTURES / "forms"), env={"PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]


def test_walk_order_does_not_change_output(capsys, tmp_path) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    if x > {i}:\n        raise ValueError('x')\n" for i in range(6)}
    temp_tree(tmp_path / "one", files)
    temp_tree(tmp_path / "two", dict(reversed(list(files.items()))))
    first = run_cli(capsys, "extract", str(tmp_path / "one"), "--repo-name", "r").out
    second = run_cli(capsys, "extract", str(tmp_path / "two"), "--repo-name", "r").out
    assert first == second and os.path.basename(str(tmp_path)) not in first


def test_installed_package_renders_with_its_own_templates(tmp_path) -> None:
    """The wheel carries the templates: run the installed package from outside the checkout."""
    import shutil
    import subprocess
    import sys

    import pytest

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = subprocess.run([sys.executable, "-c", "import extractor, sys; print(extractor.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("raisedocs is not installed in this interpreter (pip install . installs it)")
    if probe.stdout.startswith(str(FIXTURES.parent / "extractor")):
        pytest.skip("editable install: the installed package is this checkout")
    script = shutil.which("raisedocs", path=os.path.dirname(sys.executable))
    assert script is not None
    proc = subprocess.run([script, "extract", str(FIXTURES / "offload"), "-o", str(tmp_path / "docs")],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "docs" / "index.md").read_text().startswith("# minivllm · error catalog")  # ([project] name)
