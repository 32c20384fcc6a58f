"""Mathlib's probability constants that have a closed form (namespace ProbabilityTheory).

- `gaussianReal μ v`: the Gaussian measure on ℝ with mean μ and *variance* v (a
  `ℝ≥0`, not the standard deviation); `gaussianReal μ 0` is the Dirac measure at μ.
- `cdf m x = m (Iic x)`: for `gaussianReal μ v`, Φ((x − μ)/√v) with Φ the standard
  normal CDF (`jax.scipy.special.ndtr`), and [μ ≤ x] when v = 0.
- `gaussianPDFReal μ v x = (√(2πv))⁻¹ · exp (−(x − μ)² / (2v))`, with Lean's total
  arithmetic (0 at v = 0).

The CDF of any other measure has no closed form here: `cdf` of it is unsupported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checkers.language import total as T
from checkers.language.axes import expand, union_axes
from checkers.language.coercion import coerce
from checkers.language.errors import NotSupported
from checkers.language.values import Arr, Builtin, as_array
from checkers.lazyjax import jnp, jsp

if TYPE_CHECKING:
    from checkers.language.host import Host as Evaluator


@dataclass(frozen=True, eq=False)
class Gaussian:
    """`gaussianReal μ v`: mean and variance, as reals."""

    mean: Arr
    var: Arr


def _real(ev: Evaluator, x: Any, what: str) -> Arr:
    return coerce(ev._arr(x, what), "real", ev.ctx)


def _gaussian(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return Gaussian(_real(ev, args[0], "gaussianReal"), _real(ev, args[1], "gaussianReal"))


def _laid(ev: Evaluator, *xs: Arr) -> tuple[tuple[Any, ...], list[Any]]:
    axes = union_axes(*xs)
    if any(x.dom for x in xs):
        raise NotSupported("a Gaussian of a function value")
    return axes, [jnp.asarray(expand(x, axes, 0, ev.ctx.dtype)) for x in xs]


def _cdf(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    m, x = args
    if not isinstance(m, Gaussian):
        raise NotSupported("cdf of a measure other than gaussianReal (no closed form here)")
    axes, (mu, v, t) = _laid(ev, m.mean, m.var, _real(ev, x, "cdf"))
    pos = v > 0
    z = (t - mu) / jnp.sqrt(jnp.where(pos, v, 1.0))
    data = jnp.where(pos, jsp.ndtr(z), jnp.where(mu <= t, 1.0, 0.0).astype(t.dtype))
    return Arr(data, "real", axes)


def _pdf(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    axes, (mu, v, t) = _laid(ev, *(_real(ev, a, "gaussianPDFReal") for a in args))
    scale = T.real_inv(T.real_sqrt(2 * math.pi * v))
    data = scale * jnp.exp(-T.real_div((t - mu) ** 2, 2 * v))
    return Arr(data, "real", axes)


def std_normal_quantile(ev: Evaluator, p: Arr) -> Arr:
    """Φ⁻¹(p) on (0, 1) (`jax.scipy.special.ndtri`), else 0: `sSup {t | Φ t < p}` is the
    supremum of an empty set (p ≤ 0) or of all of ℝ (p ≥ 1), both 0 in Lean."""
    d = jnp.asarray(as_array(p, ev.ctx.dtype))
    inside = (d > 0) & (d < 1)
    data = jnp.where(inside, jsp.ndtri(jnp.where(inside, d, 0.5)), 0.0)
    return p.with_(data=data.astype(d.dtype), iota=None)


PROBABILITY: tuple[Builtin, ...] = (
    Builtin("ProbabilityTheory.gaussianReal", 2, _gaussian, ("real", "real"), implicit=0),
    Builtin("ProbabilityTheory.cdf", 2, _cdf, (None, "real"), implicit=0),
    Builtin("ProbabilityTheory.gaussianPDFReal", 3, _pdf, ("real", "real", "real"), implicit=0),
)
