"""The package layout: one subpackage per pipeline stage, and imports that flow one way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .helpers import ROOT

PACKAGE = ROOT / "extractor"
STAGES = {"model", "collect", "link", "solve", "publish", "verify", "corpus", "serve"}
WHOLE_RUN = {"__init__.py", "__main__.py", "cli.py", "options.py", "errors.py", "version.py", "pipeline.py", "incremental.py", "tasks.py", "pool.py", "cache.py", "sources.py", "git.py", "inputs.py"}


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts of ``root``/pyproject.toml, over the ``extractor`` package in ``root``."""
    script = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    env = {**os.environ, "PYTHONPATH": str(root)}  # this tree's extractor, before an installed one
    return subprocess.run([script, "--no-cache", "--config", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_top_level_shows_the_pipeline() -> None:
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert {p for p in entries if (PACKAGE / p).is_dir()} == STAGES
    assert {p for p in entries if (PACKAGE / p).is_file() and p.endswith(".py")} == WHOLE_RUN


def test_stages_import_only_earlier_stages() -> None:
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 5 kept, 0 broken." in run.stdout


def _with_import(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """lint-imports over a copy of the package where ``module`` (a path in it) gains ``line``."""
    shutil.copytree(PACKAGE, tmp_path / "extractor", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "extractor" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa: E402,F401\n", encoding="utf-8")
    return _lint_imports(tmp_path)


def test_the_import_contract_fails_when_an_earlier_stage_imports_a_later_one(tmp_path) -> None:
    run = _with_import(tmp_path, "collect/units.py", "from ..publish import render")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Stages import only earlier stages BROKEN" in run.stdout
    assert "extractor.collect.units -> extractor.publish.render" in run.stdout


def test_publish_may_not_import_libcst(tmp_path) -> None:
    run = _with_import(tmp_path, "publish/diff.py", "import libcst")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "publish works from catalog data alone: no libcst, no analysis stage BROKEN" in run.stdout


def test_an_import_cycle_inside_a_stage_breaks_its_contract(tmp_path) -> None:
    run = _with_import(tmp_path, "solve/problem.py", "from .posing import build_problem")  # posing imports problem
    assert run.returncode == 1, run.stdout + run.stderr
    assert "No import cycle among the modules of a stage BROKEN" in run.stdout
