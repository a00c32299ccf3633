"""Wrapping: a raise site whose code a framework runs -> what reaches the caller (``Shown``).

A framework that runs a validator, a command or a type converter may catch what the code
raises: pydantic and huggingface_hub's ``@strict`` raise another class holding it, click and
argparse print it and exit. ``FRAMEWORKS`` is the table: for each framework, how it is
recognised (from the file's imports and the decorators of the function and its class, never
by running anything), the classes it takes, the class it shows, the text of that class with
the card's message in its place, and what it prints. Forms are written as ``str.format``
fields: ``{message}`` is the card's message, ``{cause}`` the raised class's name, and a field
the site fills (the validator's name, the model's) is filled; any other field is a hole the
framework fills at run time (``{field}``, ``{prog}``). The forms are those of pydantic 2.11+,
huggingface_hub 0.34+ (``errors.StrictDataclass*ValidationError.__init__``), click 8.2
(``exceptions.ClickException.show``, ``BadParameter.format_message``, ``Command.main``) and
argparse (``ArgumentParser.error``, ``ArgumentError.__str__``).
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from ..collect.messages import merge_parts, render_template
from ..model import Card, ClassFact, EntryKind, FileFacts, Framework, Hole, MessageTemplate, Part, Shown, SiteFact, Text
from ..model.codes import RaiseKind
from ..model.pytext import try_parse_expression
from .project import Project, decorator_target

DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True, slots=True)
class Site:
    """What recognising a framework reads of one card: the file, the site and the card as
    linked so far, and the class that owns the raising method (None: a function)."""

    project: Project
    facts: FileFacts
    site: SiteFact
    card: Card
    owner: ClassFact | None

    @property
    def imports(self) -> dict[str, str]:
        return dict(self.facts.imports)

    def targets(self, decorators: tuple[str, ...]) -> tuple[str, ...]:
        """The decorators' dotted names through the file's imports (``strict`` ->
        ``huggingface_hub.dataclasses.strict``)."""
        imports = self.imports
        found = []
        for decorator in decorators:
            target = decorator_target(imports, decorator)
            head = decorator.split("(", 1)[0].strip()
            # A name re-exported by a module of the tree (transformers' ``from ...configuration_utils
            # import strict``): what it denotes there.
            symbol = self.project.resolve(self.facts, head) if DOTTED_NAME.fullmatch(head) else None
            found.append(symbol.qualname if symbol is not None and symbol.kind == "outside" else target)
        return tuple(found)

    @property
    def method(self) -> str:
        """The raising function's own name (``validate_architecture``)."""
        return (self.site.at.function or "").rsplit(".", 1)[-1]

    @property
    def is_own_method(self) -> bool:
        """The raise is in a method defined right in its class's body (not a nested function)."""
        function = self.site.at.function or ""
        return self.site.owner is not None and function == f"{self.site.owner}.{self.method}"

    @property
    def family(self) -> tuple[str, ...]:
        """The raised class and its known ancestors, by their last name (``ValueError``,
        ``BadParameter``, ``UsageError``, ...), framework hierarchies outside the tree added."""
        names: list[str] = []
        for qualname in (*self.card.exception.classes[:1], *self.card.exception.ancestors):
            name = qualname.rsplit(".", 1)[-1]
            names.append(name)
            if qualname.startswith("click."):
                names.extend(_CLICK_BASES.get(name, ()))
        return tuple(dict.fromkeys(names))

    def argument(self, keyword: str) -> str | None:
        """The code of the exception call's keyword argument ``keyword``, where it has one."""
        arguments = self.site.raised.passage.arguments or ()
        return next((a.code for a in arguments if a.keyword == keyword), None)


@dataclass(frozen=True, slots=True)
class Form:
    """What one recognised site shows: the class, its text and what is printed, as forms."""

    exception: str
    is_wrapped: bool
    message: str | None
    terminal: str | None = None
    exit_code: int | None = None
    fills: tuple[tuple[str, str], ...] = ()  # the fields this site fills (``validator``: its name)


