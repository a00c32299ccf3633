"""Per-file facts: the pure, cacheable result of one file's pass (declarations and raise sites)."""

from __future__ import annotations

from dataclasses import field

from .base import record
from .codes import HandlerOutcome, InitRule, RaiseKind, Reason, TextRule
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
    kind: str = "normal"  # normal, positional (before ``/``), keyword (after ``*``), star (``*args``), starstar
    # Unannotated: the type the function's code evidently uses it as (collect.uses), which
    # the solver tries first; never a constraint. None: no such evidence.
    used_as: str | None = None


@record
class Excerpt:
    start_line: int
    text: str


@record
class FieldFact:
    """A class-body assignment: ``name: annotation = value`` and the string right after it. A
    card's field docs publish it as it is (``FieldDoc.declared``); whether the constructor takes
    it is the class's (``ClassFact.no_init``)."""

    name: str
    line: int
    annotation: str | None = None
    default: str | None = None
    default_factory: str | None = None
    constraints: tuple[Constraint, ...] = ()
    doc: str | None = None
    validators: tuple[str, ...] = ()  # the functions its field call names as validators, as written (``field(validator=f)``)
    # pydantic's ``Field(alias="in")`` (or ``validation_alias``): the constructor takes the field by that name, not its own
    alias: str | None = None


@record
class Argument:
    """One argument of the exception call a raise makes: its code, its keyword (None when
    positional), read as a message, its template (``parts`` None when not a string), and its
    value at the raise where that differs from its code (as ``Hole.value``)."""

    code: str
    keyword: str | None = None
    message: MessageTemplate | None = None
    value: str | None = None


@record
class PostInitSet:
    """An attribute a class's ``__post_init__`` assigns. ``test``: the code of the one
    top-level ``if`` (no ``else``) every assignment of it sits in, with the ``self.x``
    attributes it reads (``reads``); None where it may be assigned otherwise."""

    attribute: str
    test: str | None = None
    reads: tuple[str, ...] = ()


@record
class AttributeStore:
    """An assignment of an attribute, ``self.attribute`` in a method of a class or a class
    attribute in its body (``method`` None), keyed by the attribute in ``ClassFact.stores``
    (collect.declarations). A card's state writes publish it as it is (``StateWrite.store``)."""

    method: str | None
    line: int
    # the value's source; None: longer than collect.declarations.MAX_VALUE, or no one value (``+=``, a tuple target)
    value: str | None = None
    conditional: bool = False  # in a block of the method (under an ``if``, loop, ``try``, ``with``)


@record
class EffectPath:
    """One way through a method a caller calls without arguments (collect.effects): the tests
    that hold along it, as written in the method (its receiver by its own name), the attributes
    of the receiver it assigns in order (the value's source; None: not one value), the methods
    it calls on the receiver, and whether it ends in a raise."""

    tests: tuple[str, ...] = ()
    stores: tuple[tuple[str, str | None], ...] = ()
    calls: tuple[str, ...] = ()
    is_raise: bool = False


@record
class MethodEffect:
    """What calling a method may leave on its object: every way through it (collect.effects;
    solve.steps puts a new object's values through them)."""

    method: str
    receiver: str  # its first parameter's name, as the tests and stores spell it
    paths: tuple[EffectPath, ...] = ()
    bound: tuple[str, ...] = ()  # the names it binds (its parameters, locals): no module constant's in its tests
    is_bare: bool = False  # public, and callable without arguments: a step's candidate (else read where a step calls it)


