"""ℂ as Mathlib defines it: numbers of kind 'complex', and the functions of them."""

from checkers.library.complex.functions import COMPLEX

__all__ = ["COMPLEX"]
