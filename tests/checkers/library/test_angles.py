"""Mathlib's `Real.Angle` (library/mathlib_analysis/angles.py): angles are reals modulo 2π,
equal where their difference is a multiple of 2π, and every function of one reads it
through cos, sin or its representative in (-π, π]; a statement that forgets the modulus,
or one stated wrong, fails with a counterexample confirmed exactly."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check

T = "(θ ψ : Real.Angle)"
STATEMENTS = {
    "cos_sq_add_sin_sq": (T, "Real.Angle.cos θ ^ 2 + Real.Angle.sin θ ^ 2 = 1"),
    "cos_add": (
        T,
        "Real.Angle.cos (θ + ψ) = "
        "Real.Angle.cos θ * Real.Angle.cos ψ - Real.Angle.sin θ * Real.Angle.sin ψ",
    ),
    "neg_pi_lt_toReal": (T, "-Real.pi < θ.toReal"),
    "toReal_le_pi": (T, "θ.toReal ≤ Real.pi"),
    "coe_toReal": (T, "((θ.toReal : ℝ) : Real.Angle) = θ"),
    "coe_add_two_pi": ("(x : ℝ)", "((x + 2 * Real.pi : ℝ) : Real.Angle) = x"),
    "two_nsmul": (T, "(2 : ℕ) • θ = θ + θ"),
    "abs_toReal_lt_pi": (f"{T} (h : θ.sign ≠ 0)", "|θ.toReal| < Real.pi"),
    "sign_neg": (T, "(-θ).sign = -θ.sign"),
    # mutants: the period halved, a multiple dropped, the double-angle formula wrong
    "coe_add_pi_wrong": ("(x : ℝ)", "((x + Real.pi : ℝ) : Real.Angle) = x"),
    "two_nsmul_wrong": (T, "(2 : ℕ) • θ = θ"),
    "cos_two_mul_wrong": (T, "Real.Angle.cos (θ + θ) = 2 * Real.Angle.cos θ"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_angle_identity_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=32)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_angle_identity_stated_wrong_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=32)
    assert result.status == "fail", result.reason
    assert "confirmed exactly" in result.reason, result.reason


def test_angles_have_no_order_and_no_division() -> None:
    env = environment(
        theorem("Proofs.lt", T, "θ < θ + ψ"),
        theorem("Proofs.div", T, "θ / 2 = θ"),
    )
    for name in ("Proofs.lt", "Proofs.div"):
        result = check(name, env, trials=8)
        assert result.status == "unsupported", result.reason
        assert "angles" in result.reason


def test_unequal_angles_and_complex_numbers() -> None:
    env = environment(
        theorem("Proofs.ne", "(θ : Real.Angle) (h : θ.sign ≠ 0)", "θ ≠ 0"),
        theorem("Proofs.ne_wrong", "(θ : Real.Angle)", "(2 : ℕ) • θ ≠ θ + θ"),
        theorem("Proofs.cne", "(x : ℂ) (h : x ≠ 0)", "x * x ≠ 0"),
    )
    assert check("Proofs.ne", env, trials=16).status == "pass"
    assert check("Proofs.cne", env, trials=16).status == "pass"
    assert check("Proofs.ne_wrong", env, trials=16).status == "fail"


def test_mathlibs_own_definition_through_a_quotient_does_not_replace_the_library() -> None:
    # Mathlib defines `Real.Angle.cos θ := cos_periodic.lift θ` (a proof's field applied):
    # ingested, that equation must not be evaluated in place of the library's cosine
    cos = definition(
        "Real.Angle.cos",
        "(θ : Real.Angle)",
        "ℝ",
        "cos θ = cos_periodic.lift θ",
        namespace="Real.Angle",
    )
    env = environment(cos, theorem("Proofs.c", "(θ : Real.Angle)", "Real.Angle.cos θ ^ 2 ≤ 1"))
    result = check("Proofs.c", env, trials=16)
    assert result.status == "pass", result.reason