@record
class ClassText:
    """How an exception class of the tree takes part in ``str(exc)`` (collect.class_messages;
    link.messages renders a raise's arguments through the chain of classes)."""

    init: InitRule = InitRule.INHERITED
    # PASSES: the arguments its ``__init__`` passes to the base's, each its code and template over
    # that ``__init__``'s parameters (code "": one the tool does not follow)
    passes: tuple[Argument, ...] = ()
    # ``if p is None: p = <default>`` at the top of its ``__init__``: (p, the default over its parameters)
    defaults: tuple[tuple[str, Argument], ...] = ()
    # Parameters rebound only in a top-level ``if`` before the call whose test checks parameters
    # against None (``if pattern is not None and pos is not None: msg = ...``): (p, the test
    # under which p no longer holds the caller's value)
    guarded: tuple[tuple[str, str], ...] = ()
    # Of those, the ones the ``if``'s body rebinds first by one top-level assignment over the
    # parameters (``msg = '%s at position %d' % (msg, pos)``): (p, that value; its message's form
    # starts ``class_base:`` where a nested ``if`` may add to its end)
    rebound: tuple[tuple[str, Argument], ...] = ()
    text: TextRule | None = None  # its own ``__str__``; None: it has none
    # TEMPLATE: the text over ``__self_<attr>__`` (``self.<attr>``) and ``__arg<i>__`` (``self.args[i]``)
    template: MessageTemplate | None = None
    # PERCENT_ARGS: the exceptions its ``try`` catches around the format, on which it returns the base's text
    fallback: tuple[str, ...] = ()
    # Its own ``__repr__`` (read as ``__str__`` is: TEMPLATE or OPAQUE; None: it has none), which
    # ``str()`` shows where a class up the chain sets ``__str__ = object.__str__`` (TextRule.REPR)
    repr: TextRule | None = None
    repr_template: MessageTemplate | None = None


@record
class ValidatorCalls:
    """A validator that runs on the raw value (``mode="before"``, "wrap", "plain", ``pre=True``)
    and calls what the tool does not read: a helper that may refuse a value before pydantic's own
    checks (collect.validators.unread_validator)."""

    method: str
    fields: tuple[str, ...] = ()  # a field validator's fields: it runs where one of them is passed
    # Where every such call is kept from refusing a value the keywords lack (collect.validators):
    # (key, helper as written) for ``helper(data.get("key"))``, which links where the helper returns
    # at once on None (FileFacts.none_first); (key, "") for a call after ``if <key absent>: return``;
    # ("", helper) for ``helper(data)``, which links where the helper refuses nothing
    # (FileFacts.refuses_nothing). Then it runs on what an example passes only where one of the keys is.
    keyed: tuple[tuple[str, str], ...] = ()


@record
class ClassFact:
    qualname: str
    line: int
    bases: tuple[str, ...] = ()
    doc: str | None = None
    fields: tuple[FieldFact, ...] = ()
    no_init: tuple[str, ...] = ()  # its fields declared ``field(init=False)``: the generated constructor does not take them
    methods: tuple[tuple[str, str | None], ...] = ()  # (name, return annotation)
    decorators: tuple[str, ...] = ()  # as written
    init: tuple[Param, ...] | None = None  # the explicit ``__init__``'s parameters after self
    init_sets: tuple[tuple[str, str], ...] = ()  # (attribute, parameter): ``self.attribute = parameter`` in it
    # (the base constructor's keyword, or "#i" for its i-th positional, parameter): what its
    # ``__init__`` passes on straight from a parameter, ``super().__init__(size=size)``
    super_init: tuple[tuple[str, str], ...] = ()
    super_base: int = 0  # the base (an index into ``bases``) whose constructor ``super_init`` passes to
    # no explicit ``__init__``, or one that only stores names and literals into the object and passes
    # them to a base constructor: it surely runs through (collect.declarations.init_facts)
    init_plain: bool = True
    post_init_sets: tuple[PostInitSet, ...] = ()  # what its own ``__post_init__`` assigns (collect.declarations.post_init_sets)
    new: tuple[Param, ...] | None = None  # the explicit ``__new__``'s parameters after cls
    metaclass: str | None = None  # ``metaclass=`` as written
    stores: tuple[tuple[str, AttributeStore], ...] = ()  # (attribute, where it is assigned): ``self.x`` in its methods, class attributes
    init_calls: tuple[str, ...] = ()  # the methods its own ``__init__`` calls on its receiver (collect.declarations.init_calls)
    init_reads: tuple[str, ...] = ()  # the attributes its own ``__init__`` reads on its receiver and never assigns there
    effects: tuple[MethodEffect, ...] = ()  # what each of its methods leaves on its object (collect.effects)
    abstract: tuple[str, ...] = ()  # its methods decorated ``@abstractmethod`` (or abstractproperty, ...)
    validators: tuple[str, ...] = ()  # its methods that run while it is constructed (``@field_validator``, ``@model_validator``, ...)
    # those of them that run on the raw value and call what the tool does not read
    validators_calling: tuple[ValidatorCalls, ...] = ()
    assigned: tuple[str, ...] = ()  # the other names its body binds (``__add__, __radd__ = ...``, ``x = property(...)``)
    text: ClassText | None = None  # how it takes part in ``str()`` of an exception (collect.class_messages); None: no bases
    # The annotated fields' declarations as written (a class with bases or decorators): the
    # excerpt of a field constraint's card (link.constraints).
    declarations: tuple[tuple[str, Excerpt], ...] = ()


