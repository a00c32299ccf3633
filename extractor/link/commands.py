"""Commands: the configured command (``vllm serve model``) -> the CLI flags its own parser declares.

The subcommand word names the functions that create it (``add_parser("serve")``); from
them, every function they hand a parser to, followed through the tree (imports, classes and
their bases, ``super()``), declares the command's flags. Flags of other parsers in the tree
(a benchmark's ``--num-runs``) are left out. Where the tree shows no such subcommand (a
command without one, or a parser built in a way the tree does not show), every declared
flag is kept, as before.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Iterator
from typing import TypeVar

from ..collect.declarations import module_name
from ..collect.flags import (
    BOOLEAN_KWARGS,
    DATACLASS_PARSER,
    DATACLASS_PARSERS,
    JSON_FLAG,
    JSON_KWARGS,
    JSON_RECORD,
    KWARGS_OF,
    PARAMS,
    TYPE_OF,
)
from ..model import CommandLine, FileFacts, Owner, SiteFact
from .constructors import Constructors
from .project import Project

Parsers = tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]
Routes = tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...]
ROUTE = "route:"  # the key prefix of a route in the run's CLI map (command_routes)
CHECK = "check:"  # + destination -> the tests the command's code puts its value to (command_checks)
JSON = "json:"  # the key prefix of a record whose fields one JSON flag takes, in the run's CLI map (command_records)
PARAM = "param:"  # + "module.qualname" -> the words of a click or typer command; + ":parameter" -> its option's flag
FIELDS = "fields:"  # the key prefix of a dataclass whose every field is a flag (``HfArgumentParser``), in the same
# How a record's field is written on the command line (record_flags): its flag's text ends with one of these.
RECORD_ACTIONS = (" json", " field", " field-bool")
_PARSER_PACKAGES = ("transformers.",)  # where a dataclass parser class outside the tree comes from
NAMESPACE = "(namespace)"
_Value = TypeVar("_Value")
MAX_FUNCTIONS = 10_000  # functions followed from the subcommand, at most


def resolve_kwargs_flags(flags: dict[str, str]) -> dict[str, str]:
    """``flags`` with each flag whose keywords come from a mapping (``--x kwargs``) written as
    the tree builds those mappings for boolean fields (collect.flags.BOOLEAN_KWARGS), and
    without the pseudo-destination."""
    boolean = flags.get(BOOLEAN_KWARGS)
    return {
        dest: flag + "-" + boolean if boolean and flag.endswith(" kwargs") else flag
        for dest, flag in flags.items() if not dest.startswith(BOOLEAN_KWARGS)  # (nor the other pseudo-destinations)
    }


def command_flags(command: str, flags: dict[str, str], parsers: dict[str, Parsers],
                  project: Project) -> tuple[dict[str, str], set[str] | None]:
    """The destination -> flag pairs of ``flags`` that ``command``'s parser declares, and the
    modules of the functions that declare them (None where the tree shows no such subcommand:
    then every flag is kept)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return flags, None
    sub = words[1] if len(words) > 1 and not words[1].startswith("-") else None
    index: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}  # "module.qualname" -> (module, callees, dests)
    roots: list[str] = []
    module_of = {path: module for module, path in project.providers.items()}
    for path, entries in sorted(parsers.items()):
        module = module_of.get(path) or module_name(path)
        for qualname, subcommands, callees, declared in entries:
            key = f"{module}.{qualname}"
            index[key] = (module, callees, declared)
            if sub is not None and sub in subcommands:
                roots.append(key)
    if not roots:
        return flags, None
    seen: set[str] = set()
    stack = list(reversed(roots))
    dests: set[str] = set()
    modules: set[str] = set()
    while stack and len(seen) < MAX_FUNCTIONS:
        key = stack.pop()
        if key in seen or key not in index:
            continue
        seen.add(key)
        module, callees, declared = index[key]
        dests.update(declared)
        modules.add(module)
        for callee in callees:
            stack.extend(_targets(project, module, key, callee))
    return {dest: flag for dest, flag in flags.items() if dest in dests}, modules


