"""ℂ values built from and taken apart into their real parts.

A complex value is an array of a complex dtype (coercion.complex_dtype); every function of
it is computed from `jnp.real` and `jnp.imag` with real operations (library/complex), so
a program's complex primitives are only these and the field operations.
"""

from __future__ import annotations

import math
from typing import Any

from checkers.language import total as T
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import Ctx, coerce, complex_dtype
from checkers.language.values import Arr, Sz
from checkers.lazyjax import jnp, lax

# the real inputs a drawn complex number `z` is made of: `z.re` and `z.im`
COMPLEX_PARTS = ("re", "im")


def parts(z: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of a complex array."""
    return jnp.real(z), jnp.imag(z)


def build(re: Any, im: Any) -> Any:
    """The complex array with these parts (of one float dtype)."""
    re, im = jnp.broadcast_arrays(jnp.asarray(re), jnp.asarray(im))
    return lax.complex(re, im.astype(re.dtype))


def modulus(re: Any, im: Any) -> Any:
    """‖z‖ = √(re² + im²) (Mathlib/Analysis/Complex/Basic.lean: `Complex.norm_def`)."""
    return jnp.sqrt(re * re + im * im)


def argument(re: Any, im: Any) -> Any:
    """`Complex.arg` (Mathlib/Analysis/SpecialFunctions/Complex/Arg.lean): `if 0 ≤ x.re then
    arcsin (x.im / ‖x‖) else if 0 ≤ x.im then arcsin ((-x).im / ‖x‖) + π else arcsin ((-x).im /
    ‖x‖) - π`, with Lean's `a / 0 = 0` and `Real.arcsin` constant outside [-1, 1]."""
    r = modulus(re, im)
    s = jnp.arcsin(jnp.clip(T.real_div(im, r), -1.0, 1.0))
    t = jnp.arcsin(jnp.clip(T.real_div(-im, r), -1.0, 1.0))
    return jnp.where(re >= 0, s, jnp.where(im >= 0, t + math.pi, t - math.pi))


def exponential(re: Any, im: Any) -> tuple[Any, Any]:
    """`Complex.exp` by parts: e^re (cos im + i sin im) (Mathlib/Analysis/SpecialFunctions/
    Exponential.lean, `Complex.exp_eq_exp_re_mul_sin_add_cos`)."""
    m = jnp.exp(re)
    return m * jnp.cos(im), m * jnp.sin(im)


def logarithm(re: Any, im: Any) -> tuple[Any, Any]:
    """`Complex.log x = Real.log ‖x‖ + arg x * I` (Mathlib/Analysis/SpecialFunctions/Complex/
    Log.lean), so `log 0 = 0`."""
    return T.real_log(modulus(re, im)), argument(re, im)


def cpow(x: Arr, y: Arr, ctx: Ctx) -> Arr:
    """`x ^ y` for y : ℂ (Mathlib/Analysis/SpecialFunctions/Pow/Complex.lean, `Complex.cpow`):
    `if x = 0 then (if y = 0 then 1 else 0) else exp (log x * y)`."""
    x = coerce(x, "complex", ctx)
    y = coerce(y, "complex", ctx)
    axes = union_axes(x, y)
    ndom = max(len(x.dom), len(y.dom))
    dt = complex_dtype(ctx.dtype)
    xd, yd = expand(x, axes, ndom, dt), expand(y, axes, ndom, dt)
    lr, li = logarithm(*parts(xd))
    yr, yi = parts(yd)
    e = build(*exponential(lr * yr - li * yi, lr * yi + li * yr))
    xz, yz = _is_zero(xd), _is_zero(yd)
    data = jnp.where(xz, jnp.where(yz, 1.0, 0.0).astype(dt), e)
    return Arr(data, "complex", axes, x.dom if len(x.dom) >= len(y.dom) else y.dom)


def _is_zero(z: Any) -> Any:
    re, im = parts(z)
    return (re == 0) & (im == 0)


def divide(a: Any, b: Any, c: Any, d: Any) -> tuple[Any, Any]:
    """(a + bi) / (c + di) in parts: (a + bi)(c - di) / (c² + d²), 0 where c + di = 0."""
    n = c * c + d * d
    return T.real_div(a * c + b * d, n), T.real_div(b * c - a * d, n)


def as_parts(z: Arr) -> Arr:
    """A complex value as the real array of its parts, (re, im) along a last own axis: two
    complex sides are equal where these are."""
    re, im = parts(z.data)
    return Arr(jnp.stack([re, im], axis=-1), "real", z.axes, (*z.dom, Sz(2)))


def on_circle(theta: Arr) -> Arr:
    """An angle (ℝ modulo 2π) as its point of the unit circle, (cos θ, sin θ) along a last
    own axis: two angles are equal where these are."""
    d = jnp.asarray(theta.data)
    return Arr(
        jnp.stack([jnp.cos(d), jnp.sin(d)], axis=-1), "real", theta.axes, (*theta.dom, Sz(2))
    )
