"""Mathlib's `Real.Gamma` (library/mathlib_analysis/gamma.py): Euler's Gamma on the
positive reals, continued by the recurrence to the negative ones, and 0 at 0, -1, -2, …;
Mathlib's own definition, ingested beside it, does not shadow it. Every rule stated wrong
fails with a confirmed counterexample."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check

STATEMENTS = {
    "add_one": ("{s : ℝ} (hs : s ≠ 0)", "Real.Gamma (s + 1) = s * Real.Gamma s"),
    "one": ("", "Real.Gamma 1 = 1"),
    "zero": ("", "Real.Gamma 0 = 0"),
    "neg_nat": ("(n : ℕ)", "Real.Gamma (-n) = 0"),
    "one_half": ("", "Real.Gamma (1 / 2) = √Real.pi"),
    "reflection": (
        "(s : ℝ)",
        "Real.Gamma s * Real.Gamma (1 - s) = Real.pi / Real.sin (Real.pi * s)",
    ),
    "duplication": (
        "(s : ℝ)",
        "Real.Gamma s * Real.Gamma (s + 1 / 2) = "
        "Real.Gamma (2 * s) * (2 : ℝ) ^ (1 - 2 * s) * √Real.pi",
    ),
    "pos": ("{s : ℝ} (hs : 0 < s)", "0 < Real.Gamma s"),
    "three_halves": ("", "Real.Gamma (3 / 2) < 1"),
    # mutants: the factor shifted, positivity without its hypothesis, cos for sin, the
    # value at a pole taken as the pole's limit sign
    "add_one_wrong": ("{s : ℝ} (hs : s ≠ 0)", "Real.Gamma (s + 1) = (s + 1) * Real.Gamma s"),
    "pos_wrong": ("(s : ℝ)", "0 ≤ Real.Gamma s"),
    "reflection_wrong": (
        "(s : ℝ)",
        "Real.Gamma s * Real.Gamma (1 - s) = Real.pi / Real.cos (Real.pi * s)",
    ),
    "neg_one_wrong": ("", "Real.Gamma (-1) = 1"),
}
# Mathlib/Analysis/SpecialFunctions/Gamma/Basic.lean's definition, as ingested: through the
# complex Gamma, which the evaluator does not compute
MATHLIB_GAMMA = definition(
    "Real.Gamma", "(s : ℝ)", "ℝ", "Real.Gamma s = (Complex.Gamma s).re", namespace="Real"
)


@pytest.fixture(scope="module", params=["alone", "beside Mathlib's definition"])
def env(request):
    extra = (MATHLIB_GAMMA,) if request.param != "alone" else ()
    return environment(*extra, *(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
@pytest.mark.parametrize("seed", [0, 1])
def test_gamma_rule_passes(env, name: str, seed: int) -> None:
    result = check(f"Proofs.{name}", env, trials=64, seed=seed)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_gamma_rule_stated_wrong_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason
