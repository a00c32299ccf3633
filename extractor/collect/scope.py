"""Scopes: a libcst function -> its parameters and local bindings.

``Scope`` answers "what is this name?" for the guard and message models: a parameter
(an input), a local (read as the value that reaches the statement: ``reaching``), a
module-level name, or a builtin. ``Refs`` records the inputs, opaque names and calls an
expression reads.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from ..model import Reason
from .purity import BUILTIN_NAMES, FRESH_METHODS, MUTABLE_RESULTS, PURE_BUILTINS, TEXT_METHODS

EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
MAX_INLINE_DEPTH = 8


@functools.cache
def node_fields(cls: type) -> tuple[str, ...]:
    """The fields of a libcst node class, in declaration order."""
    return tuple(f.name for f in dataclasses.fields(cls))


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of ``node``, in no particular order: for walks that collect or test.

    libcst's ``children`` rebuilds the node to list them (about 10x slower); where source
    order matters, use that instead.
    """
    out: list[cst.CSTNode] = []
    for name in node_fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend(v for v in value if _is_node_type(type(v)))
        elif _is_node_type(kind):
            out.append(value)
    return out


_NODE_TYPES: dict[type, bool] = {}


def _is_node_type(kind: type) -> bool:
    """``issubclass(kind, cst.CSTNode)``, memoized: CSTNode is an ABC, slow to check."""
    found = _NODE_TYPES.get(kind)
    if found is None:
        found = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return found


