"""Derived candidates: the value one conjunct fixes for a variable, given the others' values.

A guard such as ``k.shape == q.shape and v.shape == (q.shape[0], 4)`` is true only where
``k.shape`` is whatever ``q.shape`` is: no list of candidates fixed in advance holds that value
(the seeds are literals). The search (solve.search) tries such a value first at the variable's
level, computed from the values the earlier levels gave (a ``Binder``): an equality of the
variable, bare or as ``tuple(x)``/``list(x)``, with an expression of other variables. An
array's ``ndim`` is its shape's length (solve.arrays): where a guard reads both, each is
derived from the other, and the search pairs them only so (``coherence``): a shape's
candidates are cut or padded to the ``ndim`` tried, as solve.arrays.cohere mends a trigger.

A derived value is one more candidate, tested by every conjunct as any other: it never makes
the search accept an assignment the guard does not hold under, and it is tried only where the
variable's search domain admits it (a shape: a tuple of sizes, ints of at least 0).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..collect.declarations import dotted_name
from .arrays import owns, shapes_near
from .domains import NO_VALUE, admits
from .problem import Problem, conjuncts, constant_value
from .values import Modelled

_Env = Mapping[str, Any]
_SAME = frozenset({"tuple", "list"})  # (``tuple(q.shape) == (n, 4)``: the shape is that tuple)


@dataclass(frozen=True, slots=True)
class Binder:
    """``target``'s values where ``reads`` (other variables) have theirs: ``values(env)``, best first."""

    target: str
    reads: frozenset[str]
    values: Callable[[_Env], list[Any]]


def binders(problem: Problem, words: Callable[[str], set[str]]) -> list[Binder]:
    """The binders of the guard's conjuncts (``x == expr``, ``expr == x``) and of its arrays'
    coherence (``x.ndim`` from ``x.shape`` and back). ``words(code)``: the variables ``code`` reads."""
    found = [binder for part in conjuncts(problem.tree) for binder in equalities(part, problem, words)]
    return [*_coherence_binders(problem), *found]


def equalities(test: ast.expr, problem: Problem, words: Callable[[str], set[str]],
               op: type[ast.cmpop] = ast.Eq) -> list[Binder]:
    """The binders of one comparison ``x <op> expr`` (or ``expr <op> x``): ``op`` ``Eq`` for a
    test to make true, ``NotEq`` for one a fix makes false (``v.shape != (q.shape[0], 4)``)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op)):
        return []
    found = []
    for side, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        target = _target(side, problem)
        reads = words(ast.unparse(other)) & set(problem.variables)
        if target is None or target in reads or not reads:
            continue  # (a side of constants is a seed already; ``v.shape == (1, v.shape[-1])`` fixes nothing)
        found.append(Binder(target, frozenset(reads), _evaluator(other, target, problem)))
    return found


def _target(node: ast.expr, problem: Problem) -> str | None:
    if isinstance(node, ast.Call) and dotted_name(node.func) in _SAME and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    name = dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return name if name in problem.variables else None


def _evaluator(node: ast.expr, target: str, problem: Problem) -> Callable[[_Env], list[Any]]:
    domain = problem.variables[target].domain
    shape = target.endswith(".shape")

    def values(env: _Env) -> list[Any]:
        found = constant_value(node, env)
        if found is NO_VALUE or shape and not _sizes(found) or not admits(domain, found):
            return []
        return [found]

    return values


def _sizes(value: Any) -> bool:
    """A tuple of array sizes (ints of at least 0): a shape as ``torch.Size`` compares equal to one."""
    return isinstance(value, tuple) and all(type(size) is int and size >= 0 for size in value)


def _arrays(problem: Problem) -> list[str]:
    """The arrays (``x`` of ``x.shape``) whose ``shape`` and ``ndim`` are both variables."""
    return sorted(name[: -len(".shape")] for name in problem.variables
                  if name.endswith(".shape") and f"{name[: -len('.shape')]}.ndim" in problem.variables)


def _fixed_attributes(problem: Problem) -> list[tuple[str, str]]:
    """``(x, x.itemsize)``: each variable that is an attribute of another variable some of whose
    candidates are library values with attributes of their own (a dtype, a device, a path)."""
    found = []
    for name in sorted(problem.variables):
        base, _, attribute = name.rpartition(".")
        if base in problem.variables and any(isinstance(c, Modelled) and c.fixed for c in problem.variables[base].candidates):
            found.append((base, attribute))
    return found


def _own_attribute(base: str, attribute: str) -> Callable[[_Env], list[Any]]:
    """``x.itemsize`` where ``x`` is ``torch.int8``: 1, the dtype's own."""
    def values(env: _Env) -> list[Any]:
        value = env.get(base)
        return [dict(value.attributes)[attribute]] if isinstance(value, Modelled) and value.fixed \
            and attribute in dict(value.attributes) else []
    return values