def command_files(per_file: dict[str, _Value], modules: set[str] | None, project: Project) -> Iterator[tuple[str, str, _Value]]:
    """``(path, module, value)`` of each file of ``per_file`` (by path) whose module is one of
    ``modules`` (the command's parser functions'; every file where None), by path."""
    module_of = {path: module for module, path in project.providers.items()}
    for path, value in sorted(per_file.items()):
        module = module_of.get(path) or module_name(path)
        if modules is None or module in modules:
            yield path, module, value


def command_routes(routes: dict[str, Routes], modules: set[str] | None, project: Project) -> dict[str, str]:
    """Where the command's code hands the flags' values on (collect.routes), keyed
    ``ROUTE + "module.Qualname"`` of the class it builds or the function it passes the parsed
    arguments to: ``"|"``-separated call sites, each the keywords it passes through
    (space-separated) or, for a function, ``NAMESPACE`` and the attributes of the parsed
    arguments its caller assigns. Only the files of ``modules`` (the command's parser
    functions; all files with routes where that is None) are read."""
    sites: dict[str, set[str]] = {}
    for _, module, entries in command_files(routes, modules, project):
        facts = project.module(module) if entries else None
        if facts is None:
            continue
        for callee, keywords, namespace in entries:
            if callee.startswith(("self.", "cls.")):
                continue
            symbol = project.resolve(facts, callee)
            if symbol is None:
                continue
            if symbol.kind == "class" and keywords:
                sites.setdefault(ROUTE + symbol.qualname, set()).add(" ".join(keywords))
            elif symbol.kind in ("function", "method") and namespace is not None:
                sites.setdefault(ROUTE + symbol.qualname, set()).add(" ".join((NAMESPACE, *namespace)))
    return {key: "|".join(sorted(found)) for key, found in sorted(sites.items())}


def command_checks(checks: dict[str, tuple[tuple[str, int, str], ...]], modules: set[str] | None, project: Project) -> dict[str, str]:
    """The tests whose branch leaves the command (collect.routes.call_checks) in the files of
    ``modules`` (all where None), keyed ``CHECK + attribute``: newline-separated
    ``path<TAB>line<TAB>test`` (the line of the raise or exit the test leads to; ``ast.unparse``
    writes a tab in a string as ``\\t``)."""
    found: dict[str, set[str]] = {}
    for path, _, entries in command_files(checks, modules, project):
        for attribute, line, test in entries:
            found.setdefault(CHECK + attribute, set()).add(f"{path}\t{line}\t{test}")
    return {key: "\n".join(sorted(tests)) for key, tests in sorted(found.items())}


def command_records(declared: dict[str, tuple[tuple[str, str], ...]], flags: dict[str, str], modules: set[str] | None,
                    project: Project) -> dict[str, str]:
    """The records whose fields the command's flags set: ``command_json``'s, and ``FIELDS +
    "module.Qualname"`` -> ``"fields"`` for each dataclass of a dataclass parser
    (``HfArgumentParser((A, B))``, collect.flags.DATACLASS_PARSER) that ``transformers`` or the
    tree defines, declared in ``modules`` (the command's parser functions; anywhere where None)."""
    found = command_json(declared, flags, project)
    for _, module, pairs in command_files(declared, modules, project):
        wanted = [(dest, parser) for dest, parser in pairs if dest.startswith(DATACLASS_PARSER)]
        facts = project.module(module) if wanted else None
        if facts is None:
            continue
        for dest, parser in wanted:
            if not _dataclass_parser(project, facts, parser):
                continue
            symbol = project.resolve(facts, dest.removeprefix(DATACLASS_PARSER))
            if symbol is not None and symbol.kind == "class" and Constructors(project).is_record(symbol.qualname):
                found.setdefault(FIELDS + symbol.qualname, "fields")
    return dict(sorted(found.items()))


def _dataclass_parser(project: Project, facts: FileFacts, written: str) -> bool:
    """Whether ``written`` names ``transformers.HfArgumentParser`` or an in-tree class of that name."""
    symbol = project.resolve(facts, written)
    if symbol is None or symbol.qualname.rsplit(".", 1)[-1] not in DATACLASS_PARSERS:
        return False
    return symbol.kind == "class" or (symbol.kind == "outside" and symbol.qualname.startswith(_PARSER_PACKAGES))


