"""argparse's ``error``, the ``ast`` half: a call statement ``X.error(<one argument>)`` whose
``X`` the function's code binds to an object of a class named there (``parser =
argparse.ArgumentParser(...)``, a parameter annotated ``parser: FlexibleArgumentParser``), or
``self.error(<one argument>)`` in a method; the class as written (``self`` for the latter),
which linking resolves (link.argerror: it must be ``argparse.ArgumentParser`` or a class of the
tree deriving from it that does not define ``error`` again). Never from the name alone: a name
bound more than once, or otherwise than by one call of a named class (a loop target, an
argument of ``global``/``nonlocal``, a bare or unannotated parameter), has no class here.
"""

from __future__ import annotations

import ast

from .declarations import dotted_name
from .helpers import call_of

SELF = "self"


def parser_receiver(stmt: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef | None,
                    module_values: list[ast.expr | str | None] | None) -> str | None:
    """The class ``X`` of the call statement ``X.error(arg)`` is bound to, as written, or
    ``self``; None where it is no such call or the code does not show the class.
    ``module_values``: what the module's bindings of ``X`` bind (constants.module_names)."""
    call = call_of(stmt)
    if call is None or function is None or len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        return None
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "error" and isinstance(func.value, ast.Name)):
        return None
    name = func.value.id
    if name == SELF:
        return SELF if function.args.args and function.args.args[0].arg == SELF else None
    return _local_class(function, name) if _binds(function, name) else _module_class(module_values)


def _binds(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the function binds ``name`` (a parameter, a store, ``global``/``nonlocal``)."""
    args = function.args
    if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None):
        return True
    return any(_binding_of(node, name) for node in ast.walk(function))


def _binding_of(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".", 1)[0]) == name
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    return False


def _local_class(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
    """The class of the function's one binding of ``name``: a parameter annotated with a class,
    or one ``name = C(...)`` (nothing else in the function, nested definitions too, binds it)."""
    args = function.args
    params = [a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None and a.arg == name]
    stores = [n for n in ast.walk(function) if _binding_of(n, name)]
    if params:
        is_plain = params[0] not in (args.vararg, args.kwarg)
        return _annotation_class(params[0].annotation) if not stores and is_plain else None
    if len(stores) != 1:
        return None
    assigns = [n for n in ast.walk(function) if isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] is stores[0]]
    return _call_class(assigns[0].value) if assigns else None


def _module_class(values: list[ast.expr | str | None] | None) -> str | None:
    """The class of a module name bound once, to a call of a named class."""
    if not values or len(values) != 1 or not isinstance(values[0], ast.expr):
        return None
    return _call_class(values[0])


def _call_class(value: ast.expr) -> str | None:
    return dotted_name(value.func) if isinstance(value, ast.Call) else None


def _annotation_class(annotation: ast.expr | None) -> str | None:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value.strip()
        return text if all(part.isidentifier() for part in text.split(".")) else None
    return dotted_name(annotation) if annotation is not None else None
