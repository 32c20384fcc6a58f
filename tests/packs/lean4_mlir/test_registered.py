"""The hand-written seed checkers: real derivatives, Lean semantics, and mutants that must fail."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from proofbridge_lean4_mlir.registered import lean, vit

from checkers import REGISTRY, Environment, Registry, check
from checkers.registry.registrations import fin, real


def _env(registry: Registry) -> Environment:
    return Environment.from_declarations([], registry=registry, derive=None)


def test_lean_division_and_sqrt_total():
    assert float(lean.div(jnp.float64(3.0), 0)) == 0.0
    assert float(lean.sqrt(jnp.float64(-4.0))) == 0.0
    assert float(lean.sqrt(jnp.float64(9.0))) == 3.0
    grad = jax.grad(lambda x: lean.div(1.0, lean.sqrt(x)))
    assert float(grad(jnp.float64(-1.0))) == 0.0  # finite: the guarded branch is not taken
    assert np.isclose(float(grad(jnp.float64(4.0))), -1 / 16)


def test_layer_norm_forward_lean_semantics():
    x = jnp.array([1.0, 2.0, 3.0, 6.0])
    y = lean.layer_norm_forward(4, 1e-5, 2.0, 0.5, x)
    mu, var = 3.0, np.mean((np.array(x) - 3.0) ** 2)
    np.testing.assert_allclose(y, 2.0 * (np.array(x) - mu) / np.sqrt(var + 1e-5) + 0.5)
    # var + ε < 0: Real.sqrt gives 0, 1 / 0 = 0, so x̂ = 0 and the output is β
    np.testing.assert_array_equal(lean.layer_norm_forward(4, -100.0, 2.0, 0.5, x), [0.5] * 4)
    # n = 0 casts to 0: the mean is 0 / 0 = 0
    assert float(lean.bn_mean(0, jnp.zeros(0))) == 0.0


def test_dense_row_major_flatten():
    W = jnp.arange(6.0).reshape(2, 3)
    x = jnp.array([1.0, -1.0])
    np.testing.assert_array_equal(lean.dense(W, jnp.zeros(3), x), [-3.0, -3.0, -3.0])
    assert int(lean.fin_prod_fin_equiv(1, 2, 3)) == 5
    assert float(lean.mat_flatten(W)[5]) == float(W[1, 2])


def test_vjp_equals_materialised_jacobian_contraction():
    """The VJP on the right side is Σ_o pdiv f x k o * dy o with pdiv from a full Jacobian."""
    rng = np.random.default_rng(0)
    N, a, c = 3, 2, 4
    X, W, bb = rng.normal(size=(N, a)), rng.normal(size=(a, c)), rng.normal(size=c)
    dy = rng.normal(size=N * c)
    f = vit._rowwise_dense_of_weight(a, c, bb, X)
    jac = jax.jacfwd(f)(W.reshape(-1))  # [o, k] = pdiv f W.flatten k o
    for i in range(a):
        for j in range(c):
            inputs = {"X": X, "W": W, "bb": bb, "dy": dy, "i": i, "j": j}
            lhs, rhs = vit._dense_sides({"N": N, "a": a, "c": c}, inputs)
            expected = sum(jac[o, i * c + j] * dy[o] for o in range(N * c))
            np.testing.assert_allclose(rhs, expected, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(lhs, expected, rtol=1e-12, atol=1e-12)


def test_ln_beta_jacobian_is_forward_mode_entry():
    rng = np.random.default_rng(1)
    N, D = 2, 3
    inputs = {"ε": 0.1, "γ": 1.7, "X": rng.normal(size=(N, D)), "β": np.array([0.3]), "i": 0}
    for idx in range(N * D):
        lhs, rhs = vit._ln_sides({"N": N, "D": D}, {**inputs, "idx": idx})
        assert float(lhs) == 1.0 and float(rhs) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pass_seed_checkers_other_seeds(seed):
    env = Environment.from_declarations([], derive=None)
    for name in (
        "Proofs.sum_fin_prod",
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.pdiv_rowLN_beta",
    ):
        result = check(name, env, seed=seed)
        assert result.status == "pass", (name, result.reason)


# --- mutants: the same statements with one thing wrong; each must fail -------------

MUTANTS = Registry()


@MUTANTS.register("Mutant.sum_fin_prod_drops_k", dims=("m", "n"), inputs={"f": real("m*n")})
def _sum_drops_k(dims, dtype):
    m, n = dims["m"], dims["n"]
    flat = lean.fin_prod_fin_equiv(np.arange(m)[:, None], 0 * np.arange(n)[None, :], n)
    return lambda x: (jnp.sum(x["f"]), jnp.sum(x["f"][flat]))


@MUTANTS.register("Mutant.sum_fin_prod_column_major", dims=("m", "n"), inputs={"f": real("m*n")})
def _sum_column_major(dims, dtype):
    # equivalent rewrite: k * m + r also runs over every flat index once
    m, n = dims["m"], dims["n"]
    flat = np.arange(n)[None, :] * m + np.arange(m)[:, None]
    return lambda x: (jnp.sum(x["f"]), jnp.sum(x["f"][flat]))


_DENSE_INPUTS = {
    "bb": real("c"),
    "X": real("N", "a"),
    "W": real("a", "c"),
    "dy": real("N*c"),
    "i": fin("a"),
    "j": fin("c"),
}


@MUTANTS.register("Mutant.rowDenseW_transposed_index", dims=("N", "a", "c"), inputs=_DENSE_INPUTS)
def _dense_transposed(dims, dtype):
    a, c = dims["a"], dims["c"]

    def sides(x):
        lhs, _ = vit._dense_sides(dims, x)
        f = vit._rowwise_dense_of_weight(a, c, x["bb"], x["X"])
        _, pull = jax.vjp(f, lean.mat_flatten(x["W"]))
        (g,) = pull(x["dy"])
        return lhs, g[(x["j"] * a + x["i"]) % (a * c)]  # (j, i) read as if W were c × a

    return sides


@MUTANTS.register("Mutant.rowDenseW_sign_flip", dims=("N", "a", "c"), inputs=_DENSE_INPUTS)
def _dense_sign(dims, dtype):
    def sides(x):
        lhs, rhs = vit._dense_sides(dims, x)
        return lhs, -rhs

    return sides


@MUTANTS.register(
    "Mutant.pdiv_rowLN_gamma_as_beta",
    dims=("N", "D"),
    inputs={
        "ε": real(),
        "γ": real(),
        "X": real("N", "D"),
        "β": real(1),
        "i": fin(1),
        "idx": fin("N*D"),
    },
)
def _ln_gamma(dims, dtype):
    # differentiates with respect to γ instead of β: the Jacobian is x̂, not 1
    D = dims["D"]

    def sides(x):
        def f(g):
            return lean.mat_flatten(
                lean.rowwise(
                    lambda r: lean.layer_norm_forward(D, x["ε"], g[0], x["β"][0], r), x["X"]
                )
            )

        jac = jax.jacfwd(f)(jnp.reshape(x["γ"], (1,)))
        return jac[x["idx"], x["i"]], jnp.ones((), dtype=jac.dtype)

    return sides


@pytest.mark.parametrize(
    "name",
    [
        "Mutant.sum_fin_prod_drops_k",
        "Mutant.rowDenseW_transposed_index",
        "Mutant.rowDenseW_sign_flip",
        "Mutant.pdiv_rowLN_gamma_as_beta",
    ],
)
def test_fail_mutant_with_shrunk_counterexample(name):
    result = check(name, _env(MUTANTS), seed=0)
    assert result.status == "fail", result.reason
    ce = result.counterexample
    assert ce is not None and ce.note
    assert ce.dims == result.dims
    assert sum(ce.dims.values()) <= sum(result.stats["per_draw"][0]["dims"].values()) + 5


def test_pass_equivalent_rewrite():
    assert check("Mutant.sum_fin_prod_column_major", _env(MUTANTS), seed=0).status == "pass"


def test_fail_transposed_index_at_small_distinct_dims():
    result = check("Mutant.rowDenseW_transposed_index", _env(MUTANTS), seed=0)
    assert result.dims["N"] == 1
    assert result.counterexample is not None and result.counterexample.shrunk


def test_registered_checkers_declare_dependencies():
    assert REGISTRY["Proofs.vit_rowDenseW_grad_bridge"].dependencies[0] == (
        "Proofs.rowDense_weight_grad"
    )
    assert "Proofs.layerNormForward" in REGISTRY["Proofs.pdiv_rowLN_beta"].dependencies
