"""The restricted evaluator: Python source (guards, templates, generated validators) -> values.

A compiler from ``ast`` to closures, with an allow-list: literals, boolean logic, comparisons,
arithmetic, subscripts, f-strings, a few pure builtins and ``str`` methods, and names or
attribute paths looked up in an environment of plain values. Nothing from the analysed
tree is imported or called; anything outside the allow-list raises ``EvalError``.

``core`` compiles a tree node by node through the allow-list that ``expressions`` fills (one
builder per allowed node type); ``builtins`` holds the pure functions, methods and operators
those builders may call; ``comprehensions`` adds the comprehensions, run as Python runs them;
``statements`` interprets a generated validator's body.
"""

from . import comprehensions, expressions  # noqa: F401  (fill core.BUILDERS: the allow-list)
from .builtins import BUILTIN_TYPES, DICT_METHODS, PINNED, PURE_FUNCTIONS, STR_METHODS, InstancesOf, format_value
from .core import FAILS, evaluate, evaluate_tree, outcome, parse_expr, predicate
from .errors import EvalError, TooLarge, Unknown
from .expressions import PYTHON_NAMES, raised_classes
from .statements import Raised, run_validator

__all__ = [
    "BUILTIN_TYPES", "DICT_METHODS", "FAILS", "PINNED", "PURE_FUNCTIONS", "PYTHON_NAMES", "STR_METHODS", "EvalError", "InstancesOf",
    "Raised", "TooLarge", "Unknown", "evaluate", "evaluate_tree", "format_value", "outcome", "parse_expr", "predicate", "raised_classes",
    "run_validator",
]
