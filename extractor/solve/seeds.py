"""Seeds: the values worth trying for each variable of a guard.

A variable's candidates are its default, the values the guard compares it with and their
neighbours (``n > 3`` -> 3, 2, 4), values of the builtins that parse it (``int(text)`` ->
``"10"``, ``"x"``), then typical values of its declared type. A text gets texts of about as
many parts as ``len(text.split(":"))`` is compared with, with as many ``*`` as
``text.count("*")`` is, and texts a ``str`` test such as ``startswith`` or ``isdigit`` is
true and false for.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import struct
from collections.abc import Callable
from itertools import pairwise, product
from typing import Any, TypeGuard

from ..collect.declarations import dotted_name
from ..collect.syntax import walk
from ..model import Domain
from ..model.pytext import try_parse_expression
from .arrays import array_value, device_value, dtype_value, library_value, library_values, near_dtypes
from .declared import refilled, samples
from .domains import NO_VALUE, admits, choice_value, plain_types, takes_anything
from .evaluate import STR_METHODS, InstancesOf
from .problem import Problem, Variable, constant_value, variable_of
from .values import Modelled, Named, StableFrozenSet, StableSet, stable

MAX_WITNESS_LENGTH = 4096  # a longer string or list would not be a readable trigger


def comparison_seeds(problem: Problem) -> dict[str, list[Any]]:
    """Values each variable is compared with (constants, and other variables' candidates)."""
    seeds: dict[str, list[Any]] = {}
    # Against an expression over other variables, seed with its value at their defaults.
    envs = (dict(problem.constants), problem.env({}))
    for node in walk(problem.tree):
        seed = _SEEDERS.get(type(node))
        if seed is not None:
            seed(node, problem, envs, seeds)
    seed_text_mixes(problem.tree, problem, seeds)
    _seed_looped_keys(problem, seeds)
    _seed_integrality(problem, seeds)
    _seed_remainders(problem, envs[0], seeds)
    for name in problem.variables:
        if name.endswith(".shape"):  # (solve.arrays) shapes whose slices and sizes differ
            seeds.setdefault(name, []).extend(_SHAPES)
    _merge_items(seeds)
    _merge_bits(seeds)
    _fit_lengths(seeds, problem)
    _merge_keys(seeds, problem)
    _add_sized_tuples(seeds)
    _share_models(seeds)
    return seeds


# The environments seeds are computed in: the module constants, and those with every default.
_Envs = tuple[dict[str, Any], dict[str, Any]]


def _seed_call(node: ast.Call, problem: Problem, envs: _Envs, seeds: dict[str, list[Any]]) -> None:
    """``int(text)``, ``config.get("mode")``, ``isinstance(m, Mapping)``, ``text.isdigit()``."""
    parses = _ARGUMENT_SEEDS.get(dotted_name(node.func) or "")
    if parses is not None and (len(node.args) == 1 or dotted_name(node.func) == "int" and len(node.args) == 2):  # (``int(text, 10)``)
        name, _ = variable_of(node.args[0], problem)
        if name is not None:
            seeds.setdefault(name, []).extend(parses)
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        _seed_mapping(func.value, node.args[0].value, problem, seeds)
    if isinstance(func, ast.Attribute) and func.attr == "get" and node.args:
        _seed_lookup(func.value, node.args[0], problem, envs[0], seeds)
        if (read := _mapping_read(node, problem)) is not None and len(read[1]) > 1:  # (a key of a mapping read there)
            seeds.setdefault(_KEYS + read[0], []).append((read[1], NO_VALUE))
    if dotted_name(func) == "isinstance" and len(node.args) == 2:
        _seed_instances(node, problem, envs[0], seeds)
    if isinstance(func, ast.Attribute) and func.attr in STR_TESTS:
        seed_str_test(node, problem, envs[0], seeds)
    if dotted_name(func) == "struct.unpack" and len(node.args) == 2:
        _seed_packed(node.args[0], node.args[1], problem, seeds)
    if isinstance(func, ast.Attribute) and func.attr == "count" and len(node.args) == 1 and not node.keywords:
        _seed_counted(func.value, node.args[0], problem, envs[0], seeds)
    if isinstance(func, ast.Attribute) and func.attr in _DTYPE_METHODS and not node.args and not node.keywords:
        _seed_element_kinds(func.value, problem, seeds)


_DTYPE_METHODS = frozenset({"element_size", "is_floating_point"})
_OTHER_DTYPES = ("torch.int8", "torch.float16", "torch.float64", "torch.int64")


def _seed_element_kinds(tensor: ast.expr, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``w.element_size() < 2``, ``not x.is_floating_point()`` of a tensor: tensors of other
    dtypes, one of each size in bytes and kind (``torch.empty(2, 3, dtype=torch.int8)``)."""
    name, _ = variable_of(tensor, problem)
    model = library_value(problem.variables[name].domain.annotation) if name is not None else None
    if name is None or model is None or model.kind != "Tensor":
        return
    seeds.setdefault(name, []).extend(array_value("torch", dtype=dtype) for code in _OTHER_DTYPES if (dtype := dtype_value(code)))


def _seed_counted(sequence: ast.expr, item: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``custom_ops.count("all")`` of a list: a list holding the item once (a text's counts are ``seed_text_mixes``')."""
    name, _ = variable_of(sequence, problem)
    value = constant_value(item, env)
    types = problem.variables[name].domain.types if name is not None else ()
    if name is not None and value is not NO_VALUE and ("list" in types or "tuple" in types):
        seeds.setdefault(name, []).append([value] if "list" in types else (value,))


def _seed_packed(fmt: ast.expr, data: ast.expr, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``struct.unpack(">l", data)``: ``data`` of the format's size, in zero bytes (b'\\x00\\x00\\x00\\x00')."""
    name, _ = variable_of(data, problem)
    if name is None or not (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str)):
        return
    try:
        size = struct.calcsize(fmt.value)
    except struct.error:
        return
    if size <= MAX_WITNESS_LENGTH:
        seeds.setdefault(name, []).append(b"\x00" * size)


def _seed_mapping(mapping: ast.expr, key: str, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``config.get("mode")``: a mapping without the key, and with it."""
    name, _ = variable_of(mapping, problem)
    if name is not None and _may_be_dict(problem, name):
        seeds.setdefault(name, []).extend([{}, {key: 0}, {key: "x"}])
        seeds.setdefault(_KEYS + name, []).append(((key,), NO_VALUE))


def _seed_looped_keys(problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``any(data.get(k) for k in ["a", "b"])``: each literal key of the loop, as ``data.get("a")`` would."""
    for node in walk(problem.tree):
        if not isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) or len(node.generators) != 1:
            continue
        generator = node.generators[0]
        keys = generator.iter.elts if isinstance(generator.iter, (ast.List, ast.Tuple, ast.Set)) else []
        texts = [k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if not (isinstance(generator.target, ast.Name) and texts and len(texts) == len(keys)):
            continue
        for read in walk(node.elt):
            if isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr == "get" and read.args \
                    and isinstance(read.args[0], ast.Name) and read.args[0].id == generator.target.id:
                for text in texts:
                    _seed_mapping(read.func.value, text, problem, seeds)


def _seed_lookup(mapping: ast.expr, key: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``NAMES.get(name)`` of a constant mapping: ``name`` at its keys and next to them, as for ``name in NAMES``."""
    name, _ = variable_of(key, problem)
    value = constant_value(mapping, env)
    if name is not None and isinstance(value, dict):
        _seed_compared(seeds, problem, name, value, is_len=False, is_member=True)


def _may_be_dict(problem: Problem, name: str) -> bool:
    """Whether the variable's declared types, if any, take a dict."""
    types = problem.variables[name].domain.types
    return not types or "dict" in types


def _mapping_read(node: ast.expr, problem: Problem) -> tuple[str, tuple[str, ...]] | None:
    """``config.get("mode")`` or ``config["mode"]`` of a mapping variable: (the variable, the
    path of keys: ``("mode",)``), also of a mapping read there (``data["tool_choice"].get("function")``:
    ``("tool_choice", "function")``); else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        mapping, key = node.func.value, node.args[0]
    elif isinstance(node, ast.Subscript):
        mapping, key = node.value, node.slice
    else:
        return None
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    name, _ = variable_of(mapping, problem)
    if name is not None:
        return name, (key.value,)
    outer = _mapping_read(mapping, problem)
    return (outer[0], (*outer[1], key.value)) if outer is not None and len(outer[1]) < _MAX_DEPTH else None


_MAX_DEPTH = 3  # keys of nested mappings followed


def _seed_key(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]],
              is_member: bool, is_left: bool) -> None:
    """The keys a comparison reads of a mapping variable, each with the values it is compared
    with: ``data.get("k") == []``, ``data["k"] not in ["auto", "required"]``, ``"k" in data``."""
    value = constant_value(other, env)
    read = _mapping_read(side, problem)
    if read is not None and value is not NO_VALUE:
        items = list(value) if is_member and is_left and isinstance(value, (tuple, list)) else _near(value) if not is_member else []
        seeds.setdefault(_KEYS + read[0], []).extend((read[1], item) for item in items)
    elif is_member and not is_left and isinstance(value, str):
        name, _ = variable_of(side, problem)
        if name is not None and _may_be_dict(problem, name):
            seeds.setdefault(_KEYS + name, []).append(((value,), _TESTED))
        elif (inner := _mapping_read(side, problem)) is not None:  # (``"name" in data["tool_choice"]``)
            seeds.setdefault(_KEYS + inner[0], []).append(((*inner[1], value), _TESTED))


def _near(value: Any) -> list[Any]:
    """A value a key is compared with, and a number's neighbours (``config["size"] <= 0``: 1 too)."""
    return _neighbours(value) if type(value) in (int, float) else [value]


def _seed_item_kinds(read: tuple[str, tuple[str, ...]], kinds: list[str], seeds: dict[str, list[Any]]) -> None:
    """``isinstance(config["flag"], bool)``: the key at a value of each tested builtin type and
    at one of none of them."""
    values = [_FRESH[kind] for kind in kinds]
    other = next((v for v in (0, "", None) if not any(isinstance(v, type(f)) for f in values)), NO_VALUE)
    seeds.setdefault(_KEYS + read[0], []).extend((read[1], v) for v in [*values, other] if v is not NO_VALUE)


def _merge_keys(seeds: dict[str, list[Any]], problem: Problem) -> None:
    """Mappings over every key the guard reads of one (``data.get("a") and not data.get("b")``):
    each key absent, at a value it is compared with (``data.get("max_tokens") == 0``: 0, not False),
    true or false, or a value of the mapping's declared value type (``dict[str, list[int]]``: ``[1]``),
    in every combination (fewest keys first, at most ``_MAX_KEYED``), after the one-key mappings
    ``_seed_mapping`` gives. A variable only tested with ``in`` gets none unless it is declared
    or tested to be a dict: ``"b" in mode`` may test a text."""
    for marker in [k for k in seeds if k.startswith(_KEYS)]:
        reads, name = seeds.pop(marker), marker.removeprefix(_KEYS)
        is_dict = any(t in _MAPPINGS for t in problem.variables[name].domain.types) or "dict" in seeds.get(_KINDS + name, [])
        if not is_dict and all(value is _TESTED for _, value in reads):
            continue
        # (``dict[str, list[int]]``: a key's value of the declared type, ``[1]``, which True is not)
        typed = [next(iter(s.values())) for s in samples(problem.variables[name].domain.annotation) if isinstance(s, dict) and s][:1]
        seeds.setdefault(name, []).extend(_keyed(reads, typed, _MAX_KEYED))


def _keyed(reads: list[tuple[tuple[str, ...], Any]], typed: list[Any], limit: int) -> list[dict[str, Any]]:
    """Mappings over the keys ``reads`` give (a path of keys, a value compared with), each key
    absent or at one of its options (``_key_options``), fewest keys first, at most ``limit``."""
    options = _key_options(reads, typed)
    keys = list(options)[:_MAX_KEYS]
    return [{k: options[k][i] for k, i in zip(keys, combo) if i} for combo in _fewest_first([len(options[k]) for k in keys], limit)]


def _fewest_first(sizes: list[int], limit: int) -> list[tuple[int, ...]]:
    """The first ``limit`` index tuples over ``sizes`` (0: the key absent), fewest non-zero
    first, then in order: ``sorted(product(...))`` by that key, without building the product
    (six keys of 15 options each would be 11 million tuples)."""
    found: list[tuple[int, ...]] = []
    settable = [sum(1 for n in sizes[i:] if n > 1) for i in range(len(sizes) + 1)]

    def extend(prefix: tuple[int, ...], need: int) -> None:
        i = len(prefix)
        if len(found) >= limit or need > settable[i]:
            return
        if i == len(sizes):
            found.append(prefix)
            return
        extend((*prefix, 0), need)
        for index in range(1, sizes[i]) if need else ():
            extend((*prefix, index), need - 1)

    for count in range(len(sizes) + 1):
        extend((), count)
    return found


def _key_options(reads: list[tuple[tuple[str, ...], Any]], typed: list[Any]) -> dict[str, list[Any]]:
    """Per key: absent (NO_VALUE), a value of the declared type, the values it is compared with,
    the mappings over the keys read of it in turn (``data["tool_choice"].get("function")``:
    ``{}``, ``{'function': {}}``, ...), True and False."""
    options: dict[str, list[Any]] = {}
    nested: dict[str, list[tuple[tuple[str, ...], Any]]] = {}
    for (key, *rest), value in reads:
        known = options.setdefault(key, [NO_VALUE, *typed])
        if rest:
            nested.setdefault(key, []).append((tuple(rest), value))
        elif value is not NO_VALUE and value is not _TESTED and all(type(v) is not type(value) or v != value for v in known[1:]):
            known.append(value)
    for key, inner in nested.items():
        options[key].extend(m for m in _keyed(inner, [], _MAX_NESTED) if all(type(v) is not dict or v != m for v in options[key][1:]))
    for known in options.values():
        known.extend(v for v in (True, False) if all(type(k) is not bool or k != v for k in known[1:]))
    return options


_MAX_KEYS = 6  # keys of one mapping combined
_TESTED = object()  # a key only tested with ``in``
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})
_MAX_KEYED = 256  # mappings over them tried
_MAX_NESTED = 12  # mappings tried as one key's value (``data["tool_choice"]``)


def _seed_subscript(node: ast.Subscript, problem: Problem, envs: _Envs, seeds: dict[str, list[Any]]) -> None:
    """``mapping[key]`` of an untyped variable: a mapping, empty and not."""
    if isinstance(node.slice, ast.Slice):
        return
    name, _ = variable_of(node.value, problem)
    if name is not None and not problem.variables[name].domain.types:
        seeds.setdefault(name, []).extend([{}, {"x": 0}])
    if (read := _mapping_read(node, problem)) is not None:
        seeds.setdefault(_KEYS + read[0], []).append((read[1], NO_VALUE))


def _seed_compare(node: ast.Compare, problem: Problem, envs: _Envs, seeds: dict[str, list[Any]]) -> None:
    _seed_comparison(node, problem, envs, seeds)
    seed_split_count(node, problem, envs[0], seeds)


def _merge_items(seeds: dict[str, list[Any]]) -> None:
    """Each variable's compared items (``_ITEMS``), all at their k-th neighbour at once."""
    for key in [k for k in seeds if k.startswith(_ITEMS)]:
        items = seeds.pop(key)
        size = max(s for _, s, _ in items)
        name = key.removeprefix(_ITEMS)
        for fill, k in product(_fillers(name), range(3)):
            merged: list[Any] = [fill] * size
            for index, _, near in items:
                merged[index] = near[k % len(near)]
            seeds[name].append(merged)


def _seed_bits(node: ast.BinOp, problem: Problem, envs: _Envs, seeds: dict[str, list[Any]]) -> None:
    """``flags & GIFT``: ``flags`` with that bit set (and, at the end, with every bit the guard tests: ``_merge_bits``)."""
    if not isinstance(node.op, ast.BitAnd):
        return
    for side, other in ((node.left, node.right), (node.right, node.left)):
        name, _ = variable_of(side, problem)
        value = constant_value(other, envs[0])
        if name is not None and type(value) is int and value > 0:
            seeds.setdefault(name, []).append(value)
            seeds.setdefault(_BITS + name, []).append(value)


def _merge_bits(seeds: dict[str, list[Any]]) -> None:
    """Each variable's tested bits (``_BITS``), all set at once: ``flags & GIFT and flags & RUSH`` -> ``GIFT | RUSH``."""
    for key in [k for k in seeds if k.startswith(_BITS)]:
        bits = seeds.pop(key)
        if len(bits) > 1:
            seeds[key.removeprefix(_BITS)].append(functools.reduce(operator.or_, bits))


def _fit_lengths(seeds: dict[str, list[Any]], problem: Problem) -> None:
    """``len(xs) == 3 and any(x < 0 for x in xs)``: each one-element seed of a variable the
    guard gives a length (``[-1]``) also at that length, the element repeated (``[-1, -1, -1]``)."""
    for name in [k for k in seeds if k in problem.variables]:
        length = _declared_length(problem, name)
        if length > 1:
            seeds[name].extend(type(v)(v * length) for v in list(seeds[name]) if type(v) in (list, tuple) and len(v) == 1)


def _add_sized_tuples(seeds: dict[str, list[Any]]) -> None:
    """``isinstance(state, tuple) and len(state) != 4``: the sized lists as tuples too."""
    for key in [k for k in seeds if k.startswith(_KINDS)]:
        kinds, name = seeds.pop(key), key.removeprefix(_KINDS)
        if "tuple" in kinds and "list" not in kinds:
            seeds.setdefault(name, []).extend([tuple(v) for v in seeds.get(name, []) if type(v) is list])


# ``int(text)``: text that parses, and text that does not; ``math.isfinite(x)``: a number it is false for, and true
_ARGUMENT_SEEDS: dict[str, list[Any]] = {"int": ["10", "x"], "float": ["0.5", "x"], "complex": ["1j", "x"],
                                         **{f"math.{test}": [math.inf, math.nan, 1.0] for test in ("isfinite", "isinf", "isnan")}}
_SHAPES = [(1, 1), (1, 2), (1, 1, 1), (1, 1, 2)]  # (tuples: a shape compares equal to a tuple of sizes, as torch.Size does)
LATE = "\0late:"  # a key of ``seeds`` for a variable's values tried after its typical ones (``candidates``)
_KINDS = "\0kinds:"  # a key of ``seeds`` for the builtin types ``isinstance`` tests one variable against
_KEYS = "\0keys:"  # a key of ``seeds`` for the keys a mapping variable is read at, each with a value compared with or NO_VALUE
_BITS = "\0bits:"  # a key of ``seeds`` for the bits a guard tests of one variable (``flags & GIFT``)
_ITEMS = "\0items:"  # a key of ``seeds`` for one variable's compared items, while they are collected
_SAME = "\0same:"  # a key of ``seeds`` for the variables one variable is compared with (``k.dtype != q.dtype``)


def _share_models(seeds: dict[str, list[Any]]) -> None:
    """``k.dtype != q.dtype`` where ``q.dtype == torch.float16``: ``k.dtype`` takes the dtypes
    (and devices) ``q.dtype`` is seeded with, where its typical values hold none (a number is
    no dtype: solve.arrays.incoherent_arrays); two devices compared only with each other, the CPU one."""
    shared = {key.removeprefix(_SAME): seeds.pop(key) for key in [k for k in seeds if k.startswith(_SAME)]}
    for name, others in shared.items():
        models = [v for other in others for v in seeds.get(other, []) if isinstance(v, Modelled) and not v.is_array]
        if not models and name.endswith(".device") and all(o.endswith(".device") for o in others):
            models = [device_value()]  # (``a.device == b.device``: the CPU device every tensor built here is on)
        seeds.setdefault(name, [])[:0] = models  # (first: a number is no dtype or device)


def _seed_instances(node: ast.Call, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``isinstance(m, Mapping)``, where Mapping's plain instances are known: a value of each such type."""
    classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
    name, _ = variable_of(node.args[0], problem)
    if name is None:
        kinds = [c.id for c in classes if isinstance(c, ast.Name) and c.id in _FRESH and env.get(c.id) is None]
        if (read := _mapping_read(node.args[0], problem)) is not None and kinds and len(kinds) == len(classes):
            _seed_item_kinds(read, kinds, seeds)
        return
    for cls in classes:
        bound = env.get(dotted_name(cls) or "")
        if isinstance(cls, ast.Name) and cls.id in _FRESH and bound is None:
            # ``isinstance(state, tuple)``: ``()``, tried after the typical values (which hold no tuple)
            seeds.setdefault(LATE + name, []).append(_FRESH[cls.id])
            seeds.setdefault(_KINDS + name, []).append(cls.id)
        if isinstance(bound, InstancesOf):
            seeds.setdefault(name, []).extend(stable(kind()) for kind in bound.types)  # (fresh: 0, "", [], {}, ...)
        elif bound is None and (arrays := library_values(dotted_name(cls))) and arrays[0].is_array:
            seeds.setdefault(name, []).extend(arrays)  # (``isinstance(x, torch.Tensor)``: ``torch.empty(2, 3)``)


_FRESH = {"int": 0, "float": 0.0, "str": "", "bytes": b"", "bool": False, "list": [], "tuple": (), "dict": {}}


def _seed_elements(node: ast.GeneratorExp | ast.ListComp | ast.SetComp, problem: Problem, envs: _Envs,
                   seeds: dict[str, list[Any]]) -> None:
    """``all(type(m) is str for m in names)``: ``names`` empty, and of one element each of
    what the comprehension tests its target against (the constants it compares it with and
    their neighbours, a value of each builtin type it tests, typical values)."""
    generator = node.generators[0]
    name, _ = variable_of(generator.iter, problem)
    if name is None or not isinstance(generator.target, ast.Name):
        return
    target, env = generator.target.id, envs[0]
    elements: list[Any] = []
    pairs = False  # (an element compared with another: ``any(r != results[0] for r in results)``)
    for inner in walk(node):
        if isinstance(inner, ast.Compare) and len(inner.ops) == 1:
            for side, other in ((inner.left, inner.comparators[0]), (inner.comparators[0], inner.left)):
                pairs = pairs or isinstance(side, ast.Name) and side.id == target and variable_of(_subscripted(other), problem)[0] == name
                if isinstance(side, ast.Name) and side.id == target and (value := constant_value(other, env)) is not NO_VALUE:
                    elements.extend(_neighbours(value))
                elif _is_call_of(side, ("type",), target) and isinstance(other, ast.Name) and other.id in _FRESH:
                    elements.append(_FRESH[other.id])
        if _is_call_of(inner, ("isinstance",), target) and len(inner.args) == 2:
            kinds = inner.args[1].elts if isinstance(inner.args[1], ast.Tuple) else [inner.args[1]]
            elements.extend(_FRESH[k.id] for k in kinds if isinstance(k, ast.Name) and k.id in _FRESH)
    elements.extend([0, "", "x", None])
    types = problem.variables[name].domain.types
    make = tuple if "tuple" in types and "list" not in types else list
    seen: set[tuple[str, str]] = set()
    out: list[Any] = [make()]
    for element in elements:
        if value_key(element) not in seen and len(seen) < _MAX_ELEMENTS:
            seen.add(value_key(element))
            out.append(make([element]))
    if pairs:  # (two that differ)
        out.extend(make(pair) for pair in ([out[1][0], out[2][0]], [0, 1], ["", "x"]))
    seeds.setdefault(name, []).extend(out)


def _subscripted(node: ast.expr) -> ast.expr:
    """``xs`` of ``xs[0]``; any other node as it is."""
    return node.value if isinstance(node, ast.Subscript) else node


_MAX_ELEMENTS = 8  # one-element values of a comprehension's iterable tried

# What each kind of node of the guard seeds (a node of any other kind: nothing).
_SEEDERS: dict[type[ast.AST], Callable[[Any, Problem, _Envs, dict[str, list[Any]]], None]] = {
    ast.Call: _seed_call, ast.Subscript: _seed_subscript, ast.Compare: _seed_compare, ast.BinOp: _seed_bits,
    ast.GeneratorExp: _seed_elements, ast.ListComp: _seed_elements, ast.SetComp: _seed_elements,
}


def _is_call_of(node: ast.AST, functions: tuple[str, ...], target: str) -> TypeGuard[ast.Call]:
    """``f(target, ...)`` for one of ``functions``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions and bool(node.args) \
        and isinstance(node.args[0], ast.Name) and node.args[0].id == target


def _seed_comparison(node: ast.Compare, problem: Problem, envs: tuple[dict[str, Any], dict[str, Any]], seeds: dict[str, list[Any]]) -> None:
    """Each variable compared by ``node`` gets the value it is compared with and its
    neighbours; a conditional expression on either side counts for each of its values
    (``n > (1000 if generous else 10)``)."""
    env, at_defaults = envs
    operands = [node.left, *node.comparators]
    for op, (left, right) in zip(node.ops, pairwise(operands)):
        is_member = isinstance(op, (ast.In, ast.NotIn))
        for side_of, other, is_left in ((left, right, True), (right, left, False)):
            for side in _choices(side_of):
                _seed_key(side, other, problem, env, seeds, is_member, is_left)
                name, is_len = variable_of(side, problem)
                texts = is_len and _text_items(side)
                if name is None:
                    _seed_parsed(side, other, problem, env, seeds)
                    _seed_arithmetic(side, other, problem, env, seeds)
                    # (an item against an expression over other parameters: its value at their defaults)
                    part_env = env if constant_value(other, env) is not NO_VALUE or _reads_own(side, other) else at_defaults
                    _seed_part(side, other, problem, part_env, seeds, member=is_member and is_left)
                    seed_text_chain(side, other, problem, env, seeds, member=is_member and is_left)
                    _seed_repeats(side, problem, seeds)
                    continue
                for choice in _choices(other):
                    value = constant_value(choice, env)
                    if value is NO_VALUE:
                        other_name, _ = variable_of(choice, problem)
                        if other_name is not None:
                            seeds.setdefault(name, []).extend(_generic(problem.variables[other_name]))
                            seeds.setdefault(_SAME + name, []).append(other_name)
                        value = constant_value(choice, at_defaults)
                    if value is not NO_VALUE:
                        if texts and isinstance(value, int) and not isinstance(value, bool):  # (first: the items are texts)
                            seeds.setdefault(name, []).extend(_sized_texts(problem.variables[name], value))
                        _seed_compared(seeds, problem, name, value, is_len=is_len, is_member=is_member and is_left)


def _text_items(side: ast.expr) -> bool:
    """``len([w for w in words if w.startswith(p)])``: a comprehension that calls a text's method
    on its element (the iterable holds texts)."""
    inner = side.args[0] if isinstance(side, ast.Call) and side.args else None
    if not isinstance(inner, (ast.ListComp, ast.SetComp)) or len(inner.generators) != 1 \
            or not isinstance(target := inner.generators[0].target, ast.Name):
        return False
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS
               and isinstance(node.func.value, ast.Name) and node.func.value.id == target.id for node in walk(inner))


def _seed_repeats(side: ast.expr, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``len(set(xs))`` (compared with ``len(xs)``): ``xs`` with a repeated element, ``[0, 0]``."""
    if not (isinstance(side, ast.Call) and dotted_name(side.func) == "len" and len(side.args) == 1
            and isinstance(inner := side.args[0], ast.Call) and dotted_name(inner.func) in ("set", "frozenset") and len(inner.args) == 1):
        return
    name, _ = variable_of(inner.args[0], problem)
    if name is not None:
        seeds.setdefault(name, []).extend([[0, 0], ["x", "x"]])


def _choices(node: ast.expr) -> list[ast.expr]:
    """The values a conditional expression may take (the node itself for anything else),
    also under a subscript, an attribute or ``len`` (``(value_1 if c else value)[0]``: a
    local's value joined from two branches)."""
    if isinstance(node, ast.IfExp):
        return [*_choices(node.body), *_choices(node.orelse)]
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, (ast.IfExp, ast.Subscript, ast.Attribute)):
        inner = _choices(node.value)
        return [node] if len(inner) == 1 else [ast.copy_location(type(node)(**{**vars(node), "value": v}), node) for v in inner]
    if isinstance(node, ast.Call) and dotted_name(node.func) == "len" and len(node.args) == 1 and not node.keywords:
        inner = _choices(node.args[0])
        return [node] if len(inner) == 1 else [ast.copy_location(ast.Call(func=node.func, args=[v], keywords=[]), node) for v in inner]
    if isinstance(node, ast.Call) and dotted_name(node.func) == "int" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.Subscript):
        return [node.args[0]]  # (``int(k.shape[2]) == 64``: a size, an int already)
    return [node]


def _seed_compared(seeds: dict[str, list[Any]], problem: Problem, name: str, value: Any, *, is_len: bool, is_member: bool) -> None:
    if is_member:
        items = sorted(value, key=repr) if isinstance(value, (tuple, list, set, frozenset, dict)) else []
        outside = [n for item in items for n in _neighbours(item)[1:] if n not in items]
        seeds.setdefault(name, []).extend(items + outside[:2])
    elif is_len and isinstance(value, int):
        seeds.setdefault(name, []).extend(_sized(problem.variables[name], value))
    else:
        seeds.setdefault(name, []).extend(_neighbours(value))
        if isinstance(value, Named):
            members = problem.members.get(value.name, ())
            seeds[name].extend(members)
            if value.mixin is not None:  # (``save_strategy: str``: ``'no'``, what a caller writes, before the member)
                plain = [n for m in [value, *members] if isinstance(m, Named) and m.mixin is not None for n in _neighbours(m.value)]
                is_plain = type(value.value).__name__ in problem.variables[name].domain.types
                seeds[name][:0 if is_plain else len(seeds[name])] = plain


def _seed_parsed(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``int(text, 10) > 255``, ``float(text) < 0``: the text of the bound and of its neighbours
    (``"256"``), tried after the typical values (``int(code)`` of a number stays a number)."""
    if not (isinstance(side, ast.Call) and dotted_name(side.func) in ("int", "float") and 1 <= len(side.args) <= 2 and not side.keywords):
        return
    value = constant_value(other, env)
    name, is_len = variable_of(side.args[0], problem)
    if name is not None and not is_len and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        seeds.setdefault(LATE + name, []).extend(str(v) for v in _neighbours(value))


def _seed_arithmetic(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``a + b > 3``: each variable of an arithmetic side gets the bound's neighbours too."""
    if not isinstance(side, ast.BinOp):
        return
    value = constant_value(other, env)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    for node in walk(side):
        name, _ = variable_of(node, problem) if isinstance(node, (ast.Name, ast.Attribute)) else (None, False)
        if name is not None:
            seeds.setdefault(name, []).extend(_neighbours(value) + _neighbours(value + 1)[1:])


def _reads_own(side: ast.expr, other: ast.expr) -> bool:
    """Whether ``other`` reads the sequence ``side`` is an item of (``xs[1] != xs[2]``)."""
    if not isinstance(side, ast.Subscript):
        return False
    owner = ast.dump(side.value)
    return any(ast.dump(node) == owner for node in ast.walk(other) if isinstance(node, type(side.value)))


def _seed_part(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]],
               member: bool = False) -> None:
    """``url[:2] == "//"``, ``s[0] == "#"``, ``s[-1] == "Z"``: text that starts (or ends) so;
    ``s[0] in ENDS`` or ``s[0] in "<>"`` (``member``): text that starts with a few of the members."""
    if not isinstance(side, ast.Subscript):
        return
    name, _ = variable_of(side.value, problem)
    value = constant_value(other, env)
    if name is not None and member and isinstance(value, (set, frozenset, tuple, list, str)):
        items = sorted({v for v in value if isinstance(v, str) and len(v) == 1})[:3]  # (a str: its characters)
        if isinstance(side.slice, ast.Constant) and side.slice.value == 0 and items:
            seeds.setdefault(name, []).extend([item + "x" for item in items] + ["x"])
        elif _int_index(side.slice) == -1 and items:
            seeds.setdefault(name, []).extend(["x" + item for item in items] + ["x"])
        numbers = sorted({v for v in value if type(v) is int}) if not isinstance(value, str) else []
        if numbers:  # ``value[0] in (0, 1)``: an item among them, and one just outside
            _seed_item(side, name, problem, seeds, [*numbers[:2], *(n for n in (numbers[-1] + 1, numbers[0] - 1) if n not in numbers)])
        return
    if name is not None and (value is None or isinstance(value, (int, float))):
        # ``pair[1] < 0`` of a sequence unpacked as ``a, b = pair`` (``len(pair) == 2``)
        _seed_item(side, name, problem, seeds, _neighbours(value))
    if name is None or not isinstance(value, str):
        return
    part = side.slice
    if isinstance(part, ast.Slice) and part.lower is None and part.step is None and isinstance(part.upper, ast.Constant) \
            and type(part.upper.value) is int and 0 < len(value) <= part.upper.value:
        seeds.setdefault(name, []).extend([value, value + "x"] if len(value) == part.upper.value else [value])
    elif isinstance(part, ast.Constant) and part.value == 0 and len(value) == 1:
        seeds.setdefault(name, []).extend([value, value + "x", value * 2])  # (``"00"``: a leading zero, all digits)
    elif isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub) and isinstance(part.operand, ast.Constant) \
            and part.operand.value == 1 and len(value) == 1:
        seeds.setdefault(name, []).extend([value, "x" + value, value * 2])


