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
from collections.abc import Iterable

from ..collect.declarations import module_name
from ..collect.flags import BOOLEAN_KWARGS
from ..model import CommandLine, Owner, SiteFact
from .project import Project

Parsers = tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]
Routes = tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None], ...]
ROUTE = "route:"  # the key prefix of a route in the run's CLI map (command_routes)
NAMESPACE = "(namespace)"
MAX_FUNCTIONS = 10_000  # functions followed from the subcommand, at most


def resolve_kwargs_flags(flags: dict[str, str]) -> dict[str, str]:
    """``flags`` with each flag whose keywords come from a mapping (``--x kwargs``) written as
    the tree builds those mappings for boolean fields (collect.flags.BOOLEAN_KWARGS), and
    without the pseudo-destination."""
    boolean = flags.get(BOOLEAN_KWARGS)
    return {
        dest: flag + "-" + boolean if boolean and flag.endswith(" kwargs") else flag
        for dest, flag in flags.items() if dest != BOOLEAN_KWARGS
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


def command_routes(routes: dict[str, Routes], modules: set[str] | None, project: Project) -> dict[str, str]:
    """Where the command's code hands the flags' values on (collect.routes), keyed
    ``ROUTE + "module.Qualname"`` of the class it builds or the function it passes the parsed
    arguments to: ``"|"``-separated call sites, each the keywords it passes through
    (space-separated) or, for a function, ``NAMESPACE`` and the attributes of the parsed
    arguments its caller assigns. Only the files of ``modules`` (the command's parser
    functions; all files with routes where that is None) are read."""
    module_of = {path: module for module, path in project.providers.items()}
    sites: dict[str, set[str]] = {}
    for path, entries in sorted(routes.items()):
        module = module_of.get(path) or module_name(path)
        facts = project.module(module) if entries and (modules is None or module in modules) else None
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


def link_cli(flags: dict[str, str], own: dict[str, str], command: str | None, module: str, site: SiteFact,
             inputs: tuple[str, ...], owner: Owner) -> tuple[CommandLine, dict[str, str | None]]:
    """The command line an example of the card may write: ``command`` (the configured one),
    ``own`` (the flags of the guard's inputs) and, with both, the inputs routed to the raise
    (``routed_inputs``, which reads ``flags``' routes: the entries it read come with it)."""
    if not command or not own:
        return CommandLine(command=command, flags=own), {}
    names, reads = routed_inputs(flags, module, site, inputs, owner)
    return CommandLine(command=command, flags=own, routed=names), reads


def routed_inputs(flags: dict[str, str], module: str, site: SiteFact, inputs: Iterable[str],
                  owner: Owner) -> tuple[tuple[str, ...], dict[str, str | None]]:
    """The inputs (of ``inputs`` and the settable ones) whose flag's value the command's code
    hands on to the raise (link.commands.routed): ``self.a.b`` where a call site builds the
    owner passing ``a`` and one builds the class of ``self.a`` passing ``b``; ``args.x``
    where one passes the parsed arguments to the function without assigning ``x``. With the
    route entries of ``flags`` it read (for the cache)."""
    reads: dict[str, str | None] = {}

    def route(key: str) -> str | None:
        reads[ROUTE + key] = flags.get(ROUTE + key)
        return reads[ROUTE + key]

    found = []
    for name in sorted({*inputs, *owner.settable}):
        parts = name.split(".")
        keywords = owner.settable.get(name)
        if keywords is not None and site.owner is not None and parts[0] == "self" and len(keywords) == len(parts) - 1:
            nested = (owner.classes.get(".".join(parts[:n + 2]), "").replace(":", ".") for n in range(len(keywords) - 1))
            owners = [f"{module}.{site.owner}", *nested]
            if all(cls and routed(route(cls), keyword, namespace=False) for cls, keyword in zip(owners, keywords)):
                found.append(name)
        elif (len(parts) == 2 and parts[0] in {p.name for p in site.signature.params} and site.at.function is not None
              and routed(route(f"{module}.{site.at.function}"), parts[1], namespace=True)):
            found.append(name)
    return tuple(found), reads