@record
class Passage:
    """The way through to a raise, as the libcst pass reads it: what the statements before it
    and its exception call evaluate, and that call's arguments. A card's context holds the
    site's own (``CardContext.passage``)."""

    # In the guard's names (collect.paths; a star argument as "*x" or "**x"): a trigger under
    # which one fails is none (solve.passage).
    evaluates: tuple[str, ...] = ()
    # The exception call's arguments; None: not a call, or one with a star. Linking composes the
    # message from them (link.messages); a validator raises with them (solve.validator).
    arguments: tuple[Argument, ...] | None = None


@record
class Statement:
    """A raise statement as a card shows it (the libcst pass: ``RaiseFacts.statement``): how it
    raises, the guard under which control reaches it, and probable mistakes in its message. A
    card publishes it as its own fields (``Card.statement``)."""

    kind: RaiseKind
    cause: str | None  # ``from ...``, as written
    guard: Guard
    lints: tuple[str, ...] = ()  # codes of probable mistakes in the message as written (collect.cstpass.lint_message)


@record
class RaiseFacts:
    """What the libcst pass reads of one raise statement (collect.cstpass): the statement as the
    card shows it, what it raises and its message as written, and the way to it."""

    statement: Statement
    written: str | None = None  # the exception (or the callee that makes it) as written; None: a bare ``raise``
    is_call: bool = False  # ``raise X(...)``
    caught: tuple[str, ...] = ()  # a re-raise: the classes its handler catches, as written
    message: MessageTemplate
    # Why the exception cannot be named (a bare raise outside a handler, a variable, an
    # expression), or why libcst could not model the raise (collect.file._fallback).
    reason: Reason | None = None
    passage: Passage = field(default_factory=Passage)  # what the way to the raise evaluates, and the exception call's arguments


@record
class Location:
    """Where a raise statement is: its lines, the definition that holds it, and the excerpt
    that shows it (the ``ast`` pass). A card publishes it as its own fields (``Card.at``)."""

    line: int
    end_line: int
    function: str | None  # the qualname of the function (or class) whose body holds the raise; None: module level
    decorators: tuple[str, ...]  # the function's, as written
    excerpt: Excerpt


