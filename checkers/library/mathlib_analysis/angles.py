"""Mathlib's angles, `Real.Angle` (Mathlib/Analysis/SpecialFunctions/Trigonometric/Angle.lean:
`AddCircle (2 * π)`, ℝ modulo 2π): values of kind 'angle', each held as a real
representative. Addition, subtraction, negation and `n • θ` act on representatives; two
angles are equal where their difference's representative in (-π, π] is 0 (arith.py), two
sides where their points (cos θ, sin θ) are (statements/checker.py). The functions here
are well defined: each reads its argument only through cos, sin or `toReal`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.language import total as T
from checkers.language.arith import angle_to_real
from checkers.language.coercion import coerce
from checkers.language.values import Arr, Builtin, TypeValue, as_array
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator


def _angle(ev: Evaluator, x: Any, what: str) -> Arr:
    return coerce(ev._arr(x, what), "angle", ev.ctx)


def _real_of(name: str, f: Any, kind: str = "real") -> Builtin:
    """A function of an angle by its representative θ (a function of cos and sin of θ)."""

    def fn(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        a = _angle(ev, args[0], name)
        return a.with_(data=f(as_array(a, ev.ctx.dtype)), kind=kind, iota=None)

    return Builtin(name, 1, fn, ("angle",), implicit=0)


def _sign(x: Any) -> Any:
    """`SignType.sign`, as the integer -1, 0 or 1 (`SignType` coerces to ℤ and ℝ so)."""
    return jnp.sign(x).astype(jnp.int64)


def _coe(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Real.Angle.coe r` (`↑r`): r is its own representative."""
    return _angle(ev, args[0], "Real.Angle.coe")


ANGLES: tuple[Builtin, ...] = (
    Builtin("Real.Angle.coe", 1, _coe, ("real",), implicit=0),
    # (jnp is read when called: naming `jnp.cos` here would import JAX with the library)
    _real_of("Real.Angle.cos", lambda x: jnp.cos(x)),
    _real_of("Real.Angle.sin", lambda x: jnp.sin(x)),
    # `tan θ = sin θ / cos θ` (Lean's `/`: 0 where cos θ = 0)
    _real_of("Real.Angle.tan", lambda x: T.real_div(jnp.sin(x), jnp.cos(x))),
    # `toReal θ = toIocMod two_pi_pos (-π) θ`: the representative in (-π, π]
    _real_of("Real.Angle.toReal", angle_to_real),
    # `sign θ = SignType.sign (sin θ)`: -1, 0 or 1
    _real_of("Real.Angle.sign", lambda x: _sign(jnp.sin(x)), kind="int"),
    Builtin("Real.Angle", 0, lambda ev, args: TypeValue("Real.Angle"), implicit=0),
)