@dataclass(frozen=True, slots=True)
class Wrapper:
    """One row of the table: a framework, the classes it takes (a subclass too; empty: any,
    as it passes them through) and how it recognises a site and words what it shows."""

    framework: Framework
    takes: tuple[str, ...]
    recognise: Callable[[Site], Form | None]


# --- pydantic ----------------------------------------------------------------------------

_PYDANTIC_ENTRIES = {EntryKind.PYDANTIC_MODEL_VALIDATOR_AFTER, EntryKind.PYDANTIC_MODEL_VALIDATOR_BEFORE,
                     EntryKind.PYDANTIC_MODEL_VALIDATOR_WRAP, EntryKind.PYDANTIC_ROOT_VALIDATOR}
_PYDANTIC_DATACLASS = "pydantic.dataclasses.dataclass"
# pydantic-core's rendering of one line error: its title, the location line (for a field), and the
# error's kind and message; the input's value and type follow in brackets.
_PYDANTIC_TITLE = "{count} validation error for {model}\n"
_PYDANTIC_LINE = ("  {kind}, {message} [type={type}, input_value={input_value}, input_type={input_type}]\n"
                  "    For further information visit https://errors.pydantic.dev/{version}/v/{type}")


def _pydantic(site: Site) -> Form | None:
    entries = set(site.card.entry)
    is_field = EntryKind.PYDANTIC_FIELD_VALIDATOR in entries
    is_model = bool(entries & _PYDANTIC_ENTRIES)
    is_dataclass = EntryKind.POST_INIT in entries and site.owner is not None and _PYDANTIC_DATACLASS in site.targets(site.owner.decorators)
    if not (is_field or is_model or is_dataclass):
        return None
    assertion = "AssertionError" in site.family
    kind, code = ("Assertion failed", "assertion_error") if assertion else ("Value error", "value_error")
    # A model validator's error has no location; one error, since it runs once the fields passed (or before them).
    form = _PYDANTIC_TITLE + ("{field}\n" if is_field else "") + _PYDANTIC_LINE
    fills = [("kind", kind), ("type", code), ("model", (site.site.owner or "").rsplit(".", 1)[-1])]
    if not is_field:
        fills.append(("count", "1"))
    elif (field := _validated_field(site.site.at.decorators)) is not None:
        fills.append(("field", field))
    return Form(exception="pydantic.ValidationError", is_wrapped=True, message=form, fills=tuple(fills))


def _validated_field(decorators: tuple[str, ...]) -> str | None:
    """The one field a ``@field_validator("name")`` (or ``@validator``) names with a string
    literal, as pydantic's location line shows it; None where it names several, or not so."""
    for decorator in decorators:
        call = try_parse_expression(decorator)
        if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
            continue
        if (call.func.id if isinstance(call.func, ast.Name) else call.func.attr) not in ("field_validator", "validator"):
            continue
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        return names[0] if len(names) == len(call.args) == 1 else None
    return None


# --- huggingface_hub's @strict -------------------------------------------------------------

_STRICT = "huggingface_hub.dataclasses.strict"
_AS_VALIDATED_FIELD = "huggingface_hub.dataclasses.as_validated_field"


def _strict(site: Site) -> Form | None:
    if site.owner is not None and site.is_own_method and site.method.startswith("validate_") and len(site.site.signature.params) == 1 \
            and _STRICT in site.targets(site.owner.decorators):
        # ``@strict`` lists the class's public ``validate_*`` methods of one parameter (self) as class validators.
        return Form(exception="huggingface_hub.errors.StrictDataclassClassValidationError", is_wrapped=True,
                    message="Class validation error for validator '{validator}':\n    {cause}: {message}",
                    fills=(("validator", site.method),))
    if _AS_VALIDATED_FIELD in site.targets(site.site.at.decorators) or _named_validator(site, frozenset({_STRICT})):
        return Form(exception="huggingface_hub.errors.StrictDataclassFieldValidationError", is_wrapped=True,
                    message="Validation error for field '{field}':\n    {cause}: {message}")
    return None


