"""Cards: linked FileFacts -> Card records (exceptions resolved, field docs, ids, related),
each with its CardContext for solving.

The project-wide half of linking: every raise site becomes one card, whatever could or
could not be resolved about it.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeGuard, TypeVar

from ..collect.annotations import read_annotation
from ..collect.messages import make_template, unknown
from ..collect.validators import validator_mode
from ..model import (
    Card,
    CardContext,
    Docs,
    Entries,
    EntryCall,
    ExceptionRef,
    FieldDoc,
    FileFacts,
    Hole,
    MessageTemplate,
    ObjectState,
    Opaque,
    Owner,
    Placement,
    Signature,
    SiteFact,
    Solved,
    Text,
    Through,
)
from ..model.codes import CONSTRUCTING, RUN_BY_CLASS_CALL, ContextKind, Detailed, EntryKind, RaiseKind, Reason
from ..options import Options, strict_from_env
from .argerror import parser_class, parser_error_site
from .callgraph import Edge, entry_calls, public_entries
from .caught import caught_by
from .commands import link_cli, record_flags
from .constraints import VALIDATION_ERROR, constraint_cards, constraint_key, field_constraint_ids
from .constructors import (
    Constructors,
    construction_checks,
    field_validator_checks,
    link_owner,
    post_init_in_chain,
    required_fields,
    settable_inputs,
    tied_inputs,
    unread_validators,
    with_records,
)
from .docstrings import class_summary, field_entry
from .helpers import expand_call, helper_site, helper_uses, through_of
from .ids import assign_ids, id_key
from .instances import function_instances, link_names
from .messages import compose
from .onway import earlier_checks
from .oserrors import errno_subclass
from .placeholders import placeholder_entries
from .project import BUILTIN_EXCEPTIONS, Project, Symbol, decorator_target, entry_module, field_doc, method_class
from .state import constructed_state, method_steps, receiver, state_writes, step_reads
from .wrapping import shown_for

RELATED_LIMIT = 12


def resolve_exception(project: Project, facts: FileFacts, site: SiteFact) -> tuple[ExceptionRef, MessageTemplate]:
    """The exception class(es) a site raises, and its message (replaced when built by a factory)."""
    raised = site.raised
    message = raised.message
    if raised.statement.kind == RaiseKind.RERAISE:
        classes = tuple(_class_name(project.resolve(facts, w), w) for w in raised.caught)
        display = " | ".join(raised.caught) if raised.caught else "re-raised exception"
        return _ref(project, display, raised.written, classes, None, raised.reason), message
    if raised.written is None:
        return ExceptionRef(display="unknown", reason=raised.reason or Reason.UNKNOWN), message
    symbol = _symbol_for(project, facts, raised.written, site.owner)
    if symbol is not None and symbol.kind in ("class", "builtin"):
        if (subclass := errno_subclass(project, facts, site, symbol.qualname)) is not None:
            return _ref(project, subclass, raised.written, (subclass,), None, Reason.ERRNO_SUBCLASS), message
        # (``self.failureException``: the class the attribute names, as the caller's ``except`` writes it)
        display = symbol.qualname.rsplit(".", 1)[-1] if raised.written.partition(".")[0] in ("self", "cls") else raised.written
        return _ref(project, display, raised.written, (symbol.qualname,), None, raised.reason), message
    if raised.reason == Reason.RAISED_VARIABLE:
        return ExceptionRef(display=raised.written, written=raised.written, reason=Reason.RAISED_VARIABLE), message
    factory = raised.written + "(...)"
    if symbol is not None and symbol.kind in ("function", "method"):
        built = project.class_of_annotation(symbol.facts, symbol.returns) if symbol.facts else None
        built_name = _builtin_return(symbol.returns)
        message = unknown("factory", Reason.BUILT_BY_FACTORY)
        if (target := built or built_name) is not None:  # (a qualname is never empty)
            return _ref(project, target.rsplit(".", 1)[-1], raised.written, (target,), factory, None), message
        return ExceptionRef(display=factory, written=raised.written, factory=factory, reason=Reason.FACTORY_WITHOUT_RETURN_TYPE), message
    last = raised.written.rsplit(".", 1)[-1]
    if raised.is_call and not last[:1].isupper():
        message = unknown("factory", Reason.BUILT_BY_FACTORY)
        return ExceptionRef(display=factory, written=raised.written, factory=factory, reason=Reason.UNRESOLVED_FACTORY), message
    target = symbol.qualname if symbol is not None else raised.written
    reason = Reason.OUTSIDE_TREE if symbol else Reason.UNRESOLVED_NAME
    return _ref(project, raised.written, raised.written, (target,), None, reason), message


def _symbol_for(project: Project, facts: FileFacts, written: str, owner: str | None) -> Symbol | None:
    """What the raised name resolves to (``self.error``: the owner class's attribute;
    ``self.make_error``: the method the class or its nearest in-tree base defines)."""
    head, _, rest = written.partition(".")
    if head in ("cls", "self") and owner is not None and rest:
        if "." not in rest and (found := method_class(project, f"{facts.module}.{owner}", rest)) is not None:
            return project.lookup(f"{found[0].module}.{found[1].qualname}.{rest}")
        if "." not in rest and (bound := _class_attribute(project, f"{facts.module}.{owner}", rest)) is not None:
            return bound
        return project.lookup(f"{facts.module}.{owner}.{rest}")
    return project.resolve(facts, written)


def _class_attribute(project: Project, cls: str, name: str) -> Symbol | None:
    """The class a class attribute names, where the class or its nearest in-tree base binds it
    once, in its body, to a class (unittest's ``failureException = AssertionError``) and no
    method assigns it; None otherwise."""
    for current in (cls, *project.ancestors(cls)):
        found = project.class_fact(current)
        if found is None:
            if current in BUILTIN_EXCEPTIONS or current in ("object", "builtins.object"):
                continue
            return None  # (outside the tree: it may bind the name)
        stores = [store for attribute, store in found[1].stores if attribute == name]
        if stores or name in found[1].assigned or any(method == name for method, _ in found[1].methods):
            value = stores[0].value if len(stores) == 1 and stores[0].method is None else None
            if not value or not value.replace(".", "").isidentifier():
                return None
            symbol = project.resolve(found[0], value)
            return symbol if symbol is not None and symbol.kind in ("class", "builtin") else None
    return None


def _builtin_return(returns: str | None) -> str | None:
    name = (returns or "").strip().strip("\"'")
    return name if name in BUILTIN_EXCEPTIONS else None


def _class_name(symbol: Symbol | None, written: str) -> str:
    return symbol.qualname if symbol is not None else written


def _ref(project: Project, display: str, written: str | None, classes: tuple[str, ...], factory: str | None,
         reason: Reason | None) -> ExceptionRef:
    ancestors: dict[str, None] = {}
    for name in classes:
        ancestors.update(dict.fromkeys(project.ancestors(name)))
    return ExceptionRef(display=display, written=written, classes=classes, ancestors=tuple(ancestors), factory=factory, reason=reason)



# --- ids and related ---------------------------------------------------------------------


def _scoped_inputs(card: Card, owner: str | None) -> set[tuple[str, ...]]:
    keys: set[tuple[str, ...]] = set()
    for name in card.statement.guard.inputs:
        root = name.split(".")[0]
        if root in ("self", "cls") and owner is not None:
            keys.add(("class", card.path, owner, name))
        else:
            keys.add(("function", card.path, card.at.function or "", name))
            keys.add(("module", card.path, name))
    return keys


def link_related(cards: list[Card], owners: list[str | None]) -> list[Card]:
    """Related: sites sharing an input, same function first, then same class, then file."""
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    scoped = [_scoped_inputs(card, owner) for card, owner in zip(cards, owners)]
    for i, keys in enumerate(scoped):
        for key in keys:
            index[key].append(i)
    out: list[Card] = []
    for i, card in enumerate(cards):
        candidates: set[int] = set()
        for key in scoped[i]:
            candidates.update(index[key])
        candidates.discard(i)

        def rank(j: int, card: Card = card, owner: str | None = owners[i]) -> tuple:
            other = cards[j]
            same_function = other.path == card.path and other.at.function == card.at.function
            same_class = owner is not None and owners[j] == owner and other.path == card.path
            return (0 if same_function else 1 if same_class else 2, other.path, other.at.line, other.id)

        related = tuple(cards[j].id for j in sorted(candidates, key=rank)[:RELATED_LIMIT])
        out.append(replace(card, related=related))
    return out


# --- cards ---------------------------------------------------------------------------------


def permalink(options: Options, path: str, start: int, end: int) -> str | None:
    if not options.repo_url or not options.rev:
        return None
    anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
    return f"{options.repo_url.rstrip('/')}/blob/{options.rev}/{path}{anchor}"


def link_file(project: Project, facts: FileFacts, flags: dict[str, str],
              options: Options) -> tuple[list[tuple[Card, CardContext]], dict[str, str | None]]:
    """One card per raise site of a file, in source order, each with what solving it needs
    (see ``solve_one``); and the CLI flags those cards may name (destination -> its flag,
    or None where none is declared), which is all they read of ``flags``."""
    drafts: list[tuple[Card, SiteFact, str]] = []
    callers = dict(facts.callers)
    for site in facts.sites:
        found = _card_site(project, facts, site)
        if found is None:
            continue  # a call statement of no raising helper the tree shows
        site, key_facts, through = found
        exception, message, docs = _linked_site(project, facts, site, key_facts)
        function = site.at.function
        key = id_key(facts.path, function, exception.display if through is None else f"{exception.display}\0{through.helper}")
        card = Card(
            id="", path=facts.path, at=site.at, entry=entry_points(facts, site), statement=site.raised.statement, exception=exception,
            message=message, docs=docs, permalink=None,
            compiled_override=bool(function and function.split(".", 1)[0] in facts.overridden),
            callers=callers.get(function, ()) if function is not None else (),
            caught=_or_none(caught_by, project, facts, function, exception),
            through=through, helper_calls=helper_uses(project, facts, site) if facts.helpers else None,
        )
        if through is None:
            card = replace(card, entry=card.entry + placeholder_entries(project, facts, site, card))
        card = replace(card, shown=_or_none(shown_for, project, facts, site, card))
        drafts.append((card, site, key))
    for card, site, function in constraint_cards(project, facts, flags):  # (after the raises: their order is the file's)
        drafts.append((card, site, id_key(facts.path, *constraint_key(function, card))))
    ids = assign_ids([key for _, _, key in drafts])  # over every site: ids do not depend on --exception
    cards = [replace(card, id=card_id) for (card, _, _), card_id in zip(drafts, ids)]
    # (in the file's order: a field's constraints among the raises around it)
    chosen = sorted((index for index, card in enumerate(cards) if _selected(card, options.exceptions)),
                    key=lambda i: (cards[i].at.line, cards[i].at.end_line, i))
    # Related cards are among those the catalog holds.
    related = dict(zip(chosen, link_related([cards[i] for i in chosen], [drafts[i][1].owner for i in chosen])))
    if _selected_class(VALIDATION_ERROR.classes + VALIDATION_ERROR.ancestors, options.exceptions):
        related = {i: _with_constraints(project, card) for i, card in related.items()}
    linker = ContextLinker(project, facts, flags, options, [c for c in cards if c.constraint is None])
    return [linker.link(related[index], drafts[index][1]) for index in chosen], linker.read_flags


def _with_constraints(project: Project, card: Card) -> Card:
    """A raise card with the constraint cards of the fields its guard reads first among its
    related cards (a validator that reads ``self.prefetch.size`` and ``Field(ge=1)`` on ``size``)."""
    if card.constraint is not None or not card.docs.fields:
        return card
    extra = [i for doc in card.docs.fields for i in field_constraint_ids(project, doc)]
    if not extra:
        return card
    return replace(card, related=tuple(dict.fromkeys((*extra, *card.related)))[:RELATED_LIMIT])


def _card_site(project: Project, facts: FileFacts, site: SiteFact) -> tuple[SiteFact, tuple[FileFacts, str | None], Through | None] | None:
    """The site a card describes: a raise as it is; a call of a raising helper as a raise of
    what the helper raises (link.helpers), with the file and class its exception is named in,
    and the helper; None for a call of no raising helper. A bug of ours costs the call its card."""
    if site.raised.statement.kind != RaiseKind.HELPER_CALL:
        return site, (facts, site.owner), None
    try:
        expansion = expand_call(project, facts, site)
        if expansion is None and parser_class(project, facts, site) is not None:
            return parser_error_site(site), (facts, site.owner), None
    except Exception:  # the per-site boundary
        if strict_from_env():
            raise
        return None
    if expansion is None:
        return None
    return helper_site(site, expansion), (expansion.facts, expansion.owner), through_of(expansion)


def _linked_site(project: Project, facts: FileFacts, site: SiteFact,
                 named: tuple[FileFacts, str | None]) -> tuple[ExceptionRef, MessageTemplate, Docs]:
    """The site's exception (as written in ``named``: a file and the class of the method that
    raises it, which are a raising helper's for a call of one), message and docs; where linking
    them fails (a bug of ours), the site still gets its card, saying so."""
    try:
        exception, message = resolve_exception(project, named[0], replace(site, owner=named[1]))
        return exception, _module_name(compose(project, exception, site, message), named[0].module), _docs(project, facts, site)
    except Exception as exc:  # the per-site boundary
        if strict_from_env():
            raise
        reason = Detailed(code=Reason.INTERNAL_ERROR, value=type(exc).__name__)
        failed = ExceptionRef(display=site.raised.written or "unknown", written=site.raised.written, reason=reason)
        return failed, site.raised.message, Docs(function_doc=site.function_doc)


def _module_name(message: MessageTemplate, module: str) -> MessageTemplate:
    """The message with ``__name__`` as the module's name where it shows it (``f"module
    {__name__!r} has no attribute {name!r}"`` of a module's ``__getattr__``): a function reads
    the module's global, a constant of the module."""
    def named(part: Any) -> TypeGuard[Hole]:
        return isinstance(part, Hole) and part.expr == "__name__" and not part.format_spec and part.conversion in (None, "s", "r")

    if message.parts is None or not any(named(p) for p in message.parts):
        return message
    return make_template(message.form, [Text(text=repr(module) if p.conversion == "r" else module) if named(p) else p
                                        for p in message.parts])


T = TypeVar("T")


def _or_none(link: Callable[..., T], *args: Any) -> T | None:
    """``link(*args)``, what a card adds beside its exception and message (where the project's
    handlers catch it, what a framework shows its caller); None where it fails (a bug of ours:
    the card goes without it)."""
    try:
        return link(*args)
    except Exception:  # the per-site boundary
        if strict_from_env():
            raise
        return None


class ContextLinker:
    """The contexts of one file's cards (``link_file``): each of a context's records built by
    its own link function, with what the file's cards share answered once per file."""

    def __init__(self, project: Project, facts: FileFacts, flags: dict[str, str], options: Options, cards: list[Card]) -> None:
        self.project, self.facts, self.flags, self.options = project, facts, flags, options
        self.constructors = Constructors(project)  # one per file: its cards ask about the same classes
        self.by_function: dict[str | None, list[Card]] = defaultdict(list)
        self.constructing: dict[str | None, list[Card]] = defaultdict(list)  # owner -> the raises its construction runs
        for card in cards:
            if not isinstance(card.statement.guard.tree, Opaque):
                self.by_function[card.at.function].append(card)
                if set(card.entry) & CONSTRUCTING:
                    self.constructing[card.docs.owner].append(card)
        self.params = {site.at.function: site.signature.params for site in facts.sites if site.at.function}  # (earlier_checks)
        self.calls = {calls.function: calls for calls in facts.calls}
        # The cards of one function share its parameters: each annotation is resolved once per
        # file (what it reads is recorded for the whole file either way).
        self.members: dict[str, tuple[str, ...] | None] = {}
        self.literals: dict[str, tuple[str, ...] | None] = {}  # annotation -> its Literal alias's values (param_literals)
        # The isinstance classes of all the function's guards: a fix must not make another
        # raise's isinstance test true either (one answer per function).
        self.instances: dict[str | None, tuple[tuple[str, tuple[str, ...]], ...]] = {}
        self.read_flags: dict[str, str | None] = {}  # the CLI flags the cards may name (link_file)
        # (function, the exception's classes and ancestors) -> its public entries (link.callgraph)
        self.entries: dict[tuple[str, tuple[str, ...]], tuple[Entries, list[list[Edge]]]] = {}
        self.requires: tuple[str, ...] | None = None  # the outside packages importing the module needs (once per file)

    def link(self, card: Card, site: SiteFact) -> tuple[Card, CardContext]:
        """The card (with its state writes) and its context; a bare one where linking it fails."""
        # Examples name flags only for the guard's own inputs (see triggers._example).
        tails = sorted({i.rsplit(".", 1)[-1] for i in card.statement.guard.inputs})
        own_flags = {tail: self.flags[tail] for tail in tails if tail in self.flags}
        self.read_flags.update({tail: self.flags.get(tail) for tail in tails})
        # A field of a record the command's flags set takes its flag (--x '{"f": 1}', HfArgumentParser's --f).
        constructing = card.constraint is not None or bool(set(card.entry) & CONSTRUCTING)
        fields, reads = record_flags(self.flags, self.project, self.facts.module, site.owner, card.statement.guard.inputs, constructing)
        own_flags.update(fields)
        self.read_flags.update(reads)
        try:
            if card.constraint is not None:
                return card, self._constraint_context(card, site, own_flags)
            return self._linked(card, site, own_flags)
        except Exception:  # the per-site boundary: a bug of ours costs this card its solving only
            if self.options.is_strict or strict_from_env():
                raise
            return card, CardContext(signature=Signature(params=site.signature.params))

    def _linked(self, card: Card, site: SiteFact, own_flags: dict[str, str]) -> tuple[Card, CardContext]:
        others = [c for c in self.by_function[card.at.function] if c.id != card.id]
        owner = link_owner(self.constructors, self.facts, card, site, others, self.constructing[card.docs.owner])
        names = link_names(self.project, self.facts, card.statement.guard, self._function_instances(card.at.function),
                           tuple(sorted({p.annotation for p in site.signature.params if p.annotation})))
        if tied := tied_inputs(owner.settable, card.statement.guard.inputs):
            names = replace(names, named=(*names.named, *tied))
        cli, reads = link_cli(self.flags, own_flags, self.options.command, self.facts.module, site, card.statement.guard.inputs, owner)
        self.read_flags.update(reads)
        card, state = self._link_state(card, site, owner)
        place = self.link_placement(card, site, others)
        card, calls, why = self._link_entries(card, site)
        return card, CardContext(signature=site.signature, passage=site.raised.passage, place=place, owner=owner, state=state, cli=cli,
                                 names=names, entries=calls, entry_reason=why)

    def _link_entries(self, card: Card, site: SiteFact) -> tuple[Card, tuple[EntryCall, ...], Reason | None]:
        """The card with its public entries (link.callgraph), and the entries whose calls pass
        the guard's inputs through, or why none does."""
        function = card.at.function
        if function is None:
            return card, (), None
        by_class = bool(set(card.entry) & RUN_BY_CLASS_CALL)
        raised = (*card.exception.classes, *card.exception.ancestors)
        if (function, raised) not in self.entries:
            self.entries[function, raised] = public_entries(self.project, self.facts.module, function, site.owner, by_class, raised)
        entries, paths = self.entries[function, raised]
        entries = _accessed(entries, card.entry)
        calls, why = entry_calls(self.project, self.constructors, card, site.signature.params, entries, paths, site.signature.unread,
                                 by_class)
        return replace(card, entries=entries), calls, why

    def _constraint_context(self, card: Card, site: SiteFact, own_flags: dict[str, str]) -> CardContext:
        """A field constraint's context: the class's constructor, the keyword that sets the
        field, and the flag whose value the command hands on to it."""
        qualname = card.docs.owner or ""
        signature = self.constructors.signature(qualname)
        field = card.constraint.field if card.constraint is not None else None
        # (pydantic checks the fields before ``__post_init__`` runs: with the trigger's value a stand-in never reaches it)
        required = required_fields(self.constructors, self.facts, site.owner, signature, leave=field, in_post_init=True) \
            if site.owner is not None else ()
        unseen = bool(required) and post_init_in_chain(self.constructors, qualname)
        required, records = with_records(self.constructors, qualname, required)
        # What constructing the class runs besides pydantic's own checks (its validators,
        # ``__post_init__``): an example that fills the other required fields must pass them.
        others = [c for c in self.constructing[qualname] if c.id != card.id]
        checks = construction_checks(others, signature)
        fields = (doc.input if doc.input.count(".") > 1 else f"self.{doc.declared.name}" for doc in required)  # (nested: with_records)
        names = [*card.statement.guard.inputs, *fields, *(n for _, i in checks for n, _, _ in i)]
        settable, classes = settable_inputs(self.constructors, qualname, names)
        classes.update(records)
        owner = Owner(constructor=signature, settable=settable, classes=classes, checks=checks, field_checks=field_validator_checks(others),
                      required=required, required_unseen=unseen,
                      unread_validators=unread_validators(self.project, qualname) if qualname else ())
        cli, reads = link_cli(self.flags, own_flags, self.options.command, self.facts.module, site, card.statement.guard.inputs, owner)
        self.read_flags.update(reads)
        place = Placement(module=self.facts.module, public_module=entry_module(self.project, self.facts.module, card.at.function))
        return CardContext(signature=site.signature, place=place, owner=owner, cli=cli)

    def _link_state(self, card: Card, site: SiteFact, owner: Owner) -> tuple[Card, ObjectState]:
        """The card with where its method's object gets the attributes its guard reads (which
        solving evaluates), and the state a new such object has (link.state)."""
        if (this := receiver(site)) is None:
            return card, ObjectState()
        qualname = f"{self.facts.module}.{site.owner}"
        card = replace(card, solved=Solved(state=state_writes(self.project, qualname, this, card.statement.guard.inputs, owner.settable)))
        steps = method_steps(self.project, qualname, this, card.solved.state)
        # (a new object's values of what the steps' tests read too: which ways through them it takes)
        read = state_writes(self.project, qualname, this, set(step_reads(steps, this)) - set(card.statement.guard.inputs), owner.settable)
        return card, replace(constructed_state(self.project, qualname, (*card.solved.state, *read)), steps=steps)

    def link_placement(self, card: Card, site: SiteFact, others: list[Card]) -> Placement:
        """Where the card sits in the project (``others``: the other raises of its function)."""
        found = self.project.class_fact(card.exception.classes[0]) if card.exception.classes else None
        return Placement(
            module=self.facts.module, public_module=entry_module(self.project, self.facts.module, card.at.function),
            exception_module=found[0].module if found is not None else _outside_module(card.exception),
            # (a template the class's __str__ makes is on the card already: link.messages)
            own_str=not card.message.form.startswith("class:")
            and any(_defines_str(self.project, name) for name in card.exception.classes[:1]),
            # The other raises a fix must not reach. One in an unmodelled handler (context "except")
            # is reached only when its try body raises, which its guard leaves out: no evidence.
            siblings=tuple(c.statement.guard.code for c in others if all(x.kind != ContextKind.EXCEPT for x in c.statement.guard.context)),
            computed=tuple(sorted({name for c in others for name in c.statement.guard.opaque})),
            # A helper call before it ends the path where its own guard holds (the raise's guard leaves it out).
            earlier_helpers=tuple(c.statement.guard.code for c in others
                                  if c.statement.kind == RaiseKind.HELPER_CALL and c.at.line < card.at.line),
            earlier_checks=earlier_checks(card, self.calls, self.by_function, self.params),
            param_choices={p.name: members for p in site.signature.params
                           if p.annotation and (members := self._enum_members(p.annotation))},
            param_literals={p.name: values for p in site.signature.params
                            if p.annotation and (values := self._literal_values(p.annotation))},
            platform_module=_platform_module(self.facts, card),
            requires=self._requires(),
        )

    def _requires(self) -> tuple[str, ...]:
        if self.requires is None:
            self.requires = outside_packages(self.project, self.facts.module)
        return self.requires

    def _literal_values(self, annotation: str) -> tuple[str, ...] | None:
        """The values of the ``Literal`` alias the annotation names, once per annotation (not of a
        ``Literal[...]`` written out: the parameter's domain reads those itself)."""
        if annotation not in self.literals:
            self.literals[annotation] = None if read_annotation(annotation).choices else self.project.literal_values(self.facts, annotation)
        return self.literals[annotation]

    def _function_instances(self, function: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        if function not in self.instances:
            self.instances[function] = function_instances(self.project, self.facts, self.by_function[function])
        return self.instances[function]

    def _enum_members(self, annotation: str) -> tuple[str, ...] | None:
        """The members of the Enum class of the tree the annotation names, as the module writes
        them; None where it names none, or a name only an ``if TYPE_CHECKING:`` import binds
        (an example could not import the class from the module)."""
        if annotation not in self.members:
            typing = annotation.strip("'\"").split(".", 1)[0] in self.facts.typing_only
            self.members[annotation] = None if typing else self.project.enum_members(self.facts, annotation)
        return self.members[annotation]


def outside_packages(project: Project, module: str) -> tuple[str, ...]:
    """The packages outside the tree and the standard library that importing ``module`` needs:
    what its own top-level statements import, and its packages' ``__init__``'s (run first)."""
    parts = module.split(".")
    found: set[str] = set()
    for n in range(1, len(parts) + 1):
        facts = _exact_module(project, ".".join(parts[:n]))
        if facts is not None:
            found.update(p for p in facts.packages if p not in _PYTHONS_OWN and _exact_module(project, p) is None)
    return tuple(sorted(found))


_PYTHONS_OWN = frozenset({*sys.stdlib_module_names, *sys.builtin_module_names, "__main__"})  # (``import __main__``: rlcompleter)


def _exact_module(project: Project, name: str) -> FileFacts | None:
    """The module of the tree named ``name`` itself (never one whose name merely ends so)."""
    facts = project.module(name)
    return facts if facts is not None and facts.module == name else None


def _platform_module(facts: FileFacts, card: Card) -> str | None:
    """A module of another platform imported before the raise runs: by the module (all of its
    imports, for a function's raise: the module has run when it is called) or by the function."""
    function = card.at.function
    return next((module for scope, line, module in facts.platform_imports
                 if (scope == "" and (function is not None or line < card.at.line)) or (scope == function and line < card.at.line)), None)


def _outside_module(exception: ExceptionRef) -> str | None:
    """The module the file imports a class outside the tree from (``click`` for ``click.BadParameter``),
    which a validator raising it imports; None for a builtin or a name nothing resolves."""
    if exception.reason != Reason.OUTSIDE_TREE or not exception.classes or "." not in exception.classes[0]:
        return None
    return exception.classes[0].rpartition(".")[0]


def _defines_str(project: Project, qualname: str) -> bool:
    """Whether an in-tree exception class or one of its in-tree bases defines ``__str__``."""
    for name in (qualname, *project.ancestors(qualname)):
        found = project.class_fact(name)
        if found is not None and any(method == "__str__" for method, _ in found[1].methods):
            return True
    return False


def cli_flags(declared: Iterable[tuple[str, tuple[tuple[str, str], ...]]]) -> dict[str, str]:
    """Destination -> the first long flag declared for it anywhere in the tree, from each
    file's (path, flags) in any order."""
    flags: dict[str, str] = {}
    for _, pairs in sorted(declared):
        for dest, flag in pairs:
            flags.setdefault(dest, flag)
    return flags


_MODEL_VALIDATORS = {m.removeprefix("pydantic_model_validator_"): m for m in EntryKind if m.startswith("pydantic_model_validator_")}


_ACCESSORS = {"setter": EntryKind.PROPERTY_SETTER, "deleter": EntryKind.PROPERTY_DELETER}


def _accessed(entries: Entries, kinds: tuple[EntryKind, ...]) -> Entries:
    """A property setter's or deleter's own entry as a user writes it: ``pkg.C.size = ...``,
    ``del pkg.C.size`` (a user assigns or deletes it: reading it runs the getter)."""
    if not entries.paths or not {EntryKind.PROPERTY_SETTER, EntryKind.PROPERTY_DELETER} & set(kinds):
        return entries
    written = "{} = ..." if EntryKind.PROPERTY_SETTER in kinds else "del {}"
    return replace(entries, paths=tuple(replace(p, entry=written.format(p.entry)) if len(p.path) == 1 else p for p in entries.paths))


def entry_points(facts: FileFacts, site: SiteFact) -> tuple[EntryKind, ...]:
    """How a caller reaches the raising function, from its decorators and name."""
    imports = dict(facts.imports)
    found: list[EntryKind] = []
    for decorator in site.at.decorators:
        target = decorator_target(imports, decorator)
        if target.startswith("pydantic"):
            name = target.rsplit(".", 1)[-1]
            if name == "model_validator":
                if (validator := _MODEL_VALIDATORS.get(validator_mode(decorator))) is not None:  # (None: a mode pydantic refuses)
                    found.append(validator)
            elif name in ("field_validator", "validator"):
                found.append(EntryKind.PYDANTIC_FIELD_VALIDATOR)
            elif name == "root_validator":
                found.append(EntryKind.PYDANTIC_ROOT_VALIDATOR)
        elif target in ("property", "functools.cached_property"):
            found.append(EntryKind.PROPERTY)
    name = (site.at.function or "").rsplit(".", 1)[-1]
    if site.owner is None and site.at.function == "__getattr__":
        found.append(EntryKind.MODULE_GETATTR)  # (a module's own: reading a name it lacks runs it)
    if site.owner is not None:  # (``@minor.setter`` on ``minor``: assigning the property runs it)
        found.extend(kind for accessor, kind in _ACCESSORS.items() if f"{name}.{accessor}" in site.at.decorators)
    if site.owner is not None and name in ("__init__", "__new__"):
        found.append(EntryKind.CONSTRUCTOR)
    elif site.owner is not None and name == "__post_init__":
        found.append(EntryKind.POST_INIT)
    return tuple(found)


def _docs(project: Project, facts: FileFacts, site: SiteFact) -> Docs:
    """The function's docstring, its class's (cut where long: link.docstrings) and the docs of
    the fields the guard reads."""
    owner_doc = None
    owner = None
    if site.owner is not None:
        owner = f"{facts.module}.{site.owner}"
        found = project.class_fact(owner)
        owner_doc = class_summary(found[1].doc) if found else None
    fields: list[FieldDoc] = []
    for name in site.raised.statement.guard.inputs:
        doc = field_doc(project, facts, site.owner, name, site.signature.params)
        if doc is not None:
            fields.append(described_field(project, doc))
    return Docs(function_doc=site.function_doc, owner=owner, owner_doc=owner_doc, fields=tuple(fields))


def described_field(project: Project, doc: FieldDoc) -> FieldDoc:
    """A field's docs with its entry in its class's docstring, where it has no string of its own."""
    if doc.declared.doc is not None:
        return doc
    found = project.class_fact(doc.owner)
    entry = field_entry(found[1].doc, doc.declared.name) if found else None
    return replace(doc, described=entry) if entry else doc


def _selected(card: Card, wanted: tuple[str, ...]) -> bool:
    return _selected_class((*card.exception.classes, *card.exception.ancestors), wanted)


def _selected_class(classes: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    if not wanted:
        return True
    names = set(classes)
    short = {n.rsplit(".", 1)[-1] for n in names}
    return any(w in names or w in short for w in wanted)
