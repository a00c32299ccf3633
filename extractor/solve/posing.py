"""Posing: Guard + domains -> the Problem to solve: the variables, each with its candidate values.

Each variable (a guard input, or an opaque atom such as ``os.path.exists(path)``) gets a
finite list of candidate values from its domain and from the constants the guard compares
it with (solve.seeds).
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet
from dataclasses import replace
from itertools import pairwise
from typing import Any

from ..collect.declarations import dotted_name
from ..collect.syntax import child_nodes, walk
from ..model import RAISES, Domain, DomainSource, Guard, TriggerStatus
from ..model.pytext import compares_with_none, one_class
from .arrays import ARRAY_METHODS, conventional_domain, dtype_value, is_array_class, library_value
from .domains import NO_VALUE, choice_value, default_value, literal_value
from .environ import ENVIRON, environ_candidates, read_guard
from .evaluate import (
    BUILTIN_TYPES,
    DICT_METHODS,
    PINNED,
    PURE_FUNCTIONS,
    PYTHON_NAMES,
    STR_METHODS,
    EvalError,
    InstancesOf,
    evaluate,
    parse_expr,
    raised_classes,
)
from .problem import Problem, Variable, classes_of
from .seeds import LATE, candidates, comparison_seeds, value_key
from .status import atom_kind, spec_module
from .values import Named, Present


def _is_pure_call(node: ast.Call, classes: AbstractSet[str] = frozenset()) -> bool:
    """Whether the evaluator decides the call (``classes``: the names bound as InstancesOf,
    and the inputs declared tensors or arrays, whose ``dim()`` and ``size()`` it computes)."""
    name = dotted_name(node.func)
    if name == "isinstance" and len(node.args) == 2:
        types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        return all((dotted_name(t) or "") in BUILTIN_TYPES or dotted_name(t) in classes or is_array_class(dotted_name(t)) for t in types)
    if name in PURE_FUNCTIONS:
        return True
    if name == RAISES and len(node.args) == 2:
        # Decided by evaluation only where every call in the expression is one the evaluator
        # makes; else the whole test is an atom to assume (``__raises__(s.encode(), ...)``).
        inner = [n for n in walk(node.args[0]) if isinstance(n, ast.Call)]
        return raised_classes(node.args[1]) is not None and all(_is_pure_call(n, classes) for n in inner)
    # A str method is evaluated only on a str, a mapping's on a dict; on anything else the evaluator refuses.
    return isinstance(node.func, ast.Attribute) and (node.func.attr in STR_METHODS or node.func.attr in DICT_METHODS
                                                     or node.func.attr == "is_integer" and not node.args
                                                     or node.func.attr in ARRAY_METHODS and dotted_name(node.func.value) in classes)


def array_inputs(annotations: dict[str, str | None]) -> set[str]:
    """The inputs declared a tensor or an array (solve.arrays): the evaluator computes their ``dim()``."""
    return {name for name, annotation in annotations.items() if is_array_class(annotation)}


def constant_of(source: str) -> Any:
    """The value of a module constant's source: a literal, or an expression the restricted
    evaluator computes from literals (``frozenset(" \\t\\n")``, ``1 << 4``); else ``NO_VALUE``."""
    value = _plain_constant(source)
    return value if value is not NO_VALUE else keyed_dict(source)


def _plain_constant(source: str) -> Any:
    """A literal's value, or what the restricted evaluator computes from literals; else ``NO_VALUE``."""
    value = literal_value(source)
    if value is not NO_VALUE:
        return value
    try:
        return evaluate(source, dtype_names(source))
    except EvalError:
        return NO_VALUE


def dtype_names(source: str) -> dict[str, Any]:
    """The dtypes a source names (a constant's, ``(torch.float16, torch.bfloat16)``,
    collect.constants; a guard's), by their chains."""
    if "." not in source:
        return {}
    try:
        tree = parse_expr(source)
    except EvalError:
        return {}
    chains = {dotted_name(node) for node in walk(tree) if isinstance(node, ast.Attribute)}
    return {chain: dtype for chain in sorted(filter(None, chains)) if (dtype := dtype_value(chain)) is not None}


