"""Definitions whose value is a matrix (`def A (n : ℕ) : Matrix (Fin n) (Fin n) ℤ :=
Matrix.of fun i j => …`, `def G : Matrix (Fin 2) (Fin 2) ℤ := !![…]`), as Mathlib's
Cartan matrices are: the declared type gives the sizes that tabulate the body and the type
of its numerals, field notation on such a value looks in `Matrix` (`G.det`), and Mathlib's
own `def Matrix …` ingested beside them blocks nothing. Every rule stated wrong fails."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check

TRIDIAGONAL = definition(
    "Proofs.Tri",
    "(n : ℕ)",
    "Matrix (Fin n) (Fin n) ℤ",
    "Proofs.Tri n = Matrix.of fun i j => if i = j then 2 "
    "else if i.val + 1 = j.val ∨ j.val + 1 = i.val then -1 else 0",
)
# upper and lower off-diagonals differ: not symmetric
SKEWED = definition(
    "Proofs.Skew",
    "(n : ℕ)",
    "Matrix (Fin n) (Fin n) ℤ",
    "Proofs.Skew n = Matrix.of fun i j => if i = j then 2 else if i.val + 1 = j.val then -2 "
    "else if j.val + 1 = i.val then -1 else 0",
)
LITERAL = definition("Proofs.G", "", "Matrix (Fin 2) (Fin 2) ℤ", "Proofs.G = !![2, -3; -1, 2]")
# Mathlib/LinearAlgebra/Matrix/Defs.lean, as the Lean reader ingests it: its type is a
# universe expression the evaluator does not read
MATHLIB_MATRIX = definition(
    "Matrix",
    "(m : Type u) (n : Type u') (α : Type v)",
    "Type max u u' v",
    "Matrix m n α = (m → n → α)",
    namespace="",
)

STATEMENTS = {
    "tri_diag": ("(n : ℕ) (i : Fin n)", "Proofs.Tri n i i = 2"),
    "tri_diag_vector": ("(n : ℕ)", "(Proofs.Tri n).diag = 2"),
    "tri_off_diag_nonpos": ("(n : ℕ) (i j : Fin n) (h : i ≠ j)", "Proofs.Tri n i j ≤ 0"),
    "tri_transpose": ("(n : ℕ)", "(Proofs.Tri n).transpose = Proofs.Tri n"),
    "tri_two": ("", "Proofs.Tri 2 = !![2, -1; -1, 2]"),
    "skew_transpose": ("(n : ℕ)", "(Proofs.Skew n).transpose = Proofs.Skew n"),
    "g_entry": ("", "Proofs.G 0 1 = -3"),
    "g_det": ("", "Proofs.G.det = 1"),
    "g_transpose_transpose": ("", "Proofs.G.transpose.transpose = Proofs.G"),
    # mutants: the hypothesis dropped, a wrong literal, a transposed entry, a wrong
    # determinant, symmetry of a matrix that is not symmetric
    "tri_nonpos_wrong": ("(n : ℕ) (i j : Fin n)", "Proofs.Tri n i j ≤ 0"),
    "tri_two_wrong": ("", "Proofs.Tri 2 = !![2, -1; 0, 2]"),
    "g_entry_wrong": ("", "Proofs.G 1 0 = -3"),
    "skew_diag_wrong": ("(n : ℕ) (h : 1 ≤ n)", "(Proofs.Skew n).diag = -2"),
    "g_det_wrong": ("", "Proofs.G.det = 7"),
    "g_symm_wrong": ("", "Proofs.G.transpose = Proofs.G"),
    "skew_transpose_wrong": ("(n : ℕ) (h : 2 ≤ n)", "(Proofs.Skew n).transpose = Proofs.Skew n"),
}
PASSING = ["tri_diag", "tri_diag_vector", "tri_off_diag_nonpos", "tri_transpose", "tri_two",
           "g_entry", "g_det", "g_transpose_transpose"]  # fmt: skip


@pytest.fixture(scope="module", params=["alone", "beside Mathlib's Matrix"])
def env(request):
    extra = (MATHLIB_MATRIX,) if request.param != "alone" else ()
    theorems = (theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items())
    return environment(TRIDIAGONAL, SKEWED, LITERAL, *extra, *theorems)


@pytest.mark.parametrize("name", PASSING)
def test_a_true_statement_about_a_defined_matrix_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_a_wrong_statement_about_a_defined_matrix_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason


def test_a_matrix_of_a_drawn_size_is_checked_at_several_sizes(env) -> None:
    result = check("Proofs.tri_off_diag_nonpos", env, trials=8)
    assert result.status == "pass", result.reason
    assert len({d["n"] for d in result.draws}) > 1, result.draws


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("Proofs.Tri n i = (Proofs.Tri n <| i)", "pass"),
        ("(i |> Proofs.Tri n) = Proofs.Tri n i", "pass"),
        ("Proofs.Tri n i + 1 = (Proofs.Tri n <| i)", "fail"),
    ],
)
def test_pipes_apply_a_defined_matrix(statement: str, status: str) -> None:
    env = environment(TRIDIAGONAL, theorem("Proofs.piped", "(n : ℕ) (i : Fin n)", statement))
    result = check("Proofs.piped", env, trials=8)
    assert result.status == status, result.reason
