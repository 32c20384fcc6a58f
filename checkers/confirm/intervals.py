"""Real intervals with arbitrary-precision endpoints: arithmetic and comparisons.

An `Interval` holds every real number a float64 program's value may stand for:
endpoints are mpmath's raw binary floats (`mpmath.libmp`), with an exponent range
that never underflows or overflows, rounded outward at the working precision
(`working`, per thread); the functions of a program on them are in functions.py.

Where XLA's operation has no real value (a quotient by an interval that holds 0)
the result is the whole line: nothing is known about it, so nothing compared with
it is decided. An infinite endpoint is an unknown bound, not an infinite value,
except in a point interval (a program's own -inf, as the identity of a maximum).
Comparisons are three-valued: True, False, or None where the intervals overlap.

Constants: a float64 literal whose shortest decimal spelling is its exact value
(0.5, 3, 1e-3 is not) is taken as that point; any other (0.044715, π) stands for
the decimal or real number it was rounded from, so it is widened by half a unit in
its last place.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from mpmath.libmp import (
    ComplexResult,
    finf,
    fnan,
    fninf,
    fone,
    from_float,
    from_int,
    fzero,
    mpf_add,
    mpf_cmp,
    mpf_neg,
    mpf_shift,
    mpf_sub,
    to_float,
    to_int,
    to_str,
)
from mpmath.libmp import libmpi as L

Raw = tuple[Any, ...]  # mpmath's raw float: (sign, mantissa, exponent, bitcount)

_state = threading.local()


def precision() -> int:
    """The working precision in bits of this thread (`working` sets it)."""
    return int(getattr(_state, "prec", 200))


class working:
    """`with working(bits):` evaluates intervals at that precision in this thread."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        self.saved = precision()
        _state.prec = self.bits

    def __exit__(self, *_: Any) -> None:
        _state.prec = self.saved


def _nan(x: Raw) -> bool:
    return x == fnan


class Interval:
    """The closed interval [lo, hi] (raw mpmath floats, possibly infinite) holding one
    quantity of a program: each is made by one rule from its operands, and is shared
    only where the same quantity is read again."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: Raw, hi: Raw) -> None:
        if _nan(lo) or _nan(hi):
            lo, hi = fninf, finf
        self.lo, self.hi = lo, hi

    # Python's operators, for NumPy's object-array sums, products and einsum

    def __add__(self, other: Any) -> Interval:
        return add(self, lift(other))

    __radd__ = __add__

    def __mul__(self, other: Any) -> Interval:
        return mul(self, lift(other))

    __rmul__ = __mul__

    def __sub__(self, other: Any) -> Interval:
        return sub(self, lift(other))

    def __rsub__(self, other: Any) -> Interval:
        return sub(lift(other), self)

    def __neg__(self) -> Interval:
        return Interval(mpf_neg(self.hi), mpf_neg(self.lo))

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    @property
    def finite(self) -> bool:
        return self.lo not in (fninf, finf) and self.hi not in (fninf, finf)

    def mid(self) -> float:
        """A float64 near the middle (for showing the value)."""
        if not self.finite:
            return to_float(self.lo) if self.is_point else math.nan
        return to_float(mpf_shift(mpf_add(self.lo, self.hi, precision()), -1))

    def text(self, digits: int = 17) -> str:
        """The value to `digits` significant digits, when the interval is that narrow; else
        its endpoints."""
        if self.is_point or not self.finite:
            if self.is_point:
                return _decimal(self.lo, digits)
            return f"[{_decimal(self.lo, 8)}, {_decimal(self.hi, 8)}]"
        lo, hi = _decimal(self.lo, digits), _decimal(self.hi, digits)
        return lo if lo == hi else f"[{_decimal(self.lo, 8)}, {_decimal(self.hi, 8)}]"

    def __repr__(self) -> str:
        return f"Interval({to_str(self.lo, 20)}, {to_str(self.hi, 20)})"


def _decimal(x: Raw, digits: int) -> str:
    if x == finf:
        return "inf"
    if x == fninf:
        return "-inf"
    return str(to_str(x, digits))


def full() -> Interval:
    """The whole line: a value nothing is known about. Always a new object: the same
    object stands for the same quantity (exact.py reads two sides that are one object
    as equal)."""
    return Interval(fninf, finf)


def point(x: float | int) -> Interval:
    """The exact value of a float64 (or an integer of any size)."""
    if isinstance(x, int):
        v = from_int(int(x))
    else:
        v = from_float(float(x)) if not math.isnan(x) else fnan
    return Interval(v, v)


def constant(x: float) -> Interval:
    """A float64 literal of a program (see the module): a point when its shortest decimal
    spelling is exact, else widened by half a unit in the last place."""
    if not math.isfinite(x) or Decimal(repr(x)) == Decimal(x):
        return point(x)
    half = math.ulp(x) / 2
    return Interval(
        mpf_sub(from_float(x), from_float(half)), mpf_add(from_float(x), from_float(half))
    )


def lift(x: Any) -> Interval:
    if isinstance(x, Interval):
        return x
    if x is None:  # an undecided boolean as a number
        return Interval(fzero, fone)
    return point(int(x) if isinstance(x, bool | int) else float(x))


def hull(a: Interval, b: Interval) -> Interval:
    lo = a.lo if mpf_cmp(a.lo, b.lo) <= 0 else b.lo
    hi = a.hi if mpf_cmp(a.hi, b.hi) >= 0 else b.hi
    return Interval(lo, hi)


# --- arithmetic ---------------------------------------------------------------------


def checked(f: Callable[..., Raw | tuple[Raw, Raw]], *args: Any) -> Interval:
    try:
        lo, hi = f(*args)
    except (ComplexResult, ValueError, ZeroDivisionError):
        return full()
    return Interval(lo, hi)


def add(a: Interval, b: Interval) -> Interval:
    return checked(L.mpi_add, (a.lo, a.hi), (b.lo, b.hi), precision())


def sub(a: Interval, b: Interval) -> Interval:
    return checked(L.mpi_sub, (a.lo, a.hi), (b.lo, b.hi), precision())


def mul(a: Interval, b: Interval) -> Interval:
    if a.is_point and a.lo == fzero or b.is_point and b.lo == fzero:
        return point(0)  # 0 times any real; an unknown bound is still a real
    return checked(L.mpi_mul, (a.lo, a.hi), (b.lo, b.hi), precision())


def div(a: Interval, b: Interval) -> Interval:
    """XLA's quotient: a divisor that may be 0 gives an infinite or NaN value there."""
    if contains_zero(b):
        return full()
    return checked(L.mpi_div, (a.lo, a.hi), (b.lo, b.hi), precision())


