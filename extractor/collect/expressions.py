"""Guard expressions: libcst expressions -> one-line code over inputs, with once-assigned locals inlined.

``ExprModel.atom`` is what the guard model uses for every leaf of a condition: it inlines
locals that ``Scope`` says are assigned once, renders the result on one line and records
the inputs, opaque names, opaque calls and module constants the expression reads.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import libcst as cst

from .scope import MAX_INLINE_DEPTH, PURE_BUILTINS, Refs, Scope, child_nodes, dotted, raw_code, strip_parens, target_names

_ATOMIC = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
    cst.FormattedString, cst.Integer, cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)
_GET_ARGS = frozenset({"get_args", "typing.get_args", "t.get_args", "typing_extensions.get_args"})
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap ``node`` in parentheses unless it is atomic or already wrapped."""
    if isinstance(node, _ATOMIC) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _bound_inside(node: cst.CSTNode) -> set[str]:
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


class _Inliner(cst.CSTTransformer):
    def __init__(self, model: "ExprModel", depth: int, bound: set[str]) -> None:
        super().__init__()
        self.model = model
        self.depth = depth
        self.bound = bound
        self.skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:  # noqa: N802 (libcst API)
        self.skip.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:  # noqa: N802
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:  # noqa: N802
        members = self.model.alias_args(original_node, self.bound)
        return updated_node if members is None else cst.parse_expression(members)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:  # noqa: N802
        name = original_node.value
        if id(original_node) in self.skip or name in self.bound or self.depth >= MAX_INLINE_DEPTH:
            return updated_node
        default = self.model.scope.defaults.get(name)
        if default is not None:  # (the fresh names inside are not visited again)
            test = cst.Comparison(left=cst.Name(name), comparisons=[cst.ComparisonTarget(operator=cst.Is(), comparator=cst.Name("None"))])
            chosen = cst.IfExp(test=test, body=parenthesize(self.model.inline(default, self.depth + 1)), orelse=cst.Name(name))
            return chosen.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        value = self.model.scope.inline_value(name)
        if value is None:
            return updated_node
        return parenthesize(self.model.inline(value, self.depth + 1))


class ExprModel:
    """Renders the expressions of one guard and remembers what they read."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.by_code: dict[str, Refs] = {}

    def inline(self, node: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        if not self._has_inlinable(node):
            return node
        return node.visit(_Inliner(self, depth, _bound_inside(node)))

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
            if isinstance(current, cst.Name) and (self.scope.inline_value(current.value) is not None or current.value in self.scope.defaults):
                return True
            if isinstance(current, cst.Call) and self.alias_args(current) is not None:
                return True
            stack.extend(child_nodes(current))
        return False

    def atom(self, node: cst.BaseExpression) -> str:
        """One-line code of ``node`` with once-assigned locals inlined; records its references."""
        inlined = self.inline(node)
        # Outer parentheses go only where they cannot matter: around atoms.
        code = raw_code(strip_parens(inlined) if isinstance(inlined, _ATOMIC) else inlined)
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
        bound = _bound_inside(node)
        stack: list[cst.CSTNode] = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Name, cst.Attribute)):
                chain = dotted(current)
                if chain is not None:
                    root = chain.split(".")[0]
                    if root not in bound:
                        self._ref(root, chain, refs)
                    continue
                stack.append(current.value)  # type: ignore[union-attr]
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
        category = self.scope.classify(root)
        if chain in PURE_BUILTINS and category == "builtin":
            return
        refs.calls[raw_code(call)] = None
        if "." in chain and category in ("input", "opaque"):
            self._ref(root, chain.rsplit(".", 1)[0], refs)

    def _ref(self, root: str, chain: str, refs: Refs) -> None:
        category = self.scope.classify(root)
        if category == "input":
            refs.inputs[chain] = None
        elif category == "opaque":
            refs.opaque[root] = None
        elif category == "constant":
            refs.constants[root] = self.scope.module.values[root]
        else:  # sentinel, named, builtin: never a value a trigger sets
            refs.named[chain] = "unknown" if category == "named" else category
