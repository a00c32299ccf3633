"""Cards: one raise site as the catalog publishes it, with what linking and solving add."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from .base import record
from .codes import (
    CaughtVisibility,
    DomainSource,
    EntryKind,
    ExampleStyle,
    FixOutcome,
    FixTarget,
    Framework,
    HandlerOutcome,
    NoFix,
    PydanticError,
    Reason,
    ReasonCode,
    TriggerStatus,
    VerifyOutcome,
)
from .facts import AttributeStore, CallSite, Constraint, EffectPath, FieldFact, Location, Param, Passage, Signature, Statement
from .serialize import DESCRIPTION, FLAT
from .site import MessageTemplate


@record
class ExceptionRef:
    """The raised exception: as written, and resolved where the tree allows."""

    display: str
    written: str | None = None
    classes: tuple[str, ...] = ()
    ancestors: tuple[str, ...] = ()
    factory: str | None = None
    reason: ReasonCode | None = None


@record
class Shown:
    """What reaches the caller where a framework runs the card's code and catches what it raises
    (link.wrapping): the class their ``except`` sees, the text inside it with the card's message
    in its place, and what the framework prints where it prints (a CLI's terminal)."""

    framework: Framework
    exception: str  # the class the caller's ``except`` sees, qualified (``SystemExit``: the framework prints and exits)
    is_wrapped: bool  # another class than the card's: the card's exception is its cause (False: it passes through as it is)
    # ``str()`` of what the caller gets, the card's message in its place (holes the framework fills at
    # run time: ``{field}``, ``{prog}``); None where that text is not the message (``SystemExit``'s exit code)
    message: MessageTemplate | None = None
    terminal: MessageTemplate | None = None  # the line the framework prints on stderr (click's ``Error: ...``)
    exit_code: int | None = None  # the status the process exits with, where the framework exits


@record
class FieldDoc:
    """A declared class field that a guard input refers to: its declaration, where it is, and
    the values its type allows."""

    input: str
    owner: str
    path: str
    declared: FieldFact = dataclasses.field(metadata={FLAT: True})  # (its fields are the doc's own in JSON)
    literal_values: tuple[str, ...] | None = None
    element_values: tuple[str, ...] | None = None  # a list's (set's, tuple's) elements' Literal values
    # The field's entry in its class's docstring (``Args:``, ``Attributes:``, ``:ivar x:``), where
    # the field has no string of its own (link.docstrings.field_entry).
    described: str | None = None


@record
class Docs:
    function_doc: str | None = None
    owner: str | None = None
    owner_doc: str | None = None  # a long class docstring's first paragraph, marked as cut (link.docstrings.class_summary)
    fields: tuple[FieldDoc, ...] = ()


@record
class Domain:
    """What an input may be, from its declaration; values are source text as written."""

    input: str
    source: DomainSource
    types: tuple[str, ...] = ()
    choices: tuple[str, ...] | None = None
    constraints: tuple[Constraint, ...] = ()
    default: str | None = None
    has_default: bool = False
    elements: tuple[str, ...] | None = None  # the values a container's elements may take (a ``Literal`` element type)
    annotation: str | None = None  # the declared type as written (solve.declared checks values against all of it)


@record
class StateWrite:
    """Where the owner class (or an in-tree class it derives from) assigns an attribute of the
    object that the card's guard reads and no caller sets directly (link.state)."""

    input: str  # as the guard reads it: ``self._closed``
    owner: str  # the class whose method (or body) assigns it
    path: str
    # The assignment: its method (None: the class body), line, value's source (None: no one
    # value, or a long one) and whether it sits in a block of the method; its fields are the write's own in JSON.
    store: AttributeStore = dataclasses.field(metadata={FLAT: True})
    constant: str | None = None  # the source of the module constant ``value`` names (``IDLE``: ``'idle'``), where the tree gives it
    # Whether the card's condition holds with this value and the trigger's other values (solve);
    # None: not evaluated (no literal value, no solved trigger, or the condition cannot say).
    reaches: bool | None = None


@record
class FieldConstraint:
    """A constraint pydantic checks on a declared field (a card of kind ``field_constraint``;
    link.constraints): the field, what is declared, and the error pydantic reports for it."""

    owner: str  # the pydantic model or dataclass that declares the field (``module.Class``)
    field: str  # its name: the constructor keyword
    rule: str  # what is checked: a ``Field`` keyword (``ge``, ``pattern``, ``strict``), ``literal``, ``enum``, or a strict type's name
    declared: str  # as written: ``ge=1``, ``Literal["a", "b"]``, ``StrictInt``, the Enum's name
    error_type: PydanticError  # the ``type`` of the entry ``ValidationError.errors()`` holds for it
    value: str | None = None  # the declared bound, length or pattern as written (``1``); a strict rule's plain type (``int``)
    choices: tuple[str, ...] = ()  # the values a ``Literal`` or ``Enum`` type allows, as written
    flag: str | None = None  # the CLI flag the project declares for the field (its name, ``--x``), where one is


@record
class Trigger:
    """Input values that make the whole guard true, changing as few defaults as possible."""

    status: TriggerStatus
    inputs: dict[str, Any]
    changed: tuple[str, ...] = ()
    assumes: dict[str, Any] = dataclasses.field(default_factory=dict)
    reason: ReasonCode | None = None
    conflicts: tuple[str, ...] = ()
    message: str | None = None
    verified: bool = False
    missing: tuple[str, ...] = ()  # required arguments the trigger has no value for (so it is not verified)
    outside: tuple[str, ...] = ()  # inputs whose value is outside their declared type, which an isinstance test of the guard refuses
    # required arguments given a value of their declared type only, which a statement on the way
    # reads that the tool does not follow (solve.required.fill_passed_on; so it is not verified)
    passed_on: tuple[str, ...] = ()
    # attributes the trigger reads as a new object has them (CardContext.state): it builds the object
    constructed: dict[str, Any] = dataclasses.field(default_factory=dict)
    # the methods called, without arguments and in order, on the new object before the card's call
    # (solve.steps): ``constructed`` then holds what they leave
    steps: tuple[str, ...] = ()


@record
class Fix:
    """A minimal change to the trigger that makes the guard false."""

    inputs: dict[str, Any]
    changed: tuple[str, ...]
    description: str
    target: FixTarget
    verified: bool = False
    # The value is one of many: nothing declares or evidences the input's type, and it is not
    # the trigger's type (``''`` where the trigger has None); a caller passes a value of their own.
    stand_in: bool = False


@record
class Validator:
    name: str
    code: str
    params: dict[str, str]
    verified: bool = False


@record
class Example:
    style: ExampleStyle
    before: str
    after: str | None  # with the first fix; None where no fix is proven (the example reproduces the error only)
    fixes: tuple[str, ...] = ()  # with each further fix, in the card's order (the same style)
    no_fix: NoFix | None = None  # why ``after`` is None
    # Required arguments nothing reads before the raise: any value of their type gets the call
    # there, so the call may fail on them further on ("after"); the caller passes their own.
    placeholders: tuple[str, ...] = ()
    # The top-level modules its imports name beyond the project's own and the standard
    # library (solve.examples.example_requires): packages to install before running it.
    requires: tuple[str, ...] = ()


@record
class Solved:
    """What solving adds to a card, published as the card's own fields (``Card.solved``):
    ``solve_card`` returns it, the cache keeps it on its own, and ``tasks.solve_file`` joins
    it to a freshly linked card. Linking sets ``state`` (where the object's attributes the
    guard reads are assigned); solving completes it with which values reach the raise."""

    domains: tuple[Domain, ...] = ()
    trigger: Trigger | None = None
    fixes: tuple[Fix, ...] = ()
    validator: Validator | None = None
    validator_reason: Reason | None = None  # why there is no validator, where there is none
    example: Example | None = None
    example_reason: ReasonCode | None = None  # a verified trigger without an example: why (solve.examples)
    state: tuple[StateWrite, ...] = ()  # link.state's writes, with which values reach the raise (solve.state)
    # A field constraint's card: ``str(ValidationError)`` for the trigger's value as pydantic
    # prints it, without the version-dependent "For further information visit" line (solve.constraints).
    validation_error: str | None = None
    command_line: str | None = None  # the same: the command line that passes the trigger's value through the field's flag
    command_line_fix: str | None = None  # the same command line with the fix's value, which pydantic accepts
    # The same: the constructor's other arguments without a default (fields, InitVars) the
    # trigger does not pass; pydantic then reports each missing too, so no one-error text is shown.
    required_also: tuple[str, ...] = ()
    # The public entry (as Entries writes it) whose call the trigger, fixes and example are stated
    # as (solve.entries); None: they are the card's own function's.
    at_entry: str | None = None
    entry_reason: Reason | None = None  # the card has public entries but its trigger is not stated at one: why


@record
class Observed:
    """What running an example raised where it was not what the card says."""

    exception: str
    message: str | None
    at: str | None  # "path:line" of the frame that raised it, relative to its sys.path entry


@record
class LineRun:
    """What ``raisedocs verify`` saw when it ran a field constraint's command lines
    (``Card.command_line``, then ``Card.command_line_fix``) as the command's console script."""

    outcome: VerifyOutcome
    reason: Reason | None = None  # why the line was not run (outcome not_runnable)
    detail: str | None = None
    observed: Observed | None = None
    fix: FixOutcome | None = None  # the line with the fix's value


@record
class Verification:
    """What ``raisedocs verify`` saw when it ran the card's example on the installed code."""

    outcome: VerifyOutcome
    package: str | None = None  # the distribution run ("python" for the standard library)
    version: str | None = None
    reason: Reason | None = None  # why the example was not run (outcome not_runnable)
    detail: str | None = None
    observed: Observed | None = None
    fix: FixOutcome | None = None  # the example's "after"
    fixes: tuple[FixOutcome, ...] = ()  # the same, for each further fix of Example.fixes
    command_line: LineRun | None = None  # a field constraint's command lines, where the card has them


@record
class CatchingHandler:
    """An ``except`` clause of the project that catches the card's error on its way to a caller (link.caught)."""

    path: str
    line: int
    function: str | None  # the definition whose try statement it belongs to
    catches: tuple[str, ...]  # the classes as written
    outcome: HandlerOutcome
    raises: str | None = None  # what it raises in its place, as written (outcome raise_other)
    last: str | None = None  # the statement it ends at (or that keeps the error), on one line, cut to size
    carries: bool = False  # what it raises, exits with, passes on or keeps reads the caught error: its text may reach users
    surfaces: bool = False  # some path through it raises, ends the program or keeps the error for a later raise
    # The private functions the error passes through before reaching it, from the card's
    # function's caller outwards (empty: the handler is around a call of the card's function).
    through: tuple[str, ...] = ()


@record
class Caught:
    """Where the project's own ``except`` clauses catch the card's error, and whether users can
    still see it (link.caught)."""

    visibility: CaughtVisibility
    handlers: tuple[CatchingHandler, ...]
    escapes: tuple[CallSite, ...] = ()  # calls through which it reaches callers with no such handler (visibility partly)


@record
class Through:
    """The raising helper a helper-call card's call runs (link.helpers): the helper it calls,
    where that is defined, and the raise every path through it ends at (``via``: the further
    helpers on the way, in order)."""

    helper: str  # module.qualname of the helper the call names
    path: str
    line: int  # of the helper's ``def``
    raise_path: str
    raise_line: int
    raise_end_line: int
    via: tuple[str, ...] = ()


@record
class HelperSite:
    """A call of a raising helper (link.helpers)."""

    path: str
    function: str | None  # the qualname of the definition holding the call; None: module level
    line: int


@record
class EntryPath:
    """A public entry that reaches the card's function (link.callgraph): as a user writes it, and
    the functions one chain of calls goes through (module.qualname, the entry first, the card's
    function last)."""

    entry: str  # ``base64.b32decode``, ``pkg.Class.method``, ``pkg.Class(...)``
    path: tuple[str, ...]


@record
class Entries:
    """The public entries from which a user's call reaches the card's function, shortest call
    path first (link.callgraph.MAX_ENTRIES of them); ``reason`` where none is seen."""

    paths: tuple[EntryPath, ...] = ()
    reason: Reason | None = None


@record
class EntryCall:
    """A public entry whose call runs the card's function first thing all the way down, passing
    it the entry's own parameters unchanged or fixed values (link.callgraph.entry_calls): what
    solving the card at the entry needs (solve.entries)."""

    entry: str  # as Entries writes it
    module: str  # the module that defines the entry
    path: str  # its file
    public_module: str  # where a user imports it from
    function: str  # its qualname
    params: tuple[Param, ...]  # its parameters (``self`` included)
    decorators: tuple[str, ...] = ()
    call_style: str = "function"
    constructor: tuple[Param, ...] | None = None  # a method's: its class's constructor parameters (without self), where known
    # The card's function's parameters the path fixes: (parameter, the value's code), a literal
    # or a module constant's value; every other parameter the guard reads is the entry's own, by name.
    # Also the entry module's names its tests on the way read (``GROUP_SIZE``, ``torch.bfloat16``), with their values.
    fixed: tuple[tuple[str, str], ...] = ()
    # The guard reads the object (``self.x``) the entry runs on, the card's own class's: the card's
    # Owner and ObjectState hold for it (the entry is a method of that class, or its ``__post_init__``).
    keeps_object: bool = False
    # The tests on the entry's way to its call (MadeCall.exits): each false where the call is reached, but a "branch"'s, true.
    exits: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # Its parameters nothing reads on the way to the raise (link.callgraph._unread): any value of their type gets there
    unread: tuple[str, ...] = ()


@record
class HelperUses:
    """The calls of the raising helper whose tail (its final raise, or its call of another helper)
    the card is: how many the project makes, and the first of them by path and line."""

    count: int
    sites: tuple[HelperSite, ...] = ()


# How link.cards.assign_ids derives a card's id (the schema's description of ``Card.id``).
ID_RULE = (
    "16 hex digits of the SHA-256 of the raise's place: its path, its qualified function (<module> at module level), its exception "
    "as exception.display shows it, and its ordinal among that function's raises of that exception, in source order. The exception "
    "is the name written at the raise (a class, a variable, an unresolved name; f(...) for a call of a factory), the caught classes "
    "as written for a re-raise; for a call of a raising helper (kind helper_call), the helper's exception followed by the helper's "
    "qualified name, so that its ordinal counts the function's calls of that helper only. It is resolved only for a factory whose "
    "return annotation names the class, and for OSError called with an error number (the subclass Python creates). A reworded "
    "message, or a raise moved within its function, keeps its id; another path, function or exception gives another. Catalogs "
    "written before this rule hashed the message instead of the ordinal: every id changed once."
)


@record
class Card:
    """One raise site, as the catalog publishes it: what linking found, and what solving adds."""

    id: str = dataclasses.field(metadata={DESCRIPTION: ID_RULE})
    path: str
    at: Location = dataclasses.field(metadata={FLAT: True})  # (its fields are the card's in JSON)
    entry: tuple[EntryKind, ...]  # how callers reach the function
    statement: Statement = dataclasses.field(metadata={FLAT: True})  # kind, cause, guard, lints (the card's in JSON)
    exception: ExceptionRef
    message: MessageTemplate
    docs: Docs
    related: tuple[str, ...] = ()
    permalink: str | None = None
    shown: Shown | None = None  # where a framework runs the code and catches what it raises: what reaches the caller (link.wrapping)
    solved: Solved = dataclasses.field(default_factory=Solved, metadata={FLAT: True})  # (its fields are the card's in JSON)
    verification: Verification | None = None
    # The module imports a compiled module over the card's function or class when one is
    # importable (``from _datetime import *``): what runs, and its messages, may differ.
    compiled_override: bool = False
    callers: tuple[CallSite, ...] = ()  # where the file calls the card's function (a direct method or a module-level one)
    caught: Caught | None = None  # where the project's own handlers catch the error on its way to callers
    constraint: FieldConstraint | None = None  # a card of kind ``field_constraint``: the field and what pydantic checks
    through: Through | None = None  # a helper_call card: the raising helper the call runs (link.helpers)
    helper_calls: HelperUses | None = None  # the card is a raising helper's tail: the calls of that helper (link.helpers)
    entries: Entries | None = None  # the public entries that reach the card's function (link.callgraph); None: not looked for


@record
class Placement:
    """Where the card sits in the project: its modules, its exception class's, the other raises
    of its function and the choices of its Enum-typed parameters (link.cards.ContextLinker.link_placement)."""

    module: str | None = None  # the module that defines the card's function
    # The public module a caller imports the card's top-level definition from (link.project.entry_module;
    # ``httpx`` for ``httpx._client.Client``); None where the tree shows none.
    public_module: str | None = None
    exception_module: str | None = None  # where an in-tree exception class is defined
    own_str: bool = False  # the exception class (or an in-tree base) defines __str__: str(exc) is its own text
    siblings: tuple[str, ...] = ()  # guards of the other raises in the same function
    # The names those guards read that the function computes (Guard.opaque: ``user_part`` of
    # ``user_part, _ = value.rsplit("@", 1)``): a fix's value may change them too.
    computed: tuple[str, ...] = ()
    earlier_helpers: tuple[str, ...] = ()  # guards of the calls of raising helpers before it in the same function
    # The raises of the file's functions it calls before, over its values ("": not writable so; link.onway)
    earlier_checks: tuple[str, ...] = ()
    param_choices: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # Enum-typed parameters
    # Parameters annotated with a ``Literal`` alias of the module or one it imports (``mode:
    # PauseMode``, ``PauseMode = Literal["abort", "wait"]``): the values, as the alias writes them
    param_literals: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # A module of another platform that the module or the function imports unconditionally (collect.platforms)
    platform_module: str | None = None
    # The packages outside the tree and the standard library that importing the card's module
    # needs (its own top-level imports and its packages' ``__init__``'s): an example's too
    requires: tuple[str, ...] = ()


@record
class BuiltArgument:
    """A parameter annotated with an in-tree record class whose generated constructor sets the
    attributes of it the guard reads, and runs nothing else the tree shows (no ``__post_init__``,
    validator or own ``__init__``): the example builds it, ``param=Class(a=..., b=Nested(c=...))``."""

    param: str
    cls: str  # "module:Qualname", for the import
    constructor: tuple[Param, ...]
    settable: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # "p.a.b" -> constructor keywords a, b
    classes: dict[str, str] = dataclasses.field(default_factory=dict)  # "p.a" -> "module:Qualname" of a nested record
    unfilled: tuple[str, ...] = ()  # the nested records ("p.a") a required keyword of whose constructor no input gives
    required: tuple[FieldDoc, ...] = ()  # its other required fields (inputs "p.f"), which get stand-ins
    rules: tuple[FieldDoc, ...] = ()  # the declarations of the fields the guard reads: their declared rules hold for the values


RAW_KEYWORDS = "**keywords"  # (Owner.checks: an input that is the constructor's keywords, as a dict)


@record
class Owner:
    """The objects the guard reads (``self``, and a parameter annotated with an in-tree class),
    as a caller constructs them (link.constructors.link_owner)."""

    constructor: tuple[Param, ...] | None = None  # the owner class's constructor parameters, where known
    settable: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # "self.a.b" -> constructor keywords a, b
    # "self.a" -> "module:Qualname" of the in-tree class its constructor keyword takes
    classes: dict[str, str] = dataclasses.field(default_factory=dict)
    # the nested records ("self.a") a required keyword of whose constructor no input gives (link.constructors.nested_records)
    unfilled: tuple[str, ...] = ()
    # The guards of the raises that constructing the owner runs (its __init__, __post_init__,
    # validators), each with its inputs' declared defaults (input, default, default_factory):
    # an example that builds the object must pass them all first. A default of RAW_KEYWORDS: the
    # input is the dict of the keywords the constructor is called with (a "before" model validator's).
    checks: tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...] = ()
    # The codes of those checks that a field validator makes (link.constructors.validated_fields):
    # pydantic runs them as it checks each field, before any model validator or ``__post_init__``
    field_checks: tuple[str, ...] = ()
    # For a raise construction runs (a validator's, ``__post_init__``'s; ``checks`` then holds the
    # field validators, which run before it): the class's other checks (model validators, the
    # raises of another function ``__post_init__`` runs), which the trigger's values need not
    # reach but a fix's construction must pass too (solve.construction.fix_constructs)
    after_checks: tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...] = ()
    # The class's "before" model validators' checks (as ``checks``, their raw input RAW_KEYWORDS):
    # pydantic runs them on the keywords given before it checks any field (solve.rules.raw_refused)
    before: tuple[tuple[str, tuple[tuple[str, str | None, str | None], ...]], ...] = ()
    # The declared default (input, default, default_factory) of each field (``self.a``,
    # ``ctx.a`` of an annotated parameter) that another raise of the function reads: what its
    # test sees where a fix leaves the field alone (link.constructors.field_defaults).
    field_defaults: tuple[tuple[str, str | None, str | None], ...] = ()
    derived: tuple[str, ...] = ()  # inputs ``x.name`` that a method or property of x's class computes: no caller sets them
    abstract: tuple[str, ...] = ()  # the owner class's abstract methods left undefined (link.placeholders.abstract_methods)
    # the attributes its constructor reads that no class of its chain defines (link.placeholders.undefined_attributes)
    undefined: tuple[str, ...] = ()
    # constructing it surely runs through: every class of its chain is in the tree with a plain ``__init__``
    # (ClassFact.init_plain), no ``__new__`` or ``__post_init__``, or is a builtin or ABC (link.placeholders.constructed_plainly)
    plain_construction: bool = False
    # the validators of the owner class (and its ancestors') that call what the tool does not read
    # (link.constructors.unread_validators: ``Class.method``, or ``Class.method:a,b`` of a field
    # validator): constructing it with one of those fields (any, for a model's) may refuse a value no check shows
    unread_validators: tuple[str, ...] = ()

    def refuses_first(self, passed: Iterable[str]) -> bool:
        """Whether a validator the tool does not read may run on a construction that passes the
        keywords ``passed``: a model's always, a field's where its field is among them."""
        names = set(passed)
        return any(":" not in entry or not names.isdisjoint(entry.split(":", 1)[1].split(",")) for entry in self.unread_validators)
    # A field constraint's class: its other required fields (constructor keywords without a
    # default), as declared, which an example passes values of their own (link.cards, solve.constraints)
    required: tuple[FieldDoc, ...] = ()
    # Those fields reach a ``__post_init__`` of the class's chain, which may refuse a stand-in where
    # no check shows it: an example passing stand-ins shows the error only, which pydantic raises first
    required_unseen: bool = False
    # The parameters an example builds with their class's constructor (link.constructors.built_arguments)
    arguments: tuple[BuiltArgument, ...] = ()
    # A field validator pydantic runs after the field's type check: the field, whose declared type a value must have to get there
    validated: FieldDoc | None = None


