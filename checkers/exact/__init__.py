"""The exact route: relations between exact numbers decided exactly.

sides: exact ℕ/ℤ/`Fin` sides compared with no float tolerance; terms with numbers: a
closed rational statement (ℕ, ℤ, ℚ with Lean's total semantics, choose, factorial,
static finite sums, definitions unfolded) decided in exact arithmetic where float64
cannot decide it.
"""

from checkers.exact.sides import EXACT, exact_sides
from checkers.exact.terms import decide

__all__ = ["EXACT", "decide", "exact_sides"]
