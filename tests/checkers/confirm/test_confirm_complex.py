"""Complex values in the exact evaluation (confirm/complex.py): the field operations on
pairs of intervals hold the exact result, a quotient by what may be 0 knows nothing, and
equality is three-valued as it is for reals."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mpmath
import numpy as np

from checkers.confirm import complex as cx
from checkers.confirm import intervals as iv
from checkers.confirm import run


def _holds(x: iv.Interval, value: mpmath.mpf) -> bool:
    return bool(mpmath.mpf(x.lo) <= value <= mpmath.mpf(x.hi))


def test_field_operations_hold_the_exact_value() -> None:
    a = cx.CInterval(iv.point(0.1), iv.point(-0.3))
    b = cx.CInterval(iv.point(2.5), iv.point(0.7))
    exact_a = mpmath.mpc(0.1, -0.3)
    exact_b = mpmath.mpc(2.5, 0.7)
    with mpmath.workprec(200):
        for got, want in (
            (cx.mul(a, b), exact_a * exact_b),
            (cx.div(a, b), exact_a / exact_b),
            (cx.sub(a, b), exact_a - exact_b),
            (cx.power(a, 5), exact_a**5),
            (cx.power(a, -2), exact_a**-2),
        ):
            assert _holds(got.re, want.real) and _holds(got.im, want.imag), (got, want)


def test_quotient_by_an_interval_holding_zero_is_unknown() -> None:
    zero_ish = cx.CInterval(iv.hull(iv.point(-1e-300), iv.point(1e-300)), iv.point(0))
    q = cx.div(cx.lift(1), zero_ish)
    assert not q.re.finite


def test_equality_is_three_valued() -> None:
    one = cx.lift(1)
    assert cx.equal(one, cx.lift(1)) is True
    assert cx.equal(one, cx.CInterval(iv.point(1), iv.point(1e-300))) is False
    wide = cx.CInterval(iv.hull(iv.point(0.5), iv.point(1.5)), iv.point(0))
    assert cx.equal(one, wide) is None


def test_a_complex_program_runs_exactly() -> None:
    # (x + iy)² / (x + iy) taken apart: the real part is x, exactly, where floats round
    def f(x, y):
        z = jax.lax.complex(x, y)
        return jnp.real(z * z / z), jnp.imag(jnp.conj(z) * 1.0)

    x, y = np.float64(0.1), np.float64(0.7)
    closed = jax.make_jaxpr(f)(x, y)
    re, im = run(closed, [x, y])
    assert _holds(re.item(), mpmath.mpf(0.1))
    assert _holds(im.item(), mpmath.mpf(-0.7))
