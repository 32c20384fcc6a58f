"""Mathlib's predicates on real functions read as relations (library/mathlib_analysis):
each reading checks what it says, a wrong statement fails with a confirmed
counterexample, and every result says what the reading leaves unchecked."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check
from theorem_index.model import Declaration

STATEMENTS = {
    "exp_deriv": ("(x : ℝ)", "HasDerivAt Real.exp (Real.exp x) x"),
    "exp_deriv_wrong": ("(x : ℝ)", "HasDerivAt Real.exp (2 * Real.exp x) x"),
    "sqrt_deriv": ("{x : ℝ} (hx : x ≠ 0)", "HasDerivAt Real.sqrt (1 / (2 * √x)) x"),
    "pow_strict_deriv": (
        "(n : ℕ) (x : ℝ)",
        "HasStrictDerivAt (fun x : ℝ => x ^ n) ((n : ℝ) * x ^ (n - 1)) x",
    ),
    # the exponent's decrement dropped
    "pow_strict_deriv_wrong": (
        "(n : ℕ) (x : ℝ)",
        "HasStrictDerivAt (fun x : ℝ => x ^ n) ((n : ℝ) * x ^ n) x",
    ),
    "log_chain": (
        "{f : ℝ → ℝ} {x f' : ℝ} (hf : HasDerivAt f f' x) (hx : f x ≠ 0)",
        "HasDerivAt (fun y => Real.log (f y)) (f' / f x) x",
    ),
    "log_chain_wrong": (
        "{f : ℝ → ℝ} {x f' : ℝ} (hf : HasDerivAt f f' x) (hx : f x ≠ 0)",
        "HasDerivAt (fun y => Real.log (f y)) (f' * f x) x",
    ),
    "sin_periodic": ("", "Function.Periodic Real.sin (2 * Real.pi)"),
    "sin_periodic_wrong": ("", "Function.Periodic Real.sin Real.pi"),
    "sin_antiperiodic": ("", "Function.Antiperiodic Real.sin Real.pi"),
    "exp_strictMono": ("", "StrictMono Real.exp"),
    "cos_strictMono_wrong": ("", "StrictMono Real.cos"),
    "cos_strictAntiOn": ("", "StrictAntiOn Real.cos (Set.Icc 0 Real.pi)"),
    "cos_strictAntiOn_wrong": ("", "StrictAntiOn Real.cos (Set.Icc 0 (2 * Real.pi))"),
    "neg_antitone": ("", "Antitone (fun x : ℝ => -x)"),
    # convexity: Set.univ is every real; a linear function is convex, not strictly
    "mul_log_convexOn": ("", "ConvexOn ℝ (Set.Ici (0 : ℝ)) (fun x ↦ x * Real.log x)"),
    "exp_strictConvexOn": ("", "StrictConvexOn ℝ Set.univ Real.exp"),
    "sqrt_concaveOn": ("", "ConcaveOn ℝ (Set.Ici (0 : ℝ)) Real.sqrt"),
    "log_strictConcaveOn": ("", "StrictConcaveOn ℝ (Set.Ioi 0) Real.log"),
    "linear_convexOn": ("", "ConvexOn ℝ Set.univ (fun x : ℝ => 2 * x + 1)"),
    "log_convexOn_wrong": ("", "ConvexOn ℝ (Set.Ioi (0 : ℝ)) Real.log"),
    "sq_concaveOn_wrong": ("", "ConcaveOn ℝ Set.univ (fun x : ℝ => x ^ 2)"),
    "linear_strictConvexOn_wrong": ("", "StrictConvexOn ℝ Set.univ (fun x : ℝ => 2 * x + 1)"),
    # Mathlib's arcsin is constant outside [-1, 1]; arccos = π/2 - arcsin; tan = sin / cos
    "arcsin_le": ("(x : ℝ)", "Real.arcsin x ≤ Real.pi / 2"),
    "sin_arcsin": ("(x : ℝ) (h1 : -1 ≤ x) (h2 : x ≤ 1)", "Real.sin (Real.arcsin x) = x"),
    "sin_arcsin_wrong": ("(x : ℝ)", "Real.sin (Real.arcsin x) = x"),
    "arccos_def": ("(x : ℝ)", "Real.arccos x = Real.pi / 2 - Real.arcsin x"),
    "tan_mul_cos": ("(x : ℝ) (h : Real.cos x ≠ 0)", "Real.tan x * Real.cos x = Real.sin x"),
    "arcsin_deriv": (
        "(x : ℝ) (h1 : -1 < x) (h2 : x < 1)",
        "HasDerivAt Real.arcsin (1 / √(1 - x ^ 2)) x",
    ),
    "arcsin_deriv_wrong": (
        "(x : ℝ) (h1 : -1 < x) (h2 : x < 1)",
        "HasDerivAt Real.arcsin (1 / √(1 + x ^ 2)) x",
    ),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize(
    "name",
    [
        "exp_deriv",
        "sqrt_deriv",
        "pow_strict_deriv",
        "log_chain",
        "sin_periodic",
        "sin_antiperiodic",
        "exp_strictMono",
        "cos_strictAntiOn",
        "neg_antitone",
        "arcsin_deriv",
        "mul_log_convexOn",
        "exp_strictConvexOn",
        "sqrt_concaveOn",
        "log_strictConcaveOn",
        "linear_convexOn",
    ],
)
def test_true_reading_passes_saying_what_it_leaves_out(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason
    assert any("checked" in a for a in result.assumptions), result.assumptions


@pytest.mark.parametrize(
    "name",
    [
        "exp_deriv_wrong",
        "pow_strict_deriv_wrong",
        "log_chain_wrong",
        "sin_periodic_wrong",
        "cos_strictMono_wrong",
        "cos_strictAntiOn_wrong",
        "sin_arcsin_wrong",
        "arcsin_deriv_wrong",
        "log_convexOn_wrong",
        "sq_concaveOn_wrong",
        "linear_strictConvexOn_wrong",
    ],
)
def test_wrong_statement_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason


def test_derivative_reading_names_differentiability_unchecked(env) -> None:
    result = check("Proofs.exp_deriv", env, trials=8)
    notes = [a for a in result.assumptions if a.startswith("HasDerivAt:")]
    assert notes == [
        "HasDerivAt: read as deriv f x = f' (Lean's deriv, 0 where f is not "
        "differentiable): that f is differentiable at x is not checked"
    ]


def test_derivative_hypothesis_defines_its_derivative(env) -> None:
    # drawn, f' would equal deriv f x in no trial: the hypothesis defines it instead
    result = check("Proofs.log_chain", env, trials=8)
    assert result.vacuous_trials == 0
    assert "f' is not drawn: the hypothesis hf : deriv f x = f' defines it" in result.assumptions


def test_reading_at_a_kink_decides_nothing() -> None:
    # |x| has no derivative at 0, where Lean's deriv is 0: a trial there is no evidence
    env = environment(theorem("Proofs.abs_deriv", "(x : ℝ) (hx : 0 < x)", "HasDerivAt abs 1 x"))
    assert check("Proofs.abs_deriv", env, trials=16).status == "pass"
    env = environment(theorem("Proofs.abs_deriv_wrong", "(x : ℝ)", "HasDerivAt abs 1 x"))
    result = check("Proofs.abs_deriv_wrong", env, trials=16)
    assert result.status == "fail", result.reason
    assert result.counterexample is not None and result.counterexample.inputs["x"][0] < 0


@pytest.mark.parametrize("name", ["arcsin_le", "sin_arcsin", "arccos_def", "tan_mul_cos"])
def test_inverse_trigonometry_follows_mathlib(env, name: str) -> None:
    assert check(f"Proofs.{name}", env, trials=16).status == "pass"


def _in_real(name: str, binders: str, statement: str) -> Declaration:
    """A theorem as Mathlib writes it: `namespace Real` with `open Set` above it."""
    return Declaration(
        name=f"Real.{name}",
        kind="theorem",
        module="Test",
        binders=binders,
        statement=statement,
        namespace="Real",
        opens=("Set",),
    )


def test_intervals_under_open_set_bound_their_inputs() -> None:
    # `Ioo` is Set.Ioo once `open Set` is in force: the hypothesis bounds the draw
    env = environment(
        _in_real(
            "arcsin_eq_arctan",
            "{x : ℝ} (h : x ∈ Ioo (-(1 : ℝ)) 1)",
            "arcsin x = arctan (x / √(1 - x ^ 2))",
        ),
        _in_real(
            "arcsin_eq_arctan_wrong",
            "{x : ℝ} (h : x ∈ Ioo (-(1 : ℝ)) 1)",
            "arcsin x = arctan (x / √(1 + x ^ 2))",
        ),
        _in_real("log_le", "{x : ℝ} (h : x ∈ Ioi (0 : ℝ))", "log x ≤ x - 1"),
    )
    for name in ("arcsin_eq_arctan", "log_le"):
        result = check(f"Real.{name}", env, trials=16)
        assert result.status == "pass", result.reason
        assert result.vacuous_trials == 0
    wrong = check("Real.arcsin_eq_arctan_wrong", env, trials=16)
    assert wrong.status == "fail", wrong.reason
