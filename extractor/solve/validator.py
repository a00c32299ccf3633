"""Validators: Guard + message template -> a standalone check function.

The function takes the guard's inputs (and any other value the message reads) as
parameters named after their leaf names, restates the whole guard with module constants
inlined and opaque calls turned into parameters, and raises the same exception class with
the same message.

Written as text, not as libcst nodes (STYLE asks for nodes): building the guard as nodes
meant a libcst parse, a rename and a codegen per card, 18% of a vLLM run in one process.
The guard and each message hole keep the source's own text; ``ast`` spans say exactly what
a rename replaces (a name, or a literal in parentheses), the skeleton around them is fixed,
and every validator is compiled here and run against its card's trigger and fixes.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Any

from ..collect.declarations import DOTTED, dotted_name
from ..collect.purity import BUILTIN_NAMES
from ..collect.syntax import child_nodes
from ..model import RAISES, Argument, Card, CardContext, Domain, Hole, MessageTemplate, PartRole, RaiseKind, Reason, Text, Validator
from ..model.pytext import parse_expression, try_parse_expression
from .arrays import tests_array_class
from .evaluate import PINNED, PURE_FUNCTIONS
from .problem import Problem, classes_of
from .status import unmodelled_path
from .values import Modelled, Named

_CONVERSIONS = {"str": "s", "repr": "r", "ascii": "a"}
_BUILTIN_ANNOTATIONS = {"int", "float", "str", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset"}


class NotExpressible(Exception):
    """The validator cannot be written; ``args[0]`` is the reason code (a Reason)."""


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

    Works on the text: the expression is parsed with ``ast``, and the source span of each
    outermost node (name, attribute or call) that stands for one of them, with the
    parentheses that are its own, is replaced; everything else stays as written."""

    def __init__(self, names: dict[str, str], constants: dict[str, str]) -> None:
        self.names = names
        self.constants = constants
        # Keys that are code (an opaque call, say), not a dotted name.
        self.code_keys = [key for key in [*names, *constants] if not DOTTED.fullmatch(key)]

    def apply(self, code: str) -> str:
        """``code`` (one expression) renamed.

        Raises:
            SyntaxError: ``code`` is not one expression.
        """
        code = code.rstrip()
        tree = parse_expression(code)
        edits: list[tuple[ast.AST | None, ast.expr, str]] = []
        self._collect(tree, None, edits)
        if not edits:
            return code
        text = _Text(code)
        spans = sorted((*text.own_span(node, parent), replacement) for parent, node, replacement in edits)
        pieces: list[bytes] = []
        position = 0
        for start, end, replacement in spans:  # never nested: only outermost nodes are replaced
            pieces.extend((text.data[position:start], replacement.encode("utf-8")))
            position = end
        pieces.append(text.data[position:])
        return b"".join(pieces).decode("utf-8")

    def _collect(self, root: ast.expr, parent: ast.AST | None, edits: list[tuple[ast.AST | None, ast.expr, str]]) -> None:
        """The outermost nodes to replace (iteratively: a guard may nest deeply)."""
        work: list[tuple[ast.AST, ast.AST | None]] = [(root, parent)]
        while work:
            node, parent = work.pop()
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
                replacement = self._replacement(node)
                if replacement is not None:
                    edits.append((parent, node, replacement))
                    continue
            work.extend((child, node) for child in child_nodes(node))

    def _replacement(self, node: ast.Name | ast.Attribute | ast.Call) -> str | None:
        # Keys are in ast.unparse form: a dotted name is its own.
        key = dotted_name(node)
        if key is None:
            if not self._may_be_code_key(node):
                return None
            key = ast.unparse(node)
        if key in self.names:
            return self.names[key]
        if key in self.constants:
            literal = _without_outer_parens(self.constants[key])
            return literal if literal == "()" else f"({literal})"
        return None

    def _may_be_code_key(self, node: ast.expr) -> bool:
        """False when the node's unparsed form cannot be a code key: a call of a dotted
        name unparses as that name and "(", an attribute ends with "." and its name."""
        if isinstance(node, ast.Call) and (func := dotted_name(node.func)) is not None:
            return any(key.startswith(func + "(") for key in self.code_keys)
        if isinstance(node, ast.Attribute):
            return any(key.endswith("." + node.attr) for key in self.code_keys)
        return bool(self.code_keys)




