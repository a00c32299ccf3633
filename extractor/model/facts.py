"""Per-file facts: the pure, cacheable result of one file's pass (declarations and raise sites)."""

from __future__ import annotations

from .base import record
from .site import Guard, MessageTemplate


@record
class Constraint:
    name: str
    value: str


@record
class Param:
    """A parameter of the function that holds a raise, as declared."""

    name: str
    annotation: str | None = None
    default: str | None = None


@record
class Excerpt:
    start_line: int
    text: str


@record
class FieldFact:
    """A class-body assignment: ``name: annotation = value`` and the string right after it."""

    name: str
    line: int
    annotation: str | None = None
    default: str | None = None
    default_factory: str | None = None
    constraints: tuple[Constraint, ...] = ()
    doc: str | None = None


@record
class ClassFact:
    qualname: str
    line: int
    bases: tuple[str, ...] = ()
    doc: str | None = None
    fields: tuple[FieldFact, ...] = ()
    methods: tuple[tuple[str, str | None], ...] = ()  # (name, return annotation)


@record
class SiteFact:
    """One raise statement before project-wide linking (names as written)."""

    line: int
    end_line: int
    function: str | None
    owner: str | None  # qualname of the class whose method holds the raise
    decorators: tuple[str, ...]
    kind: str
    written: str | None
    is_call: bool
    caught: tuple[str, ...]
    cause: str | None
    message: MessageTemplate
    guard: Guard
    excerpt: Excerpt
    function_doc: str | None = None
    reason: str | None = None
    params: tuple[Param, ...] = ()
    lints: tuple[str, ...] = ()


@record
class FileFacts:
    path: str
    module: str
    imports: tuple[tuple[str, str], ...] = ()  # (local name, dotted target)
    classes: tuple[ClassFact, ...] = ()
    functions: tuple[tuple[str, str | None], ...] = ()  # (qualname, return annotation)
    assignments: tuple[tuple[str, str], ...] = ()  # module-level name bound once -> value source
    module_names: tuple[str, ...] = ()  # every name bound at module level
    flags: tuple[tuple[str, str], ...] = ()  # (destination, --flag) declared for a CLI
    sites: tuple[SiteFact, ...] = ()