def command_parameters(declared: dict[str, tuple[tuple[str, str], ...]], modules: set[str] | None,
                       project: Project) -> dict[str, str]:
    """The click and typer commands of ``modules`` (all where None) whose options reach their
    parameters (collect.flags.PARAMS): ``PARAM + "module.qualname"`` -> the words that select the
    command, ``PARAM + "module.qualname:parameter"`` -> its option's flag."""
    found: dict[str, str] = {}
    for _, module, pairs in command_files(declared, modules, project):
        found.update((PARAM + module + "." + dest.removeprefix(PARAMS), flag) for dest, flag in pairs if dest.startswith(PARAMS))
    return found


def command_json(declared: dict[str, tuple[tuple[str, str], ...]], flags: dict[str, str], project: Project) -> dict[str, str]:
    """``JSON + "module.Qualname"`` -> ``"--flag json"`` for each record class whose fields the
    command's flag takes as one JSON object, where the code shows both that the flag parses
    JSON and that the parsed object becomes that record (``flags`` holds the command's flags
    and routes, ``command_routes``):

    - the flag's keywords' type is set to parse JSON (collect.flags.JSON_FLAG), and a class is
      built unpacking the flag's value, ``SpeculativeConfig(**self.speculative_config)`` (a
      route's ``**dest``);
    - or its keywords come from ``get_kwargs(Config)["x"]`` (collect.flags.KWARGS_OF), the tree's
      mapping builder gives a field the type of a function that parses JSON
      (collect.flags.JSON_KWARGS), and ``Config.x`` is annotated with an in-tree record class (a
      dataclass, pydantic model, ...): the parser builds that record from the flag's JSON, so
      what building it checks fires there (``"--flag json-built"``); where the command's code
      also builds ``Config`` passing ``x`` through (``Config(x=self.x)``), the record's later
      checks read the same values (``"--flag json"``);
    - or its declaration's ``type=`` is a function of the same module that builds one record
      class from its JSON text (collect.flags.TYPE_OF, JSON_RECORD: ``TypeAdapter(Config)
      .validate_json(value)``): ``"--flag json-built"``."""
    module_of = {path: module for module, path in project.providers.items()}
    found = typed_records(declared, flags, project, module_of)
    marker = any(dest == JSON_KWARGS for pairs in declared.values() for dest, _ in pairs)
    unpacked = {word[2:]: key[len(ROUTE):] for key, route in flags.items() if key.startswith(ROUTE)
                for site in route.split("|") for word in site.split(" ") if word.startswith("**")}
    for path, pairs in sorted(declared.items()):
        for dest, value in pairs:
            if dest.startswith((TYPE_OF, JSON_RECORD)):
                continue
            name = dest.removeprefix(JSON_FLAG) if dest.startswith(JSON_FLAG) else dest.removeprefix(KWARGS_OF)
            if name not in flags or dest == name:
                continue
            target, kind = (unpacked.get(name), "json") if dest.startswith(JSON_FLAG) else (
                _json_field(project, module_of.get(path) or module_name(path), value, name, flags) if marker else (None, ""))
            if target is not None:
                found.setdefault(JSON + target, flags[name].partition(" ")[0] + " " + kind)
    return dict(sorted(found.items()))


def typed_records(declared: dict[str, tuple[tuple[str, str], ...]], flags: dict[str, str], project: Project,
                  module_of: dict[str, str]) -> dict[str, str]:
    """``JSON + "module.Qualname"`` -> ``"--flag json-built"`` for each flag of the command whose
    ``type=`` is a function of its module that builds that record from the JSON text
    (collect.flags.record_parser)."""
    found: dict[str, str] = {}
    for path, pairs in sorted(declared.items()):
        builders = {dest.removeprefix(JSON_RECORD): written for dest, written in pairs if dest.startswith(JSON_RECORD)}
        facts = project.module(module_of.get(path) or module_name(path)) if builders else None
        if facts is None:
            continue
        for dest, function in pairs:
            name = dest.removeprefix(TYPE_OF)
            if not dest.startswith(TYPE_OF) or name not in flags or function not in builders:
                continue
            symbol = project.resolve(facts, builders[function])
            if symbol is not None and symbol.kind == "class" and Constructors(project).is_record(symbol.qualname):
                found.setdefault(JSON + symbol.qualname, flags[name].partition(" ")[0] + " json-built")
    return found


