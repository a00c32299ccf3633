"""Declared types, deeply: an annotation's text -> whether a plain value is one of its values.

A field of a pydantic class is validated against its whole type before any validator runs:
``mm_hashes={'x': 0}`` for ``dict[str, list[str]]`` stops at "Input should be a valid list",
never reaching the raise the trigger was solved for. Domains keep the top of the type
(``Domain.types``); this reads the rest of it for the values a trigger may take: builtin
scalars, ``None``, ``Literal``, unions (``|``, ``Optional``, ``Union``), ``Annotated``, and the
containers ``list``, ``set``, ``frozenset``, ``tuple`` and ``dict`` (with their ``typing``
names, ``Sequence`` and ``Mapping``). Anything else (a class, a type variable, a name
defined elsewhere) is not checked: every value fits it, as no claim is made; and none does
where a value must surely pass (``fits(..., strict=True)``: a fix's value given to pydantic).
"""

from __future__ import annotations

import ast
from typing import Any

from ..collect.syntax import tail_name
from ..model.pytext import try_parse_expression
from .values import StableFrozenSet, StableSet

_SCALARS: dict[str, tuple[type, ...]] = {
    "int": (int,), "float": (int, float), "complex": (int, float, complex), "str": (str,), "bytes": (bytes,), "bool": (bool,),
}
_SEQUENCES = {"list": (list, tuple), "List": (list, tuple), "Sequence": (list, tuple),  # (pydantic takes a tuple for a list)
              "set": (set, frozenset), "Set": (set, frozenset), "frozenset": (frozenset, set), "FrozenSet": (frozenset, set)}
_MAPPINGS = {"dict", "Dict", "Mapping"}
_PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


def _parsed(annotation: str) -> ast.expr | None:
    text = annotation.strip()
    if len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1]
    return try_parse_expression(text)


def fits(annotation: str | None, value: Any, strict: bool = False) -> bool:
    """Whether ``value`` is a value of the declared type: True where the tool cannot tell, or
    with ``strict`` False there (a class, a name defined elsewhere: ``0`` for an element of
    ``list[Message]``), for a value that must surely pass pydantic's check of the type."""
    node = _parsed(annotation) if annotation else None
    if node is None:
        return not strict
    try:
        return _fits(node, value, 0, strict)
    except RecursionError:
        return not strict


def _fits(node: ast.expr, value: Any, depth: int, strict: bool = False) -> bool:
    if depth > 12:
        return not strict
    if not isinstance(value, _PLAIN):
        return True  # (a named constant, a stand-in for an instance: not judged)
    if isinstance(node, ast.Constant) and node.value is None:
        return value is None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _fits(node.left, value, depth + 1, strict) or _fits(node.right, value, depth + 1, strict)
    if not isinstance(node, ast.Subscript):
        return _fits_name(tail_name(node), value, strict)
    name = tail_name(node.value)
    arguments = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if name in ("Optional", "Union"):
        return (name == "Optional" and value is None) or any(_fits(a, value, depth + 1, strict) for a in arguments)
    if name == "Annotated":
        return _fits(arguments[0], value, depth + 1, strict)
    if name == "Literal":
        literals = [a.value for a in arguments if isinstance(a, ast.Constant)]
        return (len(literals) < len(arguments) and not strict) or any(type(value) is type(v) and value == v for v in literals)
    if name in _SEQUENCES:
        return isinstance(value, _SEQUENCES[name]) and all(_fits(arguments[0], v, depth + 1, strict) for v in value)
    if name in _MAPPINGS and len(arguments) == 2:
        return isinstance(value, dict) \
            and all(_fits(arguments[0], k, depth + 1, strict) and _fits(arguments[1], v, depth + 1, strict) for k, v in value.items())
    if name in ("tuple", "Tuple"):
        if not isinstance(value, (tuple, list)):
            return False
        if len(arguments) == 2 and isinstance(arguments[1], ast.Constant) and arguments[1].value is Ellipsis:
            return all(_fits(arguments[0], v, depth + 1, strict) for v in value)
        return len(value) == len(arguments) and all(_fits(a, v, depth + 1, strict) for a, v in zip(arguments, value))
    return not strict


