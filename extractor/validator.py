"""Validators: Guard + message template -> a standalone check function, generated with libcst.

The function takes the guard's inputs (and any other value the message reads) as
parameters named after their leaf names, restates the whole guard with module constants
inlined and opaque calls turned into parameters, and raises the same exception class with
the same message.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

import libcst as cst

from .model import Domain, Hole, MessageTemplate, Text
from .scope import dotted, node_fields

_CONVERSIONS = {"str": "s", "repr": "r", "ascii": "a"}
_BUILTIN_ANNOTATIONS = {"int", "float", "str", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset"}


class NotExpressible(Exception):
    """The validator cannot be written; ``args[0]`` is the reason code."""


@dataclass(frozen=True, slots=True)
class Generated:
    name: str
    code: str
    params: dict[str, str]  # parameter -> input (or opaque atom) it stands for


def _slug(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_").lower() or "value"


def param_names(keys: list[str]) -> dict[str, str]:
    """Input -> parameter name: the leaf name, lengthened only where two inputs share it."""
    names: dict[str, str] = {}
    for depth in range(1, 8):
        proposal = {key: _slug("_".join(key.split(".")[-depth:])) if "(" not in key else _slug(key) for key in keys if key not in names}
        counts: dict[str, int] = {}
        for value in [*proposal.values(), *names.values()]:
            counts[value] = counts.get(value, 0) + 1
        for key, value in proposal.items():
            if counts[value] == 1 or depth == 7:
                names[key] = value if counts[value] == 1 else f"{value}_{len(names)}"
    if "self" in names.values() or "cls" in names.values():
        names = {k: ("obj" if v in ("self", "cls") else v) for k, v in names.items()}
    return names


class _Rename:
    """Inputs -> parameter names, opaque atoms -> parameters, constants -> their literal.

    A node (name, attribute or call) that stands for one of them is replaced whole; the
    nodes above a replacement are rebuilt, every other node is kept as it is (a libcst
    transformer would rebuild the whole tree: most of a validator's cost)."""

    def __init__(self, names: dict[str, str], constants: dict[str, str]) -> None:
        self.names = names
        self.constants = constants
        # Keys that are code (an opaque call, say), not a dotted name.
        self.code_keys = [key for key in [*names, *constants] if not _DOTTED.fullmatch(key)]

    def apply(self, node: cst.CSTNode) -> cst.CSTNode:
        if isinstance(node, (cst.Name, cst.Attribute, cst.Call)):
            replacement = self._replacement(node)
            if replacement is not None:
                return replacement
        changes: dict[str, object] = {}
        for name in node_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                renamed = self.apply(value)
                if renamed is not value:
                    changes[name] = renamed
            elif isinstance(value, (list, tuple)) and value:
                items = [self.apply(v) if isinstance(v, cst.CSTNode) else v for v in value]
                if any(new is not old for new, old in zip(items, value)):
                    changes[name] = type(value)(items)
        return node.with_changes(**changes) if changes else node

    def _replacement(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        # Keys are in ast.unparse form: a dotted name is its own; a call needs the round trip.
        key = dotted(node)
        if key is None:
            if not self._may_be_code_key(node):
                return None
            try:
                key = ast.unparse(ast.parse(cst.Module(body=[]).code_for_node(node).strip(), mode="eval"))
            except (SyntaxError, ValueError, RecursionError):
                return None
        if key in self.names:
            return cst.Name(self.names[key])
        if key in self.constants:
            return cst.parse_expression(self.constants[key]).with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
            )
        return None

    def _may_be_code_key(self, node: cst.BaseExpression) -> bool:
        """False when the node's unparsed form cannot be a code key: a call of a dotted
        name unparses as that name and "(", an attribute ends with "." and its name."""
        if isinstance(node, cst.Call) and (func := dotted(node.func)) is not None:
            return any(key.startswith(func + "(") for key in self.code_keys)
        if isinstance(node, cst.Attribute):
            return any(key.endswith("." + node.attr.value) for key in self.code_keys)
        return bool(self.code_keys)


_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def _annotation(domain: Domain | None, is_boolean_atom: bool) -> cst.Annotation | None:
    if is_boolean_atom:
        return cst.Annotation(cst.Name("bool"))
    if domain is None or not domain.types:
        return None
    names = list(dict.fromkeys("None" if t == "NoneType" else t for t in domain.types))
    if not all(n in _BUILTIN_ANNOTATIONS or n == "None" for n in names):
        return None
    if "int" in names and "float" in names:
        names.remove("int")
    return cst.Annotation(cst.parse_expression(" | ".join(names)))


def _message_node(message: MessageTemplate, rename: _Rename) -> cst.BaseExpression:
    if message.parts is None:
        raise NotExpressible("message_not_reconstructed")
    pieces: list[cst.BaseFormattedStringContent] = []
    holes: list[str] = []
    for part in message.parts:
        if isinstance(part, Text):
            escaped = repr(part.text)[1:-1].replace('"', '\\"').replace("\\'", "'")
            pieces.append(cst.FormattedStringText(escaped.replace("{", "{{").replace("}", "}}")))
            continue
        assert isinstance(part, Hole)
        try:
            expr = rename.apply(cst.parse_expression(part.value or part.expr))
        except cst.ParserSyntaxError as exc:
            raise NotExpressible("placeholder_not_expression") from exc
        conversion = part.conversion
        if conversion is None and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) \
                and expr.func.value in _CONVERSIONS and len(expr.args) == 1 and not expr.args[0].star and expr.args[0].keyword is None:
            # f"{str(x)}" is f"{x!s}": the flag is the idiom linters ask for.
            expr, conversion = expr.args[0].value, _CONVERSIONS[expr.func.value]
        code = cst.Module(body=[]).code_for_node(expr)
        if '"' in code or "\\" in code or "\n" in code:
            raise NotExpressible("placeholder_needs_quotes")
        holes.append(code)
        spec = [cst.FormattedStringText(part.format_spec)] if part.format_spec else None
        pieces.append(cst.FormattedStringExpression(expression=expr, conversion=conversion, format_spec=spec))
    if not holes:
        return cst.SimpleString('"' + "".join(p.value for p in pieces).replace("{{", "{").replace("}}", "}") + '"')  # type: ignore[attr-defined]
    return cst.FormattedString(parts=pieces, start='f"', end='"')