class _Text:
    """An expression's source as UTF-8 bytes (``ast`` offsets count bytes), and the span
    of a node with the parentheses that are its own."""

    def __init__(self, code: str) -> None:
        self.data = code.encode("utf-8")
        self.line_starts = [0]
        newline = self.data.find(b"\n")
        while newline >= 0:
            self.line_starts.append(newline + 1)
            newline = self.data.find(b"\n", newline + 1)

    def span(self, node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None  # (a parsed node has its end)
        return (self.line_starts[node.lineno - 1] + node.col_offset,
                self.line_starts[node.end_lineno - 1] + node.end_col_offset)

    def own_span(self, node: ast.expr, parent: ast.AST | None) -> tuple[int, int]:
        """The node's span widened over the parentheses around it: ``(x)`` is one name
        written in parentheses, but in ``f(x)`` they belong to the call."""
        start, end = self.span(node)
        layers = [(start, end)]
        while True:
            before = self._skip(start - 1, -1)
            after = self._skip(end, 1)
            if before < 0 or after >= len(self.data) or self.data[before] != 40 or self.data[after] != 41:
                break
            start, end = before, after + 1
            layers.append((start, end))
        if (len(layers) > 1 and isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords
                and layers[-1][1] == self.span(parent)[1]):
            layers.pop()  # the call's own parentheses
        return layers[-1]

    def _skip(self, index: int, step: int) -> int:
        while 0 <= index < len(self.data) and self.data[index] in _BLANK:
            index += step
        return index


_BLANK = frozenset(b" \t\n\r\f\\")


def _parse(code: str) -> ast.expr | None:
    """``code`` as one expression (stripped, as the evaluator reads it), None when it is not one."""
    return try_parse_expression(code.strip())


def _without_outer_parens(code: str) -> str:
    """``(1, 2)`` -> ``1, 2``: parentheses around the whole literal that only group it."""
    code = code.strip()
    tree = _parse(code)
    while tree is not None and code.startswith("(") and code.endswith(")"):
        inner = _parse(code[1:-1].strip())
        if inner is None or ast.dump(inner) != ast.dump(tree):
            break
        code = code[1:-1].strip()
    return code


def _annotation(domain: Domain | None, is_boolean_atom: bool) -> str | None:
    if is_boolean_atom:
        return "bool"
    if domain is None or not domain.types:
        return None
    names = list(dict.fromkeys("None" if t == "NoneType" else t for t in domain.types))
    if not all(n in _BUILTIN_ANNOTATIONS or n == "None" for n in names):
        return None
    if "int" in names and "float" in names:
        names.remove("int")
    return " | ".join(names)


def _message_code(message: MessageTemplate, rename: _Rename) -> str:
    if message.parts is None:
        raise NotExpressible(Reason.MESSAGE_NOT_RECONSTRUCTED)
    pieces: list[str] = []
    holes: list[bool] = []  # whether each piece is a placeholder
    has_holes = quoted = False
    for part in message.parts:
        if isinstance(part, Text):
            escaped = repr(part.text)[1:-1].replace('"', '\\"').replace("\\'", "'")
            pieces.append(escaped.replace("{", "{{").replace("}", "}}"))
            holes.append(False)
            continue
        assert isinstance(part, Hole)
        try:
            code = rename.apply(part.value or part.expr)
        except SyntaxError as exc:
            raise NotExpressible(Reason.PLACEHOLDER_NOT_EXPRESSION) from exc
        conversion = part.conversion
        expr = _parse(code)
        if conversion is None and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id in _CONVERSIONS and len(expr.args) == 1 and not isinstance(expr.args[0], ast.Starred) \
                and not expr.keywords:
            # f"{str(x)}" is f"{x!s}": the flag is the idiom linters ask for.
            text = _Text(code)
            start, end = text.own_span(expr.args[0], expr)
            code, conversion = text.data[start:end].decode("utf-8"), _CONVERSIONS[expr.func.id]
        if "\\" in code or "\n" in code or '"' in code and "'" in code:
            raise NotExpressible(Reason.PLACEHOLDER_NEEDS_QUOTES)
        has_holes = True
        quoted = quoted or '"' in code
        pieces.append("{" + code + (f"!{conversion}" if conversion else "") + (f":{part.format_spec}" if part.format_spec else "") + "}")
        holes.append(True)
    if not has_holes:
        return '"' + "".join(pieces).replace("{{", "{").replace("}}", "}") + '"'
    if quoted:  # (a placeholder holds a double quote: the f-string is single-quoted, before Python 3.12 too)
        if any("'" in p for p, hole in zip(pieces, holes) if hole):
            raise NotExpressible(Reason.PLACEHOLDER_NEEDS_QUOTES)
        return "f'" + "".join(p if hole else p.replace('\\"', '"').replace("'", "\\'") for p, hole in zip(pieces, holes)) + "'"
    return 'f"' + "".join(pieces) + '"'


# Message forms that the exception class or Python's rendering of several arguments makes
# from the call's arguments (link.messages.compose): str(exc) is not the first argument.
_BUILT_FORMS = ("oserror", "args", "key", "multiple_args")


def built_by_class(message: MessageTemplate) -> bool:
    """Whether ``str()`` of the exception is made from the call's arguments by the class (its
    ``__init__`` or ``__str__``) or by Python's rendering of several arguments, not the one
    message argument as it is."""
    return message.form.startswith(("class:", "class_base:")) or message.form in _BUILT_FORMS


def _type_checks_only(test: str) -> bool:
    """Whether a test is made of ``isinstance``, ``issubclass`` and ``callable`` calls alone
    (through ``not``, ``and``, ``or``): what ruff's TRY004 reads as a type check."""
    tree = try_parse_expression(test)

    def checks(node: ast.expr | None) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return checks(node.operand)
        if isinstance(node, ast.BoolOp):
            return all(checks(value) for value in node.values)
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass", "callable")

    return checks(tree)


def _arguments_code(arguments: tuple[Argument, ...], rename: _Rename, params: set[str]) -> str:
    """The exception call's arguments, renamed: the call the site makes."""
    pieces = []
    for argument in arguments:
        try:
            code = rename.apply(argument.value or argument.code)
        except SyntaxError as exc:
            raise NotExpressible(Reason.ARGUMENT_NOT_EXPRESSION) from exc
        expr = _parse(code)
        free = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} if expr is not None else {""}
        if expr is None or free - params - BUILTIN_NAMES:
            raise NotExpressible(Reason.ARGUMENT_NOT_EXPRESSION)  # it reads a value the validator does not take
        pieces.append(f"{argument.keyword}={code}" if argument.keyword else code)
    return ", ".join(pieces)


