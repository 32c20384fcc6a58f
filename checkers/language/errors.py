"""Why a statement could not be evaluated."""

from __future__ import annotations

from checkers.core import Unevaluable


class EvalError(Exception):
    """The evaluator met something it cannot give Lean's meaning to."""


class NotSupported(EvalError, Unevaluable):
    """A construct or constant outside what the derived checkers evaluate.

    `missing` lists constants that have no semantics (neither an ingested
    equation nor a library entry).
    """

    def __init__(self, reason: str, missing: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing


class UntypedNumeral(NotSupported):
    """Numerals whose type only the surrounding term can fix, met where the value
    cannot wait for it (a select on a traced condition, a power with a traced
    exponent). An arithmetic tree evaluates such a leaf again at its own type."""
