"""link.project's re-exports: star imports and ``__all__`` -> what a package binds (an exception class named
through the package resolves to its definition) and where a caller imports a definition
from (the public package, never the private module it is defined in)."""

from __future__ import annotations

import json

from .helpers import extracted, run_cli, temp_tree

TREE = {
    "pkg/__init__.py": "from ._errors import *\nfrom ._api import *\n",
    "pkg/_errors.py": "__all__ = ['Refused']\n\nclass Refused(ValueError):\n    pass\n\nclass _Hidden(Exception):\n    pass\n",
    # no __all__: its public names are what the star import binds
    "pkg/_api.py": "from ._errors import Refused\n\ndef fetch(url: str) -> str:\n    if not url:\n        raise Refused('no url')\n    return url\n\ndef _helper(x: int) -> int:\n    if x < 0:\n        raise ValueError('negative')\n    return x\n",
    "pkg/_hidden.py": "__all__ = ['fetch_later']\n\ndef fetch_later(url: str) -> None:\n    if not url:\n        raise ValueError('no url')\n",
    "client.py": "import pkg\n\ndef call(url: str) -> None:\n    if url == 'ftp':\n        raise pkg.Refused(f'unsupported {url}')\n",
}


def _cards(capsys, tmp_path) -> dict[str, dict]:
    root = temp_tree(tmp_path / "tree", TREE)
    run = run_cli(capsys, "extract", str(root), "--no-cache", "-q")
    return {c["function"]: c for c in extracted(run.out)["errors"]}


def test_a_class_named_through_a_star_import_is_its_definition(capsys, tmp_path) -> None:
    exception = _cards(capsys, tmp_path)["call"]["exception"]
    assert (exception["classes"], exception["ancestors"][:1]) == (["pkg._errors.Refused"], ["ValueError"])


def test_an_example_imports_from_the_package_that_reexports_the_definition(capsys, tmp_path) -> None:
    cards = _cards(capsys, tmp_path)
    assert cards["fetch"]["example"]["before"] == "from pkg import fetch\nfetch(url='')"
    assert cards["_helper"]["example"] is None  # a private name: no example
    # ``pkg`` does not star-import ``_hidden``: nothing public binds ``fetch_later``, so no import is written
    assert cards["fetch_later"]["trigger"]["verified"] and cards["fetch_later"]["example"] is None
