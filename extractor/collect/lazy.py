"""Module attributes a module ``__getattr__`` computes on each read, from a table of functions.

vLLM's ``envs`` module is the pattern: ``environment_variables = {"VLLM_PORT": lambda:
..., ...}`` and ``def __getattr__(name): return environment_variables[name]()``. Reading
``envs.VLLM_HOST_IP`` runs the lambda, so its value is the lambda's body at that moment
(``os.getenv("VLLM_HOST_IP", "")``), never the default an ``if TYPE_CHECKING:`` block
declares for type checkers. Found with ``ast`` alone: a top-level dict display with string
keys that the module's ``__getattr__`` reads. A value that is not a lambda of no
parameters has no body to read (None).
"""

from __future__ import annotations

import ast

from .syntax import walk

_MAX_BODY = 2_000  # characters of a lambda body kept (a longer one is not followed)


def lazy_attributes(tree: ast.Module) -> tuple[tuple[str, str | None], ...]:
    """(attribute, the code that computes it, or None) for each entry of the table the
    module's ``__getattr__`` reads; () where the module has none."""
    getattr_function = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "__getattr__"), None)
    if getattr_function is None:
        return ()
    read = {n.id for n in walk(getattr_function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    found: dict[str, str | None] = {}
    for stmt in tree.body:
        target, value = _dict_binding(stmt)
        if target not in read or not isinstance(value, ast.Dict):
            continue
        for key, entry in zip(value.keys, value.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found[key.value] = _body(entry)
    return tuple(sorted(found.items()))


def _dict_binding(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value
    return None, None


def _body(entry: ast.expr) -> str | None:
    if not isinstance(entry, ast.Lambda):
        return None
    arguments = entry.args
    if arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg:
        return None
    code = ast.unparse(entry.body)
    return code if len(code) <= _MAX_BODY else None
