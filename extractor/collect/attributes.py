"""Stored attributes: ``self.x = v`` in a function, then ``self.x`` read later in it.

A parameter's attribute that the function itself stores (``self.method = runner.config.method``)
is, after the store, the value stored, not what the caller passed: the reaching walk
(``reaching.Reaching``) follows it as it follows a local, keyed by its dotted name. A call
may store it again behind the walk's back: ``Stores`` says which calls may (a method of the
class that stores it, a call given the object); after one, the attribute holds a value no
expression gives.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping

import libcst as cst

from .scope import PURE_BUILTINS, child_nodes, dotted
from .units import WAITS


def attribute_targets(target: cst.BaseExpression) -> Iterator[str]:
    """The dotted names (``self.x``, ``cfg.a.b``) an assignment target stores to: its attribute
    chains on a name, through tuples, lists and stars (not subscripts: ``self.x[0] = v`` changes
    the object ``self.x`` holds, not which object it is)."""
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            chain = dotted(node)
            if chain is not None:
                yield chain
        elif isinstance(node, (cst.Tuple, cst.List)):
            stack.extend(e.value for e in node.elements)
        elif isinstance(node, cst.StarredElement):
            stack.append(node.value)


def target_key(node: cst.BaseExpression) -> str | None:
    """The name or dotted attribute a single target binds (``x``, ``self.x``), else None."""
    return node.value if isinstance(node, cst.Name) else dotted(node) if isinstance(node, cst.Attribute) else None


def stored_attributes(targets: Iterable[cst.BaseExpression], params: set[str], rebound: Container[str]) -> frozenset[str]:
    """The attributes the assignment ``targets`` of a function (``scope.Scope.stored_targets``)
    store that the walk follows: those on a parameter the body never rebinds."""
    found = {chain for target in targets for chain in attribute_targets(target)}
    return frozenset(chain for chain in found if (root := chain.split(".", 1)[0]) in params and root not in rebound)


def bound_reads(values: Iterable[cst.BaseExpression | None], params: set[str], rebound: Container[str]) -> frozenset[str]:
    """The attributes on a parameter the body never rebinds that the values of its local
    bindings read (``start = self._position``): the walk follows them too, so that a local
    bound to one is not read as the attribute where a call may have stored it since
    (``self._consume_until('"')`` before ``self._position - start``)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [value for value in values if value is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and (chain := dotted(node)) is not None:
            if (root := chain.split(".", 1)[0]) in params and root not in rebound:
                found.add(chain)
            continue
        if isinstance(node, cst.Call):  # (``self.items.pop()``: a method it calls is no state it reads)
            stack.extend(arg.value for arg in node.args)
            if not isinstance(node.func, (cst.Attribute, cst.Name)):
                stack.append(node.func)
            continue
        if not isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            stack.extend(child_nodes(node))
    return frozenset(found)


class Stores:
    """What a statement may store of a function's tracked attributes (``attributes``): those
    it assigns, and those its calls may assign. A method of the function's object (``owner``,
    a method's ``self``) stores the attribute names ``methods`` gives for it (what its body,
    or a method of the class it calls, stores on its object; all of them for a method the
    class does not define but may inherit, and for a method of ``super()``). Any other call
    that can reach an object stores every tracked attribute under it: a method of it
    (``self.cfg.reset()``: ``self.cfg.mode``), a call given it (``setattr(self, ...)``,
    ``helper(self.cfg)``; pure builtins aside). So does an ``await`` or ``yield`` (other code
    runs), and a call that waits for another thread (``self._condition.wait()``, ``time.sleep()``).
    A method of a class without bases that the class does not define is taken to
    store nothing; a call that reaches the object some other way (a global) is not seen."""

    def __init__(self, attributes: frozenset[str], owner: str | None = None, methods: Mapping[str, frozenset[str]] | None = None,
                 changed: frozenset[str] = frozenset()) -> None:
        self.attributes = attributes
        self.changed = changed  # plain names whose object the unit may change in place (purity.first_changes)
        self.roots = frozenset(chain.split(".", 1)[0] for chain in attributes)
        self.owner = owner
        self.methods = methods or {}

    def assigned(self, keys: Iterable[str]) -> set[str]:
        """The tracked attributes a store to ``keys`` changes: each one, and those under it
        (``self.a = v`` changes what ``self.a.b`` reads)."""
        found: set[str] = set()
        for key in keys:
            if "." in key:
                found.update(a for a in self.attributes if a == key or a.startswith(key + "."))
        return found

    def called(self, node: cst.CSTNode) -> set[str]:
        """The tracked attributes the calls in ``node`` may store (a lambda's body does not
        run where it is written); all of them at an ``await`` or ``yield``, where other code
        (a callback on the object) may run."""
        found: set[str] = set()
        if not self.attributes:
            return found
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Await, cst.Yield)) or _waits(current):
                return set(self.attributes)
            if isinstance(current, cst.Call):
                found |= self._call(current)
            if not isinstance(current, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                stack.extend(child_nodes(current))
        return found

    def _call(self, call: cst.Call) -> set[str]:
        func = call.func
        if isinstance(func, cst.Attribute) and (held := dotted(func.value)) is not None:
            if held == self.owner:
                names = self.methods.get(func.attr.value, ())
                if "*" in names:  # (units.ALL_ATTRIBUTES: a method the class may inherit)
                    return self._under(held)
                return self.assigned(f"{self.owner}.{name}" for name in names)
            if held.split(".", 1)[0] in self.roots:  # ``self.cfg.reset()`` may store ``self.cfg.mode``
                return self._under(held)
        inner = func
        while isinstance(inner, cst.Attribute):
            inner = inner.value
        if isinstance(inner, cst.Call) and dotted(inner.func) == "super" and self.owner is not None:
            return self._under(self.owner)  # a base class's method
        if dotted(func) in PURE_BUILTINS:
            return set()
        given = (dotted(a.value) for a in call.args)  # ``setattr(self, ...)``, ``reset(self.cfg)``
        return {a for chain in given if chain is not None and chain.split(".", 1)[0] in self.roots for a in self._under(chain)}

    def _under(self, chain: str) -> set[str]:
        """The tracked attributes a call given the object ``chain`` may store: those under it."""
        return {a for a in self.attributes if a.startswith(chain + ".")}


NO_STORES = Stores(frozenset())


def _waits(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in WAITS


def waits(statement: cst.CSTNode) -> bool:
    """Whether a simple statement makes a call that waits for another thread (lambdas aside)."""
    stack = [statement]
    while stack:
        current = stack.pop()
        if _waits(current):
            return True
        if not isinstance(current, cst.Lambda):
            stack.extend(child_nodes(current))
    return False