@dataclass(frozen=True, slots=True)
class ModuleNames:
    """What the module binds at top level: ``kind`` is var, import, def or class."""

    kinds: dict[str, str]
    values: dict[str, str]
    sentinels: frozenset[str] = frozenset()  # ``MISSING = object()``, ``DEFAULT = _Sentinel()``
    # ``Role = Literal["a", "b"]`` -> ``('a', 'b')``: what ``get_args(Role)`` returns
    aliases: dict[str, str] = field(default_factory=dict)
    # ``zlib`` of ``try: import zlib`` / ``except ImportError: zlib = None`` -> its value's code
    # over ``importlib.util.find_spec`` (collect.optional)
    optional: dict[str, str] = field(default_factory=dict)


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node.value
        elif isinstance(node, (cst.Tuple, cst.List)):
            stack.extend(e.value for e in node.elements)
        elif isinstance(node, cst.StarredElement):
            stack.append(node.value)


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a pure Name/Attribute chain, else None."""
    names: list[str] = []
    current = node
    while isinstance(current, cst.Attribute):
        names.append(current.attr.value)
        current = current.value
    if not isinstance(current, cst.Name):
        return None
    names.append(current.value)
    return ".".join(reversed(names))


def strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Tuple) and not node.elements:
        return node  # ``()``: the parentheses are the empty tuple itself
    return node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", None) else node


class _Flattener(cst.CSTTransformer):
    """Rewrites newlines and comments inside brackets to single spaces."""

    def leave_ParenthesizedWhitespace(self, original_node: cst.ParenthesizedWhitespace,
                                      updated_node: cst.ParenthesizedWhitespace) -> cst.BaseParenthesizableWhitespace:
        return cst.SimpleWhitespace(" ")

    def leave_LeftParen(self, original_node: cst.LeftParen, updated_node: cst.LeftParen) -> cst.LeftParen:
        return updated_node.with_changes(whitespace_after=cst.SimpleWhitespace(""))

    def leave_RightParen(self, original_node: cst.RightParen, updated_node: cst.RightParen) -> cst.RightParen:
        return updated_node.with_changes(whitespace_before=cst.SimpleWhitespace(""))

    def leave_LeftSquareBracket(self, original_node: cst.LeftSquareBracket, updated_node: cst.LeftSquareBracket) -> cst.LeftSquareBracket:
        return updated_node.with_changes(whitespace_after=cst.SimpleWhitespace(""))

    def leave_RightSquareBracket(self, original_node: cst.RightSquareBracket,
                                 updated_node: cst.RightSquareBracket) -> cst.RightSquareBracket:
        return updated_node.with_changes(whitespace_before=cst.SimpleWhitespace(""))


_EMPTY_MODULE = cst.Module(body=[])


def raw_code(node: cst.CSTNode) -> str:
    """Source of ``node`` as written, on one line when it spans several."""
    plain = _plain_code(node)
    if plain is not None:
        return plain
    held = _GENERATED.get(id(node))
    if held is not None and held[0] is node:
        return held[1]
    code = _generated(node)
    if len(_GENERATED) >= _GENERATED_SIZE:
        _GENERATED.clear()
    _GENERATED[id(node)] = (node, code)  # (the node held with it: its id is never another's while it is here)
    return code


# The code last generated, by node: half the nodes whose code a unit's analysis asks for are asked again
_GENERATED: dict[int, tuple[cst.CSTNode, str]] = {}
_GENERATED_SIZE = 4096


def _generated(node: cst.CSTNode) -> str:
    code = _EMPTY_MODULE.code_for_node(node)
    if "\n" in code or "\r" in code:
        flat = node.visit(_Flattener())
        if isinstance(flat, cst.CSTNode):  # (the flattener changes whitespace only: never removes the node)
            code = _EMPTY_MODULE.code_for_node(flat)
    return code.strip()


def _plain_code(node: cst.CSTNode) -> str | None:
    """The code of a name, a literal or a dotted name written without parentheses or
    spaces (most atoms of a guard), read off the tree instead of generated; else None."""
    names: list[str] = []
    while isinstance(node, cst.Attribute):
        if node.lpar or not (_no_space(node.dot.whitespace_before) and _no_space(node.dot.whitespace_after)):
            return None
        names.append(node.attr.value)
        node = node.value
    if not isinstance(node, _PLAIN_ATOMS) or node.lpar:
        return None
    names.append(node.value)
    return ".".join(reversed(names))


_PLAIN_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _no_space(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.SimpleWhitespace) and not whitespace.value


@dataclass
class Refs:
    """Names and calls met while rendering the expressions of one guard."""

    inputs: dict[str, None] = field(default_factory=dict)
    opaque: dict[str, None] = field(default_factory=dict)
    calls: dict[str, None] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    named: dict[str, str] = field(default_factory=dict)  # dotted name -> kind (Guard.named)


class Scope:
    """Name facts of one function (or of module level when ``function`` is None)."""

    def __init__(self, function: cst.FunctionDef | None, outer_locals: frozenset[str], module: ModuleNames) -> None:
        self.function = function
        self.module = module
        self.outer_locals = outer_locals
        self.params: set[str] = set()
        self.bindings: dict[str, list[cst.BaseExpression | None]] = {}
        self.globals: set[str] = set()
        self.handler_names: set[str] = set()
        self.shared: set[str] = set()  # rebound by a nested function (``nonlocal``): never followed
        self.methods: tuple[str, Mapping[str, frozenset[str]]] | None = None  # attributes.Stores: set by cstpass.UnitAnalysis
        self.changed: frozenset[str] = frozenset()  # attributes.Stores.changed: set by cstpass.UnitAnalysis
        self.stored_targets: list[cst.BaseExpression] = []  # assignment targets other than a name
        if function is not None:
            self._read_params(function.params)
            self._scan_block(function.body)
        # Parameters a nested function may rebind (``nonlocal``): opaque wherever read. (One
        # the body itself rebinds is its argument where that reaches, elsewhere a name per
        # value: expressions.ExprModel.reaching_value.)
        self.opaque_params: set[str] = self.params & self.shared

    # --- building ---------------------------------------------------------------
    def _read_params(self, params: cst.Parameters) -> None:
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.params.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.params.add(star.name.value)

    def _targets(self, target: cst.BaseExpression) -> Iterator[str]:
        if not isinstance(target, cst.Name):
            self.stored_targets.append(target)  # (attributes.stored_attributes finds the attributes in them)
        return target_names(target)

    def _bind(self, name: str, value: cst.BaseExpression | None) -> None:
        self.bindings.setdefault(name, []).append(value)

    def _scan_block(self, block: cst.BaseSuite) -> None:
        stack: list[cst.CSTNode] = [block]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)):
                stack.extend(reversed(node.body))
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self._bind(node.name.value, None)
                # A nested function that declares ``nonlocal x`` can rebind x at any time.
                for name in _nonlocal_names(node):
                    self._bind(name, None)
                    self.shared.add(name)
            elif isinstance(node, cst.BaseCompoundStatement):
                self._scan_compound(node, stack)
            else:
                self._scan_small(node)

    def _scan_compound(self, node: cst.BaseCompoundStatement, stack: list[cst.CSTNode]) -> None:
        """Binds what the statement's header binds, and puts its blocks on ``stack``."""
        if isinstance(node, cst.Match):
            stack.extend(case.body for case in node.cases)
            return
        if isinstance(node, (cst.Try, cst.TryStar)):
            self._scan_handlers(node, stack)
        else:
            self._bind_header(node)
        stack.append(node.body)
        orelse = getattr(node, "orelse", None)
        if isinstance(orelse, cst.If):
            stack.append(orelse)
        elif orelse is not None:
            stack.append(orelse.body)

    def _bind_header(self, node: cst.BaseCompoundStatement) -> None:
        """The names a ``for``, ``if``, ``while`` or ``with`` header binds."""
        if isinstance(node, cst.For):
            for name in self._targets(node.target):
                self._bind(name, None)
        elif isinstance(node, (cst.If, cst.While)):
            for name in walrus_names(node.test):
                self._bind(name, None)
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    for name in self._targets(item.asname.name):
                        self._bind(name, None)

    def _scan_handlers(self, node: cst.Try | cst.TryStar, stack: list[cst.CSTNode]) -> None:
        """Binds each handler's ``as`` name, and puts the handlers' and ``finally`` blocks on ``stack``."""
        for handler in node.handlers:
            if handler.name is not None and isinstance(handler.name.name, cst.Name):  # (``except E as name``: always a name)
                self._bind(handler.name.name.value, None)
                self.handler_names.add(handler.name.name.value)
            stack.append(handler.body)
        if node.finalbody is not None:
            stack.append(node.finalbody.body)

    def _scan_small(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Assign):
            single = len(node.targets) >= 1 and all(isinstance(t.target, cst.Name) for t in node.targets)
            for target in node.targets:
                for name in self._targets(target.target):
                    self._bind(name, node.value if single else None)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            for name in self._targets(node.target):
                self._bind(name, node.value)
        elif isinstance(node, cst.AugAssign):
            for name in self._targets(node.target):
                self._bind(name, None)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                bound = dotted(alias.asname.name if alias.asname is not None else alias.name)
                self._bind(bound.split(".")[0] if bound else "", None)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            self.globals.update(item.name.value for item in node.names)
        elif isinstance(node, cst.Del):
            for name in self._targets(node.target):
                self._bind(name, None)

    # --- queries ----------------------------------------------------------------
    def is_local(self, name: str) -> bool:
        return name in self.bindings and name not in self.globals and name not in self.params

    def single_value(self, name: str) -> cst.BaseExpression | None:
        """The value of a local bound exactly once by ``name = value``, else None."""
        if not self.is_local(name):
            return None
        values = self.bindings[name]
        return values[0] if len(values) == 1 else None

    def inline_value(self, name: str) -> cst.BaseExpression | None:
        """A once-bound local's value, only when re-reading it later means the same thing:
        no call with effects, no mutable display that later statements may fill."""
        value = self.single_value(name)
        return value if value is not None and is_pure(value) else None

    def message_target(self, name: cst.Name) -> cst.BaseExpression | Reason | None:
        """What a message variable holds: its one value, the name itself for a parameter
        (the message is then ``{name}``), or a reason code when it cannot be known."""
        value = self.single_value(name.value)
        if value is not None:
            return value
        if name.value in self.params and name.value not in self.bindings:
            return name
        if self.is_local(name.value):
            return Reason.MESSAGE_VARIABLE_REASSIGNED
        return Reason.MESSAGE_VARIABLE_UNRESOLVED

    def classify(self, root: str) -> str:
        """What the root name of a reference is: input (a parameter, or a ``global``: state the
        trigger assumes), opaque (a local bound several times, a name of an enclosing function),
        constant (a module variable the module gives the value of), sentinel (bound once to
        ``object()`` or a class of the module), named (any other module-level name, or one bound
        at run time by ``from x import *``) or builtin."""
        if root in self.opaque_params:
            return "opaque"  # rebound by a nested function
        if root in self.params or root in self.globals:
            return "input"
        if self.is_local(root) or root in self.outer_locals:
            return "opaque"
        kind = self.module.kinds.get(root)
        if kind == "var":
            if root in self.module.values:
                return "constant"
            return "sentinel" if root in self.module.sentinels else "named"
        if kind is None and root in BUILTIN_NAMES:
            return "builtin"
        return "named"