def _named_validator(site: Site, decorators: frozenset[str]) -> bool:
    """The raising function is a module-level function of the file that a field of a class of
    the file, decorated with one of ``decorators``, names as its validator
    (``x: int = validated_field(validator=positive)``, ``attrs.field(validator=non_negative)``)."""
    function = site.site.at.function or ""
    if not function or "." in function:
        return False
    return any(not decorators.isdisjoint(site.targets(cls.decorators)) and any(function in f.validators for f in cls.fields)
               for cls in site.facts.classes)


# --- click ----------------------------------------------------------------------------------

# click's exception classes (click/exceptions.py) -> their bases up to ClickException, for a
# tree that imports click rather than holding it.
_CLICK_BASES: dict[str, tuple[str, ...]] = {
    "UsageError": ("ClickException",), "BadParameter": ("UsageError", "ClickException"),
    "MissingParameter": ("BadParameter", "UsageError", "ClickException"), "NoSuchOption": ("UsageError", "ClickException"),
    "BadOptionUsage": ("UsageError", "ClickException"), "BadArgumentUsage": ("UsageError", "ClickException"),
    "NoArgsIsHelpError": ("UsageError", "ClickException"), "FileError": ("ClickException",),
}
_PARAM_TYPES = ("click.ParamType", "click.types.ParamType")
_PLAIN = ("ClickException", "UsageError", "BadOptionUsage", "BadArgumentUsage")  # format_message() is the message


def _click(site: Site) -> Form | None:
    if not any(target == "click" or target.startswith("click.") for _, target in site.facts.imports) \
            and not site.facts.module.startswith("click"):
        return None
    converts = site.owner is not None and site.method == "convert" and site.is_own_method \
        and any(a in _PARAM_TYPES for a in site.project.ancestors(f"{site.facts.module}.{site.site.owner}"))
    commands = any(t.rsplit(".", 1)[-1] in ("command", "group") for t in site.targets(site.site.at.decorators))
    if not (converts or commands):
        return None
    family = site.family
    exit_code = 2 if "UsageError" in family else 1
    return Form(exception="SystemExit", is_wrapped=True, message=None, terminal=_click_line(site, family, converts), exit_code=exit_code)


def _click_line(site: Site, family: tuple[str, ...], converts: bool) -> str | None:
    """The ``Error: ...`` line click prints, where the class's ``format_message`` is known."""
    if family[0] in _PLAIN:
        return "Error: {message}"
    if family[0] != "BadParameter":
        return None  # (MissingParameter, NoSuchOption, FileError and subclasses build their own text)
    hint = site.argument("param_hint")
    if hint is not None and hint[:1] in "'\"" and hint[-1:] == hint[:1]:
        return "Error: Invalid value for " + hint[1:-1].replace("{", "{{").replace("}", "}}") + ": {message}"
    if converts or hint is not None or site.argument("param") is not None:  # click attaches the parameter it converts
        return "Error: Invalid value for {param_hint}: {message}"
    return "Error: Invalid value: {message}"


# --- argparse --------------------------------------------------------------------------------

_ARGPARSE = ("argparse.ArgumentTypeError", "argparse.ArgumentError")


def _parser_error(site: Site) -> Form | None:
    if site.card.statement.kind != RaiseKind.PARSER_ERROR:
        return None
    # ``ArgumentParser.error`` prints the usage, then "prog: error: message", and exits 2 (link.argerror).
    return Form(exception="SystemExit", is_wrapped=False, message=None, terminal="{prog}: error: {message}", exit_code=2)


def _argparse(site: Site) -> Form | None:
    classes = site.card.exception.classes
    if not classes or classes[0] not in _ARGPARSE:
        return None
    if classes[0] == "argparse.ArgumentError" and not (site.owner is not None and site.is_own_method and site.method == "__call__"):
        return None  # (raised while the parser is defined, as add_argument's conflicts are, it reaches the programmer as it is)
    # A type converter's ArgumentTypeError becomes ArgumentError(action, str(err)), whose text
    # is "argument --flag: message"; parse_args catches it and calls error(), which prints and exits 2.
    return Form(exception="SystemExit", is_wrapped=True, message=None, terminal="{prog}: error: argument {flag}: {message}", exit_code=2)


