"""ℝ≥0 with Mathlib's semantics (library/nnreal.py): its binders are drawn at least 0, its
subtraction truncates at 0 and the coercion to ℝ keeps the number, so identities of
Mathlib hold and the ones stated as if it were ℝ fail, confirmed exactly."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

XY = "(x y : ℝ≥0)"
STATEMENTS = {
    "sub_le_self": (XY, "x - y ≤ x"),
    "sub_add_eq_max": (XY, "x - y + y = max x y"),
    "coe_sub_def": (XY, "((x - y : ℝ≥0) : ℝ) = max ((x : ℝ) - y) 0"),
    "coe_nonneg": ("(x : ℝ≥0)", "0 ≤ (x : ℝ)"),
    "div_rpow": ("(x y : ℝ≥0) (z : ℝ)", "(x / y) ^ z = x ^ z / y ^ z"),
    "inv_rpow": ("(x : ℝ≥0) (y : ℝ)", "x⁻¹ ^ y = (x ^ y)⁻¹"),
    "mul_inv_cancel": ("(x : ℝ≥0) (hx : x ≠ 0)", "x * x⁻¹ = 1"),
    "sqrt_mul_self": ("(x : ℝ≥0)", "NNReal.sqrt x * NNReal.sqrt x = x"),
    "coe_toNNReal": ("(r : ℝ)", "(Real.toNNReal r : ℝ) = max r 0"),
    "numeral_sub": ("", "(2 : ℝ≥0) + 3 = 5"),
    # mutants: ℝ≥0 read as ℝ (its subtraction not truncated)
    "sub_add_cancel_wrong": (XY, "x - y + y = x"),
    "coe_sub_wrong": (XY, "((x - y : ℝ≥0) : ℝ) = (x : ℝ) - y"),
    "sub_sub_wrong": ("(x y z : ℝ≥0)", "x - (y - z) = x - y + z"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_nnreal_identity_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=32)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_nnreal_identity_stated_wrong_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "fail", result.reason
    assert "confirmed exactly" in result.reason, result.reason


def test_binders_are_drawn_non_negative_and_positive_where_nonzero(env) -> None:
    checker = derive("Proofs.mul_inv_cancel", env)
    assert isinstance(checker, DerivedChecker)
    assert checker.input_specs({})["x"].constraint == "positive"
    other = derive("Proofs.sub_le_self", env)
    assert isinstance(other, DerivedChecker)
    assert {s.constraint for s in other.input_specs({}).values()} == {"nonnegative"}


def test_negation_and_a_truncated_numeral_tree_are_refused() -> None:
    env = environment(
        theorem("Proofs.neg", "(x : ℝ≥0)", "-x = x"),
        theorem("Proofs.sub_numerals", "", "(2 - 3 : ℝ≥0) = 0"),
    )
    neg = check("Proofs.neg", env, trials=8)
    assert neg.status == "unsupported" and "ℝ≥0" in neg.reason
    numerals = check("Proofs.sub_numerals", env, trials=8)
    assert numerals.status == "unsupported" and "truncates" in numerals.reason