_FRESH_NODES = (cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)
_PURE_NODES = (
    cst.Name, cst.Attribute, cst.Subscript, cst.Comparison, cst.BooleanOperation, cst.UnaryOperation,
    cst.BinaryOperation, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Tuple, cst.IfExp, cst.Ellipsis,
)


def walrus_names(test: cst.CSTNode) -> set[str]:
    """Names bound by ``:=`` in an expression (outside lambdas)."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        kind = type(node)  # (libcst's classes are ABCs: isinstance is slow, and these are leaves)
        if kind is cst.NamedExpr:
            target = cast(cst.NamedExpr, node).target
            if type(target) is cst.Name:
                names.add(target.value)
        if kind not in _WALRUS_STOPS:
            stack.extend(child_nodes(node))
    return names


# Where no ``:=`` of the expression can be: lambdas (their own scope) and leaves.
_WALRUS_STOPS = frozenset({
    cst.Lambda, cst.SimpleString, cst.Integer, cst.Float, cst.Name, cst.SimpleWhitespace, cst.ParenthesizedWhitespace,
    cst.LeftParen, cst.RightParen, cst.Comma, cst.Dot,
})


def _nonlocal_names(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Nonlocal):
            names.update(item.name.value for item in current.names)
        elif not isinstance(current, cst.BaseExpression):
            stack.extend(child_nodes(current))
    return names




_LITERAL_TEXT_METHODS = frozenset({"format", "join"})  # methods pure on a literal text


def is_pure(node: cst.BaseExpression, fresh: bool = False) -> bool:
    """Whether evaluating ``node`` again gives the same value: names, attributes, literals,
    operators, tuples, calls to pure builtins and text methods only. ``fresh``: also a call
    that returns a new mutable object (``sorted(xs)``, ``text.split()``), which is the same
    value again only where nothing changes it in between (the caller's check), and so is a
    list, set or dict display or comprehension of such values (``[w for w in words if
    w.startswith(prefix)]``)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            if any(arg.star for arg in current.args):
                return False
            func = current.func
            if isinstance(func, cst.Attribute) and func.attr.value in _LITERAL_TEXT_METHODS \
                    and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)):
                pass  # (``"... {!r}".format(name)``, ``", ".join(names)``: a text built from the arguments)
            elif isinstance(func, cst.Attribute) and (func.attr.value in TEXT_METHODS or func.attr.value in FRESH_METHODS):
                if func.attr.value in FRESH_METHODS and not fresh:
                    return False
                stack.append(func.value)
            else:
                name = dotted(func)
                if name not in PURE_BUILTINS or (name in MUTABLE_RESULTS and not fresh):
                    return False
            stack.extend(arg.value for arg in current.args)
            continue
        if isinstance(current, cst.BaseExpression) and not isinstance(current, _PURE_NODES) \
                and not (fresh and isinstance(current, _FRESH_NODES)):
            return False
        if isinstance(current, cst.Attribute):
            stack.append(current.value)
            continue
        stack.extend(child_nodes(current))
    return True
