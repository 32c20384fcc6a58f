"""Mathlib's `EuclideanSpace ℝ (Fin n)` (library/mathlib_analysis/euclidean.py): its vectors
have the Euclidean norm where a function `Fin n → ℝ` has the sup norm, whether drawn as a
binder or made by `WithLp.toLp 2`, and a statement that confuses the two norms fails,
confirmed exactly."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check

E = "EuclideanSpace ℝ (Fin 3)"
STATEMENTS = {
    "norm_add_le": (f"(u v : {E})", "‖u + v‖ ≤ ‖u‖ + ‖v‖"),
    "norm_sq_eq": (f"(u : {E})", "‖u‖ ^ 2 = ∑ i, u i ^ 2"),
    "dist_sq": (f"(u v : {E})", "‖u - v‖ ^ 2 = ∑ i, (u i - v i) ^ 2"),
    "toLp_norm": (
        "(W : Fin 2 → Fin 3 → ℝ) (u : EuclideanSpace ℝ (Fin 3))",
        "‖Proofs.denseE W u‖ ^ 2 = ∑ i, (∑ j, W i j * u j) ^ 2",
    ),
    "pi_norm_le": ("(u : Fin 3 → ℝ) (i : Fin 3)", "|u i| ≤ ‖u‖"),
    # a definition whose declared value is Euclidean, built by a lambda
    "twice_norm": (f"(u : {E})", "‖Proofs.twice u‖ ^ 2 = 4 * ∑ i, u i ^ 2"),
    # mutants: the sup norm for a Euclidean vector, the Euclidean norm for a function
    "norm_is_sup_wrong": (f"(u : {E})", "‖u‖ = ‖(fun i => u i : Fin 3 → ℝ)‖"),
    "pi_norm_sq_wrong": ("(u : Fin 3 → ℝ)", "‖u‖ ^ 2 = ∑ i, u i ^ 2"),
}


@pytest.fixture(scope="module")
def env():
    dense = definition(
        "Proofs.denseE",
        "{n k : ℕ} (W : Fin k → Fin n → ℝ)",
        "EuclideanSpace ℝ (Fin n) → EuclideanSpace ℝ (Fin k)",
        "denseE W = fun x => WithLp.toLp 2 (fun i => ∑ j, W i j * x j)",
    )
    twice = definition("Proofs.twice", f"(x : {E})", E, "twice x = fun i => 2 * x i")
    theorems = (theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items())
    return environment(dense, twice, *theorems)


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_euclidean_statement_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_confusing_the_norms_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed exactly" in result.reason, result.reason


def test_another_exponent_is_refused() -> None:
    env = environment(
        theorem("Proofs.l1", "(v : Fin 3 → ℝ)", "‖WithLp.toLp 1 v‖ = ‖WithLp.toLp 1 v‖")
    )
    result = check("Proofs.l1", env, trials=4)
    assert result.status == "unsupported" and "exponent" in result.reason
