"""Powers on `Arr` values: `x ^ n` for a natural, an integer and a real exponent.

A natural exponent is Mathlib's `Monoid.npow`, an integer one its `zpow` of a division
ring (ℝ here: `x ^ (-n) = (x ^ n)⁻¹`, Lean's `0⁻¹ = 0`), a real one `Real.rpow`
(total.py). An exponent of numerals is a ℕ (Mathlib's default `Monoid.Pow`), so
`x ^ (1 / 2)` is `x ^ 0`. Powers of positive reals that leave float64's range are held
in log space (values.py, `arith.log_scaled`).
"""

from __future__ import annotations

import numpy as np

from checkers.language.arith import host_positive, log_scaled
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import Ctx, coerce, settle
from checkers.language.complex import cpow
from checkers.language.errors import EvalError, UntypedNumeral
from checkers.language.measure import note_result
from checkers.language.numerals import Numeral
from checkers.language.total import complex_div, real_inv, real_rpow, xp_of
from checkers.language.values import Arr, as_array
from checkers.lazyjax import jnp, lax

__all__ = ["power"]


def power(base: Arr, exp: Arr, ctx: Ctx) -> Arr:
    """`base ^ exp`: a natural exponent is `Monoid.npow`, a real one `Real.rpow`.

    An exponent of numerals is a ℕ (Mathlib's default `Monoid.Pow`), so
    `x ^ (1 / 2)` is `x ^ 0`."""
    if "complex" in (base.kind, exp.kind):
        return _complex_power(base, exp, ctx)
    if base.kind == "nnreal":  # ℝ≥0's powers are ℝ's on its values (`NNReal.rpow` too)
        return power(coerce(base, "real", ctx), exp, ctx).with_(kind="nnreal")
    if exp.kind == "real":
        b = coerce(base, "real", ctx)
        axes = union_axes(b, exp)
        ndom = max(len(b.dom), len(exp.dom))
        if b.log:  # Real.rpow of a positive base: exp (log b * y)
            y = expand(exp, axes, ndom, ctx.dtype)
            data = expand(b, axes, ndom, ctx.dtype, logs=True) * y
            return Arr(data, "real", axes, b.dom or exp.dom, log=True)
        x = expand(b, axes, ndom, ctx.dtype)
        data = real_rpow(x, expand(exp, axes, ndom, ctx.dtype))
        note_result(ctx, (x,), data)
        return Arr(data, "real", axes, b.dom or exp.dom)
    e = settle(exp)
    if e.kind == "int":
        return _zpow(base, e, ctx)
    if e.kind not in ("nat", "fin"):
        raise EvalError(f"exponent of kind {e.kind}")
    if e.is_static and not e.axes:
        k = int(e.data)
        if k < 0:
            raise EvalError(f"exponent {k} is not a natural number")
        if isinstance(base.data, Numeral):
            return Arr(Numeral.node("^", base.data, value=k), "num")
        if base.kind in ("nat", "int") and base.is_static:
            return Arr(int(base.data) ** k, base.kind)
        if base.log:
            return log_scaled(base, k)
        if base.kind == "fin":
            n = base.bound.n if base.bound else 0
            d = as_array(base) ** k
            return base.with_(data=d % n if n else d, iota=None)
        data = lax.integer_pow(as_array(base), k)
        if base.kind == "real":
            note_result(ctx, (as_array(base),), data)
        return base.with_(data=data, iota=None)
    if isinstance(base.data, Numeral):
        raise UntypedNumeral(f"the power {base.data} ^ (a variable) of a type not fixed here")
    kind = base.kind
    b = base
    axes = union_axes(b, e)
    ndom = max(len(b.dom), len(e.dom))
    if b.log:  # a positive real (or a natural beyond int64) to a ℕ power, in log space
        y = expand(coerce(e, "nat", ctx), axes, ndom)
        lb = expand(b, axes, ndom, logs=True)
        data = lb * xp_of(y).asarray(y).astype(lb.dtype)
        return Arr(data, kind, axes, b.dom or e.dom, log=True)
    hb = host_positive(b) if kind == "real" else None
    en = coerce(e, "nat", ctx)
    if hb is not None and isinstance(en.data, np.ndarray | np.generic | int):
        # constants (`q ^ j` over `j ∈ Finset.Icc k N`): in log space where a power
        # leaves float64's normal range (0.7 ^ 10000), exact to its precision there
        x = expand(b.with_(data=hb), axes, ndom)
        y = np.asarray(expand(en.with_(data=np.asarray(en.data)), axes, ndom), x.dtype)
        direct = np.power(x, y)
        if not np.all(np.isfinite(direct) & (direct >= np.finfo(x.dtype).tiny)):
            return Arr(np.log(x) * y, kind, axes, b.dom or e.dom, log=True)
        note_result(ctx, (x,), direct)
        return Arr(direct, kind, axes, b.dom or e.dom)  # a host constant still
    x = expand(b, axes, ndom)
    y = expand(en, axes, ndom)
    if kind == "real":
        # x ^ 0 = 1; guarded so that the derivative 0 * x ^ -1 never arises at x = 0
        z = y == 0
        data = jnp.where(z, 1.0, jnp.power(x, jnp.where(z, 1, y).astype(x.dtype)))
        note_result(ctx, (x,), data)
    else:
        data = jnp.power(x, y)
        if kind == "fin" and b.bound is not None and b.bound.n:
            data = data % b.bound.n
    return Arr(data, kind, axes, b.dom or e.dom, bound=b.bound if kind == "fin" else None)


def _zpow(base: Arr, e: Arr, ctx: Ctx) -> Arr:
    """`x ^ (n : ℤ)`, Mathlib's `zpow` of a division ring (ℝ here: ℕ and ℤ have none):
    `x ^ n` for n ≥ 0, `(x ^ (-n))⁻¹` for n < 0, with Lean's `0⁻¹ = 0`."""
    b = coerce(base, "real", ctx)
    if e.is_static and not e.axes:
        k = int(e.data)
        p = power(b, Arr(abs(k), "nat"), ctx)
        if k >= 0:
            return p
        if p.log:
            return log_scaled(p, -1.0)
        return p.with_(data=real_inv(as_array(p)), iota=None)
    if b.log:
        b = b.with_(data=as_array(b), log=False)
    n = e.with_(data=jnp.abs(as_array(e)), kind="nat")
    p = power(b, n, ctx)
    axes = union_axes(p, e)
    ndom = max(len(p.dom), len(e.dom))
    x, k = expand(p, axes, ndom, ctx.dtype), expand(e, axes, ndom)
    data = jnp.where(k < 0, real_inv(x), x)
    return Arr(data, "real", axes, p.dom or e.dom)


def _complex_power(base: Arr, exp: Arr, ctx: Ctx) -> Arr:
    """A power in ℂ: `z ^ n` for a constant n : ℕ (`Monoid.npow`) or n : ℤ (`zpow`, Lean's
    `0⁻¹ = 0`) by multiplication; any other exponent, a ℂ one or a drawn integer, is
    `Complex.cpow` (language/complex.py), which equals npow and zpow at integers."""
    e = settle(exp)
    if e.kind in ("nat", "int") and e.is_static and not e.axes:
        k = int(e.data)
        z = coerce(base, "complex", ctx)
        data = lax.integer_pow(as_array(z), abs(k))
        if k < 0:
            data = complex_div(jnp.ones_like(data), data)
        return z.with_(data=data, iota=None)
    return cpow(base, e, ctx)
