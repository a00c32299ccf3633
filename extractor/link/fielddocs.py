"""Field docs: an input like ``self.a.b`` (or ``ctx.a.b`` of an annotated parameter) -> the declaration of the field it reads."""

from __future__ import annotations

from ..model import FieldDoc, FileFacts, Param
from .project import Project


def class_along(project: Project, owner: str, names: list[str]) -> str | None:
    """The in-tree class reached from class ``owner`` through the annotated fields
    ``names`` (``["prefetch"]`` -> the class of ``owner.prefetch``); None where it breaks."""
    current = owner
    for name in names:
        found = project.field(current, name)
        if found is None:
            return None
        nested = project.class_of_annotation(found[0], found[2].annotation)
        if nested is None:
            return None
        current = nested
    return current


def field_doc(project: Project, facts: FileFacts, owner: str | None, expr: str, params: tuple[Param, ...] = ()) -> FieldDoc | None:
    """Docs of the field an input like ``self.a.b`` reads, through annotated sub-fields;
    also ``ctx.a.b`` of a parameter ``ctx`` annotated with a class of the tree."""
    parts = expr.split(".")
    if len(parts) < 2:
        return None
    if parts[0] in ("self", "cls") and owner is not None:
        start: str | None = f"{facts.module}.{owner}"
    else:
        param = next((p for p in params if p.name == parts[0] and p.kind not in ("star", "starstar")), None)
        start = project.class_of_annotation(facts, param.annotation) if param is not None else None
    if start is None:
        return None
    holder = class_along(project, start, parts[1:-1])
    found = project.field(holder, parts[-1]) if holder is not None else None
    if found is None:
        return None
    where, cls, fact = found
    return FieldDoc(
        input=expr,
        owner=f"{where.module}.{cls.qualname}",
        path=where.path,
        declared=fact,
        literal_values=project.literal_values(where, fact.annotation) or project.enum_members(where, fact.annotation),
        element_values=project.literal_values(where, fact.annotation, of_elements=True),
    )