def contains_zero(x: Interval) -> bool:
    return mpf_cmp(x.lo, fzero) <= 0 <= mpf_cmp(x.hi, fzero)


def maximum(a: Interval, b: Interval) -> Interval:
    """The larger of two quantities: that quantity itself (the same object) where one is
    certainly at least the other, so that comparing it with the maximum again is decided
    (a softmax's `x == max x`, the derivative of a maximum); else a new quantity."""
    if a is b or mpf_cmp(a.lo, b.hi) >= 0:
        return a
    if mpf_cmp(b.lo, a.hi) >= 0:
        return b
    return Interval(_max(a.lo, b.lo), _max(a.hi, b.hi))


def minimum(a: Interval, b: Interval) -> Interval:
    """The smaller of two quantities: as `maximum`."""
    if a is b or mpf_cmp(a.hi, b.lo) <= 0:
        return a
    if mpf_cmp(b.hi, a.lo) <= 0:
        return b
    return Interval(_min(a.lo, b.lo), _min(a.hi, b.hi))


def _max(x: Raw, y: Raw) -> Raw:
    return x if mpf_cmp(x, y) >= 0 else y


def _min(x: Raw, y: Raw) -> Raw:
    return x if mpf_cmp(x, y) <= 0 else y


def absolute(x: Interval) -> Interval:
    return checked(L.mpi_abs, (x.lo, x.hi))


def sign(x: Interval) -> Interval:
    if mpf_cmp(x.lo, fzero) > 0:
        return point(1)
    if mpf_cmp(x.hi, fzero) < 0:
        return point(-1)
    if x.is_point:
        return point(0)
    return Interval(
        from_int(-1) if mpf_cmp(x.lo, fzero) < 0 else fzero,
        fone if mpf_cmp(x.hi, fzero) > 0 else fzero,
    )


# --- comparisons: True, False or None (undecided) -------------------------------------


def less(a: Interval, b: Interval, strict: bool) -> bool | None:
    """a < b (strict) or a ≤ b, for every pair of values the intervals hold (one
    quantity, the same object, is equal to itself)."""
    if a is b:
        return not strict
    if (mpf_cmp(a.hi, b.lo) < 0) if strict else (mpf_cmp(a.hi, b.lo) <= 0):
        return True
    if (mpf_cmp(a.lo, b.hi) >= 0) if strict else (mpf_cmp(a.lo, b.hi) > 0):
        return False
    return None


def equal(a: Interval, b: Interval) -> bool | None:
    """a = b for every pair of values the intervals hold: one quantity (the same object)
    equals itself however wide its interval."""
    if a is b:
        return True
    if a.is_point and b.is_point and a.lo == b.lo:
        return True
    if mpf_cmp(a.hi, b.lo) < 0 or mpf_cmp(b.hi, a.lo) < 0:
        return False
    return None


def trunc_int(x: Interval) -> int | None:
    """The integer XLA's float-to-integer conversion gives every value of x (truncation),
    or None when the values give different integers."""
    if not x.finite:
        return None
    lo = int(to_int(x.lo))  # to_int truncates toward zero
    return lo if lo == int(to_int(x.hi)) else None
