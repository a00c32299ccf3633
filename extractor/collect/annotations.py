"""Annotations: the source text of an annotation -> what it says (types, ``Literal`` values, names).

The one reader of annotation syntax: domains take the types, ``Literal`` choices and implied
constraints from it, linking takes the names it mentions (to find classes and ``Literal``
aliases across modules). Each text is parsed once (the same few recur on every parameter
and field); nothing in it is evaluated.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from ..model import Constraint
from .syntax import tail_name, walk

_TYPE_NAMES = {"int", "float", "str", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset"}
_ALIASES = {"List": "list", "Dict": "dict", "Set": "set", "Tuple": "tuple", "FrozenSet": "frozenset",
            "Sequence": "list", "Mapping": "dict", "PositiveInt": "int", "NonNegativeInt": "int", "NegativeInt": "int",
            "NonPositiveInt": "int", "PositiveFloat": "float", "NonNegativeFloat": "float", "NegativeFloat": "float",
            "NonPositiveFloat": "float", "StrictInt": "int", "StrictStr": "str", "StrictFloat": "float", "StrictBool": "bool",
            "StrictBytes": "bytes"}
_IMPLIED = {"PositiveInt": (Constraint(name="gt", value="0"),), "NonNegativeInt": (Constraint(name="ge", value="0"),),
            "NegativeInt": (Constraint(name="lt", value="0"),), "NonPositiveInt": (Constraint(name="le", value="0"),),
            "PositiveFloat": (Constraint(name="gt", value="0"),), "NonNegativeFloat": (Constraint(name="ge", value="0"),),
            "NegativeFloat": (Constraint(name="lt", value="0"),), "NonPositiveFloat": (Constraint(name="le", value="0"),)}
_WRAPPERS = ("Optional", "Union", "None", "typing.Optional", "Annotated")  # names that are not the annotated type


@dataclass(frozen=True, slots=True)
class Annotation:
    """What an annotation says, read from its text alone.

    ``types``, ``choices`` and ``implied`` describe the value at the top (through ``|``,
    ``Optional``, ``Union`` and ``Annotated``): type names (``object:Name`` for a class),
    ``Literal`` values as written, constraints implied by pydantic's constrained types.
    ``names`` are the dotted names it mentions, outermost first, wrappers left out.
    ``literals`` are the top value's ``Literal`` values (``("value", source)``) and bare
    names that may be a ``Literal`` alias defined elsewhere (``("alias", name)``);
    ``elements`` are the same for the elements of a top-level container
    (``list[Mode] | None``: ``("alias", "Mode")``).
    """

    types: tuple[str, ...] = ()
    choices: tuple[str, ...] | None = None
    implied: tuple[Constraint, ...] = ()
    names: tuple[str, ...] = ()
    literals: tuple[tuple[str, str], ...] = ()
    elements: tuple[tuple[str, str], ...] = ()  # ``literals`` of the elements of a top-level list, set or tuple[X, ...]


_NOTHING = Annotation()


@lru_cache(maxsize=4096)
def read_annotation(annotation: str | None) -> Annotation:
    """What ``annotation`` says; an empty Annotation for none, or for text that does not parse."""
    if not annotation:
        return _NOTHING
    text = annotation.strip()
    if len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1]  # a string annotation
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _NOTHING
    types: list[str] = []
    choices: list[str] = []
    implied: list[Constraint] = []
    found_literal = _read_top(tree, text, types, choices, implied)
    return Annotation(
        types=tuple(dict.fromkeys(types)), choices=tuple(choices) if found_literal else None, implied=tuple(implied),
        names=_names(tree), literals=_literals(tree, text), elements=_element_literals(tree, text),
    )


def _read_top(node: ast.expr, text: str, types: list[str], choices: list[str], implied: list[Constraint]) -> bool:
    """Add the types, choices and implied constraints of ``node``; whether a Literal was found."""
    if isinstance(node, ast.Constant) and node.value is None:
        types.append("NoneType")
        return False
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _read_top(node.left, text, types, choices, implied)
        return _read_top(node.right, text, types, choices, implied) or left
    name = tail_name(node.value) if isinstance(node, ast.Subscript) else tail_name(node)
    if isinstance(node, ast.Subscript):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "Literal":
            for arg in args:
                choices.append(ast.get_source_segment(text, arg) or ast.unparse(arg))
                types.append(_literal_type(arg))
            return True
        if name in ("Optional", "Union"):
            if name == "Optional":
                types.append("NoneType")
            found = False
            for arg in args:
                found = _read_top(arg, text, types, choices, implied) or found
            return found
        if name == "Annotated":
            return _read_top(args[0], text, types, choices, implied)
    if name in _TYPE_NAMES:
        types.append(name)
    elif name in _ALIASES:
        types.append(_ALIASES[name])
        implied.extend(_IMPLIED.get(name, ()))
    elif name is not None:
        types.append("object:" + name)
    return False


def _literal_type(node: ast.expr) -> str:
    """The type name of a ``Literal`` value (``object`` for one that is not a literal)."""
    try:
        return type(ast.literal_eval(node)).__name__
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return "object"


def _names(tree: ast.expr) -> tuple[str, ...]:
    names: list[str] = []
    for node in walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)):
            try:
                names.append(ast.unparse(node))
            except (ValueError, RecursionError):
                continue
    return tuple(n for n in names if n not in _WRAPPERS)


def _members(tree: ast.expr) -> list[ast.expr]:
    """The types of the value at the top, through ``|``, ``Optional``, ``Union`` and ``Annotated``."""
    found: list[ast.expr] = []
    work = [tree]
    while work:
        node = work.pop(0)
        name = tail_name(node.value) if isinstance(node, ast.Subscript) else None
        arguments = _arguments(node) if isinstance(node, ast.Subscript) else []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            work[:0] = [node.left, node.right]
        elif name in ("Optional", "Union"):
            work[:0] = arguments
        elif name == "Annotated":
            work[:0] = arguments[:1]
        else:
            found.append(node)
    return found


def _arguments(node: ast.Subscript) -> list[ast.expr]:
    return node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]


def _literals(tree: ast.expr, text: str) -> tuple[tuple[str, str], ...]:
    """The ``Literal`` values and possible aliases of the value at the top: ``list[Mode]`` is
    a list, none of Mode's values."""
    found: list[tuple[str, str]] = []
    for node in _members(tree):
        if isinstance(node, ast.Subscript) and tail_name(node.value) == "Literal":
            found.extend(("value", ast.get_source_segment(text, e) or ast.unparse(e)) for e in _arguments(node))
        elif isinstance(node, ast.Name) and node.id not in ("Literal", "None"):
            found.append(("alias", node.id))
    return tuple(found)


_CONTAINERS = {"list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "tuple", "Tuple"}


def _element_literals(tree: ast.expr, text: str) -> tuple[tuple[str, str], ...]:
    """``_literals`` of the element type of the one container at the top (``tuple[X, ...]``
    only: a tuple of fixed length has elements of several types)."""
    containers = [n for n in _members(tree) if isinstance(n, ast.Subscript) and tail_name(n.value) in _CONTAINERS]
    if len(containers) != 1:
        return ()  # (none, or two in a union: which one the elements belong to is not one answer)
    elements = _arguments(containers[0])
    if tail_name(containers[0].value) in ("tuple", "Tuple"):
        if len(elements) != 2 or not (isinstance(elements[1], ast.Constant) and elements[1].value is Ellipsis):
            return ()
        elements = elements[:1]
    return _literals(elements[0], text) if len(elements) == 1 else ()
