"""The pipeline: a folder -> Catalog (read, collect each file, link)."""

from __future__ import annotations

import dataclasses
import os

from . import __version__
from .cards import build_cards
from .collect import collect_file
from .model import SCHEMA_ID, Catalog, FileFacts, FileFailure, Generator, SourceInfo, Stats
from .options import Options
from .sources import read_command, read_tree


def extract(root: str, options: Options) -> Catalog:
    """Analyse every Python file under ``root`` and build its error catalog.

    Raises:
        SourceError: ``root`` cannot be read.
    """
    files, failures = read_tree(root, options)
    if options.command is None and os.path.isdir(root):
        options = dataclasses.replace(options, command=read_command(root))
    facts: list[FileFacts] = []
    for source in files:
        result = collect_file(source, options)
        if isinstance(result, FileFailure):
            failures.append(result)
        else:
            facts.append(result)
    cards = build_cards(facts, options)
    failures.sort(key=lambda f: f.path)
    name = options.repo_name or os.path.basename(os.path.realpath(root).rstrip("/"))
    return Catalog(
        schema=SCHEMA_ID,
        generator=Generator(name="raisedocs", version=__version__),
        source=SourceInfo(root=name, repo_url=options.repo_url, rev=options.rev),
        stats=Stats(
            files=len(files) + sum(1 for f in failures if f.stage == "read"),
            files_failed=len(failures),
            raise_sites=sum(len(f.sites) for f in facts),
            cards=len(cards),
        ),
        failures=tuple(failures),
        errors=tuple(cards),
    )
