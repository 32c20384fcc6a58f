"""Two ViT parameter-gradient statements of the seed page, with real JAX derivatives.

- `Proofs.vit_rowDenseW_grad_bridge`: the rendered per-token dense weight
  gradient equals the VJP of the rowwise dense (as a function of the flattened
  weight), read at `finProdFinEquiv (i, j)`. The right side is one `jax.vjp`:
  `∑ o, pdiv f x k o * dy o` is `(Jᵀ dy) k`, and no Jacobian is materialised.
- `Proofs.pdiv_rowLN_beta`: the Jacobian of the rowwise scalar layer norm with
  respect to `β' : Vec 1` is 1 everywhere; `pdiv f x i j` is the forward-mode
  Jacobian entry `jacfwd f x [j, i]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checkers.pack import Evaluation, fin, jax, jnp, real, register
from proofbridge_lean4_mlir.registered import lean

# --- Proofs.vit_rowDenseW_grad_bridge ---------------------------------------------

ROW_DENSE_W_STATEMENT = """{N a c : ℕ} (bb : Vec c) (X : Mat N a)
    (W : Mat a c) (dy : Vec (N * c)) (i : Fin a) (j : Fin c) :
  rowDense_weight_grad X (Mat.unflatten dy) i j
    = ∑ o : Fin (N * c), pdiv (fun (v : Vec (a * c)) =>
        Mat.flatten fun (r : Fin N) => dense (Mat.unflatten v) bb (X r))
        W.flatten (finProdFinEquiv (i, j)) o * dy o"""


def _row_dense_weight_grad(X: Any, dY: Any, i: Any, j: Any) -> Any:
    """`rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j` (its equation)."""
    return jnp.sum(X[:, i] * dY[:, j])


def _rowwise_dense_of_weight(a: int, c: int, bb: Any, X: Any) -> Any:
    """`fun v : Vec (a * c) => Mat.flatten fun r => dense (Mat.unflatten v) bb (X r)`."""

    def f(v: Any) -> Any:
        W = lean.mat_unflatten(v, a, c)
        return lean.mat_flatten(lean.rowwise(lambda x: lean.dense(W, bb, x), X))

    return f


def _dense_sides(dims: Mapping[str, int], x: Mapping[str, Any]) -> tuple[Any, Any]:
    N, a, c = dims["N"], dims["a"], dims["c"]
    X, W, bb, dy, i, j = x["X"], x["W"], x["bb"], x["dy"], x["i"], x["j"]
    lhs = _row_dense_weight_grad(X, lean.mat_unflatten(dy, N, c), i, j)
    f = _rowwise_dense_of_weight(a, c, bb, X)
    _, pullback = jax.vjp(f, lean.mat_flatten(W))
    (contracted,) = pullback(dy)  # k ↦ ∑ o, pdiv f W.flatten k o * dy o
    rhs = contracted[lean.fin_prod_fin_equiv(i, j, c)]
    return lhs, rhs


def _locate_dense(dims: Mapping[str, int], inputs: Mapping[str, Any]) -> str | None:
    a, c = dims["a"], dims["c"]
    x = {k: jnp.asarray(v) for k, v in inputs.items()}
    f = _rowwise_dense_of_weight(a, c, x["bb"], x["X"])
    return lean.first_nonfinite(
        [
            *((name, lambda v=x[name]: v) for name in ("X", "W", "bb", "dy")),
            (
                "rowDense_weight_grad X (Mat.unflatten dy) i j",
                lambda: _dense_sides(dims, x)[0],
            ),
            (
                "Mat.flatten fun r => dense (Mat.unflatten v) bb (X r)",
                lambda: f(lean.mat_flatten(x["W"])),
            ),
            (
                "∑ o : Fin (N * c), pdiv (…) W.flatten (finProdFinEquiv (i, j)) o * dy o",
                lambda: _dense_sides(dims, x)[1],
            ),
        ]
    )


@register(
    "Proofs.vit_rowDenseW_grad_bridge",
    statement=ROW_DENSE_W_STATEMENT,
    dims=("N", "a", "c"),
    inputs={
        "bb": real("c"),
        "X": real("N", "a"),
        "W": real("a", "c"),
        "dy": real("N*c"),
        "i": fin("a"),
        "j": fin("c"),
    },
    version="1",
    dependencies=(
        "Proofs.rowDense_weight_grad",
        "Proofs.pdiv",
        "Proofs.dense",
        "Proofs.Mat.flatten",
        "Proofs.Mat.unflatten",
        "finProdFinEquiv",
    ),
    definitions=lean.definitions(
        "Proofs.rowDense_weight_grad",
        "Proofs.pdiv",
        "Proofs.basisVec",
        "Proofs.dense",
        "Proofs.Mat.flatten",
        "Proofs.Mat.unflatten",
        "Proofs.Mat",
        "Proofs.Vec",
    ),
    locate=_locate_dense,
)
def vit_rowDenseW_grad_bridge(dims: Mapping[str, int], dtype: Any) -> Evaluation:
    N, c = dims["N"], dims["c"]

    def sides(x: dict[str, Any]) -> tuple[Any, ...]:
        lhs, rhs = _dense_sides(dims, x)
        # both sides are ∑ r, X r i * dy (r, j): their rounding scales with the largest term
        terms = x["X"][:, x["i"]] * lean.mat_unflatten(x["dy"], N, c)[:, x["j"]]
        return lhs, rhs, {"scale": jnp.max(jnp.abs(terms), initial=0.0)}

    return sides


# --- Proofs.pdiv_rowLN_beta --------------------------------------------------------

ROW_LN_BETA_STATEMENT = """(N D : ℕ) (ε γ : ℝ) (X : Mat N D) (β : Vec 1) (i : Fin 1)
    (idx : Fin (N * D)) :
  pdiv (fun (β' : Vec 1) => Mat.flatten fun (r : Fin N) => layerNormForward D ε γ (β' 0) (X r))
    β i idx = 1"""


def _rowwise_ln_of_beta(D: int, eps: Any, gamma: Any, X: Any) -> Any:
    """`fun β' : Vec 1 => Mat.flatten fun r => layerNormForward D ε γ (β' 0) (X r)`."""

    def f(beta: Any) -> Any:
        return lean.mat_flatten(
            lean.rowwise(lambda x: lean.layer_norm_forward(D, eps, gamma, beta[0], x), X)
        )

    return f


def _ln_sides(dims: Mapping[str, int], x: Mapping[str, Any]) -> tuple[Any, Any]:
    D = dims["D"]
    f = _rowwise_ln_of_beta(D, x["ε"], x["γ"], x["X"])
    jacobian = jax.jacfwd(f)(x["β"])  # [output idx, input i]
    lhs = jacobian[x["idx"], x["i"]]  # pdiv f β i idx
    rhs = jnp.ones((), dtype=lhs.dtype)
    return lhs, rhs


def _locate_ln(dims: Mapping[str, int], inputs: Mapping[str, Any]) -> str | None:
    D = dims["D"]
    x = {k: jnp.asarray(v) for k, v in inputs.items()}
    rows = x["X"]
    return lean.first_nonfinite(
        [
            *((name, lambda v=x[name]: v) for name in ("ε", "γ", "X", "β")),
            ("bnMean D (X r)", lambda: jax.vmap(lambda r: lean.bn_mean(D, r))(rows)),
            ("bnVar D (X r)", lambda: jax.vmap(lambda r: lean.bn_var(D, r))(rows)),
            ("bnIstd D (X r) ε", lambda: jax.vmap(lambda r: lean.bn_istd(D, r, x["ε"]))(rows)),
            (
                "layerNormForward D ε γ (β' 0) (X r)",
                lambda: _rowwise_ln_of_beta(D, x["ε"], x["γ"], rows)(x["β"]),
            ),
            ("pdiv (…) β i idx", lambda: _ln_sides(dims, x)[0]),
        ]
    )


@register(
    "Proofs.pdiv_rowLN_beta",
    statement=ROW_LN_BETA_STATEMENT,
    dims=("N", "D"),
    inputs={
        "ε": real(),
        "γ": real(),
        "X": real("N", "D"),
        "β": real(1),
        "i": fin(1),
        "idx": fin("N*D"),
    },
    version="1",
    dependencies=(
        "Proofs.pdiv",
        "Proofs.layerNormForward",
        "Proofs.bnXhat",
        "Proofs.bnIstd",
        "Proofs.bnVar",
        "Proofs.bnMean",
        "Proofs.Mat.flatten",
    ),
    definitions=lean.definitions(
        "Proofs.pdiv",
        "Proofs.basisVec",
        "Proofs.layerNormForward",
        "Proofs.bnForward",
        "Proofs.bnXhat",
        "Proofs.bnIstd",
        "Proofs.bnVar",
        "Proofs.bnMean",
        "Proofs.Mat.flatten",
        "Proofs.Mat",
        "Proofs.Vec",
    ),
    locate=_locate_ln,
)
def pdiv_rowLN_beta(dims: Mapping[str, int], dtype: Any) -> Evaluation:
    def sides(x: dict[str, Any]) -> tuple[Any, Any]:
        return _ln_sides(dims, x)

    return sides