# The modules whose names the evaluator knows (``math.isfinite``, ``sys.maxsize``), which a validator imports.
_KNOWN_MODULES = sorted({name.split(".")[0] for name in (*PINNED, *PURE_FUNCTIONS) if "." in name})


def generate_validator(
    *, name: str, guard_code: str, message: MessageTemplate, exception: str, import_from: str | None,
    keys: list[str], domains: dict[str, Domain], boolean_atoms: set[str], constants: dict[str, str], docstring: str,
    arguments: tuple[Argument, ...] | None = None,
) -> Generated:
    """The validator's source. Where the class makes the message (``built_by_class``) it is
    raised with the site's own ``arguments``, renamed, so that ``str()`` is the site's.

    Raises:
        NotExpressible: the message or guard cannot be restated as a standalone function.
    """
    names = param_names(keys)
    rename = _Rename(names, constants)
    try:
        test = rename.apply(guard_code)
    except SyntaxError as exc:
        raise NotExpressible(Reason.GUARD_NOT_EXPRESSION) from exc
    params = []
    for key in keys:
        annotation = _annotation(domains.get(key), key in boolean_atoms)
        params.append(names[key] if annotation is None else f"{names[key]}: {annotation}")
    docstring = docstring.replace('"', "'").replace("\\", "/")
    if built_by_class(message):
        if arguments is None:
            raise NotExpressible(Reason.MESSAGE_BUILT_BY_CLASS)
        call = _arguments_code(arguments, rename, set(names.values()))
    else:
        call = _message_code(message, rename)
    # (the code's own class: a type check that raises another than TypeError is what the code does)
    lint = "  # noqa: TRY004" if exception.rsplit(".", 1)[-1] != "TypeError" and _type_checks_only(test) else ""
    code = (
        f"def {name}({', '.join(params)}) -> None:\n"
        f'    """{docstring}"""\n'
        f"    if {test}:\n"
        f"        raise {exception}({call}){lint}\n"
    )
    read = {n.value.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    # (``math.isfinite``, ``sys.maxsize``: what the evaluator knows of those modules)
    heads = [f"import {module}" for module in _KNOWN_MODULES if module in read and module not in names.values()]
    heads += [f"from {import_from} import {exception}"] if import_from is not None else []
    if heads:
        code = "\n".join(heads) + "\n\n\n" + code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(code, "<validator>", "exec")  # syntax check only: nothing is executed
    return Generated(name=name, code=code, params={names[k]: k for k in keys})


def validator_name(own_inputs: list[str], fallback: str) -> str:
    leaf = own_inputs[-1].split(".")[-1] if own_inputs else fallback
    return "check_" + _slug(leaf)


def _in_signature_order(keys: list[str], ctx: CardContext) -> list[str]:
    """The inputs in the order of the function's parameters they read (``check(cfg, mode)``'s
    validator takes ``cfg`` first), the others after them, as they came."""
    order = {p.name: index for index, p in enumerate(ctx.signature.params)}
    return sorted(keys, key=lambda key: order.get(re.split(r"[.\[]", key, maxsplit=1)[0], len(order)))


def _holds_named(value: Any) -> bool:
    """Whether a constant is, or holds, a value only its library or module can write (an Enum
    member, a dtype: ``(torch.float16, torch.bfloat16)``; a table's values: keyed_dict)."""
    if isinstance(value, (Named, Modelled)):
        return True
    if isinstance(value, dict):
        return any(map(_holds_named, value.values()))
    return isinstance(value, (tuple, list, set, frozenset)) and any(map(_holds_named, value))


def card_validator(card: Card, ctx: CardContext, problem: Problem, keys: list[str],
                   domains: dict[str, Domain]) -> tuple[Validator | None, Reason | None]:
    """The card's validator, or None and the reason code why it has none."""
    exc = card.exception
    if card.statement.kind == RaiseKind.RERAISE:
        return None, Reason.RERAISES  # what it raises was caught or passed in: no standalone function makes it
    if exc.factory:
        return None, Reason.EXCEPTION_BUILT_BY_CALL
    if len(exc.classes) != 1:
        return None, Reason.EXCEPTION_CLASS_UNRESOLVED
    if card.message.parts is None:
        return None, Reason.MESSAGE_NOT_RECONSTRUCTED
    if card.statement.guard.code == "True":
        return None, Reason.UNCONDITIONAL
    if card.statement.guard.loops:
        return None, Reason.NEEDS_LOOP_ELEMENT  # the check runs on an element the function takes from a loop
    if f"{RAISES}(" in card.statement.guard.code:
        return None, Reason.NEEDS_TRY_BODY  # whether the function's own try body raises: no standalone check
    if (path := unmodelled_path(card.statement.guard)) is not None:
        # the guard is not the whole condition (a handler's try body must raise first, a loop
        # must give an element): restating it alone would refuse calls that never raise
        return None, path
    if any(map(_holds_named, problem.constants.values())):
        # a standalone function would have to import the Enum member or constant (a table's values: keyed_dict; a dtype)
        return None, Reason.NEEDS_NAMED_CONSTANT
    if classes_of(problem.constants) or tests_array_class(problem.tree):
        return None, Reason.NEEDS_CLASS  # a standalone function would have to import the classes its isinstance tests name
    if any(v.is_atom for v in problem.variables.values()):
        return None, Reason.NEEDS_VALUE_NO_CALLER_SETS  # a validator takes the entry's inputs only
    name = exc.classes[0].rsplit(".", 1)[-1]
    keys = [*keys, *(tied for tied, same in problem.ties if same in keys and tied not in keys)]  # (a parameter each: Problem.ties)
    own = [p.code for p in card.statement.guard.parts if p.role == PartRole.OWN]
    own_inputs = [k for k in keys if any(k in code for code in own)]
    try:
        generated = generate_validator(
            name=validator_name(own_inputs, name), guard_code=card.statement.guard.code, message=card.message,
            exception=name, import_from=ctx.place.exception_module, keys=_in_signature_order(keys, ctx), domains=domains,
            boolean_atoms={n for n, v in problem.variables.items() if v.is_boolean and v.is_atom},
            constants={**dict(card.statement.guard.constants), **{chain: code for chain, kind, code in ctx.names.named if kind == "value"}},
            arguments=ctx.passage.arguments,
            # Named by function, not line, so that a solution survives edits above the raise.
            docstring=f"Raise {name} as {f'{card.at.function}()' if card.at.function else 'the module body'} in {card.path} does, "
                      "under the same condition.",
        )
    except NotExpressible as exc_info:
        return None, exc_info.args[0]
    except SyntaxError:
        return None, Reason.VALIDATOR_NOT_COMPILED
    return Validator(name=generated.name, code=generated.code, params=generated.params), None
