"""Relations between exact numbers are decided exactly, not within a float tolerance.

The sides a checker returns are compared in floats, with a tolerance relative to
their size (checkers/tolerance.py), which cannot tell 10^12 from 10^12 + 1.
Where both sides of a relation are exact constants (ℕ, ℤ or `Fin` values the
evaluator holds as Python integers: a `dotZ xs ys = 729570` over `List ℤ` data)
its truth is known exactly, so the checker reports them with no tolerance in
float64 (`EXACT`): as themselves where float64 holds them exactly, else as 0 and
1 placed so that the float comparison gives the exact answer. That tolerance is the
whole check's only where the statement has a single dims draw; where sides are exact
at some draws only (a list of length 0), those draws give 0 and 1 placed so that any
tolerance gives the exact answer, and the others keep theirs. A low-precision
run compares its rounding of the same sides against them as it compares any
side, within that dtype's tolerance (a statement's integers are no more exact in
float32 than its reals).

Two lists are equal when they have one shape (length, and the lengths of their
elements that are lists) and equal elements: lists of different shapes are
unequal exactly; lists of exact constants are compared exactly; others as the
vectors of their elements.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from checkers.core import ToleranceOverride
from checkers.evaluator.forms import stack
from checkers.language.coercion import Ctx, coerce, settle
from checkers.language.errors import NotSupported
from checkers.language.values import Arr, Lst

EXACT = ToleranceOverride(atol={"float64": 0.0}, rtol={"float64": 0.0})

# (lhs, rhs) that the float comparison decides as the exact one: by relation and truth
_DECIDED = {
    ("=", True): (0, 0),
    ("=", False): (0, 1),
    ("≤", True): (0, 0),
    ("≤", False): (1, 0),
    ("<", True): (0, 1),
    ("<", False): (0, 0),  # a tie fails a strict inequality
    ("≥", True): (0, 0),
    ("≥", False): (0, 1),
    (">", True): (1, 0),
    (">", False): (0, 0),
}


# the same, decided by the float comparison within any tolerance (a gap of 1 between
# values at most 1, never a tie where the relation fails): for a statement whose sides
# are exact at some dims draws only, which the other draws compare within a tolerance
_DECISIVE = {
    **_DECIDED,
    ("<", False): (1, 0),
    (">", False): (0, 1),
}


def exact_value(x: Any) -> Fraction | None:
    """The value of an exact constant (a number without axes held as a Python integer
    or fraction), else None."""
    if not isinstance(x, Arr) or x.axes or x.dom or x.log or x.kind == "bool":
        return None
    if x.is_static and not isinstance(x.data, bool):
        return Fraction(x.data)
    return None


def _held(v: Fraction) -> float | None:
    """v as a float64, when that float is v exactly."""
    f = float(v)
    return f if Fraction(f) == v else None


def exact_sides(
    op: str, lhs: Any, rhs: Any, dtype: Any, *, tolerant: bool = False
) -> tuple[Arr, Arr] | None:
    """Real sides (of the dtype) that the float64 comparison at tolerance `EXACT` decides
    as `lhs op rhs` is, or None when a side is not an exact constant. `tolerant`: sides
    that any tolerance decides so (0 and 1, whatever the values), for a comparison whose
    tolerance is not `EXACT`."""
    a, b = exact_value(lhs), exact_value(rhs)
    if a is None or b is None or (op, True) not in _DECIDED:
        return None
    fa, fb = (None, None) if tolerant else (_held(a), _held(b))
    if fa is None or fb is None:
        holds = {"=": a == b, "≤": a <= b, "<": a < b, "≥": a >= b, ">": a > b}[op]
        fa, fb = (float(x) for x in (_DECISIVE if tolerant else _DECIDED)[(op, holds)])
    dt = np.dtype(dtype)
    return Arr(np.asarray(fa, dt), "real"), Arr(np.asarray(fb, dt), "real")


def _leaves(v: Any, out: list[Arr]) -> Any:
    """The numbers of a (nested) list, in order, into `out`; the list's shape."""
    if isinstance(v, Lst):
        return tuple(_leaves(x, out) for x in v.items)
    if not isinstance(v, Arr) or v.kind == "bool" or v.dom:
        raise NotSupported("an equation between lists whose elements are not numbers")
    out.append(settle(v))
    return None


def list_sides(op: str, lhs: Any, rhs: Any, ctx: Ctx) -> tuple[Arr, Arr, bool]:
    """The sides of `xs = ys` between lists, and whether they are to be compared exactly
    (at tolerance `EXACT`)."""
    if op != "=" or not (isinstance(lhs, Lst) and isinstance(rhs, Lst)):
        raise NotSupported(f"the relation {op} between a list and a {type(rhs).__name__}")
    a: list[Arr] = []
    b: list[Arr] = []
    if _leaves(lhs, a) != _leaves(rhs, b):
        zero, one = (Arr(np.asarray(x, np.dtype(ctx.dtype)), "real") for x in (0.0, 1.0))
        return zero, one, True
    exact = [(exact_value(x), exact_value(y)) for x, y in zip(a, b, strict=True)]
    if all(x is not None and y is not None for x, y in exact):
        holds = all(x == y for x, y in exact)
        zero = Arr(np.asarray(0.0, np.dtype(ctx.dtype)), "real")
        return zero, Arr(np.asarray(0.0 if holds else 1.0, np.dtype(ctx.dtype)), "real"), True
    sides = [stack([coerce(x, "real", ctx) for x in xs], "real", ctx) for xs in (a, b)]
    return sides[0], sides[1], False
