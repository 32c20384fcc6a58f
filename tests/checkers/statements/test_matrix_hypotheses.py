"""Mathlib's `IsSymm`, `IsHermitian` and `IsDiag` (statements/matrix_hypotheses.py,
statements/matrices.py): as a conclusion, the equation that defines each; as a hypothesis
on a matrix binder, the binder drawn so, by a map whose image is exactly the matrices
that satisfy it, and the result says so. Every wrong statement fails confirmed."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.statements.matrix_hypotheses import draw_shaped_matrices
from theorem_index.lean import parse_binders, parse_term, print_term, resolve

SQ = "{n : Type*} [Fintype n] [DecidableEq n]"
RING = f"{SQ} {{α : Type*}} [CommRing α] [StarRing α]"
STATEMENTS = {
    "symm_add": (
        "{α n : Type*} [Add α] {A B : Matrix n n α} (hA : A.IsSymm) (hB : B.IsSymm)",
        "(A + B).IsSymm",
    ),
    "herm_mul_conj": (f"{RING} (A : Matrix n n α)", "(A * Aᴴ).IsHermitian"),
    "herm_pow": (
        f"{RING} {{A : Matrix n n α}} (hA : A.IsHermitian) (k : ℕ)",
        "(A ^ k).IsHermitian",
    ),
    "diag_add": (
        "{α n : Type*} [AddZeroClass α] {A B : Matrix n n α} (ha : A.IsDiag) (hb : B.IsDiag)",
        "(A + B).IsDiag",
    ),
    "diagonal_diag": (
        "{α n : Type*} [Zero α] [DecidableEq n] {A : Matrix n n α} (h : A.IsDiag)",
        "Matrix.diagonal (Matrix.diag A) = A",
    ),
    "diag_symm": ("{α n : Type*} [Zero α] {A : Matrix n n α} (h : A.IsDiag)", "A.IsSymm"),
    # mutants: the product of symmetric matrices, any matrix symmetric, a symmetric one
    # diagonal, a Hermitian one's square root of its diagonal
    "symm_mul_wrong": (
        f"{SQ} {{α : Type*}} [CommRing α] {{A B : Matrix n n α}} (hA : A.IsSymm) (hB : B.IsSymm)",
        "(A * B).IsSymm",
    ),
    "any_symm_wrong": (f"{SQ} (A : Matrix n n ℝ)", "A.IsSymm"),
    "symm_diag_wrong": (f"{SQ} {{A : Matrix n n ℝ}} (h : A.IsSymm)", "A.IsDiag"),
    "herm_entry_wrong": (
        f"{SQ} {{A : Matrix n n ℝ}} (h : A.IsHermitian) (i j : n)",
        "A i j = A i i",
    ),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_true_statement_about_shaped_matrices_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason
    assert not result.vacuous_trials, result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_wrong_statement_about_shaped_matrices_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason


def test_the_result_says_how_a_shaped_matrix_was_drawn(env) -> None:
    result = check("Proofs.symm_add", env, trials=8)
    drawn = [a for a in result.assumptions if "drawn symmetric" in a]
    assert [a.split(" (")[0] for a in drawn] == ["A drawn symmetric", "B drawn symmetric"]


def test_a_hypothesis_on_a_compound_matrix_is_left_to_the_rewrite() -> None:
    binders = resolve_binders("{n : Type*} (A B : Matrix n n ℝ) (h : (A + B).IsSymm)")
    statement = resolve(parse_term("A = A"), bound={"A", "B", "n", "h"}).term
    got, st, notes = draw_shaped_matrices(binders, statement)
    assert (got, st, notes) == (binders, statement, ())


def resolve_binders(text: str):
    names = set()
    out = []
    for b in parse_binders(text):
        ty = resolve(b.type, bound=names).term if b.type is not None else None
        out.append(b.__class__(b.kind, b.names, ty))
        names |= set(b.names)
    return tuple(out)


def test_a_shaped_matrix_is_replaced_by_its_map_everywhere() -> None:
    binders = resolve_binders("{n : Type*} (A : Matrix n n ℝ) (h : A.IsDiag) (g : A 0 0 = 1)")
    statement = resolve(parse_term("A * A = A"), bound={"A", "n", "h", "g"}).term
    got, st, notes = draw_shaped_matrices(binders, statement)
    assert [b.names for b in got] == [("n",), ("A",), ("g",)]
    assert print_term(got[2].type) == "(Matrix.diagonal (Matrix.diag A)) 0 0 = 1"
    d = "(Matrix.diagonal (Matrix.diag A))"
    assert print_term(st) == f"{d} * {d} = {d}"
    assert len(notes) == 1
