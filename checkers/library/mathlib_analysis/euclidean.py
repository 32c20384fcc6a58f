"""Mathlib's Euclidean spaces (Mathlib/Analysis/InnerProductSpace/PiL2.lean: `EuclideanSpace 𝕜
ι := PiLp 2 (fun _ : ι => 𝕜)`, and Mathlib/Analysis/Normed/Lp/WithLp.lean): a vector of
`EuclideanSpace ℝ (Fin n)` is the array of its coordinates, marked (`Arr.l2`) so that its
norm is the Euclidean norm √(∑ xᵢ²) where a function `Fin n → ℝ` has the sup norm.
`WithLp.toLp 2 v` marks v, `WithLp.ofLp` takes the mark off; another exponent p is not
modelled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.language.coercion import nat_constant
from checkers.language.errors import NotSupported
from checkers.language.values import Arr, Builtin

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator


def _vector(ev: Evaluator, v: Any, what: str) -> Arr:
    x = ev._arr(v, what)
    if len(x.dom) != 1 or x.kind != "real":
        raise NotSupported(f"{what} of a {x.describe()} (a real vector over Fin n is modelled)")
    return x


def _to_lp(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    p, v = args
    if nat_constant(ev._arr(p, "WithLp.toLp"), "WithLp.toLp") != 2:
        raise NotSupported("WithLp.toLp for an exponent other than 2 (only ℓ² is modelled)")
    return _vector(ev, v, "WithLp.toLp").with_(l2=True)


def _of_lp(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    return _vector(ev, args[-1], "WithLp.ofLp").with_(l2=False)


EUCLIDEAN: tuple[Builtin, ...] = (
    Builtin("WithLp.toLp", 2, _to_lp, ("nat", None), implicit=2),
    Builtin("WithLp.ofLp", 1, _of_lp, implicit=3),
    Builtin("PiLp.ofLp", 1, _of_lp, implicit=3),
)