STEP_DEPTH = 3  # calls a step makes on its object, followed this deep (MethodStep.called)


@record
class MethodStep:
    """A method a caller may call on a new object, without arguments, before the card's call
    (link.state.method_steps): every way through it, its tests and stores in the card's names
    (``self._closed``), a module constant's literal source put in for its name."""

    method: str
    owner: str  # the class that defines it (module-qualified)
    paths: tuple[EffectPath, ...] = ()
    # The methods it calls on its object, and those they call in turn (STEP_DEPTH deep), where
    # their ways are read, in the same names (a method not among them is taken to return)
    called: tuple[MethodStep, ...] = ()


@record
class ObjectState:
    """The object's own state as constructing it leaves it (link.state.constructed_state), and
    the methods that may change it before the card's call (link.state.method_steps)."""

    # The attributes a new object has at one known value, of those the guard and the steps' tests read: (input, value source).
    constructed: tuple[tuple[str, str], ...] = ()
    # Those of them a class body gives (no ``__init__`` assigns them): the only ones known while it runs
    from_class: tuple[str, ...] = ()
    steps: tuple[MethodStep, ...] = ()


@record
class CommandLine:
    """The configured command and the CLI flags an example of the card may write (link.commands.link_cli)."""

    command: str | None = None
    flags: dict[str, str] = dataclasses.field(default_factory=dict)  # the guard's inputs' destinations -> their flags
    # The inputs whose CLI flag's value the command's code hands on to the raise
    # (link.commands.routed_inputs): only they may be written as flags.
    routed: tuple[str, ...] = ()
    # (destination, path, line, test): the tests the command's code puts a flag's value to, whose
    # branch raises or exits at that line (link.commands.command_checks); names bare (``size < 0``)
    checks: tuple[tuple[str, str, int, str], ...] = ()


