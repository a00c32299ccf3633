"""Guard expressions: libcst expressions -> one-line code over inputs, locals replaced.

``ExprModel.atom`` is what the guard model uses for every leaf of a condition: read at the
statement ``ExprModel.at``, each local becomes the value that reaches it there
(``reaching.Reaching``); the result is rendered on one line, with the inputs, opaque names,
opaque calls and module constants it reads recorded.

``Inliner`` writes an expression with each local replaced by the value that reaches it
(``ExprModel.reaching_value``), each stored attribute by what the function stored, and each
value that cannot be shown where it stands kept as the opaque name of its binding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from typing import cast

import libcst as cst

from .attributes import Stores, bound_reads, stored_attributes
from .reaching import ENTRY, UNKNOWN, Reaching
from .scope import PURE_BUILTINS, Refs, Scope, child_nodes, dotted, raw_code, strip_parens, target_names

ATOMIC = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Integer, cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)

_GET_ARGS = frozenset({"get_args", "typing.get_args", "t.get_args", "typing_extensions.get_args"})


# An opaque name read in a guard (a local, or a value the body rebinds a parameter to) is
# written ``name`` TAG number (a valid identifier, so that libcst takes it as a name) until
# the raise it is read for is known: ``resolve`` then shows each binding of it under a name
# of its own (``ExprModel.shown_names``).
TAG = "\u01c2"  # ǂ, a letter no real name (nor, in practice, a string in a test) holds
TAGGED = re.compile(r"(?<![\w.])([^\W\d][\w.]*?)" + TAG + r"(\d+)(?!\w)")  # a name, or a stored attribute ``self.x``
WORDS = re.compile(r"[^\W\d]\w*")


def untagged(name: str) -> str:
    return name.split(TAG, 1)[0]


def resolve(code: str, shown: dict[str, str]) -> str:
    """``code`` with each tag replaced by its shown name (a tag not in ``shown``: the plain name)."""
    return TAGGED.sub(lambda match: shown.get(match.group(0), match.group(1)), code) if TAG in code else code


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap ``node`` in parentheses unless it is atomic or already wrapped."""
    if isinstance(node, ATOMIC) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def bound_inside(node: cst.CSTNode) -> set[str]:
    """Names bound by lambdas and comprehensions inside ``node``: never inlined or classified."""
    bound: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Lambda):
            params = current.params
            bound.update(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
        elif isinstance(current, cst.CompFor):
            bound.update(target_names(current.target))
        stack.extend(child_nodes(current))
    return bound


class Inliner(cst.CSTTransformer):
    def __init__(self, model: ExprModel, bound: set[str]) -> None:
        super().__init__()
        self.model = model
        self.bound = bound
        self.skip: set[int] = set()
        self.held: set[int] = set()  # names read for an attribute or called: never an optional import's value
        self.quotes: list[str] = []  # the quote of each f-string the node stands in, outermost first

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.quotes.append(node.start.lstrip("rRfFbBuU")[:1])
        return True

    def leave_FormattedString(self, original_node: cst.FormattedString, updated_node: cst.FormattedString) -> cst.BaseExpression:
        self.quotes.pop()
        return updated_node

    def fits(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` can stand in the f-strings around the node: before Python 3.12 a
        replacement field holds neither their quote nor a backslash."""
        if not self.quotes:
            return True
        code = raw_code(value)
        return "\\" not in code and not any(q in code for q in self.quotes)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        self.held.add(id(node.value))
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self.held.add(id(node.func))
        return True

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        chain = dotted(original_node) if original_node.attr.value in self.model.attribute_names else None
        if chain is None or chain not in self.model.attributes or dotted(updated_node) != chain or chain.split(".", 1)[0] in self.bound:
            return updated_node  # (an inner part already replaced: ``self.a.b`` after ``self.a = v`` reads ``v.b``)
        value = self.model.attribute_value(chain)
        if value is not None and not self.fits(value):
            return cst.parse_expression(self.model.opaque(chain))
        return updated_node if value is None else parenthesize(value)

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        """A name that stood alone as an argument takes its value without the parentheses
        ``parenthesize`` gave it: ``sorted(names - allowed)``, not ``sorted((names - allowed))``.
        Kept where they matter: after ``*``/``**``, and around a tuple, a generator, ``:=`` or ``yield``."""
        value = updated_node.value
        if isinstance(original_node.value, (cst.Name, cst.Attribute)) and value is not original_node.value and not updated_node.star \
                and len(getattr(value, "lpar", ())) == 1 and not isinstance(value, (cst.Tuple, cst.GeneratorExp, cst.NamedExpr, cst.Yield)):
            return updated_node.with_changes(value=value.with_changes(lpar=[], rpar=[]))
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        members = self.model.alias_args(original_node, self.bound)
        return updated_node if members is None else cst.parse_expression(members)

    def leave_NamedExpr(self, original_node: cst.NamedExpr, updated_node: cst.NamedExpr) -> cst.BaseExpression:
        return parenthesize(updated_node.value)  # ``(n := len(s)) > 8`` compares ``len(s)``

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        name = original_node.value
        if id(original_node) in self.skip or name in self.bound:
            return updated_node
        if id(original_node) not in self.held and (optional := self.model.optional_value(name)) is not None:
            return parenthesize(cst.parse_expression(optional))
        value = self.model.reaching_value(name)
        if value is not None and not self.fits(value):
            return updated_node.with_changes(value=self.model.opaque(name))  # (one opaque name per binding)
        if value is None:
            tagged = self.model.versioned(name)
            return updated_node if tagged is None else updated_node.with_changes(value=tagged)
        return parenthesize(value)



class ExprModel:
    """Renders the expressions of one guard and remembers what they read."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.by_code: dict[str, Refs] = {}
        self.at: cst.CSTNode | None = None  # the statement the expressions are read at
        function = scope.function
        rebound = {*scope.bindings, *scope.shared}
        self.attributes = stored_attributes(scope.stored_targets, scope.params, rebound) \
            | bound_reads((v for values in scope.bindings.values() for v in values), scope.params, rebound) \
            if function is not None else frozenset()
        self.attribute_names = {chain.rsplit(".", 1)[1] for chain in self.attributes}
        owner, methods = scope.methods or (None, None)
        stores = Stores(self.attributes, owner, methods, changed=scope.changed)
        self.reaching = Reaching(function, self.inline_at, stores, self._side_tag) if function is not None else None
        self._versions: dict[tuple[str, tuple[str, int]], int] = {}  # (local, reaching.version) -> its number
        self._reads: list[tuple[str, cst.CSTNode]] = []  # by number: the local, and the first statement it was read at
        self._keys: list[tuple[str, tuple[str, int]]] = []  # by number: its (local, reaching.version)
        self.raise_names: dict[str, str] = {}  # tag -> shown name, in the guard of the raise being read

    @contextmanager
    def located(self, at: cst.CSTNode) -> Iterator[None]:
        """Read the expressions inside the block at statement ``at``."""
        outer, self.at = self.at, at
        try:
            yield
        finally:
            self.at = outer

    def inline(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``node`` with each local replaced by the value it holds at ``self.at``."""
        if not self._has_inlinable(node):
            return node
        # (libcst's visit may return a removal sentinel; the inliner only replaces expressions)
        return cast(cst.BaseExpression, node.visit(Inliner(self, bound_inside(node))))

    def inline_at(self, node: cst.BaseExpression, at: cst.CSTNode) -> cst.BaseExpression:
        with self.located(at):
            return self.inline(node)

    def optional_value(self, name: str) -> str | None:
        """The value of a module name an optional import binds, over ``importlib.util.find_spec``
        (collect.optional); None for any other name."""
        optional = self.scope.module.optional.get(name)
        return optional if optional is not None and self.scope.classify(name) == "named" else None

    def reaching_value(self, name: str) -> cst.BaseExpression | None:
        """What local ``name`` holds at ``self.at``; None to keep the name (a parameter's argument,
        an opaque local, a module's name); a parameter rebound to a value no expression gives: its tag."""
        scope = self.scope
        if self.reaching is None or self.at is None or name not in scope.bindings:
            return None
        if name in scope.globals or name in scope.shared or name in scope.opaque_params:
            return None
        value = self.reaching.before(name, self.at)
        if value is UNKNOWN and name in scope.params:
            return cst.Name(self._tagged(name, self.at))
        if not isinstance(value, cst.BaseExpression):
            return None
        origin = self.reaching.assignment(name, self.at)
        if origin is not None and any(self.reaching.rebound_since(n, origin[1], self.at) for n in self._held_names(value, origin[1])):
            return None  # ``start = idx`` read after ``idx += 1``: ``idx`` is not what ``start`` holds
        return value

    def attribute_value(self, chain: str) -> cst.BaseExpression | None:
        """What stored attribute ``chain`` (``self.x``) holds at ``self.at``: None to keep it (the
        caller's), the value stored, or its tagged name (a call's result, or a call since)."""
        reaching, at = self.reaching, self.at
        if reaching is None or at is None:
            return None
        value = reaching.before(chain, at)
        if value is ENTRY:
            return None
        if isinstance(value, cst.BaseExpression):
            origin = reaching.assignment(chain, at)
            if origin is None or not any(reaching.rebound_since(n, origin[1], at) for n in self._held_names(value, origin[1])):
                return value
        return cst.parse_expression(self._tagged(chain, at))

    def opaque(self, name: str) -> str:
        """The tagged name of the binding of ``name`` (a local, a parameter rebound, a stored
        attribute) that ``self.at`` reads: for a value known but not shown (``Inliner.fits``)."""
        assert self.at is not None
        return self._tagged(name, self.at)

    def versioned(self, name: str) -> str | None:
        """An opaque local read at ``self.at`` as its tagged name (``name`` TAG number): a number per
        binding it holds (``Reaching.version``): two reads with a binding between are two names."""
        scope = self.scope
        if self.reaching is None or self.at is None or not scope.is_local(name) or name in scope.shared:
            return None
        return self._tagged(name, self.at)

    def is_entry_name(self, name: str) -> bool:
        """Whether ``name`` shown bare is the caller's: a parameter, an attribute the function stores."""
        return name in self.scope.params or name in self.attributes

    def _tagged(self, name: str, at: cst.CSTNode, version: tuple[str, int] | None = None) -> str:
        return f"{name}{TAG}{self._number(name, at, version)}"

    def _side_tag(self, name: str, stmt: cst.CSTNode, after: bool) -> cst.BaseExpression:  # (Reaching: a join's opaque side)
        return cst.parse_expression(self._tagged(name, stmt, ("after", id(stmt)) if after else None))

    def _number(self, name: str, at: cst.CSTNode, version: tuple[str, int] | None = None) -> int:
        """The number of the binding of ``name`` that statement ``at`` sees (or of ``version``)."""
        assert self.reaching is not None
        key = (name, version or self.reaching.version(name, at))
        number = self._versions.get(key)
        if number is None:
            number = self._versions[key] = len(self._reads)
            self._reads.append((name, at))
            self._keys.append(key)
        return number

    def boolean_names(self, shown: dict[str, str]) -> tuple[str, ...]:
        """The shown names of the tags whose binding is ``name = value`` (or ``name: T = value``)
        with a value that is a bool by its form (``is_boolean_form``)."""
        found = []
        for tag, name in shown.items():
            match = TAGGED.fullmatch(tag)
            if match is None or self.reaching is None:
                continue
            local, (kind, where) = self._keys[int(match.group(2))]
            stmt = self.reaching.statement(where) if kind == "after" else None
            value = _bound_value(stmt, local) if stmt is not None else None
            if value is not None and is_boolean_form(value, self.scope):
                found.append(name)
        return tuple(sorted(set(found)))

    def _holds_at(self, number: int, at: cst.CSTNode) -> bool:
        """Whether the value tag ``number`` stands for is what its local holds at ``at``
        (a try body's binding, read there and after the try, is one value)."""
        name, read = self._reads[number]
        assert self.reaching is not None  # (a tag is numbered only in a function: _number)
        return number == self._number(name, at) or not self.reaching.rebound_between(name, read, at)

    def shown_names(self, codes: list[str], at: cst.CSTNode, known: dict[str, str] | None = None) -> dict[str, str]:
        """Tag -> the name a reader sees, for code read on the path to statement ``at``: a
        local's own name for the value it holds at ``at``, ``name_0``, ``name_1``... for
        earlier values; a parameter's own name is its argument, so the values it is rebound
        to are ``name_1``, ``name_2``...; in order of first appearance, never a name the code
        already uses. ``known``: names already given (the guard's, for its message)."""
        shown = dict(known or {})
        taken: set[str] | None = None
        counts: dict[str, int] = {}
        for code in codes:
            for match in TAGGED.finditer(code):
                tag, base = match.group(0), match.group(1)
                if tag in shown:
                    continue
                rebound = self.is_entry_name(base)  # its own name is the argument's
                if not rebound and self._holds_at(int(match.group(2)), at):
                    shown[tag] = base
                    continue
                if taken is None:
                    scope = self.scope
                    taken = {*scope.bindings, *scope.params, *scope.module.kinds, *shown.values(),
                             *(w for c in codes for w in WORDS.findall(c))}
                index = counts.get(base, 1 if rebound else 0)
                while f"{base}_{index}" in taken:
                    index += 1
                counts[base] = index + 1
                taken.add(shown.setdefault(tag, f"{base}_{index}"))
        return shown

    def named_at(self, code: str, at: cst.CSTNode, own: str | None = None) -> str:
        """``code`` (the value at the raise ``at`` of the placeholder ``own``) with its tags
        named as the raise's guard names them (``raise_names``); one the guard does not read
        gets a name of its own, which no trigger assumes a value for, except an earlier value
        of the placeholder's own local (``fn = fn.path if ... else fn``: ``fn``)."""
        if TAG not in code:
            return code
        known = dict(self.raise_names)
        if own is not None and not self.is_entry_name(own):
            known.update((m.group(0), own) for m in TAGGED.finditer(code) if m.group(1) == own and m.group(0) not in known)
        return resolve(code, self.shown_names([code], at, known))

    def plain_at(self, code: str, at: cst.CSTNode, own: str | None = None) -> str | None:
        """``code`` without tags when every local it reads holds at ``at`` the value it read
        (a message written at the raise), or is ``own``, the name whose value ``code`` is
        (``fn = fn.path if ... else fn``); None when it reads an earlier value of another."""
        if TAG not in code:
            return code
        for match in TAGGED.finditer(code):
            base = match.group(1)
            if self.is_entry_name(base) or base != own and not self._holds_at(int(match.group(2)), at):
                return None  # (a rebound parameter's own name would read as its argument)
        return resolve(code, {})

    def _held_names(self, value: cst.BaseExpression, start: cst.CSTNode) -> set[str]:
        """The names in ``value`` (as read at ``start``) that stand for what they held there:
        a parameter's name stands for its argument wherever it is read (unless it is opaque:
        rebound somewhere), the others do not."""
        scope, reaching = self.scope, self.reaching
        return {n for n in self._locals_read(value) if n in scope.globals or n in scope.shared or n in scope.opaque_params
                or reaching is None or reaching.before(n, start) != ENTRY}

    def _locals_read(self, value: cst.BaseExpression) -> set[str]:
        """The function's local names ``value`` reads as names (not attributes, keywords or
        the names of its lambdas and comprehensions)."""
        bound = bound_inside(value)
        found: set[str] = set()
        stack: list[cst.CSTNode] = [value]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Name):
                if current.value in self.scope.bindings and current.value not in bound:
                    found.add(current.value)
            elif isinstance(current, cst.Attribute):
                if self.attributes and (chain := dotted(current)) is not None and chain in self.attributes:
                    found.add(chain)
                stack.append(current.value)
            elif isinstance(current, cst.Arg):
                stack.append(current.value)
            else:
                stack.extend(child_nodes(current))
        return found

    def assignment(self, name: str) -> tuple[cst.BaseExpression, cst.CSTNode] | None:
        """The plain ``name = value`` that reaches ``self.at``, and where it stands."""
        if self.reaching_value(name) is None or self.reaching is None or self.at is None:
            return None
        return self.reaching.assignment(name, self.at)

    def alias_args(self, call: cst.Call, bound: AbstractSet[str] = frozenset()) -> str | None:
        """``get_args(Role)`` of a module-level ``Literal`` alias -> its values' code, else None."""
        if dotted(call.func) not in _GET_ARGS or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        arg = call.args[0].value
        if not isinstance(arg, cst.Name) or arg.value in bound or self.scope.classify(arg.value) != "named":
            return None
        return self.scope.module.aliases.get(arg.value)

    def _has_inlinable(self, node: cst.CSTNode) -> bool:
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Name) and (current.value in self.scope.bindings or current.value in self.scope.module.optional) \
                    or isinstance(current, cst.NamedExpr):
                return True
            if self.attributes and isinstance(current, cst.Attribute) and dotted(current) in self.attributes:
                return True
            if isinstance(current, cst.Call) and self.alias_args(current) is not None:
                return True
            stack.extend(child_nodes(current))
        return False

    def atom(self, node: cst.BaseExpression) -> str:
        """One-line code of ``node`` with once-assigned locals inlined; records its references."""
        inlined = self.inline(node)
        # Outer parentheses go only where they cannot matter: around atoms.
        code = raw_code(strip_parens(inlined) if isinstance(inlined, ATOMIC) else inlined)
        if code not in self.by_code:
            self.by_code[code] = refs = Refs()
            self.collect(inlined, refs)
        return code

    def refs_of(self, codes: list[str]) -> Refs:
        """The references of the given atoms merged, in order of first appearance."""
        merged = Refs()
        for code in codes:
            refs = self.by_code.get(code)
            if refs is None:
                continue
            merged.inputs.update(refs.inputs)
            merged.opaque.update(refs.opaque)
            merged.calls.update(refs.calls)
            merged.constants.update(refs.constants)
            merged.named.update(refs.named)
        return merged

    def collect(self, node: cst.BaseExpression, refs: Refs) -> None:
        bound = bound_inside(node)
        stack: list[cst.CSTNode] = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Name, cst.Attribute)):
                chain = dotted(current)
                if chain is not None:
                    root = chain.split(".")[0]
                    if root not in bound:
                        self._ref(*_opaque_part(root, chain), refs)
                elif isinstance(current, cst.Attribute):  # (a name is always dotted)
                    stack.append(current.value)
                continue
            if isinstance(current, cst.Call):
                self._call(current, bound, stack, refs)
                continue
            if isinstance(current, cst.Lambda):
                stack.append(current.body)
                continue
            stack.extend(reversed(current.children))  # LIFO: keep source order

    def _call(self, call: cst.Call, bound: set[str], stack: list[cst.CSTNode], refs: Refs) -> None:
        chain = dotted(call.func)
        stack.extend(reversed([arg.value for arg in call.args]))
        if chain is None:
            stack.append(call.func)
            refs.calls[raw_code(call)] = None
            return
        root = chain.split(".")[0]
        if root in bound:
            return
        root, held = _opaque_part(root, chain)
        category = "opaque" if TAG in root else self.scope.classify(root)
        if chain in PURE_BUILTINS and category == "builtin":
            return
        refs.calls[raw_code(call)] = None
        if "." in chain and category in ("input", "opaque"):
            self._ref(root, held.rsplit(".", 1)[0] if held == chain else held, refs)
        elif "." in chain and category == "constant":  # (``_NAMES.get(name)``: the dict is known)
            self._ref(root, root, refs)

    def _ref(self, root: str, chain: str, refs: Refs) -> None:
        category = "opaque" if TAG in root else self.scope.classify(root)
        if category == "input":
            refs.inputs[chain] = None
        elif category == "opaque":
            refs.opaque[root] = None
        elif category == "constant":
            refs.constants[root] = self.scope.module.values[root]
        else:  # sentinel, named, builtin: never a value a trigger sets
            refs.named[chain] = "unknown" if category == "named" else category


def _opaque_part(root: str, chain: str) -> tuple[str, str]:
    """(root, chain) of a reference; for one through a tagged stored attribute (``self.xǂ2.y``),
    that attribute is the root (``self.xǂ2``), an opaque name of its own."""
    if TAG not in chain or TAG in root:
        return root, chain
    return (held := chain[:end] if (end := chain.find(".", chain.index(TAG))) >= 0 else chain), held


# Builtins whose call gives a bool (where the name is not bound to something else).
_BOOLEAN_CALLS = frozenset({"isinstance", "issubclass", "callable", "hasattr", "bool", "all", "any"})


def is_boolean_form(value: cst.BaseExpression, scope: Scope) -> bool:
    """Whether ``value`` gives a bool whatever it reads: a comparison (one of arrays gives an
    array, which a test takes for its truth), ``not``, ``and``/``or`` of such, a call of a
    builtin predicate not rebound in the module or the function."""
    value = strip_parens(value)
    if isinstance(value, cst.Comparison) or isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
        return True
    if isinstance(value, cst.BooleanOperation):
        return is_boolean_form(value.left, scope) and is_boolean_form(value.right, scope)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        name = value.func.value
        return name in _BOOLEAN_CALLS and name not in scope.bindings and name not in scope.params and name not in scope.module.kinds
    return False


def _bound_value(stmt: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value`` (or ``name: T = value``) that ``stmt`` is (or ends a line
    of statements with), where it is one."""
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in reversed(stmt.body):
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                found = _bound_value(small, name)
                if found is not None:
                    return found
            if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
                return None
        return None
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target,
                                                                              cst.Name) and stmt.targets[0].target.value == name:
        return stmt.value
    if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name) and stmt.target.value == name:
        return stmt.value
    return None
