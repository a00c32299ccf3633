"""The evaluator's refusals: what it raises instead of a value."""

from __future__ import annotations

from ...model import Reason


class EvalError(Exception):
    """The expression needs something outside the allow-list, or failed on these values."""


class ValueFailure(EvalError):
    """An allowed operation that these plain values make raise (``'' <= 0``: TypeError): the
    real code raises there too."""


class Unknown(EvalError):
    """The value depends on a named constant whose value the tree does not give."""

    code = Reason.UNKNOWN_CONSTANT


class TooLarge(EvalError):
    """A value past the evaluator's limits was asked for; refused before it was computed."""

    code = Reason.VALUE_TOO_LARGE
