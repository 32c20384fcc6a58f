"""Mathlib's non-negative reals ℝ≥0 (Mathlib/Data/NNReal/Defs.lean, `NNReal`): values of
kind 'nnreal', the reals at least 0, with ℝ's operations except subtraction, which
truncates at 0 (`x - y = max (x - y) 0`, arith.py), and no negation. The coercion to ℝ
is the same number; `Real.toNNReal x = max x 0` is the way back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkers.language import total as T
from checkers.language.coercion import coerce
from checkers.language.powers import power
from checkers.language.values import Arr, Builtin, TypeValue, as_array
from checkers.lazyjax import jnp

if TYPE_CHECKING:
    from checkers.evaluator.evaluate import Evaluator


def _nnreal(ev: Evaluator, x: Any, what: str) -> Arr:
    v = ev._arr(x, what)
    return v if v.kind == "nnreal" else coerce(v, "nnreal", ev.ctx)


def _to_nnreal(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`Real.toNNReal x = ⟨max x 0, _⟩` (Mathlib/Data/NNReal/Defs.lean)."""
    x = coerce(ev._arr(args[0], "Real.toNNReal"), "real", ev.ctx)
    return x.with_(data=jnp.maximum(as_array(x), 0.0), iota=None, kind="nnreal")


def _to_real(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`NNReal.toReal x` (`↑x`): the same number in ℝ."""
    return coerce(_nnreal(ev, args[0], "NNReal.toReal"), "real", ev.ctx)


def _sqrt(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`NNReal.sqrt x`: `Real.sqrt` of its value (Mathlib/Analysis/SpecialFunctions/Pow/NNRpow
    and Sqrt.lean: `NNReal.coe_sqrt`)."""
    x = coerce(_nnreal(ev, args[0], "NNReal.sqrt"), "real", ev.ctx)
    return x.with_(data=T.real_sqrt(as_array(x)), iota=None, kind="nnreal")


def _rpow(ev: Evaluator, args: tuple[Any, ...]) -> Any:
    """`NNReal.rpow x y`: `Real.rpow` of its value (`NNReal.coe_rpow`)."""
    x = _nnreal(ev, args[0], "NNReal.rpow")
    y = coerce(ev._arr(args[1], "NNReal.rpow"), "real", ev.ctx)
    return power(x, y, ev.ctx)


NNREAL: tuple[Builtin, ...] = (
    Builtin("Real.toNNReal", 1, _to_nnreal, ("real",), implicit=0),
    Builtin("NNReal.toReal", 1, _to_real, ("nnreal",), implicit=0),
    Builtin("NNReal.sqrt", 1, _sqrt, ("nnreal",), implicit=0),
    Builtin("NNReal.rpow", 2, _rpow, ("nnreal", "real"), implicit=0),
    Builtin("NNReal", 0, lambda ev, args: TypeValue("ℝ≥0"), implicit=0),
    Builtin("ℝ≥0", 0, lambda ev, args: TypeValue("ℝ≥0"), implicit=0),
)
