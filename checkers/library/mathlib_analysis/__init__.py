"""Mathlib's analysis: its predicates read as the relations a numeric check tests, its
angles (`Real.Angle`) and Euclidean spaces, and the real Gamma function."""

from checkers.library.mathlib_analysis.angles import ANGLES
from checkers.library.mathlib_analysis.euclidean import EUCLIDEAN
from checkers.library.mathlib_analysis.gamma import GAMMA
from checkers.library.mathlib_analysis.readings import READINGS, UNREFUTABLE, Reading

__all__ = ["ANGLES", "EUCLIDEAN", "GAMMA", "READINGS", "UNREFUTABLE", "Reading"]