def keyed_dict(source: str) -> Any:
    """A dict display with literal keys (``{"half": torch.half}``, collect.constants): its
    keys, each with its value where a literal or the evaluator gives it, else a constant of
    unknown value named by its source (``torch.half``), so ``x in TABLE`` and ``sorted(TABLE)``
    have answers and ``TABLE[x] == y`` has none; ``NO_VALUE`` for any other source."""
    try:
        tree = parse_expr(source)
    except EvalError:
        return NO_VALUE
    if not isinstance(tree, ast.Dict) or not tree.keys:
        return NO_VALUE
    keys = [key for key in tree.keys if key is not None]
    if len(keys) != len(tree.keys):  # (a key of None: ``**mapping``)
        return NO_VALUE
    result: dict[Any, Any] = {}
    for key, value in zip(keys, tree.values):
        code = ast.unparse(value)
        known = literal_value(ast.unparse(key))
        if known is NO_VALUE:
            return NO_VALUE
        element = _plain_constant(code)
        result[known] = Named(code, "unknown") if element is NO_VALUE else element
    return result


def named_constant(chain: str, kind: str) -> Any:
    """A name the guard reads that no caller sets (``Guard.named``), as the solver holds it."""
    return Named(chain, "sentinel" if kind == "sentinel" else "unknown")


_SYMBOLIC_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _compared_symbolically(tree: ast.expr) -> set[str]:
    """Dotted names the guard uses only by identity against something other than a literal:
    ``family == AF_INET``, ``mode in (FAST, SAFE)``. Such a constant is kept by name (a
    caller can pass it); any other use (``not HAVE_SSL``, ``sys.platform == "win32"``) needs
    its value, which the trigger can only assume."""
    good: set[str] = set()
    bad: set[str] = set()
    operands: set[int] = set()
    for node in walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        items = [node.left, *node.comparators]
        for op, (left, right) in zip(node.ops, pairwise(items)):
            for side, other in ((left, right), (right, left)):
                container = isinstance(op, (ast.In, ast.NotIn)) and side is right
                members = side.elts if container and isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                for member in members:
                    name = dotted_name(member) if isinstance(member, (ast.Name, ast.Attribute)) else None
                    if name is None:
                        continue
                    operands.add(id(member))
                    # (``x in NAMES`` needs the container's value: only its literal elements are kept by name.)
                    symbolic = isinstance(op, _SYMBOLIC_OPS) and not _is_literal_node(other) and not (container and member is side)
                    (good if symbolic else bad).add(name)
    for node in walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in operands and (name := dotted_name(node)) is not None:
            bad.add(name)
    return good - bad


