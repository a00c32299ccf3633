"""Message templates of string literals, f-strings, ``str.format`` and ``%`` formatting:
a literal template and the call's arguments -> parts (collect.messages dispatches here)."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable, Iterator

import libcst as cst

from ..model import Hole, Part, Reason, Text

Render = Callable[[cst.CSTNode], str]


class Unsupported(Exception):
    """A message form we cannot reconstruct, and the reason why."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason = reason


# --- string literals ------------------------------------------------------------------


def _iter_strings(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """Leaves of an implicit concatenation, left to right, without recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.ConcatenatedString):
            stack.append(current.right)
            stack.append(current.left)
        else:
            yield current


def is_string_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


def _literal_value(node: cst.SimpleString) -> str:
    if "b" in node.prefix.lower():
        raise Unsupported(Reason.BYTES_MESSAGE)
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, SyntaxError) as exc:
        raise Unsupported(Reason.BAD_STRING_LITERAL) from exc
    return value


def _fstring_text(node: cst.FormattedString, text: str) -> str:
    """The runtime value of a literal chunk of an f-string (escapes applied, braces undoubled)."""
    prefix = node.prefix.lower().replace("f", "")
    quote = node.start[len(node.prefix) :]
    undoubled = text.replace("{{", "{").replace("}}", "}")
    try:
        return ast.literal_eval(prefix + quote + undoubled + quote)
    except (ValueError, SyntaxError):
        return undoubled


def _fstring_parts(node: cst.FormattedString, render: Render) -> list[Part]:
    parts: list[Part] = []
    for piece in node.parts:
        if isinstance(piece, cst.FormattedStringText):
            parts.append(Text(text=_fstring_text(node, piece.value)))
            continue
        assert isinstance(piece, cst.FormattedStringExpression)
        expr = render(piece.expression)
        conversion = piece.conversion
        spec = None
        if piece.format_spec is not None:
            spec = "".join(_spec_text(p, render) for p in piece.format_spec)
        if piece.equal is not None:
            parts.append(Text(text=expr + "="))
            if conversion is None and spec is None:
                conversion = "r"
        parts.append(Hole(expr=expr, conversion=conversion, format_spec=spec or None))
    return parts


def _spec_text(part: cst.BaseFormattedStringContent, render: Render) -> str:
    """A piece of a format spec as written, its fields rendered (``{width}`` of ``{x:{width}}``)."""
    if isinstance(part, cst.FormattedStringText):
        return part.value
    assert isinstance(part, cst.FormattedStringExpression)  # (the only other kind of piece)
    return "{" + render(part.expression) + "}"


def string_parts(node: cst.BaseExpression, render: Render) -> tuple[list[Part], bool]:
    """Parts of a (possibly implicitly concatenated) string literal, and whether any is an f-string."""
    parts: list[Part] = []
    has_f = False
    for leaf in _iter_strings(node):
        if isinstance(leaf, cst.SimpleString):
            parts.append(Text(text=_literal_value(leaf)))
        elif isinstance(leaf, cst.FormattedString):
            has_f = True
            parts.extend(_fstring_parts(leaf, render))
        else:
            raise Unsupported(Reason.NOT_A_STRING)
    return parts, has_f


def plain_string_value(node: cst.BaseExpression) -> str | None:
    """The value of a string literal without f-strings, else None."""
    try:
        parts, has_f = string_parts(node, lambda n: "")
    except Unsupported:
        return None
    if has_f:
        return None
    return "".join(p.text for p in parts if isinstance(p, Text))


# --- str.format ----------------------------------------------------------------------

_FIELD_TAIL = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([^\]]*)\]")


def _format_args(call: cst.Call, render: Render) -> tuple[list[str], dict[str, str], list[str]]:
    positional: list[str] = []
    keywords: dict[str, str] = {}
    mappings: list[str] = []
    for arg in call.args:
        if arg.star == "*":
            raise Unsupported(Reason.FORMAT_STAR_ARGS)
        if arg.star == "**":
            mappings.append(render(arg.value))
        elif arg.keyword is not None:
            keywords[arg.keyword.value] = render(arg.value)
        else:
            positional.append(render(arg.value))
    return positional, keywords, mappings


def _field_expr(name: str, state: dict[str, int], args: tuple[list[str], dict[str, str], list[str]]) -> str:
    positional, keywords, mappings = args
    match = re.match(r"[^.\[]*", name)
    head = match.group(0) if match else ""
    tail = name[len(head) :]
    if head == "":
        if state["explicit"]:
            raise Unsupported(Reason.FORMAT_MIXED_NUMBERING)
        index = state["auto"]
        state["auto"] += 1
        base = _pick(positional, index)
    elif head.isdigit():
        state["explicit"] = 1
        base = _pick(positional, int(head))
    elif head in keywords:
        base = keywords[head]
    elif len(mappings) == 1 and mappings[0] in ("locals()", "vars()", "globals()"):
        base = head
    elif len(mappings) == 1:
        base = f"{mappings[0]}[{head!r}]"
    else:
        raise Unsupported(Reason.FORMAT_FIELD_UNRESOLVED)
    for attr, key in _FIELD_TAIL.findall(tail):
        base = f"{base}.{attr}" if attr else f"{base}[{int(key) if key.isdigit() else repr(key)}]"
    return base


def _pick(positional: list[str], index: int) -> str:
    if index >= len(positional):
        raise Unsupported(Reason.FORMAT_FIELD_UNRESOLVED)
    return positional[index]


def format_parts(template: str, call: cst.Call, render: Render) -> list[Part]:
    """``template.format(*call.args)`` as parts, fields bound to the argument source."""
    args = _format_args(call, render)
    state = {"auto": 0, "explicit": 0}
    parts: list[Part] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise Unsupported(Reason.BAD_FORMAT_STRING) from exc
    for literal, field_name, spec, conversion in parsed:
        parts.append(Text(text=literal))
        if field_name is None:
            continue
        expr = _field_expr(field_name, state, args)
        if spec and "{" in spec:
            spec = "".join(
                lit + ("{" + _field_expr(inner, state, args) + "}" if inner is not None else "")
                for lit, inner, _, _ in string.Formatter().parse(spec)
            )
        parts.append(Hole(expr=expr, conversion=conversion, format_spec=spec or None))
    return parts


# --- % formatting --------------------------------------------------------------------

_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[#0\- +]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])")


def _percent_hole(expr: str, flags: str, width: str | None, prec: str | None, kind: str) -> Hole:
    if width == "*" or prec == "*":
        raise Unsupported(Reason.PERCENT_STAR_WIDTH)
    if kind in "rsa":
        align = "<" if "-" in flags else ">" if width else ""
        spec = f"{align}{width or ''}{'.' + prec if prec else ''}"
        return Hole(expr=expr, conversion=kind, format_spec=spec or None)
    if kind in "iu":
        kind = "d"
    fmt_flags = "".join(f for f in "-+ #0" if f in flags).replace("-", "<")
    if "<" in fmt_flags:
        fmt_flags = fmt_flags.replace("0", "")
    spec = f"{fmt_flags}{width or ''}{'.' + prec if prec else ''}{kind}"
    return Hole(expr=expr, conversion=None, format_spec=spec)


def _percent_values(right: cst.BaseExpression, render: Render) -> tuple[list[str] | None, dict[str, str] | None, str]:
    if isinstance(right, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in right.elements):
            raise Unsupported(Reason.PERCENT_STAR_ARGS)
        return [render(e.value) for e in right.elements], None, render(right)
    if isinstance(right, cst.Dict):
        mapping: dict[str, str] = {}
        for element in right.elements:
            if not isinstance(element, cst.DictElement):
                raise Unsupported(Reason.PERCENT_DICT_UNPACKING)
            key = plain_string_value(element.key)
            if key is None:
                raise Unsupported(Reason.PERCENT_DICT_KEY)
            mapping[key] = render(element.value)
        return None, mapping, render(right)
    return None, None, render(right)


def percent_parts(template: str, right: cst.BaseExpression, render: Render) -> list[Part]:
    """``template % right`` as parts."""
    positional, mapping, whole = _percent_values(right, render)
    return _percent_fill(template, positional, mapping, whole)


def percent_fields(template: str) -> list[str] | None:
    """The conversion types of a %-format's fields, in order (``%%`` left out); None where a
    field is keyed or has a ``*`` width, or a ``%`` starts no field (``%`` then raises ValueError)."""
    matches = list(_PERCENT.finditer(template))
    if "%" in _PERCENT.sub("", template) or any(m.group("key") is not None or "*" in (m.group("width") or "") + (m.group("prec") or "")
                                                for m in matches):
        return None
    return [m.group("type") for m in matches if m.group("type") != "%"]


def percent_tuple_parts(template: str, exprs: list[str]) -> list[Part]:
    """``template % (e0, e1, ...)`` as parts, the holes over ``exprs``.

    Raises:
        Unsupported: the fields and the values do not pair up.
    """
    return _percent_fill(template, exprs, None, "(" + ", ".join(exprs) + ",)")


def _percent_fill(template: str, positional: list[str] | None, mapping: dict[str, str] | None, whole: str) -> list[Part]:
    specs = [m for m in _PERCENT.finditer(template) if m.group("type") != "%"]
    named = any(m.group("key") is not None for m in specs)
    parts: list[Part] = []
    cursor = 0
    index = 0
    for match in _PERCENT.finditer(template):
        parts.append(Text(text=template[cursor : match.start()]))
        cursor = match.end()
        if match.group("type") == "%":
            parts.append(Text(text="%"))
            continue
        key = match.group("key")
        if key is not None:
            if mapping is not None:
                if key not in mapping:
                    raise Unsupported(Reason.PERCENT_KEY_UNRESOLVED)
                expr = mapping[key]
            elif whole in ("locals()", "vars()", "globals()"):
                expr = key
            else:
                expr = f"{whole}[{key!r}]"
        elif named:
            raise Unsupported(Reason.PERCENT_MIXED_KEYS)
        elif positional is not None:
            if index >= len(positional):
                raise Unsupported(Reason.PERCENT_ARITY)
            expr = positional[index]
        elif len(specs) == 1:
            expr = whole
        else:
            expr = f"{whole}[{index}]"
        index += 1
        parts.append(_percent_hole(expr, match.group("flags"), match.group("width"), match.group("prec"), match.group("type")))
    parts.append(Text(text=template[cursor:]))
    return parts