# --- attrs -----------------------------------------------------------------------------------

_ATTRS = frozenset({"attr.s", "attr.attrs", "attr.attributes", "attr.define", "attr.frozen", "attr.mutable", "attr.dataclass",
                    "attrs.define", "attrs.frozen", "attrs.mutable"})


def _attrs(site: Site) -> Form | None:
    if site.owner is not None and site.is_own_method and any(t in _ATTRS for t in site.targets(site.owner.decorators)):
        fields = {f.name for f in site.owner.fields}
        if any(d.split("(", 1)[0].strip() in {f"{name}.validator" for name in fields} for d in site.site.at.decorators):
            return _attrs_form(site)
    return _attrs_form(site) if _named_validator(site, _ATTRS) else None


def _attrs_form(site: Site) -> Form:
    classes = site.card.exception.classes
    return Form(exception=classes[0] if classes else site.card.exception.display, is_wrapped=False, message="{message}")


FRAMEWORKS: tuple[Wrapper, ...] = (
    Wrapper(framework=Framework.PYDANTIC, takes=("ValueError", "AssertionError"), recognise=_pydantic),
    Wrapper(framework=Framework.HF_STRICT, takes=("ValueError", "TypeError"), recognise=_strict),
    Wrapper(framework=Framework.CLICK, takes=("ClickException",), recognise=_click),
    Wrapper(framework=Framework.ARGPARSE_ERROR, takes=("SystemExit",), recognise=_parser_error),
    Wrapper(framework=Framework.ARGPARSE, takes=("ArgumentTypeError", "ArgumentError"), recognise=_argparse),
    Wrapper(framework=Framework.ATTRS, takes=(), recognise=_attrs),
)


def shown_for(project: Project, facts: FileFacts, site: SiteFact, card: Card) -> Shown | None:
    """What reaches the caller of the card's raise where a framework of the table runs its
    code and takes its class; None where none does (the card's class and message reach them)."""
    owner = None
    if site.owner is not None:
        found = project.class_fact(f"{facts.module}.{site.owner}")
        owner = found[1] if found is not None else None
    view = Site(project=project, facts=facts, site=site, card=card, owner=owner)
    for row in FRAMEWORKS:
        form = row.recognise(view)
        if form is None:
            continue
        if row.takes and not set(row.takes) & set(view.family):
            return None  # the framework runs it, and lets this class through unchanged
        return _shown(row.framework, form, card, view)
    return None


def _shown(framework: Framework, form: Form, card: Card, site: Site) -> Shown:
    fills = {"cause": site.family[0] if site.family else card.exception.display, **dict(form.fills)}
    return Shown(framework=framework, exception=form.exception, is_wrapped=form.is_wrapped,
                 message=fill_form(form.message, fills, card.message) if form.message is not None else None,
                 terminal=fill_form(form.terminal, fills, card.message) if form.terminal is not None else None,
                 exit_code=form.exit_code)


def fill_form(form: str, fills: dict[str, str], message: MessageTemplate) -> MessageTemplate:
    """A form as a message template: ``{message}`` the card's message (its parts, or one hole
    where it is not known), a field of ``fills`` its text, any other field a hole."""
    parts: list[Part] = []
    for text, name, _, _ in string.Formatter().parse(form):
        if text:
            parts.append(Text(text=text))
        if name is None:
            continue
        if name == "message":
            parts.extend(message.parts if message.parts is not None else (Hole(expr="message"),))
        elif name in fills:
            parts.append(Text(text=fills[name]))
        else:
            parts.append(Hole(expr=name))
    merged = merge_parts(parts)
    holes = tuple(dict.fromkeys(p.expr for p in merged if isinstance(p, Hole)))
    return MessageTemplate(form="shown", parts=merged, template=render_template(merged), placeholders=holes)
