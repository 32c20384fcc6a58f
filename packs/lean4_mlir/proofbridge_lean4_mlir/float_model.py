"""The upstream project's `FloatModel` (Float/FloatBridge.lean) as a sampled structure.

    structure FloatModel where
      rnd : ℝ → ℝ
      u : ℝ
      u_nonneg : 0 ≤ u
      err : ∀ x : ℝ, |rnd x - x| ≤ u * |x|

A draw is a rounding with unit roundoff u = 2^-k, k uniform in [1, 30] (fp8's 2^-4,
bfloat16's 2^-8 and binary32's 2^-24 inside; a hypothesis bounding `M.u` is met by the
sampler), and `rnd x = x * (1 + u * σ(x))` with σ(x) ∈ {-1, 0, 1}: in
about half of the trials one sign for every x (the error piles up, as in a sum rounded
the same way each time), in the others a sign that changes with x (pseudo-random, a
fixed function of x in the trial). Every draw meets `u_nonneg` and `err` exactly (the
error of each rounding is u|x| or 0: the largest the model allows), so a statement
about every FloatModel is tested at its extremes of relative error; roundings that
are not of this form (errors strictly inside the band) are not drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from checkers.pack import (
    Arr,
    Builtin,
    InputSpec,
    Proof,
    StructSampler,
    as_array,
    coerce,
    jnp,
    register_structure,
)

if TYPE_CHECKING:
    from checkers.pack import Evaluator

__all__ = ["FLOAT_MODEL"]


def _fields(inputs: Mapping[str, Any], dtype: Any) -> dict[str, Any]:
    u = jnp.asarray(inputs["u"], dtype)
    theta = jnp.asarray(inputs["θ"], dtype)
    systematic = jnp.abs(theta) >= 0.6745  # half of a standard normal's mass

    def rnd(ev: Evaluator, args: tuple[Any, ...]) -> Any:
        x = coerce(ev._arr(args[0], "FloatModel.rnd"), "real", ev.ctx)
        data = as_array(x, ev.ctx.dtype)
        wobble = jnp.sign(jnp.sin(997.0 * data + 10.0 * theta))
        sign = jnp.where(systematic, jnp.sign(theta), wobble)
        return x.with_(data=data + u * sign * data, iota=None)

    return {
        "rnd": Builtin("FloatModel.rnd", 1, rnd, ("real",), implicit=0),
        "u": Arr(u, "real"),
        "u_nonneg": Proof("u_nonneg"),
        "err": Proof("err"),
    }


FLOAT_MODEL = register_structure(
    StructSampler(
        type_name="Proofs.FloatModel",
        fields={"u": InputSpec.real(constraint="nonnegative", distribution="roundoff")},
        hidden={"θ": InputSpec.real()},
        build=_fields,
        field_names=("rnd", "u", "u_nonneg", "err"),
        covers="roundings rnd x = x·(1 + u·σ(x)) with σ(x) ∈ {-1, 0, 1} and u = 2^-k, "
        "k in [1, 30] (the largest error the model allows at every x)",
    )
)
