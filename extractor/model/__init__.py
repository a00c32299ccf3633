"""The model: frozen records every stage exchanges, the codes they carry, the one serializer, and the JSON Schema.

``site`` (message templates, guards) -> ``facts`` (one file's pass) -> ``card`` (linked and
solved) -> ``catalog`` (a run's output, and diffs); ``codes`` holds every status, reason and
outcome they carry, each with its description; ``serialize`` turns any of them into JSON
data and back; ``schema`` derives catalog.schema.json from the records.
"""

from .base import DIFF_SCHEMA_ID, SCHEMA_ID, record
from .card import (
    Card,
    CardContext,
    CommandLine,
    Docs,
    Domain,
    Example,
    ExceptionRef,
    FieldDoc,
    Fix,
    GuardNames,
    ObjectState,
    Observed,
    Owner,
    Placement,
    Solved,
    StateWrite,
    Trigger,
    Validator,
    Verification,
)
from .catalog import (
    CardRef,
    Catalog,
    CatalogDiff,
    Change,
    ConditionChange,
    DefinitionRename,
    FileFailure,
    Generator,
    RunOptions,
    SourceInfo,
    Stats,
)
from .codes import (
    CLAIMED,
    CODES,
    CONSTRUCTING,
    ChangeKind,
    Code,
    ContextKind,
    DefinitionKind,
    Detailed,
    DomainSource,
    EntryKind,
    ExampleStyle,
    FixOutcome,
    FixTarget,
    NoFix,
    PartRole,
    RaiseKind,
    Reason,
    ReasonCode,
    TriggerStatus,
    VerifyOutcome,
)
from .facts import (
    Argument,
    AttributeStore,
    CallSite,
    ClassFact,
    Constraint,
    Excerpt,
    FieldFact,
    FileFacts,
    Location,
    Param,
    Passage,
    PostInitSet,
    RaiseFacts,
    Signature,
    SiteFact,
    Statement,
)
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
    "CLAIMED", "CODES", "CONSTRUCTING", "DIFF_SCHEMA_ID", "RAISES", "SCHEMA_ID", "And", "Argument", "AttributeStore", "CallSite",
    "Card", "CardContext", "CardRef", "Catalog", "CatalogDiff", "Change", "ChangeKind", "ClassFact", "Code", "CommandLine", "Compare",
    "ConditionChange", "Const", "Constraint", "Context", "ContextKind", "DefinitionKind", "DefinitionRename", "Detailed", "Docs",
    "Domain", "DomainSource", "EntryKind", "Example", "ExampleStyle", "ExceptionRef", "Excerpt", "FieldDoc", "FieldFact", "FileFacts",
    "FileFailure", "Fix", "FixOutcome", "FixTarget", "Generator", "Guard", "GuardNames", "GuardNode", "GuardPart", "Hole", "IsInstance",
    "IsNone", "Location", "MessageTemplate", "NoFix", "Not", "ObjectState", "Observed", "Opaque", "Or", "Owner", "Param", "Part",
    "PartRole", "Passage", "Placement", "PostInitSet", "RaiseFacts", "RaiseKind", "Reason", "ReasonCode", "RunOptions", "Signature",
    "SiteFact", "Solved", "SourceInfo", "StateWrite", "Statement", "Stats", "Text", "Trigger", "TriggerStatus", "Truthy", "Validator",
    "Verification", "VerifyOutcome", "dumps", "dumps_compact", "dumps_data", "fingerprint", "from_data", "from_json", "record",
    "to_data", "to_json",
]
