"""Helpers of the corpus tests: a wheel of a fixture package, and a local fake of PyPI's JSON API."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"


def make_wheel(folder: Path, target: Path) -> Path:
    """A wheel (a zip) of the package ``folder``'s files, members in sorted order."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path in sorted(folder.rglob("*.py")):
            wheel.write(path, path.relative_to(folder).as_posix())
    return target


def publish_release(root: Path, name: str, version: str, archive: Path, sha256: str | None = None) -> None:
    """Serve ``archive`` as the one file of ``name`` ``version`` under ``root`` (PyPI's JSON
    documents, the file linked relative to them as some mirrors do)."""
    files = root / "files"
    files.mkdir(parents=True, exist_ok=True)
    (files / archive.name).write_bytes(archive.read_bytes())
    digest = sha256 or hashlib.sha256(archive.read_bytes()).hexdigest()
    entry = {"filename": archive.name, "url": f"../../../files/{archive.name}", "digests": {"sha256": digest}, "yanked": False}
    release = root / "pypi" / name / version
    release.mkdir(parents=True, exist_ok=True)
    (release / "json").write_text(json.dumps({"info": {"version": version}, "urls": [entry]}))
    (root / "pypi" / name / "json").write_text(json.dumps({"info": {"version": version}, "urls": [entry],
                                                           "releases": {version: [entry]}}))


@contextmanager
def fake_pypi(root: Path) -> Iterator[str]:
    """An HTTP server of the files under ``root``; its base URL."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