def generate_validator(
    *, name: str, guard_code: str, message: MessageTemplate, exception: str, import_from: str | None,
    keys: list[str], domains: dict[str, Domain], boolean_atoms: set[str], constants: dict[str, str], docstring: str,
) -> Generated:
    """The validator's source.

    Raises:
        NotExpressible: the message or guard cannot be restated as a standalone function.
    """
    names = param_names(keys)
    rename = _Rename(names, constants)
    try:
        test = rename.apply(cst.parse_expression(guard_code))
    except cst.ParserSyntaxError as exc:
        raise NotExpressible("guard_not_expression") from exc
    raise_stmt = cst.Raise(exc=cst.Call(func=cst.Name(exception), args=[cst.Arg(_message_node(message, rename))]))
    body = cst.IndentedBlock(body=[
        cst.SimpleStatementLine([cst.Expr(cst.SimpleString('"""' + docstring.replace('"', "'").replace("\\", "/") + '"""'))]),
        cst.If(test=test, body=cst.IndentedBlock(body=[cst.SimpleStatementLine([raise_stmt])])),
    ])
    params = [cst.Param(name=cst.Name(names[key]), annotation=_annotation(domains.get(key), key in boolean_atoms)) for key in keys]
    function = cst.FunctionDef(
        name=cst.Name(name), params=cst.Parameters(params=params),
        body=body, returns=cst.Annotation(cst.Name("None")),
    )
    statements: list[cst.BaseStatement] = []
    if import_from is not None:
        statements.append(cst.parse_statement(f"from {import_from} import {exception}"))
        statements.append(cst.EmptyLine())  # type: ignore[arg-type]
    module = cst.Module(body=[s for s in statements if isinstance(s, cst.BaseStatement)] + [function])
    code = module.code
    if import_from is not None:
        code = code.replace(f"import {exception}\n", f"import {exception}\n\n\n", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(code, "<validator>", "exec")  # syntax check only: nothing is executed
    return Generated(name=name, code=code, params={names[k]: k for k in keys})


def validator_name(own_inputs: list[str], fallback: str) -> str:
    leaf = own_inputs[-1].split(".")[-1] if own_inputs else fallback
    return "check_" + _slug(leaf)