@record
class GuardNames:
    """What the guard's names denote beyond its module (link.instances.link_names)."""

    # Names of the guard (Guard.named) that linking resolved across modules: (dotted name,
    # kind, code) with kind "value" (code: the constant's source), "enum" or "sentinel"; and the
    # guard's inputs tied to another (kind "tied", code: that input; link.constructors.tied_inputs).
    named: tuple[tuple[str, str, str], ...] = ()
    # The guard's isinstance classes (as written) whose plain instances are known: the plain
    # type names of those instances (link.instances; ``()``: no plain value is one).
    instances: tuple[tuple[str, tuple[str, ...]], ...] = ()
    function_instances: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the same for all the function's guards
    # The guard's dotted names whose head is an import (``_index``, ``_struct.error``), as written
    # and as the module they come from names them (``operator.index``, ``struct.error``): the
    # solver reads those it models by the latter (solve.aliases)
    imported: tuple[tuple[str, str], ...] = ()


@record
class CardContext:
    """What solving one card needs from the project (link hands it to solve with the card):
    the site's own records (``SiteFact.signature``, ``RaiseFacts.passage``), and one record per
    link function that builds the rest, each built once (link.cards.ContextLinker). A site whose
    linking fails (a bug of ours) gets its parameters alone."""

    signature: Signature  # how a call of the card's function runs to the raise
    passage: Passage = dataclasses.field(default_factory=Passage)  # what the way to the raise evaluates, and the call's arguments
    place: Placement = dataclasses.field(default_factory=Placement)
    owner: Owner = dataclasses.field(default_factory=Owner)
    state: ObjectState = dataclasses.field(default_factory=ObjectState)
    cli: CommandLine = dataclasses.field(default_factory=CommandLine)
    names: GuardNames = dataclasses.field(default_factory=GuardNames)
    # The public entries the card is solved at too, in order, where their calls pass the guard's inputs through (link.callgraph)
    entries: tuple[EntryCall, ...] = ()
    entry_reason: Reason | None = None  # where the card has public entries but none passes the guard's inputs through: why