def _json_field(project: Project, module: str, binding: str, dest: str, flags: dict[str, str]) -> tuple[str | None, str]:
    """The in-tree record class ``Config.dest`` is annotated with, where ``binding`` is
    ``Config.dest`` (as written in ``module``); and ``"json"`` where the command builds
    ``Config`` passing ``dest``, else ``"json-built"`` (see command_json)."""
    written, _, field_name = binding.rpartition(".")
    facts = project.module(module)
    symbol = project.resolve(facts, written) if facts is not None and field_name == dest else None
    if symbol is None or symbol.kind != "class":
        return None, ""
    field = project.field(symbol.qualname, dest)
    target = project.class_of_annotation(field[0], field[2].annotation) if field is not None else None
    if target is None or not Constructors(project).is_record(target):
        return None, ""
    return target, "json" if routed(flags.get(ROUTE + symbol.qualname), dest, namespace=False) else "json-built"


def routed(route: str | None, keyword: str, namespace: bool) -> bool:
    """Whether some call site of a route (``command_routes``) passes ``keyword`` through (a
    class's), or passes the parsed arguments on without assigning ``keyword`` (a function's)."""
    for site in route.split("|") if route else ():
        words = site.split(" ")
        if namespace and words[0] == NAMESPACE and keyword not in words[1:]:
            return True
        if not namespace and words[0] != NAMESPACE and keyword in words:
            return True
    return False


def _targets(project: Project, module: str, key: str, callee: str) -> list[str]:
    """The in-tree functions ``callee``, written inside function ``key`` of ``module``, may be."""
    owner = key.rsplit(".", 1)[0]
    head, _, rest = callee.partition(".")
    if head in ("self", "cls", "super()") and rest:
        classes = [owner] if head != "super()" else []
        return [f"{c}.{rest}" for c in [*classes, *project.ancestors(owner)]]
    facts = project.module(module)
    symbol = project.resolve(facts, callee) if facts is not None else None
    if (symbol is None or symbol.kind not in ("function", "method")) and "." in callee and facts is not None:
        cls_written, _, name = callee.rpartition(".")  # ``FrontendArgs.add_cli_args``, defined on a base
        cls = project.resolve(facts, cls_written)
        if cls is not None and cls.kind == "class":
            return [f"{c}.{name}" for c in (cls.qualname, *project.ancestors(cls.qualname))]
    if symbol is None or symbol.kind not in ("function", "method"):
        return []
    found = [symbol.qualname]
    if symbol.kind == "method":  # an inherited classmethod (``AsyncEngineArgs.add_cli_args`` on a base)
        owner_class, _, name = symbol.qualname.rpartition(".")
        found.extend(f"{base}.{name}" for base in project.ancestors(owner_class))
    return found


def record_flags(flags: dict[str, str], project: Project, module: str, owner: str | None, names: Iterable[str],
                 constructing: bool) -> tuple[dict[str, str], dict[str, str | None]]:
    """Field -> its flag for each of ``names`` (``self.x``) that is a field of class ``owner`` of
    ``module`` whose fields the command's flags set (command_records): ``"--flag json"`` (one
    JSON object for the record), ``"--x field"`` (a dataclass parser's flag for the field) or
    ``"--x field-bool"`` (for a bool field: ``--x`` sets True, ``--x False`` False). A record
    the parser builds from a JSON flag that the command's code is not seen handing on
    (``json-built``) gives its flag only to a raise of its construction (``constructing``). With
    the entries of ``flags`` it read (for the cache)."""
    if owner is None:
        return {}, {}
    qualname = f"{module}.{owner}"
    reads = {key: flags.get(key) for key in (JSON + qualname, FIELDS + qualname)}
    fields = {name.split(".")[1] for name in names if name.count(".") == 1 and name.startswith("self.")}
    found: dict[str, str] = {}
    for name in sorted(fields):
        declared = project.field(qualname, name)
        if declared is None or name.startswith("_") or name in declared[1].no_init:
            continue  # (the constructor takes no such keyword: neither may the JSON object nor the parser)
        json_flag = reads[JSON + qualname]
        if json_flag is not None:
            flag, _, kind = json_flag.partition(" ")
            if kind == "json" or constructing:
                found[name] = flag + " json"
        elif reads[FIELDS + qualname] is not None:
            is_bool = (declared[2].annotation or "").replace(" ", "") in ("bool", "bool|None", "Optional[bool]")
            found[name] = f"--{name} field-bool" if is_bool else f"--{name} field"
    return found, reads


