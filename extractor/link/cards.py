"""Cards: linked FileFacts -> Card records (exceptions resolved, field docs, ids, related).

The project-wide half of linking: every raise site becomes one card, whatever could or
could not be resolved about it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..collect.messages import unknown
from ..model import Card, CardContext, Docs, ExceptionRef, FieldDoc, FileFacts, Hole, MessageTemplate, Opaque, Param, SiteFact, Solved
from ..model.codes import BUILDING, CONSTRUCTING, ContextKind, Detailed, EntryKind, RaiseKind, Reason
from ..options import Options, strict_from_env
from .commands import routed_inputs
from .constructors import Constructors, construction_checks, field_defaults, post_init_checks
from .exports import entry_module
from .fielddocs import field_doc
from .instances import instance_types
from .messages import compose
from .oserrors import errno_subclass
from .placeholders import abstract_methods, placeholder_entries
from .project import BUILTIN_EXCEPTIONS, Project, Symbol, decorator_target
from .state import constructed_state, receiver, state_writes

RELATED_LIMIT = 12


def resolve_exception(project: Project, facts: FileFacts, site: SiteFact) -> tuple[ExceptionRef, MessageTemplate]:
    """The exception class(es) a site raises, and its message (replaced when built by a factory)."""
    raised = site.raised
    message = raised.message
    if raised.kind == RaiseKind.RERAISE:
        classes = tuple(_class_name(project.resolve(facts, w), w) for w in raised.caught)
        display = " | ".join(raised.caught) if raised.caught else "re-raised exception"
        return _ref(project, display, raised.written, classes, None, raised.reason), message
    if raised.written is None:
        return ExceptionRef(display="unknown", reason=raised.reason or Reason.UNKNOWN), message
    symbol = _symbol_for(project, facts, site)
    if symbol is not None and symbol.kind in ("class", "builtin"):
        if (subclass := errno_subclass(project, facts, site, symbol.qualname)) is not None:
            return _ref(project, subclass, raised.written, (subclass,), None, Reason.ERRNO_SUBCLASS), message
        return _ref(project, raised.written, raised.written, (symbol.qualname,), None, raised.reason), message
    if raised.reason == Reason.RAISED_VARIABLE:
        return ExceptionRef(display=raised.written, written=raised.written, reason=Reason.RAISED_VARIABLE), message
    factory = raised.written + "(...)"
    if symbol is not None and symbol.kind in ("function", "method"):
        built = project.class_of_annotation(symbol.facts, symbol.returns) if symbol.facts else None
        built_name = _builtin_return(symbol.returns)
        message = unknown("factory", Reason.BUILT_BY_FACTORY)
        if built is not None or built_name is not None:
            target = built or built_name
            return _ref(project, target.rsplit(".", 1)[-1], raised.written, (target,), factory, None), message
        return ExceptionRef(display=factory, written=raised.written, factory=factory, reason=Reason.FACTORY_WITHOUT_RETURN_TYPE), message
    last = raised.written.rsplit(".", 1)[-1]
    if raised.is_call and not last[:1].isupper():
        message = unknown("factory", Reason.BUILT_BY_FACTORY)
        return ExceptionRef(display=factory, written=raised.written, factory=factory, reason=Reason.UNRESOLVED_FACTORY), message
    target = symbol.qualname if symbol is not None else raised.written
    return _ref(project, raised.written, raised.written, (target,), None, Reason.OUTSIDE_TREE if symbol else Reason.UNRESOLVED_NAME), message


def _symbol_for(project: Project, facts: FileFacts, site: SiteFact) -> Symbol | None:
    head, _, rest = site.raised.written.partition(".")
    if head in ("cls", "self") and site.owner is not None and rest:
        return project.lookup(f"{facts.module}.{site.owner}.{rest}")
    return project.resolve(facts, site.raised.written)


def _builtin_return(returns: str | None) -> str | None:
    name = (returns or "").strip().strip("\"'")
    return name if name in BUILTIN_EXCEPTIONS else None


def _class_name(symbol: Symbol | None, written: str) -> str:
    return symbol.qualname if symbol is not None else written


def _ref(project: Project, display: str, written: str | None, classes: tuple[str, ...], factory: str | None, reason: Reason | None) -> ExceptionRef:
    ancestors: dict[str, None] = {}
    for name in classes:
        ancestors.update(dict.fromkeys(project.ancestors(name)))
    return ExceptionRef(display=display, written=written, classes=classes, ancestors=tuple(ancestors), factory=factory, reason=reason)



# --- ids and related ---------------------------------------------------------------------


def _normal_expr(expr: str) -> str:
    try:
        return ast.unparse(ast.parse(expr.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return " ".join(expr.split())


def id_key(path: str, site_function: str | None, exception: str, message: MessageTemplate) -> str:
    """What identifies a site across edits: never its line number."""
    if message.parts is not None:
        text = "".join(
            "{" + _normal_expr(p.expr) + "}" if isinstance(p, Hole) else p.text for p in message.parts
        )
    else:
        text = f"<{message.reason}:{_normal_expr(message.source or '')}>"
    return "\0".join((path, site_function or "<module>", exception, text))


def assign_ids(keys: list[str]) -> list[str]:
    """16-hex ids; repeated keys get an ordinal in source order so ids stay distinct."""
    seen: dict[str, int] = defaultdict(int)
    ids: list[str] = []
    for key in keys:
        seen[key] += 1
        salted = key if seen[key] == 1 else f"{key}\0#{seen[key]}"
        ids.append(hashlib.sha256(salted.encode("utf-8", "surrogatepass")).hexdigest()[:16])
    return ids


def _scoped_inputs(card: Card, owner: str | None) -> set[tuple[str, ...]]:
    keys: set[tuple[str, ...]] = set()
    for name in card.guard.inputs:
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


def link_file(project: Project, facts: FileFacts, flags: dict[str, str], options: Options) -> tuple[list[tuple[Card, CardContext]], dict[str, str | None]]:
    """One card per raise site of a file, in source order, each with what solving it needs
    (see ``solve_one``); and the CLI flags those cards may name (destination -> its flag,
    or None where none is declared), which is all they read of ``flags``."""
    drafts: list[tuple[Card, str | None, str]] = []
    callers = dict(facts.callers)
    for site in facts.sites:
        exception, message, docs = _linked_site(project, facts, site)
        function, raised = site.at.function, site.raised
        key = id_key(facts.path, function, exception.display, message)
        card = Card(
            id="", path=facts.path, at=site.at, entry=entry_points(facts, site), kind=raised.kind, exception=exception, cause=raised.cause,
            message=message, guard=raised.guard, docs=docs, permalink=None, lints=raised.lints,
            compiled_override=bool(function and function.split(".", 1)[0] in facts.overridden),
            callers=callers.get(function, ()) if function is not None else (),
        )
        card = replace(card, entry=card.entry + placeholder_entries(project, facts, site, card))
        drafts.append((card, site.owner, key))
    ids = assign_ids([key for _, _, key in drafts])  # over every site: ids do not depend on --exception
    cards = [replace(card, id=card_id) for (card, _, _), card_id in zip(drafts, ids)]
    chosen = [index for index, card in enumerate(cards) if _selected(card, options.exceptions)]
    # Related cards are among those the catalog holds.
    related = dict(zip(chosen, link_related([cards[i] for i in chosen], [drafts[i][1] for i in chosen])))
    by_function: dict[str | None, list[Card]] = defaultdict(list)
    constructing: dict[str | None, list[Card]] = defaultdict(list)  # owner -> the raises its construction runs
    for card in cards:
        if not isinstance(card.guard.tree, Opaque):
            by_function[card.at.function].append(card)
            if set(card.entry) & CONSTRUCTING:
                constructing[card.docs.owner].append(card)
    read_flags: dict[str, str | None] = {}
    out: list[tuple[Card, CardContext]] = []
    # The cards of one function share its parameters: each annotation is resolved once per
    # file (what it reads is recorded for the whole file either way).
    members: dict[str, tuple[str, ...] | None] = {}

    def enum_members(annotation: str) -> tuple[str, ...] | None:
        if annotation not in members:
            members[annotation] = project.enum_members(facts, annotation)
        return members[annotation]

    constructors = Constructors(project)  # one per file: its cards ask about the same classes
    # The isinstance classes of all the function's guards: a fix must not make another raise's
    # isinstance test true either (one answer per function).
    function_instances: dict[str | None, tuple[tuple[str, tuple[str, ...]], ...]] = {}
    for index in chosen:
        card, site = related[index], facts.sites[index]
        # Examples name flags only for the guard's own inputs (see triggers._example).
        tails = sorted({i.rsplit(".", 1)[-1] for i in card.guard.inputs})
        own_flags = {tail: flags[tail] for tail in tails if tail in flags}
        read_flags.update({tail: flags.get(tail) for tail in tails})
        try:
            if card.at.function not in function_instances:
                function_instances[card.at.function] = tuple(sorted(
                    {k: v for c in by_function[card.at.function] for k, v in instance_types(project, facts, c.guard.code).items()}.items()))
            context = _context(project, constructors, facts, card, site, by_function[card.at.function], own_flags, options, enum_members,
                               function_instances[card.at.function])
            if card.docs.owner is not None and not set(card.entry) & CONSTRUCTING:
                checks = construction_checks(constructing[card.docs.owner], context.constructor)
                # The attributes the checks read are set through the constructor too: a trigger
                # may need them (an object that builds), so they are inputs of the card as well.
                owner = f"{facts.module}.{site.owner}" if site.owner else None
                more, nested = settable_inputs(project, constructors, owner, [n for _, inputs in checks for n, _, _ in inputs])
                context = replace(context, constructor_checks=checks, settable={**more, **context.settable},
                                  classes={**nested, **context.classes})
            if site.owner is not None and not set(card.entry) & BUILDING:
                kept = post_init_checks(project, constructors, f"{facts.module}.{site.owner}", context.settable)
                context = replace(context, constructor_checks=(*context.constructor_checks, *kept)) if kept else context
            if options.command and own_flags:
                names, reads = routed_inputs(flags, facts.module, site, card.guard.inputs, context)
                read_flags.update(reads)
                context = replace(context, routed=names)
            if (this := receiver(site)) is not None:
                card = replace(card, solved=Solved(state=state_writes(project, f"{facts.module}.{site.owner}", this, card.guard.inputs, context.settable)))
                context = replace(context, constructed=constructed_state(project, f"{facts.module}.{site.owner}", card.solved.state))
        except Exception:  # the per-site boundary: a bug of ours costs this card its solving only
            if options.is_strict or strict_from_env():
                raise
            context = CardContext(params=site.params, siblings=(), flags={}, command=None, classes={}, exception_module=None)
        out.append((card, context))
    return out, read_flags


def _linked_site(project: Project, facts: FileFacts, site: SiteFact) -> tuple[ExceptionRef, MessageTemplate, Docs]:
    """The site's exception, message and docs; where linking them fails (a bug of ours), the
    site still gets its card, saying so."""
    try:
        exception, message = resolve_exception(project, facts, site)
        return exception, compose(project, exception, site, message), _docs(project, facts, site)
    except Exception as exc:  # the per-site boundary
        if strict_from_env():
            raise
        reason = Detailed(code=Reason.INTERNAL_ERROR, value=type(exc).__name__)
        return ExceptionRef(display=site.raised.written or "unknown", written=site.raised.written, reason=reason), site.raised.message, Docs(function_doc=site.function_doc)


def _context(project: Project, constructors: Constructors, facts: FileFacts, card: Card, site: SiteFact, same_function: list[Card], flags: dict[str, str], options: Options,
             enum_members: Callable[[str], tuple[str, ...] | None], function_instances: tuple[tuple[str, tuple[str, ...]], ...]) -> CardContext:
    # The other raises a fix must not reach. One in an unmodelled handler (context "except")
    # is reached only when its try body raises, which its guard leaves out: no evidence.
    siblings = tuple(c.guard.code for c in same_function if c.id != card.id and all(x.kind != ContextKind.EXCEPT for x in c.guard.context))
    found = project.class_fact(card.exception.classes[0]) if card.exception.classes else None
    module = found[0].module if found is not None else None
    owner = f"{facts.module}.{site.owner}" if site.owner else None
    settable, classes = settable_inputs(project, constructors, owner, card.guard.inputs, built=not set(card.entry) & BUILDING)
    choices = {
        p.name: members for p in site.params
        if p.annotation and (members := enum_members(p.annotation))
    }
    return CardContext(
        derived=_derived(project, facts, owner, site.params, card.guard.inputs),
        params=site.params, siblings=siblings, flags=flags, command=options.command, arguments=site.raised.arguments, evaluates=site.raised.evaluates,
        classes=classes, exception_module=module, param_choices=choices, settable=settable,
        module=facts.module, public_module=entry_module(project, facts.module, card.at.function), constructor=constructors.signature(owner) if owner else None, call_style=site.call_style, unread=site.unread,
        abstract=abstract_methods(project, owner) if owner else (),
        # (a template the class's __str__ makes is on the card already: link.messages)
        own_str=not card.message.form.startswith("class:") and any(_defines_str(project, name) for name in card.exception.classes[:1]),
        named=tuple((chain, *found) for chain, kind in card.guard.named
                    if kind != "builtin" and (found := project.named_constant(facts, chain)) is not None),
        instances=tuple(instance_types(project, facts, card.guard.code).items()), function_instances=function_instances,
        field_defaults=field_defaults(project, constructors, facts, site, [c for c in same_function if c.id != card.id]),
    )


def _derived(project: Project, facts: FileFacts, owner: str | None, params: tuple[Param, ...], inputs: tuple[str, ...]) -> tuple[str, ...]:
    """The inputs ``x.name`` where ``x`` is ``self`` or a parameter annotated with an in-tree
    class that defines ``name`` as a method or property: computed, not an attribute a caller
    sets (``spec.needs_normalization``)."""
    annotations = {p.name: p.annotation for p in params}
    found = []
    for name in inputs:
        root, _, rest = name.partition(".")
        if not rest or "." in rest:
            continue
        cls = owner if root == "self" and owner else project.class_of_annotation(facts, annotations.get(root)) if annotations.get(root) else None
        if cls is not None and any(rest in dict(f[1].methods) for q in (cls, *project.ancestors(cls)) if (f := project.class_fact(q))):
            found.append(name)
    return tuple(found)


def _defines_str(project: Project, qualname: str) -> bool:
    """Whether an in-tree exception class or one of its in-tree bases defines ``__str__``."""
    for name in (qualname, *project.ancestors(qualname)):
        found = project.class_fact(name)
        if found is not None and any(method == "__str__" for method, _ in found[1].methods):
            return True
    return False


def settable_inputs(project: Project, constructors: Constructors, owner: str | None,
                    names: Iterable[str], built: bool = False) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The inputs among ``names`` that constructing ``owner`` sets ("self.a.b" -> keywords a, b),
    and the in-tree classes their nested constructors build ("self.a" -> "module:Qualname");
    ``built``: as read once the object is built (Constructors.keyword)."""
    settable: dict[str, tuple[str, ...]] = {}
    classes: dict[str, str] = {}
    for name in names:
        parts = name.split(".")
        if owner is None or parts[0] != "self" or len(parts) < 2:
            continue
        found = constructors.along(owner, parts[1:], built)
        if found is not None:
            settable[name] = found[0]
            for n, nested in enumerate(found[1]):
                where = project.class_fact(nested)
                if where is not None:  # "module:Qualname", for the example's import line
                    classes[".".join(parts[:n + 2])] = f"{where[0].module}:{where[1].qualname}"
    return settable, classes


