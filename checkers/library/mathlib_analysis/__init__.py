"""Mathlib's analysis: its predicates read as the relations a numeric check tests, and its
angles (`Real.Angle`) and Euclidean spaces."""

from checkers.library.mathlib_analysis.angles import ANGLES
from checkers.library.mathlib_analysis.euclidean import EUCLIDEAN
from checkers.library.mathlib_analysis.readings import READINGS, UNREFUTABLE, Reading

__all__ = ["ANGLES", "EUCLIDEAN", "READINGS", "UNREFUTABLE", "Reading"]