def link_cli(flags: dict[str, str], own: dict[str, str], command: str | None, module: str, site: SiteFact,
             inputs: tuple[str, ...], owner: Owner) -> tuple[CommandLine, dict[str, str | None]]:
    """The command line an example of the card may write: ``command`` (the configured one),
    ``own`` (the flags of the guard's inputs) and, with both, the inputs routed to the raise
    (``routed_inputs``, which reads ``flags``' routes: the entries it read come with it). In a
    click or typer command's function (``command_parameters``), its parameters are set by their
    options, after the words that select the command. With the tests the command's code puts
    each flag's value to on the way (``command_checks``)."""
    words, options, reads = parameter_flags(flags, module, site.at.function, inputs)
    if words is not None and command:
        own = {**own, **options}
        if words.split() and command.split()[-len(words.split()):] != words.split():  # (unless the command names it already)
            command = f"{command} {words}"
    if not command or not own:
        return CommandLine(command=command, flags=own), reads
    names, more = routed_inputs(flags, module, site, inputs, owner, own)
    checks = []
    for dest in sorted(own):
        reads[CHECK + dest] = flags.get(CHECK + dest)
        for entry in (reads[CHECK + dest] or "").splitlines():
            path, line, test = entry.split("\t", 2)
            checks.append((dest, path, int(line), test))
    return CommandLine(command=command, flags=own, routed=tuple(sorted({*names, *options})), checks=tuple(checks)), {**reads, **more}


def parameter_flags(flags: dict[str, str], module: str, function: str | None,
                    inputs: Iterable[str]) -> tuple[str | None, dict[str, str], dict[str, str | None]]:
    """The words selecting the click or typer command ``function`` (None: not one), the flags
    of those of ``inputs`` that are its options' parameters, and the entries of ``flags`` read."""
    if function is None:
        return None, {}, {}
    key = f"{PARAM}{module}.{function}"
    reads: dict[str, str | None] = {key: flags.get(key)}
    if reads[key] is None:
        return None, {}, reads
    found = {}
    for name in sorted({i for i in inputs if "." not in i}):
        reads[f"{key}:{name}"] = flags.get(f"{key}:{name}")
        if (flag := reads[f"{key}:{name}"]) is not None:
            found[name] = flag
    return reads[key], found, reads


def routed_inputs(flags: dict[str, str], module: str, site: SiteFact, inputs: Iterable[str],
                  owner: Owner, own: dict[str, str]) -> tuple[tuple[str, ...], dict[str, str | None]]:
    """The inputs (of ``inputs`` and the settable ones) whose flag's value the command's code
    hands on to the raise (link.commands.routed): ``self.a.b`` where a call site builds the
    owner passing ``a`` and one builds the class of ``self.a`` passing ``b``; ``args.x``
    where one passes the parsed arguments to the function without assigning ``x``; ``self.x``
    whose flag in ``own`` sets a field of the owner (``record_flags``). With the route
    entries of ``flags`` it read (for the cache)."""
    reads: dict[str, str | None] = {}

    def route(key: str) -> str | None:
        reads[ROUTE + key] = flags.get(ROUTE + key)
        return reads[ROUTE + key]

    found = []
    for name in sorted({*inputs, *owner.settable}):
        parts = name.split(".")
        keywords = owner.settable.get(name)
        if len(parts) == 2 and parts[0] == "self" and own.get(parts[1], "").endswith(RECORD_ACTIONS):
            found.append(name)  # a field of a record the command's flags set (command_records)
        elif keywords is not None and site.owner is not None and parts[0] == "self" and len(keywords) == len(parts) - 1:
            nested = (owner.classes.get(".".join(parts[:n + 2]), "").replace(":", ".") for n in range(len(keywords) - 1))
            owners = [f"{module}.{site.owner}", *nested]
            if all(cls and routed(route(cls), keyword, namespace=False) for cls, keyword in zip(owners, keywords)):
                found.append(name)
        elif (len(parts) == 2 and parts[0] in {p.name for p in site.signature.params} and site.at.function is not None
              and routed(route(f"{module}.{site.at.function}"), parts[1], namespace=True)):
            found.append(name)
    return tuple(found), reads
