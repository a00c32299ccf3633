"""Limits that measure design: ruff (its default rules, the line length, mccabe complexity at
most 15) and mypy pass on the package, and no function is longer than about a screen."""

from __future__ import annotations

import ast
import subprocess
import sys

from .helpers import ROOT

PACKAGE = ROOT / "extractor"
MAX_FUNCTION_LINES = 60


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_ruff_passes_on_the_package() -> None:
    run = _run("ruff", "check", "--no-cache", "extractor")
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_passes_on_the_package() -> None:
    run = _run("mypy", "extractor")
    assert run.returncode == 0, run.stdout + run.stderr


def _long_functions(limit: int) -> dict[str, int]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = lines
    return found


def test_no_function_is_longer_than_the_limit() -> None:
    assert _long_functions(MAX_FUNCTION_LINES) == {}


def test_the_length_check_finds_a_long_function() -> None:
    assert _long_functions(20), "a limit of 20 lines must find functions: the check reads the package"