@record
class Signature:
    """How a call of the function that holds a raise runs to it (the ``ast`` pass): its
    parameters, how a call runs the body, and which parameters nothing reads on the way. A
    card's context holds the site's own (``CardContext.signature``)."""

    params: tuple[Param, ...] = ()
    call_style: str = "function"  # function, generator, coroutine or async_generator: how a call runs the body
    unread: tuple[str, ...] = ()  # parameters nothing reads before the raise (outside loops): any value reaches it
    # (parameter, tests): those read before the raise only by simple statements of a pure
    # expression (``n = len(text)``), with a test per statement, true where it runs without raising
    # (collect.declarations.pure_reads)
    pure_reads: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (parameter, names): those read on the way and in the raise only as attributes of the name
    # (``args.port``), with the attributes' names (collect.declarations.attribute_reads)
    attribute_reads: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The methods the function calls on its receiver before the raise (``self.fill()``,
    # ``super().fill()``; "*" where it passes the receiver on whole): they may change the state its
    # guard reads (collect.reads.receiver_calls)
    receiver_calls: tuple[str, ...] = ()


@record
class SiteFact:
    """One raise statement before project-wide linking (names as written): where it is and in
    which function (the ``ast`` pass), and what the libcst pass read of it (``raised``)."""

    at: Location
    owner: str | None  # qualname of the class whose method holds the raise
    raised: RaiseFacts
    function_doc: str | None = None
    signature: Signature = field(default_factory=Signature)  # how a call of its function runs to it (CardContext.signature)
    # A call statement ``X.error(arg)``: the class the code binds X to, as written, or ``self`` (collect.argerror; link.argerror)
    receiver: str | None = None


@record
class CallSite:
    """A definition of the card's file that calls the card's function (collect.callers)."""

    function: str | None  # its qualname; None: module-level code
    line: int  # of its first call


@record
class Handler:
    """An ``except`` clause of a try statement whose body holds a call (collect.callers)."""

    line: int
    catches: tuple[str, ...]  # the classes as written (``BaseException`` for a bare ``except:``)
    outcome: HandlerOutcome  # what it does instead of letting the error through
    raises: str | None = None  # what it raises in its place, as written (outcome raise_other)
    last: str | None = None  # the statement it ends at (or that keeps the error), on one line, cut to size
    carries: bool = False  # what it raises, exits with, passes on or keeps reads the caught error: its text may reach users
    surfaces: bool = False  # some path through it raises, ends the program or keeps the error for a later raise
    calls: str | None = None  # outcomes fallback and no_return ending at a call statement: its callee as written (a raising helper?)


@record
class Call:
    """One call of a function in its own file, with the handlers around it (collect.callers)."""

    caller: str | None  # the qualname of the definition that holds the call; None: module-level code
    line: int
    handlers: tuple[Handler, ...] = ()  # of the try statements whose body holds the call, innermost first, each try's in order
    # Its arguments as code (keyword None: positional); None where one is starred or too long
    arguments: tuple[Argument, ...] | None = None
    # It is a whole statement directly in its definition's body (``check(x)``, ``y = check(x)``):
    # every later line of the definition runs after it
    surely: bool = False


@record
class FunctionCalls:
    """Every call of a function of the file that the file's text shows (collect.callers)."""

    function: str  # its qualname
    calls: tuple[Call, ...]
    # Every mention of its name in the file is its definition or one of these calls (no
    # reference passed as a value, no call through another object, none cut for size).
    is_complete: bool
    is_decorated: bool = False  # by something other than staticmethod, classmethod or a cache: it may be registered elsewhere


@record
class Helper:
    """A raising helper of the file (collect.helpers): a function or method every path through
    whose body ends at one statement, its tail, which is a raise or a call that may be of another
    helper (linking decides: link.helpers). ``tail`` is that statement's site, by its line."""

    function: str  # qualname
    owner: str | None  # the class whose method it is
    line: int  # of its ``def``
    params: tuple[Param, ...]  # after ``self``/``cls`` for a method (not a staticmethod)
    tail: int  # the line of the tail statement (a site of the file)
    tail_end: int  # its last line
    raised: RaiseFacts  # what the libcst pass read of the tail (kept with the declarations: other files' calls read it)
    annotated: bool = False  # annotated ``NoReturn``/``Never``


@record
class HelperCall:
    """A call statement that may call a raising helper (collect.helpers): the callee as
    written, where it stands; linking resolves it (link.helpers)."""

    callee: str  # ``self.fail``, ``_fail``
    function: str | None  # the qualname of the definition holding it
    owner: str | None  # the class of that method
    line: int


@record
class MadeCall:
    """A call a function makes (collect.calls): its callee as written, its arguments as code,
    and whether it is the first thing the function surely does."""

    callee: str  # ``_b32decode``, ``self._check``, ``pkg.mod.f``
    line: int
    # By position (keyword None), then by keyword; None: a star argument, one cut, or not the first call (not kept)
    arguments: tuple[Argument, ...] | None = None
    # The callee of a top-level statement that every path reaches, with nothing before it that may leave or fail
    is_first: bool = False
    # ``p.name(...)`` of a parameter ``p``: its annotation as written (the class whose method it calls); of
    # the module's object ``_default_decoder``, the class called to make it (collect.calls.module_instances)
    receiver: str | None = None
    # The tests on the way to a first call, each as (its code, how it stands, the parameters' names
    # and attribute chains it reads): an ``if`` whose body the call stands in ("branch": true where
    # the call is reached); an earlier ``if`` whose body leaves ("raise", "return"), or that is
    # passed without running its body ("skip"), and an ``assert`` ("raise"): false there.
    exits: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    unread: tuple[str, ...] = ()  # the first call's: the parameters no statement before its own reads
    # The classes (dotted, as written) of the handlers of the ``try`` statements whose body holds
    # the call, innermost first, but a handler's that raises what it caught again (``raise``,
    # ``raise exc``); ``BaseException`` for a bare ``except:``: what the call raises stops there.
    caught: tuple[str, ...] = ()


@record
class CallsMade:
    """The calls a function or method of the file makes that linking may resolve (collect.calls;
    link.callgraph reads them backwards)."""

    function: str  # qualname
    owner: str | None  # the class whose direct method it is
    # Kept for a function that makes a first call (MadeCall.is_first) only:
    params: tuple[Param, ...] = ()  # all of them, ``self`` included
    decorators: tuple[str, ...] = ()  # as written
    call_style: str = "function"  # function, generator, coroutine or async_generator: how a call runs the body
    calls: tuple[MadeCall, ...] = ()
    is_cut: bool = False  # it makes more than collect.calls.MAX_CALLS such calls


@record
class FileFacts:
    path: str
    module: str
    imports: tuple[tuple[str, str], ...] = ()  # (local name, dotted target)
    star_imports: tuple[str, ...] = ()  # the modules ``from M import *`` binds every exported name of, in order
    typing_only: tuple[str, ...] = ()  # names only an import under ``if TYPE_CHECKING:`` binds: unbound when the module runs
    exports: tuple[str, ...] | None = None  # a literal ``__all__`` (None: none, or one the tree does not give as a literal)
    classes: tuple[ClassFact, ...] = ()
    functions: tuple[tuple[str, str | None], ...] = ()  # (qualname, return annotation)
    assignments: tuple[tuple[str, str], ...] = ()  # module-level name bound once -> value source
    module_names: tuple[str, ...] = ()  # every name bound at module level
    constants: tuple[tuple[str, str], ...] = ()  # module constants with the value the tree gives (collect.constants)
    sentinels: tuple[str, ...] = ()  # module names bound once to ``object()`` or a class of the module
    overridden: tuple[str, ...] = ()  # module-level functions and classes a compiled module may replace (collect.overrides)
    # (scope, line, module): modules of another platform imported unconditionally by the module ("") or a function (collect.platforms)
    platform_imports: tuple[tuple[str, int, str], ...] = ()
    packages: tuple[str, ...] = ()  # the top-level packages its own top-level statements import (collect.platforms.required_packages)
    registers: tuple[str, ...] = ()  # the names ``X.register`` is read on anywhere in its text (ABC registrations; link.instances)
    # (function qualname, subcommands it creates, callees it passes a name to, CLI destinations
    # it declares), for the files that may declare flags (collect.parsers)
    parsers: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = ()
    # (callee as written, keywords passed straight through or built, attributes of the parsed
    # arguments assigned where it passes them on, else None), for the same files (collect.routes)
    routes: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...] = ()
    # (attribute, line of the raise, test with bare names): tests whose branch leaves the command, for the same files (collect.routes)
    checks: tuple[tuple[str, int, str], ...] = ()
    flags: tuple[tuple[str, str], ...] = ()  # (destination, --flag) declared for a CLI
    transforms: tuple[str, ...] = ()  # functions and classes decorated with ``dataclass_transform``
    # (transform, its ``field_specifiers`` as written): a transform whose field specifier is
    # pydantic's ``Field`` makes pydantic dataclasses (vLLM's ``@config``; link.constraints)
    specifiers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Attributes the module's ``__getattr__`` computes from a table (collect.lazy): (name, the
    # code computing it, or None)
    lazy: tuple[tuple[str, str | None], ...] = ()
    # Functions that hold a raise -> the definitions of the file that call them, each with the
    # line of its first call (collect.callers).
    callers: tuple[tuple[str, tuple[CallSite, ...]], ...] = ()
    # The calls of the functions that hold a raise, and of their private callers up to a few
    # levels up, each with the handlers around it (collect.callers.in_file_calls).
    calls: tuple[FunctionCalls, ...] = ()
    helpers: tuple[Helper, ...] = ()  # its raising helpers (collect.helpers)
    # Its module-level functions that return at once when their first parameter is None
    # (collect.validators.passes_none): a validator's ``helper(data.get("key"))`` accepts a missing key
    none_first: tuple[str, ...] = ()
    # Its module-level functions of one parameter that refuse nothing they are given as a dict
    # (collect.validators.refuses_nothing): a validator's ``helper(data)`` lets the keywords through
    refuses_nothing: tuple[str, ...] = ()
    # The call statements that may call a raising helper; each is also a site (kind helper_call)
    # until linking resolves it (kept with the declarations: link.helpers.helper_calls reads every file's).
    helper_calls: tuple[HelperCall, ...] = ()
    made: tuple[CallsMade, ...] = ()  # the calls each function makes (collect.calls; link.callgraph)
    sites: tuple[SiteFact, ...] = ()
    # A digest of the declarations but their lines (collect.file.interface_digest): what another
    # module's index part, or linking cards that never name this file, reads of it (incremental);
    # an edit that only moves lines keeps it
    interface: str = ""
