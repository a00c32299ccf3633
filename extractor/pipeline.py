"""The pipeline: a folder -> Catalog (read, collect each file, link)."""

from __future__ import annotations

import dataclasses
import os
import warnings

from . import __version__
from .cards import build_cards
from .collect import collect_file
from .model import SCHEMA_ID, Card, Catalog, FileFacts, FileFailure, Generator, SourceInfo, Stats
from .options import Options
from .sources import read_command, read_tree


def extract(root: str, options: Options) -> Catalog:
    """Analyse every Python file under ``root`` and build its error catalog.

    Raises:
        SourceError: ``root`` cannot be read.
    """
    # Parsing snippets of the analysed code (annotations, guards, templates) must not print
    # CPython's SyntaxWarnings about that code.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _extract(root, options)


def _extract(root: str, options: Options) -> Catalog:
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
        stats=_stats(len(files) + sum(1 for f in failures if f.stage == "read"), len(failures), facts, cards),
        failures=tuple(failures),
        errors=tuple(cards),
    )


def _stats(files: int, failed: int, facts: list[FileFacts], cards: list[Card]) -> Stats:
    """Honest totals: what was found, and how much of it was reconstructed and solved."""
    unsolved: dict[str, int] = {}
    for card in cards:
        if card.trigger is not None and card.trigger.status == "unsolved":
            reason = (card.trigger.reason or "unknown").split(":")[0]
            unsolved[reason] = unsolved.get(reason, 0) + 1
    return Stats(
        files=files,
        files_failed=failed,
        raise_sites=sum(len(f.sites) for f in facts),
        cards=len(cards),
        templates=sum(1 for c in cards if c.message.template is not None),
        solved=sum(1 for c in cards if c.trigger is not None and c.trigger.status == "solved"),
        verified=sum(1 for c in cards if c.trigger is not None and c.trigger.verified),
        unreachable=sum(1 for c in cards if c.trigger is not None and c.trigger.status == "unreachable"),
        unsolved=dict(sorted(unsolved.items())),
    )
