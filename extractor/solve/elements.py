"""Loop elements: the argument that makes ``for x in <iterable>`` run once, on ``x``.

``collect.paths`` records ``(x, iterable)`` for a loop over an input (``Guard.loops``); the
iterable is the input itself or one of a few pure forms over it. The trigger sets the
input so that the loop runs on the one element the guard needs:

- ``xs``, ``sorted(xs)``, ``reversed(xs)``, ``list(xs)``, ``tuple(xs)``: ``xs = [x]``;
- ``for i, x in enumerate(xs)``: ``xs = [x]`` with ``i`` 0; ``for i in range(n)``: ``n = 1``
  with ``i`` 0 (the one turn is the first: ``index_target``);
- ``d.keys()``: ``d = {x: 0}``; ``d.values()``: ``d = {"k": x}``; ``for k, v in d.items()``:
  ``d = {k: v}`` (a target the guard does not read is ``0``);
- ``text.split(sep)`` (a literal ``sep``): ``text = x``, where ``x`` is text without ``sep``
  (``split()``: non-empty text without whitespace).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any

from ..collect.declarations import DOTTED, LOOP_WRAPPERS, dotted_name
from ..model.pytext import try_parse_expression
from .domains import NO_VALUE


@lru_cache(maxsize=1024)
def _form(iterable: str) -> tuple[str, str, Any] | None:
    """(input, kind, separator) of an iterable's code, or None."""
    if DOTTED.fullmatch(iterable):
        return iterable, "list", None
    node = try_parse_expression(iterable)
    if node is None:
        return None
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if isinstance(node.func, ast.Name) and node.func.id in (*LOOP_WRAPPERS, "enumerate", "range") and len(node.args) == 1:
        inner = dotted_name(node.args[0])
        kind = node.func.id if node.func.id in ("enumerate", "range") else "list"
        return (inner, kind, None) if inner is not None else None
    if not isinstance(node.func, ast.Attribute) or (base := dotted_name(node.func.value)) is None:
        return None
    method = node.func.attr
    if method in ("keys", "values", "items") and not node.args:
        return base, method, None
    if method == "split" and not node.args:
        return base, "split", None
    if method == "split" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
            and node.args[0].value:
        return base, "split", node.args[0].value
    return None


def loop_input(iterable: str) -> str | None:
    """The input a loop's iterable reads (``raw`` of ``raw.split(",")``), or None."""
    form = _form(iterable)
    return form[0] if form is not None else None


def index_target(iterable: str, targets: tuple[str, ...]) -> str | None:
    """The target that counts the loop's turns (``i`` of ``enumerate(xs)`` or ``range(n)``):
    on the one turn the trigger gives the loop, it is 0."""
    form = _form(iterable)
    return targets[0] if form is not None and form[1] in ("enumerate", "range") else None


def loop_element(targets: tuple[str, ...], env: dict[str, Any]) -> Any:
    """The element a loop with these targets runs on, from the trigger's values."""
    return env[targets[0]] if len(targets) == 1 else tuple(env.get(t, 0) for t in targets)


def loop_value(iterable: str, element: Any) -> Any:
    """The input's value that makes the loop run once, on ``element``; NO_VALUE where none does."""
    form = _form(iterable)
    if form is None:
        return NO_VALUE
    _, kind, sep = form
    if kind == "list":
        return [element]
    if kind == "range":  # the first turn, of one
        return 1 if element == 0 and not isinstance(element, bool) else NO_VALUE
    if kind == "enumerate":
        if not isinstance(element, tuple) or len(element) != 2 or element[0] != 0 or isinstance(element[0], bool):
            return NO_VALUE
        return [element[1]]
    if kind == "keys":
        try:
            hash(element)
        except TypeError:
            return NO_VALUE
        return {element: 0}
    if kind == "values":
        return {"k": element}
    if kind == "items":
        if not isinstance(element, tuple) or len(element) != 2:
            return NO_VALUE
        try:
            hash(element[0])
        except TypeError:
            return NO_VALUE
        return {element[0]: element[1]}
    if not isinstance(element, str):
        return NO_VALUE
    if sep is None:
        return element if element and not any(c.isspace() for c in element) else NO_VALUE
    return element if sep not in element else NO_VALUE
