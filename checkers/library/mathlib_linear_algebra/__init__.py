"""Mathlib's linear algebra: matrices over finite index types, as arrays."""

from checkers.library.mathlib_linear_algebra.matrices import MATRICES, MATRIX_FUNCTIONS

__all__ = ["MATRICES", "MATRIX_FUNCTIONS"]
