"""`Proofs.sum_fin_prod`: a sum over a flat product index is the row-major double sum."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from checkers.pack import Evaluation, jnp, real, register
from proofbridge_lean4_mlir.registered import lean


def _locate(dims: Mapping[str, int], inputs: Mapping[str, Any]) -> str | None:
    f = inputs["f"]
    return lean.first_nonfinite(
        [("f", lambda: f), ("∑ idx : Fin (m * n), f idx", lambda: jnp.sum(jnp.asarray(f)))]
    )


# checked at M := ℝ.
@register(
    "Proofs.sum_fin_prod",
    statement="""{M : Type u_1} [AddCommMonoid M] (m n : ℕ) (f : Fin (m * n) → M) :
        ∑ idx : Fin (m * n), f idx = ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))""",
    dims=("m", "n"),
    inputs={"f": real("m*n")},
    version="1",
    dependencies=("finProdFinEquiv",),
    locate=_locate,
)
def sum_fin_prod(dims: Mapping[str, int], dtype: Any) -> Evaluation:
    m, n = dims["m"], dims["n"]
    r = np.arange(m)[:, None]
    k = np.arange(n)[None, :]
    flat = lean.fin_prod_fin_equiv(r, k, n)  # (m, n) table of finProdFinEquiv (r, k)

    def sides(x: dict[str, Any]) -> tuple[Any, ...]:
        f = x["f"]
        lhs = jnp.sum(f)
        rhs = jnp.sum(jnp.sum(f[flat], axis=1))
        # both sides add up the entries of f: their rounding scales with the largest
        return lhs, rhs, {"scale": jnp.max(jnp.abs(f), initial=0.0)}

    return sides
