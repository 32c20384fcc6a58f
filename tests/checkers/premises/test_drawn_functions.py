"""Function binders (`f : ℝ → ℝ`, `g : Vec m → Vec n`) drawn from one smooth family."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.core import Unsupported
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive


def _status(binders: str, statement: str) -> str:
    env = environment(theorem("Proofs.t", binders, statement))
    result = check("Proofs.t", env, trials=16)
    return result.status


def test_a_statement_about_every_real_function_is_tested_on_drawn_ones() -> None:
    binders = "(f : ℝ → ℝ) (x y : ℝ)"
    assert _status(binders, "deriv (fun t => 2 * f t) x = 2 * deriv f x") == "pass"
    assert _status(binders, "deriv (fun t => 2 * f t) x = 3 * deriv f x") == "fail"
    # additivity is false of most functions, and of the drawn ones
    assert _status(binders, "f (x + y) = f x + f y") == "fail"


def test_a_function_between_vectors_takes_and_gives_arrays() -> None:
    binders = "{m n : ℕ} (g : Vec m → Vec n) (x : Vec m) (i : Fin n)"
    assert _status(binders, "(fun v => g v) x i = g x i") == "pass"
    assert _status(binders, "g (fun j => 2 * x j) i = 2 * g x i") == "fail"


def test_the_result_names_the_family_and_refuses_other_shapes() -> None:
    env = environment(theorem("Proofs.t", "(f : ℝ → ℝ) (x : ℝ)", "f x = f x"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert any("f : ℝ → ℝ drawn from x ↦ c ⊙ sin(A x + b) + d" in a for a in checker.assumptions)
    env = environment(theorem("Proofs.t", "(f : ℝ → ℕ) (x : ℝ)", "f x = f x"))
    assert check("Proofs.t", env, trials=4).status == "unsupported"
    env = environment(theorem("Proofs.t", "(f : ℝ → Fin 3 → ℕ) (x : ℝ)", "f x 0 = f x 0"))
    result = derive("Proofs.t", env)
    assert (
        isinstance(result, Unsupported) or check("Proofs.t", env, trials=4).status == "unsupported"
    )


@pytest.mark.parametrize(
    ("statement", "status"),
    [
        ("f x y + f y x = f y x + f x y", "pass"),
        ("f x y = f y x", "fail"),  # the family is not symmetric in its arguments
        ("deriv (fun t => f t y) x = deriv (fun t => f t x) y", "fail"),
    ],
)
def test_a_curried_function_of_two_reals_is_drawn(statement: str, status: str) -> None:
    env = environment(theorem("Proofs.t", "(f : ℝ → ℝ → ℝ) (x y : ℝ)", statement))
    result = check("Proofs.t", env, trials=16)
    assert result.status == status, result.reason


@pytest.mark.parametrize(
    ("binders", "statement", "status"),
    [
        # a sequence: its index taken as a real
        (
            "{a b : ℕ} (hab : a ≤ b + 1) (f : ℕ → ℝ)",
            "(∏ k ∈ Finset.Icc a (b + 1), f k) = (∏ k ∈ Finset.Icc a b, f k) * f (b + 1)",
            "pass",
        ),
        (
            "{a b : ℕ} (hab : a ≤ b + 1) (f : ℕ → ℝ)",
            "(∏ k ∈ Finset.Icc a (b + 1), f k) = (∏ k ∈ Finset.Icc a b, f k) * f b",
            "fail",
        ),
        # into ℂ: a family for each part
        ("(f : ℝ → ℂ) (x : ℝ)", "(f x).re ^ 2 + (f x).im ^ 2 = ‖f x‖ ^ 2", "pass"),
        ("(f : ℝ → ℂ) (x : ℝ)", "(f x).im = 0", "fail"),
        # ℂ → ℂ is drawn holomorphic: the chain rule holds of it, and a wrong one fails
        (
            "{f : ℂ → ℂ} {f' x : ℂ} (hf : HasDerivAt f f' x)",
            "HasDerivAt (fun x => Complex.cos (f x)) (-Complex.sin (f x) * f') x",
            "pass",
        ),
        (
            "{f : ℂ → ℂ} {f' x : ℂ} (hf : HasDerivAt f f' x)",
            "HasDerivAt (fun x => Complex.cos (f x)) (Complex.sin (f x) * f') x",
            "fail",
        ),
        (
            "{f : ℂ → ℂ} {x : ℂ} (c : ℂ)",
            "deriv (fun x ↦ c ^ f x) x = Complex.log c * deriv f x * c ^ f x",
            "pass",
        ),
    ],
)
def test_sequences_and_functions_into_and_of_complex_numbers_are_drawn(
    binders: str, statement: str, status: str
) -> None:
    env = environment(theorem("Proofs.t", binders, statement))
    result = check("Proofs.t", env, trials=16)
    assert result.status == status, result.reason


def test_a_function_of_complex_numbers_is_drawn_holomorphic_and_says_so() -> None:
    env = environment(theorem("Proofs.t", "(f : ℂ → ℂ) (x : ℂ)", "f x = f x"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert any("z ↦ c sin(a z + b) + d" in a for a in checker.assumptions)
    env = environment(theorem("Proofs.t", "(f : ℂ → ℝ) (x : ℂ)", "f x = f x"))
    assert check("Proofs.t", env, trials=4).status == "unsupported"
