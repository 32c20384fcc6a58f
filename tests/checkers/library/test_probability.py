"""Gaussian CDFs and densities (probability.py), the standard-normal quantile of the
project's pack, and hypotheses that sampling cannot decide (differentiability,
continuity), which a result lists as assumed, never as sampled."""

from __future__ import annotations

import math

import numpy as np
import pytest
from derived_support import environment, evaluate, real, theorem, value

from checkers import check
from checkers.language.errors import NotSupported
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive


def _phi(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


def test_gaussian_cdf_uses_the_variance() -> None:
    """`gaussianReal μ v` has variance v: the CDF at x is Φ((x − μ)/√v)."""
    for mu, v, x in ((0.0, 1.0, 0.3), (1.5, 4.0, 2.0), (-2.0, 0.25, -1.0)):
        env = {"μ": real(mu), "v": real(v), "x": real(x)}
        got = value("ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal μ v) x", env)
        assert abs(got - _phi((x - mu) / math.sqrt(v))) < 1e-15
        # not the standard deviation: with v = 4 the CDF at μ + 2 is Φ(1), not Φ(2)
    got = value("ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 1.5 4) 3.5")
    assert abs(got - _phi(1.0)) < 1e-15


def test_gaussian_of_zero_variance_is_dirac() -> None:
    cdf = "ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 1 0)"
    assert value(f"{cdf} 0.5") == 0.0 and value(f"{cdf} 1") == 1.0 and value(f"{cdf} 2") == 1.0


def test_gaussian_density_with_total_arithmetic() -> None:
    env = {"x": real(0.7)}
    got = value("ProbabilityTheory.gaussianPDFReal 0.5 2 x", env)
    want = math.exp(-((0.7 - 0.5) ** 2) / 4) / math.sqrt(4 * math.pi)
    assert abs(got - want) < 1e-16
    assert value("ProbabilityTheory.gaussianPDFReal 0.5 0 x", env) == 0.0  # (√0)⁻¹ = 0


def test_refuse_cdf_of_other_measures() -> None:
    with pytest.raises(NotSupported, match="cdf of a measure other than gaussianReal"):
        evaluate("ProbabilityTheory.cdf x 0", {"x": real(1.0)})


def test_quantile_inverts_the_cdf_on_the_unit_interval() -> None:
    for p in (0.001, 0.5, 0.9, 0.9993):
        q = value(f"stdNormalQuantile ({p!r} : ℝ)")
        assert abs(_phi(float(q)) - p) < 1e-15
    # sSup of ∅ (p ≤ 0) and of all of ℝ (p ≥ 1) are both 0 in Lean
    assert value("stdNormalQuantile (0 : ℝ)") == 0.0
    assert value("stdNormalQuantile (1 : ℝ)") == 0.0
    assert value("stdNormalQuantile (-3 : ℝ)") == 0.0


def test_refuse_quantile_of_computed_value() -> None:
    with pytest.raises(NotSupported, match="only constant arguments are checked"):
        evaluate("stdNormalQuantile x", {"x": real(np.float64(0.3))})


STD_CDF = (
    "Proofs.stdNormalCDF",
    "(t : ℝ)",
    "ℝ",
    "Proofs.stdNormalCDF t = ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) t",
)


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("(3122:ℝ)/2000 ≤ (1/2:ℝ) * stdNormalQuantile ((9993:ℝ)/10000)", "pass"),
        # ½ Φ⁻¹(0.9993) = 1.5973…: a larger radius is false
        ("(3200:ℝ)/2000 ≤ (1/2:ℝ) * stdNormalQuantile ((9993:ℝ)/10000)", "fail"),
        ("ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) 0 = 1/2", "pass"),
        # the wrong mean: Φ(0 − 1) is not ½
        ("ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 1 1) 0 = 1/2", "fail"),
        # variance 4 and standard deviation 2 give Φ(1) at 2; reading 4 as the
        # standard deviation would give Φ(1/2)
        (
            "ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 4) 2"
            " = ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) 1",
            "pass",
        ),
        (
            "ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 4) 2"
            " = ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) (1/2)",
            "fail",
        ),
    ],
)
def test_closed_gaussian_statements(statement: str, status: str) -> None:
    env = environment(theorem("Proofs.t", "", statement))
    assert check("Proofs.t", env, trials=4).status == status


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        (
            "ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal μ 1) (x + μ)"
            " = ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) x",
            "pass",
        ),
        (
            "ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal μ 1) (x - μ)"
            " = ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) x",
            "fail",
        ),
    ],
)
def test_gaussian_shift_with_sampled_mean(statement: str, status: str) -> None:
    env = environment(theorem("Proofs.t", "(μ x : ℝ)", statement))
    result = check("Proofs.t", env, trials=32)
    assert result.status == status, result.reason


# --- hypotheses that are assumed, not sampled ----------------------------------------------


@pytest.mark.parametrize(
    "hypothesis",
    [
        "(hf : Differentiable ℝ Real.exp)",
        "(hf : ∀ y : ℝ, DifferentiableAt ℝ Real.exp y)",
        "(hf : ∀ y : ℝ, HasDerivAt Real.exp (Real.exp y) y)",
        "(hf : Continuous Real.exp ∧ Differentiable ℝ Real.exp)",
    ],
)
def test_record_unsampled_hypothesis_as_assumption(hypothesis: str) -> None:
    env = environment(
        theorem(
            "Proofs.t",
            f"(x : ℝ) {hypothesis}",
            "deriv Real.exp x = Real.exp x",
        )
    )
    c = derive("Proofs.t", env)
    assert isinstance(c, DerivedChecker), c
    text = hypothesis[len("(hf : ") : -1]
    assert f"{text} (hypothesis hf, not sampled)" in c.assumptions
    result = check("Proofs.t", env, trials=8)
    assert result.status == "pass", result.reason
    assert f"{text} (hypothesis hf, not sampled)" in result.assumptions
    assert result.vacuous_trials == 0  # never evaluated, so never a vacuous trial