# Methods whose result a comparison writes in the form it has (``s.lower() == "yes"``): the
# literal itself is text the method gives back unchanged.
_SAME_TEXT = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold"})


def seed_text_chain(side: ast.expr, other: ast.expr, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]],
                    member: bool = False) -> None:
    """``s.lower() == "yes"``, ``s.split(":")[0] == "http"``, ``s.strip().upper() in ("A", "B")``:
    text whose transforms give the compared literal (each of up to three members), undone
    from the outermost: a literal is its own ``lower()``, and ``split(":")[1] == "b"`` holds
    for ``"x:b"``."""
    value = constant_value(other, env)
    if member:
        literals = sorted(v for v in value if isinstance(v, str))[:3] if isinstance(value, (tuple, list, set, frozenset)) else []
    else:
        literals = [value] if isinstance(value, str) else []
    steps: list[tuple[int, str | None]] = []  # each split's index and separator, outermost first
    node = side
    while literals:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_TEXT \
                and not node.args and not node.keywords:
            node = node.func.value
        elif isinstance(node, ast.Subscript) and (index := _int_index(node.slice)) is not None and (split := _split_of(node.value, env)):
            steps.append((index, split[1]))
            node = split[0]
        else:
            break
    name, is_len = variable_of(node, problem) if node is not side else (None, False)
    if name is None or is_len or (problem.variables[name].domain.types and "str" not in problem.variables[name].domain.types):
        return
    for literal in literals:
        text: str | None = literal
        for index, separator in steps:
            text = _joined(text, index, separator) if text is not None else None
        if text is not None:
            seeds.setdefault(name, []).append(text)


