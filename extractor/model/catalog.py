"""The catalog and its diffs: what a run writes, and what comparing two catalogs gives."""

from __future__ import annotations

import dataclasses

from ..options import EXCERPT_LINES
from .base import DIFF_SCHEMA_ID, record
from .card import Card
from .codes import ChangeKind, DefinitionKind


@record
class FileFailure:
    """A file the run could not analyse, with a one-line reason."""

    path: str
    stage: str  # "read" | "decode" | "parse" | "analyse"
    error: str


@record
class Generator:
    name: str
    version: str


@record
class SourceInfo:
    root: str
    repo_url: str | None = None
    rev: str | None = None


@record
class RunOptions:
    """The selection and rendering options a catalog was extracted with: ``check`` and
    ``diff`` run the same again unless told otherwise.

    ``repo_name`` and ``repo_url`` are the name and the forge URL the cards show, as the run
    resolved them (given, or found: ``inputs.repo_name``, ``inputs.repo_url``); ``check`` and a
    later ``extract -o`` into the folder use them where none is given (``options.Pinned``).
    Catalogs written before held only a name given there, else None."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    use_default_excludes: bool = True
    exceptions: tuple[str, ...] = ()
    excerpt_lines: int = EXCERPT_LINES
    command: str | None = None
    repo_name: str | None = None
    repo_url: str | None = None
    skip_tests: bool = False
    card_json: bool = False  # the docs folder also holds errors/<id>.json


@record
class Stats:
    files: int
    files_failed: int
    raise_sites: int
    cards: int
    templates: int = 0
    solved: int = 0  # triggers a caller can act on: concrete and environment
    verified: int = 0
    unreachable: int = 0
    unsolved: dict[str, int] = dataclasses.field(default_factory=dict)
    statuses: dict[str, int] = dataclasses.field(default_factory=dict)  # cards per trigger status
    verification: dict[str, int] = dataclasses.field(default_factory=dict)  # cards per outcome of ``verify``


@record
class Family:
    """Identical checks repeated across files (publish.families): the same exception, message
    template and condition, its names normalised, in several files."""

    id: str  # 16 hex digits of the SHA-256 of what the members share (publish.families.family_key)
    cards: tuple[str, ...]  # the members' ids, in catalog order; the first stands for the family in the index


@record
class Catalog:
    schema: str
    generator: Generator
    source: SourceInfo
    stats: Stats
    failures: tuple[FileFailure, ...]
    errors: tuple[Card, ...]
    options: RunOptions | None = None
    families: tuple[Family, ...] = ()  # found over the whole catalog once every card is solved


# --- diffs ----------------------------------------------------------------------------------


@record
class CardRef:
    """Enough of a card to name it in a diff. ``statement``: the raise as written, on one line
    (shortened), which says what a card without a reconstructed message raises."""

    id: str
    path: str
    line: int
    function: str | None
    exception: str
    template: str | None
    statement: str | None = None


@record
class ConditionChange:
    """One condition of a guard that differs: ``old`` -> ``new`` (None: added or removed).
    ``role`` is the part it belongs to in the new guard (own, outer, exit; see GuardPart).
    ``also``: the ids of later cards whose guards change the same way (an earlier raise's
    test, negated in theirs), reported here once."""

    role: str
    old: str | None = None
    new: str | None = None
    also: tuple[str, ...] = ()


@record
class Change:
    kind: ChangeKind
    old: CardRef | None = None
    new: CardRef | None = None
    detail: str | None = None
    failure: FileFailure | None = None
    # The guard's conditions that differ (any kind pairing two cards).
    conditions: tuple[ConditionChange, ...] = ()
    # exception_changed: the new class is not a subclass of the old, so ``except Old`` no
    # longer catches it.
    breaking: bool | None = None


@record
class DefinitionRename:
    """A function or class whose name or file changed and whose body did not, or hardly
    (publish.pairing): its raises are paired with their old selves, and release notes report
    the rename once. ``functions``: the (old, new) qualified names of the functions paired."""

    kind: DefinitionKind
    old_path: str
    old_name: str
    new_path: str
    new_name: str
    errors: int
    functions: tuple[tuple[str, str], ...] = ()


@record
class CatalogDiff:
    """What ``raisedocs diff --format json`` writes (``diff.schema.json``)."""

    old: str
    new: str
    schema: str = DIFF_SCHEMA_ID
    changes: tuple[Change, ...] = ()
    # Files that moved with their errors: (old path, new path).
    renamed: tuple[tuple[str, str], ...] = ()
    # Functions and classes renamed or moved with their bodies, each once.
    definitions: tuple[DefinitionRename, ...] = ()
