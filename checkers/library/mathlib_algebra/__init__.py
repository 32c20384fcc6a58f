"""Mathlib's algebra: the units of the modelled numbers and of matrices over them."""

from checkers.library.mathlib_algebra.units import DECIDED_PREDICATES, UNITS

__all__ = ["DECIDED_PREDICATES", "UNITS"]