def _int_index(node: ast.expr) -> int | None:
    """``0``, ``-1``: a small constant index."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_index(node.operand)
        return -inner if inner is not None and inner > 0 else None
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value < 8 else None


def _split_of(node: ast.expr, env: dict[str, Any]) -> tuple[ast.expr, str | None] | None:
    """``text.split()`` or ``text.split(":")`` (rsplit too): the text and the separator (None: whitespace)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("split", "rsplit")
            and not node.keywords and len(node.args) <= 1):
        return None
    separator = constant_value(node.args[0], env) if node.args else None
    if separator is None or (isinstance(separator, str) and separator):
        return node.func.value, separator
    return None


def _joined(text: str, index: int, separator: str | None) -> str | None:
    """Text whose split by ``separator`` has ``text`` at ``index`` (the other parts ``x``)."""
    joiner = separator or " "
    if not text or (joiner in text if separator else any(c.isspace() for c in text)):
        return None  # (it would split itself)
    parts = ["x"] * index + [text] if index >= 0 else [text] + ["x"] * (-index - 1)
    return joiner.join(parts)


def _seed_item(side: ast.Subscript, name: str, problem: Problem, seeds: dict[str, list[Any]], near: list[Any]) -> None:
    """Sequences whose item at ``side``'s constant index is each of ``near``, one at a time
    (here) and together with the other compared items (``_ITEMS``, at the end); an index from
    the end (``shape[-1] == 128``) counts from the length the guard gives (``x.ndim == 3``: ``(0, 0, 128)``)."""
    written = _int_index(side.slice) if not isinstance(side.slice, ast.Constant) else side.slice.value
    if not (type(written) is int and -8 <= written < 16):
        return
    size = max(written + 1 if written >= 0 else -written, _declared_length(problem, name))
    index = written if written >= 0 else size + written
    for fill in _fillers(name):
        seeds.setdefault(name, []).extend([*[fill] * index, item, *[fill] * (size - index - 1)] for item in near)
    seeds.setdefault(_ITEMS + name, []).append((index, size, near))


