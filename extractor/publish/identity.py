"""Where the templates are, and one digest of what turns catalog data into a docs folder.

Kept apart from ``render`` (Jinja2, the model): a run that finds its docs folder already
up to date (``inputs.unchanged_docs``) reads only this.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path


def template_root() -> Path:
    """Templates ship inside the package (``extractor/templates``) in a wheel; a source
    checkout keeps them in the top-level ``templates/`` folder."""
    here = Path(__file__).resolve().parents[1]  # the extractor package
    packaged = here / "templates"
    return packaged if (packaged / "card.md.j2").is_file() else here.parent / "templates"


@lru_cache(maxsize=1)
def render_identity() -> str:
    """A digest of what turns catalog data into a docs folder: the templates and the
    publish and model code. The same catalog.json under the same identity renders the same
    files, which lets an unchanged folder be left as it is (output.write_docs)."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for folder in (template_root(), here, here.parent / "model"):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
