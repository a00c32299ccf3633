"""The model: frozen records every stage exchanges, the one serializer, and the JSON Schema.

``site`` (message templates, guards) -> ``facts`` (one file's pass) -> ``card`` (linked and
solved) -> ``catalog`` (a run's output, and diffs); ``serialize`` turns any of them into JSON
data and back; ``schema`` derives catalog.schema.json from the records.
"""

from .base import DIFF_SCHEMA_ID, SCHEMA_ID, record
from .card import (
    CONSTRUCTING,
    Card,
    CardContext,
    Docs,
    Domain,
    Example,
    ExceptionRef,
    FieldDoc,
    Fix,
    Observed,
    Solved,
    StateWrite,
    Trigger,
    Validator,
    Verification,
)
from .catalog import CardRef, Catalog, CatalogDiff, Change, ConditionChange, FileFailure, Generator, RunOptions, SourceInfo, Stats
from .facts import Argument, AttributeStore, CallSite, ClassFact, Constraint, Excerpt, FieldFact, FileFacts, Param, PostInitSet, SiteFact
from .serialize import dumps, dumps_compact, dumps_data, fingerprint, from_data, from_json, to_data, to_json
from .site import (
    RAISES,
    And,
    Compare,
    Const,
    Context,
    Guard,
    GuardNode,
    GuardPart,
    Hole,
    IsInstance,
    IsNone,
    MessageTemplate,
    Not,
    Opaque,
    Or,
    Part,
    Text,
    Truthy,
)

__all__ = [
    "CONSTRUCTING", "DIFF_SCHEMA_ID", "RAISES", "SCHEMA_ID", "And", "Argument", "CallSite", "Card", "CardContext", "CardRef", "Catalog", "CatalogDiff", "Change",
    "AttributeStore", "ConditionChange", "ClassFact", "Compare", "Const",
    "Constraint", "Context", "Docs", "Domain", "Example", "Excerpt", "ExceptionRef", "FieldDoc", "FieldFact", "FileFacts",
    "FileFailure", "Fix", "Generator", "Guard", "GuardNode", "GuardPart", "Hole", "IsInstance", "IsNone", "MessageTemplate",
    "Not", "Observed", "Opaque", "Or", "Param", "Part", "PostInitSet", "RunOptions", "SiteFact", "Solved", "SourceInfo", "StateWrite", "Stats", "Text", "Trigger", "Truthy",
    "Validator", "Verification", "dumps", "dumps_compact", "dumps_data", "fingerprint", "from_data", "from_json", "record", "to_data", "to_json",
]