def cli_flags(declared: Iterable[tuple[str, tuple[tuple[str, str], ...]]]) -> dict[str, str]:
    """Destination -> the first long flag declared for it anywhere in the tree, from each
    file's (path, flags) in any order."""
    flags: dict[str, str] = {}
    for _, pairs in sorted(declared):
        for dest, flag in pairs:
            flags.setdefault(dest, flag)
    return flags


_VALIDATOR_MODE = re.compile(r"mode\s*=\s*[\"'](\w+)")
_MODEL_VALIDATORS = {m.removeprefix("pydantic_model_validator_"): m for m in EntryKind if m.startswith("pydantic_model_validator_")}


def entry_points(facts: FileFacts, site: SiteFact) -> tuple[EntryKind, ...]:
    """How a caller reaches the raising function, from its decorators and name."""
    imports = dict(facts.imports)
    found: list[EntryKind] = []
    for decorator in site.at.decorators:
        target = decorator_target(imports, decorator)
        if target.startswith("pydantic"):
            name = target.rsplit(".", 1)[-1]
            if name == "model_validator":
                mode = _VALIDATOR_MODE.search(decorator)
                if (validator := _MODEL_VALIDATORS.get(mode.group(1) if mode else "after")) is not None:  # (None: a mode pydantic refuses)
                    found.append(validator)
            elif name in ("field_validator", "validator"):
                found.append(EntryKind.PYDANTIC_FIELD_VALIDATOR)
            elif name == "root_validator":
                found.append(EntryKind.PYDANTIC_ROOT_VALIDATOR)
        elif target in ("property", "functools.cached_property"):
            found.append(EntryKind.PROPERTY)
    name = (site.at.function or "").rsplit(".", 1)[-1]
    if site.owner is not None and name in ("__init__", "__new__"):
        found.append(EntryKind.CONSTRUCTOR)
    elif site.owner is not None and name == "__post_init__":
        found.append(EntryKind.POST_INIT)
    return tuple(found)


def _docs(project: Project, facts: FileFacts, site: SiteFact) -> Docs:
    owner_doc = None
    owner = None
    if site.owner is not None:
        owner = f"{facts.module}.{site.owner}"
        found = project.class_fact(owner)
        owner_doc = found[1].doc if found else None
    fields: list[FieldDoc] = []
    for name in site.raised.guard.inputs:
        doc = field_doc(project, facts, site.owner, name, site.params)
        if doc is not None:
            fields.append(doc)
    return Docs(function_doc=site.function_doc, owner=owner, owner_doc=owner_doc, fields=tuple(fields))


def _selected(card: Card, wanted: tuple[str, ...]) -> bool:
    if not wanted:
        return True
    names = {*card.exception.classes, *card.exception.ancestors}
    short = {n.rsplit(".", 1)[-1] for n in names}
    return any(w in names or w in short for w in wanted)
