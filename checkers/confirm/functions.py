"""The functions of a checker program on intervals (intervals.py).

`exp`, `log`, `sqrt`, `sin`, `cos`, `tan`, `atan`, `cosh`, `sinh` and `loggamma`
are mpmath's interval functions; the others (tanh, asin, acos, asinh, acosh,
atanh, log1p, cbrt) are monotone on their domain and are evaluated at the
endpoints 24 bits beyond the working precision, then widened outward by
`2^-precision` of their magnitude (mpmath's elementary functions are accurate to
a unit in the last place, far inside that margin); the logistic function is
composed of interval operations. Where XLA's function has no real value (log of
a negative number: NaN), or part of the interval lies outside its domain, the
result is the whole line (`full()`). Floor, ceiling and rounding are exact at the
endpoints.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mpmath.libmp import (
    ComplexResult,
    finf,
    fninf,
    fone,
    from_int,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cmp,
    mpf_neg,
    mpf_shift,
    mpf_sub,
    round_ceiling,
    round_floor,
    to_int,
)
from mpmath.libmp import libelefun as E
from mpmath.libmp import libmpi as L

from checkers.confirm.intervals import (
    Interval,
    Raw,
    absolute,
    add,
    checked,
    contains_zero,
    div,
    full,
    maximum,
    minimum,
    mul,
    point,
    precision,
    sign,
    sub,
    working,
)


def _widened(f: Callable[[Raw, int, str], Raw], x: Raw, down: bool) -> Raw:
    """f(x) a few bits beyond the working precision, moved outward by 2^-precision of
    its magnitude (see the module)."""
    prec = precision()
    if x in (fninf, finf):
        return fninf if down else finf
    v = f(x, prec + 24, round_floor if down else round_ceiling)
    margin = mpf_shift(mpf_abs(v), -prec)
    return (
        mpf_sub(v, margin, prec, round_floor) if down else mpf_add(v, margin, prec, round_ceiling)
    )


def _increasing(
    f: Callable[[Raw, int, str], Raw], lo: Raw, hi: Raw
) -> Callable[[Interval], Interval]:
    """f on [lo, hi], where it increases; the whole line where the interval leaves that domain."""

    def rule(x: Interval) -> Interval:
        if mpf_cmp(x.lo, lo) < 0 or mpf_cmp(x.hi, hi) > 0:
            return full()
        try:
            return Interval(_widened(f, x.lo, True), _widened(f, x.hi, False))
        except (ComplexResult, ValueError, ZeroDivisionError):
            return full()

    return rule


def _decreasing(
    f: Callable[[Raw, int, str], Raw], lo: Raw, hi: Raw
) -> Callable[[Interval], Interval]:
    up = _increasing(
        lambda x, p, r: mpf_neg(f(x, p, round_ceiling if r == round_floor else round_floor)), lo, hi
    )

    def rule(x: Interval) -> Interval:
        return -up(x)

    return rule


def _mpi(f: Callable[..., tuple[Raw, Raw]]) -> Callable[[Interval], Interval]:
    def rule(x: Interval) -> Interval:
        return checked(f, (x.lo, x.hi), precision())

    return rule


def log(x: Interval) -> Interval:
    if mpf_cmp(x.lo, fzero) > 0:
        return checked(L.mpi_log, (x.lo, x.hi), precision())
    if x.is_point and x.lo == fzero:
        return Interval(fninf, fninf)  # XLA's log 0 = -inf (the program selects it away)
    return full()  # a NaN somewhere in the interval


def sqrt(x: Interval) -> Interval:
    if mpf_cmp(x.lo, fzero) >= 0:
        return checked(L.mpi_sqrt, (x.lo, x.hi), precision())
    return full()


def exp(x: Interval) -> Interval:
    return checked(L.mpi_exp, (x.lo, x.hi), precision())


def logistic(x: Interval) -> Interval:
    return div(point(1), add(point(1), exp(-x)))


def _cosh_sinh(k: int) -> Callable[[Interval], Interval]:
    def rule(x: Interval) -> Interval:
        try:
            lo, hi = L.mpi_cosh_sinh((x.lo, x.hi), precision())[k]
        except (ComplexResult, ValueError, ZeroDivisionError):
            return full()
        return Interval(lo, hi)

    return rule


def _cbrt(v: Raw, prec: int, rnd: str) -> Raw:
    """The real cube root (mpmath's is complex below 0): odd, so -cbrt(-v) there."""
    if mpf_cmp(v, fzero) >= 0:
        return E.mpf_cbrt(v, prec, rnd)
    flipped = round_ceiling if rnd == round_floor else round_floor
    return mpf_neg(E.mpf_cbrt(mpf_neg(v), prec, flipped))


def expm1(x: Interval) -> Interval:
    """e^x - 1, with as many more bits as x is small (the subtraction cancels them)."""
    small = [-(v[2] + v[3]) for v in (x.lo, x.hi) if v not in (fzero, finf, fninf)]
    extra = min(4096, max([0, *small]))
    with working(precision() + extra):
        wide = sub(exp(x), point(1))
    prec = precision()
    return Interval(
        mpf_add(wide.lo, fzero, prec, round_floor), mpf_add(wide.hi, fzero, prec, round_ceiling)
    )


def lgamma(x: Interval) -> Interval:
    if mpf_cmp(x.lo, fzero) <= 0:
        return full()  # poles and sign changes: not needed by the vocabulary
    return checked(L.mpi_loggamma, (x.lo, x.hi), precision())


def exp2(x: Interval) -> Interval:
    prec = precision()
    ln2 = Interval(E.mpf_ln2(prec, round_floor), E.mpf_ln2(prec, round_ceiling))
    return exp(mul(x, ln2))


def integer_power(x: Interval, n: int) -> Interval:
    if n >= 0:
        return checked(L.mpi_pow_int, (x.lo, x.hi), n, precision())
    return div(point(1), checked(L.mpi_pow_int, (x.lo, x.hi), -n, precision()))


def power(x: Interval, y: Interval) -> Interval:
    """XLA's pow: x^y for x > 0; an integer point exponent for any x."""
    if y.is_point and y.finite and mpf_cmp(y.lo, from_int(to_int(y.lo))) == 0:
        n = int(to_int(y.lo))
        if n >= 0 or not contains_zero(x):
            return integer_power(x, n)
    if mpf_cmp(x.lo, fzero) > 0:
        return exp(mul(y, log(x)))
    return full()


def rounded(f: Callable[[Raw], int]) -> Callable[[Interval], Interval]:
    """floor, ceil, round: monotone, exact at the endpoints (f of an exact real, via
    mpmath: a raw float's integer part is exact)."""

    def rule(x: Interval) -> Interval:
        if not x.finite:
            return full()
        return Interval(from_int(f(x.lo)), from_int(f(x.hi)))

    return rule


def _floor(x: Raw) -> int:
    return int(to_int(x, round_floor))


def _ceil(x: Raw) -> int:
    return int(to_int(x, round_ceiling))


def round_half_away(x: Raw) -> int:
    return int(math.copysign(1, mpf_cmp(x, fzero) or 1)) * _floor(
        mpf_add(mpf_abs(x), mpf_shift(fone, -1))
    )


def round_half_even(x: Raw) -> int:
    f = _floor(x)
    d = mpf_cmp(mpf_sub(x, from_int(f)), mpf_shift(fone, -1))
    return f + 1 if d > 0 or (d == 0 and f % 2) else f


_ONE, _MONE = fone, from_int(-1)

UNARY: dict[str, Callable[[Interval], Interval]] = {
    "exp": exp,
    "exp2": exp2,
    "log": log,
    "log1p": _increasing(E.mpf_log1p, _MONE, finf),
    "expm1": expm1,
    "sqrt": sqrt,
    "rsqrt": lambda x: div(point(1), sqrt(x)),
    "cbrt": _increasing(_cbrt, fninf, finf),
    "tanh": _increasing(E.mpf_tanh, fninf, finf),
    "logistic": logistic,
    "sin": _mpi(L.mpi_sin),
    "cos": _mpi(L.mpi_cos),
    "tan": _mpi(L.mpi_tan),
    "asin": _increasing(E.mpf_asin, _MONE, _ONE),
    "acos": _decreasing(E.mpf_acos, _MONE, _ONE),
    "atan": _mpi(L.mpi_atan),
    "sinh": _cosh_sinh(1),
    "cosh": _cosh_sinh(0),
    "asinh": _increasing(E.mpf_asinh, fninf, finf),
    "acosh": _increasing(E.mpf_acosh, _ONE, finf),
    "atanh": _increasing(E.mpf_atanh, _MONE, _ONE),
    "lgamma": lgamma,
    "floor": rounded(_floor),
    "ceil": rounded(_ceil),
    "neg": lambda x: -x,
    "abs": absolute,
    "sign": sign,
    "square": lambda x: checked(L.mpi_square, (x.lo, x.hi), precision()),
}

BINARY: dict[str, Callable[[Interval, Interval], Interval]] = {
    "add": add,
    "add_any": add,
    "sub": sub,
    "mul": mul,
    "div": div,
    "max": maximum,
    "min": minimum,
    "pow": power,
}
