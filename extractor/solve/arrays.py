"""Array attributes by convention: ``x.shape``, ``x.ndim`` and ``x.is_cuda`` of a value the
tree does not define (a torch tensor, a numpy or jax array) mean what those libraries give
them: a shape is a sequence of sizes (ints >= 0), ``ndim`` is its length, an ``is_*`` flag
is a bool. The solver tries such values only (``conventional_domain``, a search domain: the
card's published domains stay what the tree declares), and a trigger whose values no array
has together (``x.ndim = 3`` beside ``x.shape = []``) is made coherent where the guard allows
(``cohere``), else not verified (``incoherent_arrays``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ..model import Constraint, Domain

_FLAGS = (".is_cuda", ".is_cpu", ".is_sparse", ".is_meta", ".is_quantized", ".requires_grad")


def conventional_domain(name: str, domain: Domain) -> Domain:
    """The domain the search gives an input the tree declares nothing about, by its last name."""
    if domain.types or domain.choices is not None or domain.constraints:
        return domain
    if name.endswith(".shape"):
        return replace(domain, types=("list",))  # (a tuple too: domains._type_ok)
    if name.endswith(".ndim"):
        return replace(domain, types=("int",), constraints=(Constraint(name="ge", value="0"),))
    if name.endswith(_FLAGS):
        return replace(domain, types=("bool",))
    return domain


def incoherent_arrays(values: Mapping[str, Any]) -> list[str]:
    """The arrays (``x`` of ``x.shape``) whose values here no array has: a shape that is no
    sequence of sizes, a negative ``ndim``, an ``ndim`` other than its shape's length, a
    ``dtype`` that is a number, a bool, None or a sequence (``a.dtype = 0`` beside
    ``b.dtype = 1``, where the guard only compares the two: no dtype is either)."""
    bad: set[str] = set()
    for name, value in values.items():
        base, _, attribute = name.rpartition(".")
        if base and attribute == "dtype" and (value is None or isinstance(value, (int, float, list, tuple))):
            bad.add(base)
        if not base or attribute not in ("shape", "ndim"):
            continue
        if attribute == "ndim":
            if type(value) is not int or value < 0:
                bad.add(base)
            continue
        is_sizes = isinstance(value, (list, tuple)) and all(type(size) is int and size >= 0 for size in value)
        if not is_sizes or (f"{base}.ndim" in values and values[f"{base}.ndim"] != len(value)):
            bad.add(base)
    return sorted(bad)


def cohere(values: dict[str, Any], holds: Callable[[dict[str, Any]], bool | None]) -> dict[str, Any]:
    """``values`` with the arrays' shapes made ones arrays have, where the guard still holds
    under the result (the search sets a shape, its sizes and ``ndim`` apart): a negative size
    ``n`` becomes ``-n + 1``, a shape that is no sequence (a value only the message reads) an
    empty one, and the sizes are cut, or padded with 1 after or before them, to ``ndim``
    (``x.ndim = 3`` beside ``x.shape = []`` gives ``x.shape = [1, 1, 1]``). All shapes at
    once first (``v.shape == k.shape``), then each alone."""
    options = {name: _coherent(values, name) for name in sorted(values) if name.rpartition(".")[0] and name.endswith(".shape")}
    options = {name: found for name, found in options.items() if found}
    together = {**values, **{name: found[0] for name, found in options.items()}}
    if options and holds(together) is True:
        return together
    out = dict(values)
    for name, found in options.items():
        for shape in found:
            if holds(trial := {**out, name: shape}) is True:
                out = trial
                break
    return out


def _coherent(values: Mapping[str, Any], name: str) -> list[Any]:
    """Shapes an array has, near ``values[name]``, that differ from it (none where it is one)."""
    shape, ndim = values[name], values.get(name.removesuffix("shape") + "ndim")
    sizes = [size if size >= 0 else 1 - size for size in shape if type(size) is int] if isinstance(shape, (list, tuple)) else []
    kind = type(shape) if isinstance(shape, (list, tuple)) else tuple
    found = [sizes]
    if type(ndim) is int and 0 <= ndim <= 8 and len(sizes) != ndim:
        pad = [1] * max(ndim - len(sizes), 0)
        found = [sizes[:ndim] + pad, pad + sizes[len(sizes) - ndim:] if len(sizes) > ndim else pad + sizes]
    return [kind(s) for s in found if kind(s) != shape]
