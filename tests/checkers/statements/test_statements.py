"""Statements beyond the seeds: equations, hypotheses, unsupported input, non-finite values."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from derived_support import definition, environment, evaluate, sides, theorem

from checkers import check
from checkers.core import DimConstraint, Unsupported
from checkers.inputs.sampling import stress_scale
from checkers.language.values import as_array
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive, shared_semantics


def _derived(env: object, name: str) -> DerivedChecker:
    c = derive(name, env)
    assert isinstance(c, DerivedChecker), c
    return c


def _agree(checker: DerivedChecker, dims: dict[str, int], trials: int = 16) -> bool:
    lhs, rhs = sides(checker, dims, trials=trials)
    return bool(np.allclose(lhs, rhs, rtol=1e-10, atol=1e-12))


# --- unsupported ------------------------------------------------------------------


def test_report_missing_names_when_constants_lack_semantics() -> None:
    env = environment(theorem("Proofs.t", "{n : ℕ} (x : Vec n)", "foo x = bar x + Proofs.baz"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    # Names the resolver could not place are reported as written.
    assert result.reason == "no semantics for: Proofs.baz, bar, foo"
    assert result.missing == ("Proofs.baz", "bar", "foo")


def test_report_missing_names_reached_through_an_equation() -> None:
    env = environment(
        definition(
            "Proofs.g", "{n : ℕ} (x : Vec n)", "ℝ", "Proofs.g x = ∑ i : Fin n, hidden (x i)"
        ),
        theorem("Proofs.t", "{n : ℕ} (x : Vec n)", "g x = g x"),
    )
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert result.missing == ("hidden",)


def test_refuse_statement_that_is_not_an_equation() -> None:
    env = environment(theorem("Proofs.t", "(x y : ℝ)", "x = y ∨ x ≠ y"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert "not an equation" in result.reason


# --- equations ------------------------------------------------------------------------


ROWDENSE = definition(
    "Proofs.rowDense_weight_grad",
    "{N a c : ℕ} (X : Mat N a) (dY : Mat N c)",
    "Mat a c",
    "Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j",
)


def test_unfold_equation_partially_applied_over_trailing_indices() -> None:
    env = environment(
        ROWDENSE,
        theorem(
            "Proofs.t",
            "{N a c : ℕ} (X : Mat N a) (dy : Vec (N * c))",
            "rowDense_weight_grad X (Mat.unflatten dy) = "
            "Mat.mul (Mat.transpose X) (Mat.unflatten dy)",
        ),
    )
    c = _derived(env, "Proofs.t")
    assert c.dependencies == (
        "Proofs.Mat.mul",
        "Proofs.Mat.transpose",
        "Proofs.Mat.unflatten",
        "Proofs.rowDense_weight_grad",
    )
    lhs, rhs = sides(c, {"N": 3, "a": 2, "c": 4})
    assert lhs.shape == (8, 2, 4)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)


def test_infer_implicit_dims_from_fin_argument() -> None:
    env = environment(
        definition(
            "Proofs.cls_token_grad",
            "{N D : ℕ} (dy : Vec ((N + 1) * D))",
            "Vec D",
            "Proofs.cls_token_grad dy i = dy (finProdFinEquiv (0, i))",
        ),
        theorem(
            "Proofs.t",
            "{N D : ℕ} (dy : Vec ((N + 1) * D)) (i : Fin D)",
            "cls_token_grad dy i = dy (↑i)",
        ),
    )
    assert _agree(_derived(env, "Proofs.t"), {"N": 3, "D": 2})


def test_prefer_ingested_equation_over_library() -> None:
    stmt = theorem(
        "Proofs.t",
        "{m n : ℕ} (W : Mat m n) (b : Vec n) (x : Vec m) (j : Fin n)",
        "dense W b x j = (∑ i : Fin m, x i * W i j) + b j",
    )
    assert _agree(_derived(environment(stmt), "Proofs.t"), {"m": 3, "n": 2})
    altered = definition(
        "Proofs.dense",
        "{m n : ℕ} (W : Mat m n) (b : Vec n) (x : Vec m)",
        "Vec n",
        "Proofs.dense W b x = fun j => (∑ i : Fin m, x i * W i j) - b j",
    )
    c = _derived(environment(altered, stmt), "Proofs.t")
    assert not _agree(c, {"m": 3, "n": 2})
    assert "Proofs.dense" in c.dependencies


def test_check_vocabulary_against_definitions() -> None:
    env = environment(
        theorem(
            "Proofs.t",
            "{c : ℕ} (z : Vec c) (l : Fin c)",
            "crossEntropy c z l = -Real.log (Real.exp (z l) / ∑ k : Fin c, Real.exp (z k))",
        )
    )
    assert _agree(_derived(env, "Proofs.t"), {"c": 4})
    env = environment(
        theorem(
            "Proofs.t",
            "(x : ℝ)",
            "geluScalar x = "
            "0.5 * x * (1 + Real.tanh (Real.sqrt (2 / Real.pi) * (x + 0.044715 * x ^ 3)))",
        )
    )
    assert _agree(_derived(env, "Proofs.t"), {})
    env = environment(
        theorem(
            "Proofs.t",
            "{n : ℕ} (ε γ β : ℝ) (x : Vec n) (i : Fin n)",
            "layerNormForward n ε γ β x i = "
            "γ * ((x i - bnMean n x) * (1 / Real.sqrt (bnVar n x + ε)))"
            " + β",
        )
    )
    assert _agree(_derived(env, "Proofs.t"), {"n": 3})


# --- hypotheses -------------------------------------------------------------------------


def test_plan_hypotheses_into_constraints_and_assumptions() -> None:
    env = environment(
        theorem(
            "Proofs.t",
            "{n P W : ℕ} (ε : ℝ) (hε : 0 < ε) (hPW : P ≤ W) (hn : n ≠ 0) (i j : Fin n)"
            " (hij : i ≠ j)"
            " (f : Vec n) (hf : Differentiable ℝ f)",
            "(if i = j then ε else 0) + Real.sqrt ε * Real.sqrt ε = ε",
        )
    )
    c = _derived(env, "Proofs.t")
    assert c.dim_names == ("n", "P", "W")
    assert set(c.dim_constraints()) == {DimConstraint("P", "<=", "W"), DimConstraint("n", "!=", 0)}
    assert c.input_specs({"n": 3, "P": 1, "W": 2})["ε"].constraint == "positive"
    assert any("i ≠ j" in a for a in c.assumptions)
    assert any("Differentiable" in a for a in c.assumptions)
    result = check("Proofs.t", env, trials=32, seed=0)
    assert result.status == "pass", result.reason


def test_fail_statement_without_its_hypothesis() -> None:
    env = environment(theorem("Proofs.t", "(ε : ℝ)", "Real.sqrt ε * Real.sqrt ε = ε"))
    result = check("Proofs.t", env, trials=32, seed=0)
    assert result.status == "fail"


def test_sqrt_prefix_is_real_sqrt() -> None:
    # `√x` is Mathlib's notation for `Real.sqrt x`: 0 at a negative x
    env = environment(theorem("Proofs.t", "(x : ℝ) (h : 0 ≤ x)", "√x * √x = x"))
    assert check("Proofs.t", env, trials=32, seed=0).status == "pass"
    env = environment(theorem("Proofs.t", "(x : ℝ)", "√x * √x = x"))
    result = check("Proofs.t", env, trials=32, seed=0)
    assert result.status == "fail"
    assert result.counterexample is not None and result.counterexample.inputs["x"][0] < 0


def test_check_nat_binder_as_sampled_input() -> None:
    env = environment(theorem("Proofs.t", "(k : ℕ)", "(k - 3) + 3 = max k 3"))
    c = _derived(env, "Proofs.t")
    assert c.dim_names == ()
    assert c.input_specs({})["k"].kind == "nat"
    assert _agree(c, {}, trials=32)


def test_check_inequality_as_predicate() -> None:
    env = environment(theorem("Proofs.t", "(x : ℝ)", "0 ≤ x * x"))
    assert check("Proofs.t", env, trials=32, seed=0).status == "pass"
    env = environment(theorem("Proofs.t", "(x : ℝ)", "x ≤ 0"))
    assert check("Proofs.t", env, trials=32, seed=0).status == "fail"


# --- non-finite values -----------------------------------------------------------------


def test_locate_nonfinite_subterm_innermost_first() -> None:
    env = environment(
        theorem("Proofs.t", "(x : ℝ)", "Real.exp (Real.exp (Real.exp x)) * 0 = x - x")
    )
    c = _derived(env, "Proofs.t")
    where = c.locate_nonfinite({}, {"x": np.float64(3.0)})
    assert where == "Real.exp (Real.exp (Real.exp x))"
    assert c.locate_nonfinite({}, {"x": np.float64(0.0)}) is None


def test_report_nonfinite_as_error_naming_subterm() -> None:
    # true in ℝ (Lean: e^y - e^y = 0), but e^(e^(x² + 7)) overflows float64 at every x,
    # at scale 1 too: inf - inf is NaN, never a pass (a quotient of exponentials would not
    # overflow: it is taken in log space)
    env = environment(
        theorem(
            "Proofs.t",
            "(x : ℝ)",
            "Real.exp (Real.exp (x ^ 2 + 7)) - Real.exp (Real.exp (x ^ 2 + 7)) = 0",
        )
    )
    result = check("Proofs.t", env)
    assert result.status == "error"
    assert "lhs is NaN" in result.reason
    assert result.reason.endswith("subterm Real.exp (Real.exp (x ^ 2 + 7))")
    assert result.counterexample is not None
    assert stress_scale(result.counterexample.trial, "float64") == 1.0


def test_redraw_trial_that_overflows_only_at_stress_scale() -> None:
    # e^(e^x) overflows once x > 6.56, which only the stress-scaled trials reach: they are
    # drawn again at scale 1 and counted, and the true statement passes
    env = environment(
        theorem("Proofs.t", "(x : ℝ)", "Real.exp (Real.exp x) / Real.exp (Real.exp x) = 1")
    )
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    assert result.rescaled_trials > 0


def test_locate_nonfinite_subterm_under_bound_index() -> None:
    env = environment(
        theorem(
            "Proofs.t",
            "{n : ℕ} (v : Vec n)",
            "∑ i : Fin n, (Real.exp (Real.exp (v i)) - Real.exp (Real.exp (v i))) = 0",
        )
    )
    c = _derived(env, "Proofs.t")
    where = c.locate_nonfinite({"n": 3}, {"v": np.array([0.0, 9.0, 1.0])})
    assert where == "Real.exp (Real.exp (v i))"
    assert c.locate_nonfinite({"n": 3}, {"v": np.array([0.0, 1.0, 2.0])}) is None
    always = environment(
        theorem(
            "Proofs.t",
            "{n : ℕ} (v : Vec n)",
            "∑ i : Fin n, (Real.exp (Real.exp (v i ^ 2 + 7)) - Real.exp (Real.exp (v i ^ 2 + 7)))"
            " = 0",
        )
    )
    result = check("Proofs.t", always, dims={"n": 3})
    assert result.status == "error"
    assert "subterm Real.exp (Real.exp (v i ^ 2 + 7))" in result.reason


@pytest.mark.parametrize("dims", [{"n": 1}, {"n": 4}])
def test_check_fin_rev_sum_reindex(dims: dict[str, int]) -> None:
    env = environment(
        theorem("Proofs.t", "{n : ℕ} (v : Vec n)", "∑ i : Fin n, v (Fin.rev i) = ∑ i : Fin n, v i")
    )
    assert _agree(_derived(env, "Proofs.t"), dims)


def test_unfold_lambda_equation_and_constant_definition() -> None:
    env = environment(
        definition(
            "Proofs.shift",
            "{n : ℕ} (x : Vec n) (s : ℝ)",
            "Vec n",
            "Proofs.shift x s = fun j => x j + s * eps",
        ),
        definition("Proofs.eps", "", "ℝ", "Proofs.eps = 0.5"),
        theorem("Proofs.t", "{n : ℕ} (x : Vec n) (i : Fin n)", "shift x 2 i = x i + 1"),
    )
    c = _derived(env, "Proofs.t")
    assert c.dependencies == ("Proofs.eps", "Proofs.shift")
    assert _agree(c, {"n": 3})


def test_sum_over_product_of_fins() -> None:
    env = environment(
        theorem(
            "Proofs.t",
            "{m n : ℕ} (A : Mat m n)",
            "∑ p : Fin m × Fin n, A p.1 p.2 = ∑ k : Fin (m * n), Mat.flatten A k",
        )
    )
    assert _agree(_derived(env, "Proofs.t"), {"m": 2, "n": 3})


def test_share_one_semantics_table_across_theorems() -> None:
    env = environment(
        definition("Proofs.eps", "", "ℝ", "Proofs.eps = 0.5"),
        theorem("Proofs.t1", "(x : ℝ)", "x + eps = eps + x"),
        theorem("Proofs.t2", "(x : ℝ)", "x * eps = eps * x"),
    )
    assert shared_semantics(env) is shared_semantics(env)
    c1, c2 = _derived(env, "Proofs.t1"), _derived(env, "Proofs.t2")
    assert c1.semantics is c2.semantics


def test_evaluate_closed_definition_once_outside_the_trace() -> None:
    env = environment(
        definition("Proofs.W", "", "Mat 2 2", "Proofs.W = ![![1, 2], ![3, 4.5]]"),
        theorem("Proofs.t", "(i : Fin 2)", "W i 0 + W i 1 = ∑ j : Fin 2, W i j"),
        theorem("Proofs.bad", "(i : Fin 2)", "W i 0 = W i 1"),
    )
    c = _derived(env, "Proofs.t")
    assert _agree(c, {})
    cached = {k: v for k, v in c.semantics.values.items() if k[0] == "Proofs.W"}
    assert list(cached) == [("Proofs.W", "float64", "int64")]
    (value,) = cached.values()
    assert not isinstance(value.data, jax.core.Tracer)
    np.testing.assert_array_equal(np.asarray(value.data), [[1.0, 2.0], [3.0, 4.5]])
    # the cached value is a constant of every program: a false statement still fails
    assert check("Proofs.bad", env, trials=8).status == "fail"
    assert check("Proofs.t", env, trials=8).status == "pass"


def test_do_not_cache_definition_whose_value_depends_on_a_trace() -> None:
    def traced(x: jax.Array) -> jax.Array:
        sem = shared_semantics(environment(definition("Proofs.c", "", "ℝ", "Proofs.c = 2")))
        v = evaluate("c * 3", {}, sem)
        assert all(not isinstance(k, jax.core.Tracer) for k in sem.values.values())
        return x * as_array(v)

    assert float(jax.jit(traced)(1.0)) == 6.0