def _owns(env: Mapping[str, Any], *, base: str, attribute: str) -> bool:
    """False where ``base`` is a library value with attributes of its own and the values give
    ``attribute`` one it does not have (``torch.float32`` beside ``itemsize = 1``), or one its
    model does not give: no such value is known to have it."""
    value, name = env.get(base), f"{base}.{attribute}"
    return not (isinstance(value, Modelled) and value.fixed) or name not in env or owns(value, attribute, env[name])


def _coherence_binders(problem: Problem) -> list[Binder]:
    """``x.ndim`` from ``x.shape`` (its length), and ``x.shape`` from ``x.ndim``: that many sizes
    of 1, then each of the shape's own candidates cut or padded to that many (``[0]`` -> ``(1, 0)``);
    an attribute of a dtype, a device or a path from the value (``x.itemsize`` of ``torch.int8``)."""
    found = [Binder(f"{base}.{attribute}", frozenset({base}), _own_attribute(base, attribute))
             for base, attribute in _fixed_attributes(problem)]
    for base in _arrays(problem):
        shape, ndim = f"{base}.shape", f"{base}.ndim"
        found.append(Binder(ndim, frozenset({shape}), _length_of(shape)))
        found.append(Binder(shape, frozenset({ndim}), _shapes_of(ndim, problem.variables[shape].candidates)))
    return found


def _length_of(shape: str) -> Callable[[_Env], list[Any]]:
    def values(env: _Env) -> list[Any]:
        sizes = env.get(shape)
        return [len(sizes)] if isinstance(sizes, tuple) and _sizes(sizes) else []
    return values


def _shapes_of(ndim: str, pool: list[Any]) -> Callable[[_Env], list[Any]]:
    def values(env: _Env) -> list[Any]:
        count = env.get(ndim)
        if type(count) is not int or not 0 <= count <= _MAX_NDIM:
            return []
        near = [tuple(s) for c in pool if isinstance(c, (list, tuple)) for s in ([c] if len(c) == count else shapes_near(c, count))]
        return [(1,) * count, *(s for s in near if len(s) == count and _sizes(s))]
    return values


_MAX_NDIM = 8  # (solve.arrays folds no array of more dimensions)


def coherence(problem: Problem) -> list[tuple[Callable[[dict[str, Any]], bool | None], set[str]]]:
    """A test per array whose ``shape`` and ``ndim`` the guard both reads: false only where
    both are set and the shape's length is not ``ndim`` (no array has them together); one
    per array read whole beside its ``shape`` or ``ndim`` (``x.stride(1) != x.shape[2]``):
    false where the tensor given is one no example rebuilds with them (``_buildable``); and one
    per attribute of a dtype, a device or a path the guard reads beside it (``_owns``)."""
    tests: list[tuple[Callable[[dict[str, Any]], bool | None], set[str]]] = []
    for base in _arrays(problem):
        shape, ndim = f"{base}.shape", f"{base}.ndim"

        def coherent(env: dict[str, Any], s: str = shape, n: str = ndim) -> bool:
            sizes, count = env.get(s), env.get(n)
            return not (isinstance(sizes, (tuple, list)) and type(count) is int and len(sizes) != count)

        tests.append((coherent, {shape, ndim}))
    for base in sorted(n for n in problem.variables if f"{n}.shape" in problem.variables or f"{n}.ndim" in problem.variables):
        attributes = {f"{base}.{a}" for a in ("shape", "ndim") if f"{base}.{a}" in problem.variables}
        tests.append((functools.partial(_buildable, base=base), {base, *attributes}))
    for base, attribute in _fixed_attributes(problem):
        tests.append((functools.partial(_owns, base=base, attribute=attribute), {base, f"{base}.{attribute}"}))
    return tests


def _buildable(env: Mapping[str, Any], *, base: str) -> bool:
    """False where ``base`` is a tensor of its one shape (a transpose, ``torch.empty(3, 2).t()``)
    and the values give it another shape or ``ndim``: no example builds it with them (arrays.fold_arrays)."""
    value = env.get(base)
    if not (isinstance(value, Modelled) and value.is_array and value.code.endswith(".t()")):
        return True
    own = tuple(value.attribute("shape"))
    shape, ndim = env.get(f"{base}.shape"), env.get(f"{base}.ndim")
    return (not isinstance(shape, (list, tuple)) or tuple(shape) == own) and (type(ndim) is not int or ndim == len(own))