def _fillers(name: str) -> tuple[int, ...]:
    """The items a seeded sequence holds beside the compared ones: 0, and first 1 in an
    array's shape (``(1, 1, 128)``: an array with elements, as a caller's would be; then
    ``(2, 0)``, whose 0 meets ``shape[1] % 128 == 0``)."""
    return (1, 0) if name.endswith(".shape") else (0,)


def _declared_length(problem: Problem, name: str) -> int:
    """``n`` where the guard says ``len(name) == n`` (an unpacking's: reaching.unpacked_length), else 0."""
    if problem.lengths is None:
        problem.lengths = _declared_lengths(problem)
    return problem.lengths.get(name, 0)


def _declared_lengths(problem: Problem) -> dict[str, int]:
    """Each variable's first ``len(name) == n`` of the guard (small ``n``), in one walk; an
    array's ``x.ndim == n`` gives the length of its ``x.shape``."""
    found: dict[str, int] = {}
    for node in walk(problem.tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq) \
                and isinstance(node.comparators[0], ast.Constant):
            name, is_len = variable_of(node.left, problem)
            if name is not None and not is_len and name.endswith(".ndim"):
                name, is_len = name.removesuffix(".ndim") + ".shape", True
            if name is not None and is_len and name not in found and type(node.comparators[0].value) is int \
                    and 0 <= node.comparators[0].value < 16:
                found[name] = node.comparators[0].value
    return found


