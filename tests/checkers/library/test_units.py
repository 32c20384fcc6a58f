"""`IsUnit a` (library/mathlib_algebra/units.py): a ≠ 0 in a field, ±1 in ℤ, 1 in ℕ, and a
matrix whose determinant is a unit; decided as a clause and as a hypothesis, and wrong
statements fail confirmed. (A unit in ℝ fails only at 0, which continuous draws do not
meet: the mutants are taken where a counterexample has weight.)"""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check

SQ = "{n : Type*} [Fintype n] [DecidableEq n]"
STATEMENTS = {
    "field": ("(x : ℝ) (h : x ≠ 0)", "IsUnit x"),
    "int": ("(a : ℤ)", "IsUnit a ↔ a = 1 ∨ a = -1"),
    "nat": ("(a : ℕ)", "IsUnit a ↔ a = 1"),
    "prod": (
        "{ι M : Type*} {s : Finset ι} [CommMonoid M] {f : ι → M}",
        "IsUnit (∏ a ∈ s, f a) ↔ ∀ a ∈ s, IsUnit (f a)",
    ),
    "det_transpose": (f"{SQ} (A : Matrix n n ℤ) (h : IsUnit A.det)", "IsUnit Aᵀ.det"),
    "matrix": (f"{SQ} (A : Matrix n n ℤ)", "IsUnit A ↔ IsUnit A.det"),
    "matrix_mul": (f"{SQ} (A B : Matrix n n ℝ) (hA : IsUnit A) (hB : IsUnit B)", "IsUnit (A * B)"),
    # mutants: a nonzero integer a unit, a natural's unit 0, an integer matrix with a
    # nonzero determinant a unit
    "int_wrong": ("(a : ℤ) (h : a ≠ 0)", "IsUnit a"),
    "nat_wrong": ("(a : ℕ)", "IsUnit a ↔ a ≤ 1"),
    "matrix_wrong": (f"{SQ} (A : Matrix n n ℤ) (h : A.det ≠ 0)", "IsUnit A"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_true_statement_about_units_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_wrong_statement_about_units_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason
