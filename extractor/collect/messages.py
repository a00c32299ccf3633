"""Messages: the libcst message expression of a raise -> MessageTemplate.

Handles plain strings, f-strings (also implicitly concatenated with plain strings),
``"...".format(...)``, ``%`` formatting, ``+`` concatenation and a message held in a local
assigned once. Anything else yields a template of None with a snake_case reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from ..model import Detailed, Hole, MessageTemplate, Part, Reason, ReasonCode, Text
from .formats import Unsupported, format_parts, is_string_literal, percent_parts, plain_string_value, string_parts
from .scope import dotted

Resolve = Callable[[cst.Name], "cst.BaseExpression | Reason | None"]
Render = Callable[[cst.CSTNode], str]


# --- template strings --------------------------------------------------------------


def render_template(parts: tuple[Part, ...]) -> str:
    """Parts -> the f-string-like template text; literal braces are doubled."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, Text):
            out.append(part.text.replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{" + part.expr)
            if part.conversion:
                out.append("!" + part.conversion)
            if part.format_spec:
                out.append(":" + part.format_spec)
            out.append("}")
    return "".join(out)


def merge_parts(parts: list[Part]) -> tuple[Part, ...]:
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, Text):
            if not part.text:
                continue
            if merged and isinstance(merged[-1], Text):
                merged[-1] = Text(text=merged[-1].text + part.text)
                continue
        merged.append(part)
    return tuple(merged)


def make_template(form: str, parts: list[Part]) -> MessageTemplate:
    final = merge_parts(parts)
    seen: dict[str, None] = {}
    for part in final:
        if isinstance(part, Hole):
            seen.setdefault(part.expr, None)
    return MessageTemplate(form=form, parts=final, template=render_template(final), placeholders=tuple(seen))


def unknown(form: str, reason: ReasonCode) -> MessageTemplate:
    return MessageTemplate(form=form, reason=reason)


# --- the dispatcher --------------------------------------------------------------------


def _concat_operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    operands: list[cst.BaseExpression] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BinaryOperation) and isinstance(current.operator, cst.Add) and not current.lpar:
            stack.append(current.right)
            stack.append(current.left)
        else:
            operands.append(current)
    return operands


def _strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", None) else node


_GETTEXT = frozenset({"_", "gettext", "gettext.gettext", "_gettext", "N_"})


def _untranslated(node: cst.BaseExpression) -> cst.BaseExpression:
    """``_("text")`` -> ``"text"``: gettext returns its argument where no translation is
    installed (the C locale, and every locale a project ships no catalog for)."""
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None \
            and is_string_literal(node.args[0].value) and dotted(node.func) in _GETTEXT:
        return node.args[0].value
    return node


def _reconstruct(node: cst.BaseExpression, render: Render, resolve: Resolve, depth: int) -> MessageTemplate:
    if depth > 8:
        return unknown("variable", Reason.MESSAGE_VARIABLE_TOO_DEEP)
    node = _untranslated(node)
    if is_string_literal(node):
        parts, has_f = string_parts(node, render)
        return make_template("fstring" if has_f else "plain", parts)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        template = plain_string_value(_untranslated(node.func.value))
        if template is None:
            return unknown("format", Reason.FORMAT_ON_NON_LITERAL)
        return make_template("format", format_parts(template, node, render))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        template = plain_string_value(_untranslated(node.left))
        if template is None:
            return unknown("percent", Reason.PERCENT_ON_NON_LITERAL)
        return make_template("percent", percent_parts(template, node.right, render))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _reconstruct_concat(node, render, resolve, depth)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("str", "repr") \
            and len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None:
        # str(x) / repr(x) is the whole message: a template with one hole says exactly that.
        return make_template("call", [Hole(expr=render(node))])
    if isinstance(node, cst.Name):
        target = resolve(node)
        if target is node:
            return make_template("parameter", [Hole(expr=node.value)])
        if isinstance(target, Reason):
            return unknown("variable", target)
        if target is None:
            return unknown("variable", Reason.MESSAGE_VARIABLE_UNRESOLVED)
        inner = _reconstruct(_strip_parens(target), render, resolve, depth + 1)
        return MessageTemplate(
            form=f"variable:{inner.form}", parts=inner.parts, template=inner.template,
            placeholders=inner.placeholders, reason=inner.reason,
        )
    return unknown("opaque", Detailed(code=Reason.OPAQUE, value=_kind_name(node)))


def _reconstruct_concat(node: cst.BaseExpression, render: Render, resolve: Resolve, depth: int) -> MessageTemplate:
    """``a + b + ...``: each string literal's text, and a message variable's own template
    where one binding of it reaches here (``error_msg + "cannot be the same as the current
    layer."``, vLLM's attention.py); any other operand is a hole."""
    operands = _concat_operands(node)
    parts: list[Part] = []
    texts = 0
    for operand in operands:
        if is_string_literal(operand):
            parts.extend(string_parts(operand, render)[0])
            texts += 1
            continue
        inner = _variable_template(operand, render, resolve, depth)
        if inner is not None:
            parts.extend(inner)
            texts += 1
        else:
            parts.append(Hole(expr=render(operand)))
    if not texts:
        return unknown("concat", Reason.CONCAT_WITHOUT_STRING_LITERAL)
    return make_template("concat", parts)


def _variable_template(node: cst.BaseExpression, render: Render, resolve: Resolve, depth: int) -> list[Part] | None:
    """The parts of the text a local name holds (its one reaching binding, a string
    template); None for anything else."""
    if not isinstance(node, cst.Name) or depth >= 8:
        return None
    target = resolve(node)
    if not isinstance(target, cst.BaseExpression) or target is node:
        return None
    inner = _reconstruct(_strip_parens(target), render, resolve, depth + 1)
    return list(inner.parts) if inner.parts is not None and inner.reason is None else None


def _kind_name(node: cst.CSTNode) -> str:
    name = type(node).__name__
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def reconstruct_message(node: cst.BaseExpression, render: Render, resolve: Resolve) -> MessageTemplate:
    """The message expression as a template; never raises for unsupported input."""
    try:
        return _reconstruct(_strip_parens(node), render, resolve, 0)
    except Unsupported as exc:
        return unknown("unsupported", exc.reason)