# Seeds for text tests (``str`` tests, splits and counts).

# ``text.isdigit()`` and the like: text for which the test is true, and text for which it is not
STR_TESTS: dict[str, list[str] | None] = {
    "startswith": None, "endswith": None, "isdigit": ["1", "x"], "isdecimal": ["1", "x"], "isnumeric": ["1", "x"],
    "isalpha": ["a", "1"], "isalnum": ["a1", "-"], "isidentifier": ["a", "1"], "isascii": ["a", "\u00e9"],
    "isupper": ["A", "a"], "islower": ["a", "A"], "isspace": [" ", "a"],
    "encode": ["a", "\u00e9"],  # (what ASCII refuses; a surrogate, which UTF-8 refuses, could not be written out)
}


def seed_str_test(node: ast.Call, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``text.startswith("image")`` -> ``"image"``, ``"imagex"``; ``text.isdigit()`` -> ``"1"``, ``"x"``."""
    func = node.func
    if not isinstance(func, ast.Attribute):  # (the caller checked)
        return
    name, _ = variable_of(func.value, problem)
    if name is None:
        return
    method = func.attr
    known = STR_TESTS[method]
    if known is not None:  # (and the true one longer: ``"1111"`` for ``isdigit() and len(text) > 3``)
        seeds.setdefault(name, []).extend([*known, known[0] * 2, known[0] * 4])
        return
    value = constant_value(node.args[0], env) if len(node.args) == 1 else NO_VALUE
    affixes: list[str] = []
    if isinstance(value, str):
        affixes = [value]
    elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        affixes = list(value)
    for affix in affixes[:4]:
        seeds.setdefault(name, []).extend([affix, affix + "x" if method == "startswith" else "x" + affix])


def seed_split_count(node: ast.Compare, problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``len(text.split(":")) < 3``: texts of about that many parts (``"a:a:a"``), and for an
    exact count, with an empty first or last part (``":a"``: ``key, value = text.split(":")``
    then ``not key``);
    ``len(name.partition("."))`` (always 3): a text with the separator and one without.
    ``text.count("*") > 1`` (of the text or of a part of it): about that many."""
    operands = [node.left, *node.comparators]
    for left, right in pairwise(operands):
        for side, other in ((left, right), (right, left)):
            count = constant_value(other, env)
            if type(count) is not int:
                continue
            if isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and side.func.attr == "count" and len(side.args) == 1 \
                    and isinstance(side.args[0], ast.Constant) and isinstance(side.args[0].value, str) and side.args[0].value:
                name = _text_root(side.func.value, problem)
                if name is not None:
                    text = side.args[0].value
                    seeds.setdefault(name, []).extend(text * m for m in (count - 1, count, count + 1) if 0 <= m <= MAX_WITNESS_LENGTH)
                continue
            if not (isinstance(side, ast.Call) and dotted_name(side.func) == "len" and len(side.args) == 1):
                continue
            split = side.args[0]
            if not (isinstance(split, ast.Call) and isinstance(split.func, ast.Attribute) and split.func.attr in (*_SPLITS, "splitlines")
                    and not split.keywords and len(split.args) <= 2):  # (``split(":", 1)``: at most 2 parts)
                continue
            sep = "\n" if split.func.attr == "splitlines" else \
                split.args[0].value if split.args and isinstance(split.args[0], ast.Constant) else " " if not split.args else None
            cut = split.func.value  # (``str(address).split("/")``: the address's text)
            if isinstance(cut, ast.Call) and dotted_name(cut.func) == "str" and len(cut.args) == 1 and not cut.keywords:
                cut = cut.args[0]
            name, _ = variable_of(cut, problem)
            if name is None or not isinstance(sep, str) or not sep:
                continue
            if split.func.attr in ("partition", "rpartition"):
                seeds.setdefault(name, []).extend([f"a{sep}a", "a", f"{sep}a"])
                continue
            exact = any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)  # (``a, b = text.split(":")``)
            for m in (count - 1, count, count + 1):
                if 1 <= m <= MAX_WITNESS_LENGTH:
                    seeds.setdefault(name, []).append(sep.join(["a"] * m))
                    if exact:
                        seeds[name].extend([sep.join([""] + ["a"] * (m - 1)), sep.join(["a"] * (m - 1) + [""])])


