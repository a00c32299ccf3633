"""The work of one pool task, with the cache around it: collect one file, or solve one file's cards.

Both run in worker processes (or in-process for small runs) and are pure functions of their
inputs; each caches what it made, so a later run reuses it. A task whose worker dies is
replaced by what ``lost_collecting`` or ``lost_solving`` say it stands for.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .cache import Cache, Linked
from .collect.file import UnitMemo, collect_file
from .model import (
    Card,
    CardContext,
    Detailed,
    FileFacts,
    FileFailure,
    Reason,
    Trigger,
    TriggerStatus,
    fingerprint,
    from_data,
    to_data,
)
from .model.spool import card_text, summary_of
from .options import Options
from .publish.families import family_key
from .solve.triggers import solve_one
from .sources import SourceFile

WORKER_DIED = "the worker process died (a crash, a signal or its memory limit)"


def collect(item: tuple[SourceFile | FileFailure, str, Options]) -> FileFacts | FileFailure:
    """Collect one file and cache its facts under ``key``, reusing the libcst results of
    the definitions unchanged since the version of the file analysed last (a file that could
    not be read is passed through)."""
    source, key, options = item
    if isinstance(source, FileFailure):
        return source
    cache = Cache.for_options(options)
    if cache.root is None:
        return collect_file(source, options)
    units_key = Cache.path_key("units", source.path)
    memo = UnitMemo(known=cache.get_by_path(units_key))
    result = collect_file(source, options, memo)
    if memo.now != memo.known:  # a file without raises has none; an unchanged one, the same
        cache.put_by_path(units_key, memo.now)
    cache.put_file(key, result)
    return result


def lost_collecting(item: tuple[SourceFile | FileFailure, str, Options]) -> FileFailure:
    """What a file whose worker died while collecting it becomes: a failure, alone."""
    return FileFailure(path=item[0].path, stage="analyse", error=WORKER_DIED)


@dataclasses.dataclass(frozen=True)
class FileWork:
    """One re-linked file's cards to solve, and the cache entry they complete."""

    path: str
    linked_key: str
    entry: Linked  # what linking read; its cards are filled in by solving
    drafts: list[tuple[Card, CardContext]]
    options: Options
    is_strict: bool
    paths: dict[str, str]  # the path of each module of ``entry.shapes``


def solve_file(work: FileWork) -> Linked:
    """Solve one file's cards, reusing the solutions its last version had for cards whose
    solving inputs are unchanged; cache the solutions and the linked entry, whose cards are
    their JSON texts (``spool.card_text``: the permalink still a slot)."""
    cache = Cache.for_options(work.options)
    solutions_key = Cache.path_key("solutions", work.path)
    known = cache.get_by_path(solutions_key)
    group: dict[str, Any] = {}
    cards: list[dict[str, Any]] = []
    for card, context in work.drafts:
        # Encoded once: the key reads these fields, and solving changes only the card's Solved,
        # whose fields are the card's own in JSON (Card.solved is FLAT).
        data = to_data(card)
        # Exactly what solving reads of a card (triggers.solve_card): never its line, id,
        # related ids or permalink, so a raise that an edit elsewhere moved is not solved again.
        # (No cache: nothing is looked up or kept under the key.)
        key = Cache.card_key(fingerprint([*(data[name] for name in SOLVING_READS), to_data(context)])) if cache.root is not None else None
        solved = Cache.solved_from(known.get(key)) if key is not None else None
        encoded = to_data(solved if solved is not None else solve_one((card, context, work.is_strict)))
        if key is not None:
            group[key] = encoded if solved is None else known[key]
        data.update(encoded)
        if work.is_strict:
            check_codes(data)
        cards.append(data)
    # The entry holds the solutions of the file's current cards: it never grows stale.
    if group != known:
        cache.put_by_path(solutions_key, group)
    entry = _with_cards(work, cards)
    cache.put_linked(work.linked_key, entry)
    return entry


def _unnamed(shapes: dict[str, str], paths: dict[str, str], texts: list[str]) -> dict[str, str]:
    """The shapes of the modules whose path none of the cards' texts holds (as a JSON string:
    a path JSON would escape is taken as named)."""
    joined = "\n".join(texts)
    named = {module for module, path in paths.items() if json.dumps(path, ensure_ascii=True) != f'"{path}"' or f'"{path}"' in joined}
    return {module: shape for module, shape in shapes.items() if module not in named}


def check_codes(card: dict[str, Any]) -> None:
    """Strict mode: every code of the card is a member of its enum (model.codes): the card
    decodes into the model, whose enums refuse any other string.

    Raises:
        ValueError: a code of the card is no member (a bare string one of ours wrote).
    """
    try:
        from_data(Card, card)
    except ValueError as exc:
        raise ValueError(f"{card['path']}:{card['line']}: {exc}") from exc


def lost_solving(work: FileWork) -> Linked:
    """What a file whose worker died while solving its cards becomes: its cards, unsolved
    (not cached, so the next run tries again)."""
    trigger = Trigger(status=TriggerStatus.UNSOLVED, inputs={}, reason=Detailed(code=Reason.INTERNAL_ERROR, value="worker_died"))
    return _with_cards(work, [to_data(dataclasses.replace(card, solved=dataclasses.replace(card.solved, trigger=trigger)))
                                    for card, _ in work.drafts])


def _with_cards(work: FileWork, cards: list[dict[str, Any]]) -> Linked:
    """The work's entry with its cards, and the shapes of the modules none of them names."""
    # (a summary also holds its card's family key: families are found once the whole run is solved)
    summaries = [{**summary_of(card), "family_key": family_key(card)} for card in cards]
    texts = [card_text(card) for card in cards]
    return dataclasses.replace(work.entry, cards=texts, summaries=summaries, shapes=_unnamed(work.entry.shapes, work.paths, texts))


# What solving reads of a card, with its context.
SOLVING_READS = ("path", "function", "kind", "guard", "message", "docs", "exception", "entry", "compiled_override", "state", "constraint")