def _fits_name(name: str | None, value: Any, strict: bool) -> bool:
    """A plain name's type: ``None``, a builtin scalar or container, else a class the tool does not read."""
    if name == "None":
        return value is None
    if name in _SCALARS:
        return isinstance(value, _SCALARS[name])  # (a bool is an int, as pydantic takes it)
    kind = _SEQUENCES.get(name or "") or ((dict,) if name in _MAPPINGS else (tuple, list) if name in ("tuple", "Tuple") else None)
    if kind is None:
        return not strict or name in ("Any", "object")
    return isinstance(value, kind)


# An element of a container sample (``list[dict]``: ``[{}]``; ``dict[str, Any]``: ``{'x': 0}``)
_SAMPLES: dict[str, Any] = {"int": 1, "float": 1.0, "complex": 1.0, "str": "x", "bytes": b"x", "bool": True, "Any": 0, "object": 0,
                            "dict": {}, "Dict": {}, "list": [], "List": []}


def samples(annotation: str | None) -> list[Any]:
    """Non-empty containers of the declared type (``list[str]``: ``['x']``; ``dict[str,
    list[int]]``: ``{'x': [1]}``, then ``{'x': []}``, its inner container empty), for values whose
    elements' types are checked on; none where the top is no container the tool fills."""
    node = _parsed(annotation) if annotation else None
    found = [_sample(node, 0, hollow) for hollow in (False, True)] if node is not None else []
    out: list[Any] = []
    for value in found:
        if isinstance(value, (list, dict, tuple, set, frozenset)) and value and value not in out:
            out.append(value)
    return out


def _sample(node: ast.expr, depth: int, hollow: bool, inner: bool = False) -> Any:
    """``hollow``: a container inside another (``inner``: this one is) is empty."""
    if depth > 6:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = (_sample(node.left, depth + 1, hollow, inner), _sample(node.right, depth + 1, hollow, inner))
        return next((s for s in sides if s is not None), None)
    name = tail_name(node.value) if isinstance(node, ast.Subscript) else tail_name(node)
    if not isinstance(node, ast.Subscript):
        return _SAMPLES.get(name or "")
    arguments = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if name in ("Optional", "Union"):
        return next((s for s in (_sample(a, depth + 1, hollow, inner) for a in arguments) if s is not None), None)
    if name == "Annotated":
        return _sample(arguments[0], depth + 1, hollow, inner)
    if name == "Literal":
        return arguments[0].value if isinstance(arguments[0], ast.Constant) else None
    elements = [_sample(a, depth + 1, hollow, True) for a in arguments if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
    if any(s is None for s in elements) or not elements:
        return None
    empty = hollow and inner
    if name in ("list", "List", "Sequence"):
        return [] if empty else [elements[0]]
    if name in ("set", "Set", "frozenset", "FrozenSet"):
        kind = StableSet if name in ("set", "Set") else StableFrozenSet
        return None if isinstance(elements[0], (list, dict, set)) else kind() if empty else kind({elements[0]})
    if name in ("tuple", "Tuple"):
        return () if empty else tuple(elements)
    if name in _MAPPINGS and len(elements) == 2 and not isinstance(elements[0], (list, dict, set)):
        return {} if empty else {elements[0]: elements[1]}
    return None


def refilled(annotation: str | None, value: Any) -> Any:
    """A list or tuple the search sized (``[0, 0, 0, 0]`` for ``len(items) > 3``) with its
    elements of the declared type (``list[str]``: ``['x', 'x', 'x', 'x']``), where they are not."""
    if not isinstance(value, (list, tuple)) or not value or fits(annotation, value):
        return value
    filled = next((s for s in samples(annotation) if isinstance(s, (list, tuple)) and s), None)
    if filled is None:
        return value
    refill = type(value)([filled[0]] * len(value))
    return refill if fits(annotation, refill) else value
