"""Complex values in an exact evaluation: a pair of `Interval`s (the real and imaginary
parts), for the few complex primitives a checker program holds (language/complex.py:
every function of ℂ is computed from its parts, so only the field operations, building
and taking apart, conjugation and comparisons for equality meet complex values here)."""

from __future__ import annotations

from typing import Any

from checkers.confirm import intervals as iv
from checkers.confirm.intervals import Interval


class CInterval:
    """re + im·i with each part an `Interval`."""

    __slots__ = ("im", "re")

    def __init__(self, re: Interval, im: Interval) -> None:
        self.re, self.im = re, im

    # Python's operators, for NumPy's object-array sums and products
    def __add__(self, other: Any) -> CInterval:
        return add(self, lift(other))

    __radd__ = __add__

    def __mul__(self, other: Any) -> CInterval:
        return mul(self, lift(other))

    __rmul__ = __mul__

    def __sub__(self, other: Any) -> CInterval:
        return sub(self, lift(other))

    def __rsub__(self, other: Any) -> CInterval:
        return sub(lift(other), self)

    def __neg__(self) -> CInterval:
        return CInterval(-self.re, -self.im)

    @property
    def finite(self) -> bool:
        return self.re.finite and self.im.finite

    @property
    def is_point(self) -> bool:
        return self.re.is_point and self.im.is_point

    def text(self, digits: int = 17) -> str:
        return f"{self.re.text(digits)} + {self.im.text(digits)}i"

    def __repr__(self) -> str:
        return f"CInterval({self.re!r}, {self.im!r})"


def is_complex(x: Any) -> bool:
    return isinstance(x, CInterval)


def lift(x: Any) -> CInterval:
    """A real, an integer, a boolean or a complex value as a complex interval."""
    if isinstance(x, CInterval):
        return x
    return CInterval(iv.lift(x), iv.point(0))


def add(a: CInterval, b: CInterval) -> CInterval:
    return CInterval(iv.add(a.re, b.re), iv.add(a.im, b.im))


def sub(a: CInterval, b: CInterval) -> CInterval:
    return CInterval(iv.sub(a.re, b.re), iv.sub(a.im, b.im))


def mul(a: CInterval, b: CInterval) -> CInterval:
    re = iv.sub(iv.mul(a.re, b.re), iv.mul(a.im, b.im))
    im = iv.add(iv.mul(a.re, b.im), iv.mul(a.im, b.re))
    return CInterval(re, im)


def div(a: CInterval, b: CInterval) -> CInterval:
    """a / b = a · conj b / |b|²; the whole plane where |b|² may be 0 (intervals.div)."""
    n = iv.add(iv.mul(b.re, b.re), iv.mul(b.im, b.im))
    re = iv.add(iv.mul(a.re, b.re), iv.mul(a.im, b.im))
    im = iv.sub(iv.mul(a.im, b.re), iv.mul(a.re, b.im))
    return CInterval(iv.div(re, n), iv.div(im, n))


def conj(a: CInterval) -> CInterval:
    return CInterval(a.re, -a.im)


def modulus(a: CInterval) -> Interval:
    from checkers.confirm import functions as fn  # noqa: PLC0415 (functions imports mpmath)

    return fn.UNARY["sqrt"](iv.add(iv.mul(a.re, a.re), iv.mul(a.im, a.im)))


def equal(a: CInterval, b: CInterval) -> bool | None:
    """Three-valued: equal parts (None where either part is undecided and neither differs)."""
    r, i = iv.equal(a.re, b.re), iv.equal(a.im, b.im)
    if r is False or i is False:
        return False
    if r is None or i is None:
        return None
    return True


def hull(a: CInterval, b: CInterval) -> CInterval:
    return CInterval(iv.hull(a.re, b.re), iv.hull(a.im, b.im))


def power(a: CInterval, n: int) -> CInterval:
    """a ^ n for an integer n, by repeated squaring (1 / a^-n for n < 0)."""
    if n < 0:
        return div(lift(iv.point(1)), power(a, -n))
    out, base = lift(iv.point(1)), a
    while n:
        if n & 1:
            out = mul(out, base)
        base = mul(base, base)
        n >>= 1
    return out


BINARY = {"add": add, "add_any": add, "sub": sub, "mul": mul, "div": div}
