"""Mathlib's real Gamma function (Mathlib/Analysis/SpecialFunctions/Gamma/Basic.lean).

`Real.Gamma s` is `(Complex.Gamma s).re`: Euler's integral for s > 0, continued to the
negative reals through the recurrence Γ(s + 1) = s Γ(s), and 0 at s = 0, -1, -2, …
(`Real.Gamma_zero`, `Real.Gamma_neg_nat_eq_zero`), where the analytic function has its
poles. Mathlib's definition goes through the complex integral, which the evaluator does
not compute; the library computes the same values directly:

- s > 0: exp(log Γ(s)) (XLA's `lgamma`);
- s < 0 not an integer: π / (sin(π s) Γ(1 - s)) (Euler's reflection formula, 1 - s > 1);
- s a non-positive integer: 0.

Near a pole the value is large and sin(π s) loses relative precision, so a failure there
is confirmed in interval arithmetic (mpmath's `loggamma`, confirm/functions.py) or not at
all. The NumPy interpreter has no rule for `lgamma` (SciPy's differs from XLA's in the
last places), so a program that uses Gamma is compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.language.coercion import coerce
from checkers.language.measure import note_operands
from checkers.language.values import Builtin, as_array
from checkers.lazyjax import jnp, lax

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator

__all__ = ["GAMMA"]


def _gamma(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    x = coerce(ev._arr(args[0], "Real.Gamma"), "real", ev.ctx)
    s = as_array(x)
    positive = s > 0
    pole = jnp.logical_and(jnp.logical_not(positive), s == jnp.floor(s))
    # each branch at an argument where it is defined, so that no NaN reaches a gradient
    above = jnp.exp(lax.lgamma(jnp.where(positive, s, 1.0)))
    t = jnp.where(jnp.logical_or(positive, pole), 0.5, s)
    below = jnp.pi / (jnp.sin(jnp.pi * t) * jnp.exp(lax.lgamma(1.0 - t)))
    note_operands(ev.ctx, s)  # sin(π s) is reduced modulo 2, as sin's argument is
    data = jnp.where(positive, above, jnp.where(pole, jnp.zeros_like(s), below))
    return x.with_(data=data, iota=None)


GAMMA: tuple[Builtin, ...] = (Builtin("Real.Gamma", 1, _gamma, ("real",), implicit=0),)
