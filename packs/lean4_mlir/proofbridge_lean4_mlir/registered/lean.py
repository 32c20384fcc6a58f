"""Lean's total real arithmetic and the seed vocabulary, in JAX, for hand-written checkers.

Lean's `x / 0 = 0` and `Real.sqrt x = 0` for `x <= 0` are written with the
"double where" pattern, so that derivatives stay finite where the guarded
branch is not taken. Index helpers follow Mathlib: `finProdFinEquiv (i, j) =
i * n + j`, `Mat.flatten A k = A (k / n) (k % n)` (row-major).

`DEFINITIONS` holds the Lean text of each project definition these helpers
reimplement, as the project's source writes it; a registration names those its
checker relies on (`definitions(...)`), so that it is set aside when one of
them is ingested otherwise (`checkers.registry.definition_binding`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checkers.pack import jax, jnp

# name -> `binders : type := body`, the definitions (LeanMlir/Proofs) the helpers compute
DEFINITIONS = {
    "Proofs.Vec": "(n : ℕ) := Fin n → ℝ",
    "Proofs.Mat": "(m n : ℕ) := Fin m → Fin n → ℝ",
    "Proofs.basisVec": "{m : ℕ} (i : Fin m) : Vec m := fun k => if k = i then (1 : ℝ) else 0",
    "Proofs.pdiv": "{m n : ℕ} (f : Vec m → Vec n) (x : Vec m) (i : Fin m) (j : Fin n) : ℝ := "
    "fderiv ℝ f x (basisVec i) j",
    "Proofs.Mat.flatten": "{m n : ℕ} (A : Mat m n) : Vec (m * n) := "
    "fun k => let p := finProdFinEquiv.symm k; A p.1 p.2",
    "Proofs.Mat.unflatten": "{m n : ℕ} (v : Vec (m * n)) : Mat m n := "
    "fun i j => v (finProdFinEquiv (i, j))",
    "Proofs.dense": "{m n : ℕ} (W : Mat m n) (b : Vec n) (x : Vec m) : Vec n := "
    "fun j => (∑ i : Fin m, x i * W i j) + b j",
    "Proofs.bnMean": "(n : ℕ) (x : Vec n) : ℝ := (∑ i : Fin n, x i) / (n : ℝ)",
    "Proofs.bnVar": "(n : ℕ) (x : Vec n) : ℝ := let μ := bnMean n x\n"
    "  (∑ i : Fin n, (x i - μ) * (x i - μ)) / (n : ℝ)",
    "Proofs.bnIstd": "(n : ℕ) (x : Vec n) (ε : ℝ) : ℝ := 1 / Real.sqrt (bnVar n x + ε)",
    "Proofs.bnXhat": "(n : ℕ) (ε : ℝ) (x : Vec n) : Vec n := "
    "fun i => (x i - bnMean n x) * bnIstd n x ε",
    "Proofs.bnForward": "(n : ℕ) (ε γ β : ℝ) (x : Vec n) : Vec n := "
    "fun i => γ * bnXhat n ε x i + β",
    "Proofs.layerNormForward": "(n : ℕ) (ε : ℝ) (γ β : ℝ) (x : Vec n) : Vec n := "
    "bnForward n ε γ β x",
    "Proofs.rowDense_weight_grad": "{N a c : ℕ} (X : Mat N a) (dY : Mat N c) : Mat a c := "
    "fun i j => ∑ r : Fin N, X r i * dY r j",
}


def definitions(*names: str) -> dict[str, str]:
    """The Lean text of each named definition (`register(..., definitions=...)`)."""
    return {name: DEFINITIONS[name] for name in names}


def div(a: Any, b: Any) -> Any:
    """Lean's real division: `a / 0 = 0` (`b` may be a ℕ cast, given as a Python int)."""
    zero = jnp.asarray(b) == 0
    return jnp.where(zero, 0, a / jnp.where(zero, 1, b))


def sqrt(x: Any) -> Any:
    """`Real.sqrt`: 0 for x <= 0."""
    pos = x > 0
    return jnp.where(pos, jnp.sqrt(jnp.where(pos, x, 1)), 0)


def fin_prod_fin_equiv(i: Any, j: Any, n: int) -> Any:
    """`finProdFinEquiv (i, j) : Fin (m * n)` as a number."""
    return i * n + j


def mat_flatten(A: Any) -> Any:
    """`Mat.flatten A : Vec (m * n)`."""
    return jnp.reshape(A, (-1,))


def mat_unflatten(v: Any, m: int, n: int) -> Any:
    """`Mat.unflatten v : Mat m n`."""
    return jnp.reshape(v, (m, n))


def dense(W: Any, b: Any, x: Any) -> Any:
    """`dense W b x = fun j => ∑ i, x i * W i j + b j` (one contraction, never an outer product)."""
    return jnp.dot(x, W) + b


def bn_mean(n: int, x: Any) -> Any:
    return div(jnp.sum(x), n)


def bn_var(n: int, x: Any) -> Any:
    return div(jnp.sum((x - bn_mean(n, x)) ** 2), n)


def bn_istd(n: int, x: Any, eps: Any) -> Any:
    return div(1, sqrt(bn_var(n, x) + eps))


def bn_xhat(n: int, eps: Any, x: Any) -> Any:
    return (x - bn_mean(n, x)) * bn_istd(n, x, eps)


def layer_norm_forward(n: int, eps: Any, gamma: Any, beta: Any, x: Any) -> Any:
    """`layerNormForward n ε γ β x = fun i => γ * x̂ i + β` (scalar γ, β)."""
    return gamma * bn_xhat(n, eps, x) + beta


def rowwise(f: Callable[[Any], Any], X: Any) -> Any:
    """`fun r => f (X r)` as a matrix."""
    return jax.vmap(f)(X)


def first_nonfinite(terms: Sequence[tuple[str, Callable[[], Any]]]) -> str | None:
    """The first labelled subterm whose value holds a NaN or an infinity, evaluated eagerly."""
    for label, thunk in terms:
        value = np.asarray(thunk(), dtype=np.float64)
        bad = ~np.isfinite(value)
        if bad.any():
            kind = "NaN" if np.isnan(value[bad]).any() else "infinite"
            return f"`{label}` is {kind}"
    return None
