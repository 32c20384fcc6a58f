"""Confirming a failing trial: the checker program evaluated again at the same inputs with
arbitrary-precision intervals, so that a float64 artefact is not reported as a
counterexample (see exact.py). mpmath is imported only when this package is."""

from checkers.confirm.exact import (
    CONFIRMED,
    HOLDS,
    PRECISIONS,
    UNCONFIRMABLE,
    UNDECIDED,
    Exact,
    examine,
    run,
)

__all__ = [
    "CONFIRMED",
    "HOLDS",
    "PRECISIONS",
    "UNCONFIRMABLE",
    "UNDECIDED",
    "Exact",
    "examine",
    "run",
]
