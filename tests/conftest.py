"""Test configuration: strict mode, and ``--update-golden`` to rewrite golden files."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

# Bugs of ours on one file must fail the tests instead of becoming a FileFailure.
os.environ["RAISEDOCS_STRICT"] = "1"
# The CLI caches in the user cache dir by default; tests keep theirs to themselves.
# The folder goes when the session ends, so a test run leaves nothing in the temp folder.
_CACHE_HOME = tempfile.mkdtemp(prefix="raisedocs-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden from the current output")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