_SPLITS = ("split", "rsplit", "partition", "rpartition")


def _text_root(node: ast.expr, problem: Problem) -> str | None:
    """The variable a text expression is cut from: ``dn`` of ``dn.partition(".")[0]``."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in (*_SPLITS, "strip", "lower", "upper"):
            node = node.func.value
        else:
            return variable_of(node, problem)[0]


def seed_text_mixes(tree: ast.expr, problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """Texts that mix a variable's separators with the characters its tests look for: for
    ``dn.count('*')`` beside ``'*' in dn.partition('.')[2]``, ``"a.*"``, ``"*.a"``, ``".*"``,
    ``"*.*"``, ``"a*.a"`` and ``"a."``; for ``"t" in mode and "b" in mode``, ``"bt"`` (a search
    tries one value per variable, so each mix must be one text)."""
    seps: dict[str, set[str]] = {}
    chars: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and 0 < len(node.args[0].value) <= 4:
            found = seps if node.func.attr in _SPLITS else chars if node.func.attr in ("count", "startswith", "endswith") else None
            name = _text_root(node.func.value, problem) if found is not None else None
            if found is not None and name is not None:
                found.setdefault(name, set()).add(node.args[0].value)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and 0 < len(node.left.value) <= 4:
            name = _text_root(node.comparators[0], problem)
            if name is not None:
                chars.setdefault(name, set()).add(node.left.value)
    for name, separators in sorted(seps.items()):
        for sep in sorted(separators):
            mixes = [f"a{sep}"]
            for char in sorted(chars.get(name, ())):
                mixes.extend([f"a{sep}{char}", f"{char}{sep}a", f"{sep}{char}", f"{char}{sep}{char}", f"a{char}{sep}a"])
            seeds.setdefault(name, []).extend(mixes)
    for name, tested in sorted(chars.items()):
        if len(tested) > 1:  # (``"t" in mode and "b" in mode``: one text holding them all)
            seeds.setdefault(name, []).append("".join(sorted(tested)))



def _seed_integrality(problem: Problem, seeds: dict[str, list[Any]]) -> None:
    """``int(x) != x``, ``x % 1``, ``x.is_integer()``, ``isinstance(x, int)``: a guard that
    tells whole numbers from others gets floats that are not whole (``months=1.5``); for the
    target of a comprehension over a tuple of inputs (``any(x != int(x) for x in (years,
    months))``), each of them does."""
    targets: dict[str, list[ast.expr]] = {}
    for node in walk(problem.tree):
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            for generator in node.generators:
                if isinstance(generator.target, ast.Name) and isinstance(generator.iter, (ast.Tuple, ast.List)):
                    targets[generator.target.id] = list(generator.iter.elts)
    for tested in _integrality_tests(problem.tree):
        for node in targets.get(tested.id, [tested]) if isinstance(tested, ast.Name) else [tested]:
            name, is_len = variable_of(node, problem)
            if name is not None and not is_len:
                seeds.setdefault(name, []).extend([1.5, 0.5])


def _seed_remainders(problem: Problem, env: dict[str, Any], seeds: dict[str, list[Any]]) -> None:
    """``a % b``, where 0, 1 and 2 divide everything the other side is tried at: ``3 % 2`` for two
    inputs (``local_tp_size % remote_tp_size != 0``); for a constant dividend, the least whole
    number above 1 that does not divide it (``_FAB_N % split_n``); for a constant divisor, itself
    and one past it (``size % 64``: 64, which it divides, and 65, which it does not; ``x <= 0 or x
    % 8`` holds for no typical value). Tried after the typical values (LATE)."""
    for node in walk(problem.tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
            continue
        (left, left_len), (right, right_len) = variable_of(node.left, problem), variable_of(node.right, problem)
        if left_len or right_len:
            continue  # (``len(xs) % 2``: a length, no value of ``xs``)
        if left is not None and right is not None:
            seeds.setdefault(LATE + left, []).append(3)
            seeds.setdefault(LATE + right, []).append(2)
        elif right is not None and _whole(dividend := constant_value(node.left, env)) and dividend:
            seeds.setdefault(LATE + right, []).append(next(n for n in range(2, abs(dividend) + 2) if dividend % n))
        elif left is not None and _whole(divisor := constant_value(node.right, env)) and divisor > 1:
            seeds.setdefault(LATE + left, []).extend([divisor, divisor + 1])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _MAX_REMAINDER_OPERAND


_MAX_REMAINDER_OPERAND = 1 << 20


_WHOLE = ("int", "round", "math.floor", "math.ceil", "math.trunc")


def _integrality_tests(tree: ast.expr) -> list[ast.expr]:
    """The expressions whose being a whole number the guard tests (``isinstance(x, int)``
    only where the guard names ``float`` too: else it tells ints from any other type)."""
    found: list[ast.expr] = []
    kinds = ("int", "float") if any(isinstance(n, ast.Name) and n.id == "float" for n in walk(tree)) else ("float",)
    for node in walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                if isinstance(side, ast.Call) and dotted_name(side.func) in _WHOLE and len(side.args) == 1 \
                        and ast.dump(side.args[0]) == ast.dump(other):
                    found.append(other)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.right, ast.Constant) \
                and node.right.value == 1 and not isinstance(node.right.value, bool):
            found.append(node.left)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "is_integer" and not node.args:
            found.append(node.func.value)
        elif isinstance(node, ast.Call) and dotted_name(node.func) == "isinstance" and len(node.args) == 2 \
                and any(dotted_name(k) in kinds for k in (node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]])):
            found.append(node.args[0])
    return found


def _neighbours(value: Any) -> list[Any]:
    if isinstance(value, bool) or value is None:
        return [value]
    if isinstance(value, Modelled) and value.kind == "dtype":
        return near_dtypes(value)  # type: ignore[return-value]  # (a list of values)
    if isinstance(value, int):
        return [value, value - 1, value + 1]
    if isinstance(value, float) and math.isfinite(value):
        return [value, value - 0.5, value + 0.5, value - 1, value + 1]
    if isinstance(value, str):
        return [value, value + "_x", ""]
    if isinstance(value, tuple) and value and all(isinstance(v, int) for v in value):
        return [value, (*value[:-1], value[-1] - 1), (*value[:-1], value[-1] + 1)]
    return [value]


def _sized(variable: Variable, n: int) -> list[Any]:
    lengths = [m for m in (n, n - 1, n + 1) if 0 <= m <= MAX_WITNESS_LENGTH]
    types = variable.domain.types
    if "str" in types and "list" not in types:
        return ["a" * m for m in lengths]
    make = tuple if "tuple" in types and "list" not in types else list
    # (of each length, also one of distinct elements: ``xs[1] != xs[2]``, ``len(set(xs)) == len(xs)``)
    sized = [make(v) for m in lengths for v in ([0] * m, range(m)) if m > 1 or v == [0] * m]
    return sized + (["a" * m for m in lengths] if not types else [])


def _sized_texts(variable: Variable, n: int) -> list[Any]:
    """Lists (or tuples) of ``n`` distinct texts, and one more and one fewer, where the input's
    declared type may hold texts: ``len([w for w in words if w.startswith(p)]) > 1``."""
    if not _may_hold_texts(variable.domain):
        return []
    make = tuple if "tuple" in variable.domain.types and "list" not in variable.domain.types else list
    return [make("abcdefghijklmnopqrstuvwxyz"[:m]) for m in (n, n - 1, n + 1) if 1 <= m <= min(26, MAX_WITNESS_LENGTH)]


def _may_hold_texts(domain: Domain) -> bool:
    """Whether a list or tuple of texts is of the input's declared type: none declared, a bare
    ``list``/``tuple``, or one whose items are ``str``."""
    if not domain.types:
        return True
    if "list" not in domain.types and "tuple" not in domain.types:
        return False
    node = try_parse_expression(domain.annotation or "")
    if not isinstance(node, ast.Subscript):
        return True
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return all(isinstance(item, ast.Name) and item.id == "str" or isinstance(item, ast.Constant) and item.value is Ellipsis
               for item in items)


def _generic(variable: Variable) -> list[Any]:
    if variable.is_boolean:
        return [False, True]
    domain_types = variable.domain.types
    # (``object``, ``Any``: any value; a protocol, ``Sized``: the plain types that meet it)
    types = () if takes_anything(domain_types) else (*domain_types, *plain_types(domain_types))
    out: list[Any] = []
    if variable.domain.choices is not None:
        out.extend(choice_value(c) for c in variable.domain.choices)
    if not types or "int" in types:
        out.extend([0, 1, -1, 2])
    if "float" in types:
        out.extend([0.0, 1.0, -1.0, 0.5])
    if not types or "str" in types:
        out.extend(["", "x"])
    if not types or "list" in types or "tuple" in types:
        elements = [choice_value(e) for e in variable.domain.elements] if variable.domain.elements is not None else None
        # (a list of Literal values: each alone, then all of them)
        sequences = [[], *([e] for e in elements), *([elements] if len(elements) > 1 else [])] if elements is not None else [[], [0]]
        # (a tuple's own: ``len(actual) != len(expected)`` of two ``tuple[int, ...]`` holds for ``(0,)`` and ``()``)
        out.extend(sequences if not types or "list" in types else [])
        out.extend([tuple(s) for s in sequences] if "tuple" in types else [])
    if "dict" in types or not types and variable.prefer == "dict":
        out.extend([{}, {"x": 0}])
    if "bytes" in types or not types and variable.prefer == "bytes":
        out.extend([b"", b"x"])
    if "set" in types:
        out.extend([StableSet(), StableSet({0})])
    if "frozenset" in types:
        out.extend([StableFrozenSet(), StableFrozenSet({0})])
    if not types or "bool" in types:
        out.extend([False, True])
    if "NoneType" in types or not types:
        out.append(None)
    out.extend(samples(variable.domain.annotation))  # (``list[str]``: ``['x']``, where ``[0]`` is no value of it)
    out.extend(library_values(variable.domain.annotation))  # (``torch.Tensor``: ``torch.empty(2, 3)``; solve.arrays)
    return [v for v in out if v is not NO_VALUE]


def value_key(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def candidates(variable: Variable, seeds: list[Any], late: list[Any] | None = None) -> list[Any]:
    """The values worth trying for a variable: its default, seeds, typical values of its type, then ``late``."""
    tried = seeds + _generic(variable) + (late or [])
    if variable.prefer is not None and not variable.domain.types:  # ``octet_str.isdigit()``: "1234" before [0, 0, 0, 0]
        tried.sort(key=lambda value: type(value).__name__ != variable.prefer)
    pool = ([variable.default] if variable.has_default else []) + tried
    if variable.is_boolean:
        pool = [False, True]
    seen: dict[tuple[str, str], Any] = {}
    for value in pool:
        value = refilled(variable.domain.annotation, value)  # (sized by a seed: its elements of the declared type)
        if value is NO_VALUE or value_key(value) in seen:
            continue
        if variable.is_atom or admits(variable.domain, value):
            seen[value_key(value)] = value
    return list(seen.values())
