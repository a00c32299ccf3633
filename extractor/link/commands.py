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

from ..collect.declarations import module_name
from ..collect.flags import BOOLEAN_KWARGS
from .project import Project

Parsers = tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]
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


def command_flags(command: str, flags: dict[str, str], parsers: dict[str, Parsers], project: Project) -> dict[str, str]:
    """The destination -> flag pairs of ``flags`` that ``command``'s parser declares."""
    try:
        words = shlex.split(command)
    except ValueError:
        return flags
    sub = words[1] if len(words) > 1 and not words[1].startswith("-") else None
    index: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}  # "module.qualname" -> (module, callees, dests)
    roots: list[str] = []
    module_of = {path: module for module, path in project.providers.items()}
    for path, entries in sorted(parsers.items()):
        module = module_of.get(path) or module_name(path)
        for qualname, subcommands, callees, dests in entries:
            key = f"{module}.{qualname}"
            index[key] = (module, callees, dests)
            if sub is not None and sub in subcommands:
                roots.append(key)
    if not roots:
        return flags
    seen: set[str] = set()
    stack = list(reversed(roots))
    dests: set[str] = set()
    while stack and len(seen) < MAX_FUNCTIONS:
        key = stack.pop()
        if key in seen or key not in index:
            continue
        seen.add(key)
        module, callees, declared = index[key]
        dests.update(declared)
        for callee in callees:
            stack.extend(_targets(project, module, key, callee))
    return {dest: flag for dest, flag in flags.items() if dest in dests}


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
        cls, _, name = symbol.qualname.rpartition(".")
        found.extend(f"{base}.{name}" for base in project.ancestors(cls))
    return found
