"""Mathlib's analysis: its predicates read as the relations a numeric check tests."""

from checkers.library.mathlib_analysis.readings import READINGS, UNREFUTABLE, Reading

__all__ = ["READINGS", "UNREFUTABLE", "Reading"]