def _is_literal_node(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(isinstance(e, ast.Constant) for e in node.elts)


def scan_refs(node: ast.expr, inputs: set[str], constants: set[str],
              classes: AbstractSet[str] = frozenset(), objects: bool = False) -> tuple[set[str], dict[str, bool]]:
    """Input references and opaque atoms (code -> used as a boolean) of a guard expression
    (``classes``: the names of ``constants`` bound as InstancesOf; ``objects``: ``callable`` and
    ``hasattr`` of an input are atoms too, as no plain value makes them true). A comprehension's
    targets are its own names: neither inputs nor atoms inside it."""
    refs: set[str] = set()
    atoms: dict[str, bool] = {}
    stack: list[tuple[ast.AST, bool, frozenset[str]]] = [(node, True, frozenset())]
    while stack:
        current, boolean, local = stack.pop()
        if isinstance(current, (ast.Name, ast.Attribute)):
            name = dotted_name(current)
            if name is not None and name.partition(".")[0] in local:
                continue
            if name in inputs:
                refs.add(name)
            elif name is not None and name not in constants and name not in PYTHON_NAMES and name not in PINNED:
                atoms.setdefault(name, boolean)
            elif name is None and isinstance(current, ast.Attribute):  # (a name's is its own)
                stack.append((current.value, False, local))
            continue
        if isinstance(current, ast.Call) and (not _is_pure_call(current, classes) or _of_no_input(current, inputs, objects)):
            if not (local and _mentions(current, local)):  # (one that reads a target is no atom: nothing to assume)
                atoms.setdefault(ast.unparse(current), boolean)
            continue
        if isinstance(current, ast.Call):
            # (isinstance's classes, and __raises__'s, are names of Python's own: not inputs.)
            first_only = dotted_name(current.func) in ("isinstance", RAISES)
            stack.extend((a, False, local) for a in (current.args[:1] if first_only else current.args))
            # (``math.isfinite``: no read of ``math``)
            if isinstance(current.func, ast.Attribute) and dotted_name(current.func) not in PURE_FUNCTIONS:
                stack.append((current.func.value, False, local))
            continue
        if isinstance(current, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            inner = local
            for generator in current.generators:  # the first iterable is read outside; each next one inside
                stack.append((generator.iter, False, inner))
                inner = inner | {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
                stack.extend((condition, False, inner) for condition in generator.ifs)
            parts = [current.key, current.value] if isinstance(current, ast.DictComp) else [current.elt]
            stack.extend((part, False, inner) for part in parts)
            continue
        child_boolean = isinstance(current, (ast.BoolOp, ast.UnaryOp)) and boolean and (
            not isinstance(current, ast.UnaryOp) or isinstance(current.op, ast.Not)
        )
        for child in child_nodes(current):
            if isinstance(child, ast.expr):
                stack.append((child, child_boolean, local))
    return refs, atoms


def _of_no_input(node: ast.Call, inputs: set[str], objects: bool = False) -> bool:
    """``callable(x)`` or ``hasattr(x, "name")`` of what is no input (a module, a constant: ``hasattr(socket,
    "AF_UNIX")``), or by a computed name: the evaluator decides them of a caller's plain value
    only, so they stay atoms the trigger assumes; with ``objects``, every one (see scan_refs)."""
    name = dotted_name(node.func)
    if name not in ("callable", "hasattr"):
        return False
    if objects or not node.args or dotted_name(node.args[0]) not in inputs:
        return True
    literal = len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    return name == "hasattr" and not literal


def _mentions(node: ast.AST, names: frozenset[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def build_problem(guard: Guard, domains: dict[str, Domain], state: frozenset[str] = frozenset(),
                  resolved: tuple[tuple[str, str, str], ...] = (), elements: frozenset[str] = frozenset(),
                  preferred: dict[str, str] | None = None, instances: tuple[tuple[str, tuple[str, ...]], ...] = (),
                  objects: bool = False) -> Problem:
    """Variables, candidates and constants for one guard; the inputs in ``state`` are read
    from state no caller sets (module variables, the object's internal attributes);
    ``resolved``: names of the guard that linking found in other modules (CardContext.names.named);
    ``elements``: loop targets the trigger sets through their iterable (Guard.loops);
    ``preferred``: the evident type of untyped inputs (Param.used_as), tried first;
    ``instances``: the isinstance classes whose plain instances are known (CardContext.names.instances);
    ``objects``: ``callable``/``hasattr`` of an input are atoms (scan_refs).

    Raises:
        EvalError: the guard code is not a Python expression (an unmodelled guard).
    """
    lazy = tuple(sorted((chain, code) for chain, kind, code in resolved if kind == "lazy"))
    tree, reads_environ = read_guard(guard.code, lazy)
    environ = [ENVIRON] if reads_environ and ENVIRON not in guard.inputs and ENVIRON not in guard.opaque else []
    constants = _declared_constants(guard, domains)
    members, imported = _add_resolved(constants, resolved)
    for chain, kind in guard.named:
        if chain not in constants and (dtype := dtype_value(chain)) is not None:
            constants[chain] = dtype  # ``x.dtype == torch.float16`` (solve.arrays)
    _add_named(constants, guard, tree)
    valued = _valued_members(resolved)
    if valued:
        constants = {name: _valued(value, valued) for name, value in constants.items()}
        members = {name: [_valued(m, valued) for m in group] for name, group in members.items()}
    for written, types in instances:
        if written not in guard.inputs and written not in guard.opaque:
            constants[written] = InstancesOf(types)
    arrays = array_inputs({name: d.annotation for name, d in domains.items()})
    refs, atoms = scan_refs(tree, set(guard.inputs) | set(guard.opaque) | set(environ), set(constants), classes_of(constants) | arrays,
                            objects)
    ties = tuple((chain, code) for chain, kind, code in resolved if kind == "tied")
    tied = {chain for chain, _ in ties}
    variables: dict[str, Variable] = {}
    for name in [*guard.inputs, *guard.opaque, *environ]:
        if name in refs and name not in tied:
            # An opaque name (a local bound several times, a loop variable) or state is not
            # an input: the trigger can only assume a value for it.
            is_atom = (name in guard.opaque and name not in elements) or name in state
            prefer = (preferred or {}).get(name)
            variables[name] = _input_variable(name, guard, domains.get(name), constants, is_atom=is_atom, prefer=prefer)
    named = {chain for chain, kind in guard.named if kind != "builtin"}
    for code, boolean in sorted(atoms.items()):
        domain = Domain(input=code, source=DomainSource.OPAQUE, types=("bool",) if boolean else ())
        is_constant = code in named and atom_kind(code) != TriggerStatus.ENVIRONMENT  # (the machine: a user can change it)
        variables[code] = Variable(name=code, domain=domain, is_atom=True, is_boolean=boolean, is_constant=is_constant)
    problem = Problem(code=guard.code, tree=tree, variables=variables, constants=constants, members=members, imported=imported, lazy=lazy,
                      ties=ties)
    _add_candidates(problem)
    for variable in variables.values() if valued else ():
        variable.candidates = [_valued(v, valued) for v in variable.candidates]
        variable.default = _valued(variable.default, valued)
    problem._base = None  # (seeding built it with the members by name alone)
    return problem


def _declared_constants(guard: Guard, domains: dict[str, Domain]) -> dict[str, Any]:
    """The values of the guard's module constants, and the Enum members among its inputs' choices."""
    # A constant the evaluator cannot compute stays a named one: never a value to assume.
    constants = {name: value if (value := constant_of(source)) is not NO_VALUE else Named(name, "unknown")
                 for name, source in guard.constants}
    for domain in domains.values():
        for choice in domain.choices or ():
            if isinstance(member := choice_value(choice), Named):
                constants[choice] = member  # ``Color.RED`` in the guard is that member
    return constants


def _add_resolved(constants: dict[str, Any], resolved: tuple[tuple[str, str, str], ...]) -> tuple[dict[str, list[Named]], set[str]]:
    """Add the names linking resolved in other modules (a value, an Enum member, a sentinel);
    return each Enum member's fellow members, and the names whose value another module gives."""
    members: dict[str, list[Named]] = {}
    imported: set[str] = set()
    for chain, kind, code in resolved:
        if chain in constants:
            continue
        if kind == "value" and (value := constant_of(code)) is not NO_VALUE:
            constants[chain] = value
            imported.add(chain)
        elif kind in ("enum", "sentinel"):
            constants[chain] = Named(chain, kind)
            if kind == "enum":  # the other members are the values a fix would choose
                members[chain] = [Named(m, "enum") for m in code.split(",") if m]
    return members, imported


def _valued_members(resolved: tuple[tuple[str, str, str], ...]) -> dict[str, Named]:
    """The Enum members that mix in str or int, with their values (link.project.enum_values), by name."""
    valued: dict[str, Named] = {}
    for chain, kind, code in resolved:
        mixin, _, source = code.partition(" ")
        if kind == "enum_value" and (value := literal_value(source)) is not NO_VALUE:
            valued[chain] = Named(chain, "enum", mixin, value)
    return valued


def _valued(value: Any, valued: dict[str, Named]) -> Any:
    """An Enum member known by name alone as the same member with its value, where known."""
    return valued.get(value.name, value) if isinstance(value, Named) and value.kind == "enum" else value


def _add_named(constants: dict[str, Any], guard: Guard, tree: ast.expr) -> None:
    """Add the names the guard reads that no caller sets and that it uses by identity alone (or sentinels)."""
    if not any(kind != "builtin" for _, kind in guard.named):
        return
    symbolic = _compared_symbolically(tree)  # (a walk of the guard: only where it can matter)
    for chain, kind in guard.named:
        if chain not in constants and kind != "builtin" and (kind == "sentinel" or chain in symbolic):
            constants[chain] = named_constant(chain, kind)  # a trigger never sets it


def _input_variable(name: str, guard: Guard, declared: Domain | None, constants: dict[str, Any], *, is_atom: bool,
                    prefer: str | None) -> Variable:
    """An input (or opaque name) the guard reads, with its domain and default."""
    source = DomainSource.OPAQUE if name in guard.opaque else DomainSource.UNKNOWN
    domain = conventional_domain(name, declared or Domain(input=name, source=source))
    default = default_value(domain) if domain.has_default else NO_VALUE
    if default is NO_VALUE and domain.default in constants:
        default = constants[domain.default]  # ``default=MISSING``: that sentinel
    boolean = name in guard.booleans  # (a local bound to a comparison: True or False)
    if boolean:
        domain = replace(domain, types=("bool",))
    return Variable(name=name, domain=domain, is_atom=is_atom, default=default, prefer=prefer, is_boolean=boolean)


def _add_candidates(problem: Problem) -> None:
    """Each variable's candidate values: its seeds, then typical values of its type."""
    seeds = comparison_seeds(problem)
    for variable in problem.variables.values():
        if variable.name == ENVIRON:  # the machine's: assumed, with str values only (solve.environ)
            variable.is_atom, variable.candidates = True, environ_candidates(problem.tree)
            continue
        if variable.is_atom and spec_module(variable.name) is not None:
            # ``importlib.util.find_spec("m")``: None where the module is missing, else a spec
            # (true, not None), which True stands for in the evaluator
            variable.is_boolean, variable.candidates = False, [None, True]
            continue
        variable.candidates = candidates(variable, seeds.get(variable.name, []), seeds.get(LATE + variable.name))
        if variable.is_constant and not variable.is_boolean:
            # A constant's value is assumed only as the guard states it (``PLATFORM == "x"``),
            # never made up from its type: none stated, no trigger (unknown_constant).
            stated = {value_key(v) for v in seeds.get(variable.name, [])}
            variable.candidates = [v for v in variable.candidates if value_key(v) in stated]
        elif (present := _present(variable, problem)) is not None:
            variable.candidates.append(present)


def _none_compared(variable: Variable, problem: Problem) -> bool:
    """A parameter or a record's field the guard compares with None, declared as one class or
    None (``cache: Cache | None``; ``self.watermark_config is not None``)."""
    domain = variable.domain
    return domain.source in (DomainSource.PARAMETER, DomainSource.FIELD) and compares_with_none(variable.name, problem.code) \
        and one_class(domain.annotation) is not None


def _present(variable: Variable, problem: Problem) -> Present | None:
    """An object of the input's declared class (values.Present), where the guard reads
    attributes of it that are inputs of their own and nothing the tool models stands for it
    (a tensor): ``config.spec is not None and config.spec.num_tokens > 3``; or that it compares
    with None (``cache is not None``), where the example can build one (link.constructors.built_arguments)."""
    attributes = any(name.startswith(variable.name + ".") for name in problem.variables)
    if variable.is_atom or not (attributes or _none_compared(variable, problem)):
        return None
    kinds = [t.removeprefix("object:") for t in variable.domain.types if t.startswith("object:") and t != "object:object"]
    if len(kinds) != 1 or library_value(variable.domain.annotation) is not None:
        return None
    return Present(kinds[0])
