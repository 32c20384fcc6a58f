"""Numerals in a statement take the type Lean elaborates them at.

Both sides of a relation are elaborated at one type (`binrel%`): a side made
only of numerals takes the other side's type, whichever side it is on, and
falls back to ℕ only when nothing on either side fixes a type. The type
reaches numerals through arithmetic, ascriptions, binder types and the
parameter and result types of definitions.
"""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check

DEFINITIONS = (
    definition(
        "Proofs.mean", "(n : ℕ) (x : Vec n)", "ℝ", "Proofs.mean n x = (∑ i : Fin n, x i) / (n : ℝ)"
    ),
    definition("Proofs.X", "", "Vec 4", "Proofs.X = fun i => (i.val : ℝ)"),
    definition("Proofs.quarter", "(x : ℝ)", "ℝ", "Proofs.quarter x = x / 4"),
    definition("Proofs.half", "(n : ℕ)", "ℕ", "Proofs.half n = n / 2"),
    definition("Proofs.sig", "(x : ℝ)", "ℝ", "Proofs.sig x = 1 / (1 + Real.exp (-x))"),
    definition("Proofs.total", "(z : Vec 3)", "ℝ", "Proofs.total z = ∑ i : Fin 3, z i"),
)


def _status(binders: str, statement: str) -> str:
    env = environment(*DEFINITIONS, theorem("Proofs.t", binders, statement))
    return check("Proofs.t", env, trials=16, seed=0).status


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        # the mean of 0, 1, 2, 3 is 3/2 in ℝ (in ℕ `3 / 2` would be 1)
        ("", "mean 4 X = 3 / 2", "pass"),
        ("", "mean 4 X = 1", "fail"),
        ("", "3 / 2 = mean 4 X", "pass"),  # the type flows right to left too
        ("", "1 = mean 4 X", "fail"),
        # a definition's parameter and result types: `quarter 2 : ℝ` is 0.5
        ("", "quarter 2 = 1 / 2", "pass"),
        ("", "quarter 2 = 0", "fail"),
        ("", "(quarter 1 : ℝ) = 1 / 4", "pass"),
        # an inequality whose bound is a numeral fraction (`1 / 4` in ℕ is 0)
        ("(x : ℝ)", "|deriv sig x| ≤ 1 / 4", "pass"),
        ("(x : ℝ)", "|deriv sig x| ≤ 1 / 8", "fail"),
        ("(x : ℝ)", "Real.sin x ^ 2 / 4 ≤ 1 / 4", "pass"),
        ("(x : ℝ)", "|Real.sin x| ≤ 1 / 4", "fail"),
        # a negative numeral beside a real side is a real, not ℕ negation
        ("", "total (fun _ => -1) = -3", "pass"),
        ("", "total (fun _ => -1) = -2", "fail"),
        ("", "-3 = total (fun _ => -1)", "pass"),
        # through arithmetic with a real operand, and an ascription
        ("(x : ℝ)", "x * 0 + 3 / 2 = 3 / 2", "pass"),
        ("(x : ℝ)", "x * 0 + 3 / 2 = 1", "fail"),
        ("", "(3 / 2 : ℝ) * 2 = 3", "pass"),
        ("", "(3 / 2 : ℕ) * 2 = 3", "fail"),
        ("", "(let y : ℝ := 3 / 2; y * 2) = 3", "pass"),
        ("", "(fun (y : ℝ) => y * 2) (3 / 2) = 3", "pass"),
    ],
)
def test_type_numeral_side_from_the_other_side(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("", "(2 : ℕ) - 3 = 0", "pass"),  # truncated subtraction
        ("", "(2 : ℕ) - 3 = 1", "fail"),
        ("", "7 / 2 = 3", "pass"),  # nothing real around: ℕ division
        ("", "7 / 2 = 4", "fail"),
        ("(n : ℕ)", "n < 10 ^ (n + 1)", "pass"),
        ("(n : ℕ)", "10 ^ (n + 1) ≤ n", "fail"),
        ("", "half 7 = 7 / 2", "pass"),  # `half 7 : ℕ` types the 7 / 2 as ℕ: both are 3
        ("", "half 7 = 4", "fail"),
    ],
)
def test_keep_nat_where_lean_keeps_nat(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status
