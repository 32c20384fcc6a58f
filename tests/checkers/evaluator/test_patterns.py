"""Pattern lambdas, `match`, `@f` and named arguments: honest semantics or a precise refusal."""

from __future__ import annotations

import numpy as np
import pytest
from derived_support import FACT, definition, environment, fin, nat, real, theorem, value

from checkers import check
from checkers.core import Unsupported
from checkers.language.errors import NotSupported
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive
from theorem_index.model import Declaration

A = real(np.arange(6.0).reshape(2, 3))
ROWDENSE = definition(
    "Proofs.rowDense_weight_grad",
    "{N a c : ℕ} (X : Mat N a) (dY : Mat N c)",
    "Mat a c",
    "Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j",
)


def _status(binders: str, statement: str, *decls: Declaration) -> str:
    env = environment(*decls, theorem("Proofs.t", binders, statement))
    derived = derive("Proofs.t", env)
    assert isinstance(derived, DerivedChecker), derived
    return check("Proofs.t", env, trials=32, seed=0).status


def _refusal(binders: str, statement: str, *decls: Declaration) -> str:
    env = environment(*decls, theorem("Proofs.t", binders, statement))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported), result
    return result.reason


# --- pattern lambdas ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(fun (r, k) => A r k) (1, 2)", 5.0),
        ("(fun ⟨a, b⟩ ↦ A a b) (1, 0)", 3.0),
        ("(fun ((r, k) : Fin 2 × Fin 3) => A r k - 1) (0, 2)", 1.0),
        ("∑ p : Fin 2 × Fin 3, (fun (r, k) => A r k) p", 15.0),
        ("(fun (a, b) => a * b) (A 1 1, A 0 2)", 8.0),
        ("let ⟨a, b⟩ := (A 1 2, A 0 1); a - b", 4.0),
    ],
)
def test_evaluate_pattern_lambda_over_pairs(text: str, expected: float) -> None:
    assert value(text, {"A": A}) == expected


def test_tabulate_pattern_lambda_over_fin_product_like_a_matrix() -> None:
    out = value("(fun ((r, k) : Fin 2 × Fin 3) => A r k * 2)", {"A": A})
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3) * 2)


def test_type_numeral_entries_of_a_pattern_lambda() -> None:
    zeros = value("(fun ((r, k) : Fin 2 × Fin 3) => 0)")
    assert zeros.tolist() == [[0, 0, 0], [0, 0, 0]] and zeros.dtype.kind == "i"  # ℕ
    halves = value("(fun ((r, k) : Fin 2 × Fin 3) => 1 / 2 : Fin 2 × Fin 3 → ℝ)")
    assert halves.tolist() == [[0.5] * 3] * 2


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        (
            "{m n : ℕ} (A : Mat m n)",
            "Mat.flatten A = (fun (r, k) => A r k) ∘ finProdFinEquiv.symm",
            "pass",
        ),
        (
            "{m n : ℕ} (A : Mat m n)",
            "Mat.flatten A = (fun (r, k) => A r k * 2) ∘ finProdFinEquiv.symm",
            "fail",
        ),
        (
            "{m n : ℕ} (A : Mat m n) (i : Fin m) (j : Fin n)",
            "(fun ⟨a, b⟩ ↦ A a b) (i, j) = A i j",
            "pass",
        ),
        (
            "{n : ℕ} (f : Fin n × Fin n → ℝ)",
            "∑ p : Fin n × Fin n, f p = ∑ i : Fin n, ∑ j : Fin n, f (j, i)",
            "pass",
        ),
        (
            "{m n : ℕ} (f : Fin m × Fin n → ℝ) (i : Fin m) (j : Fin n)",
            "(fun (r, k) => f (r, k)) (i, j) = f (i, j)",
            "pass",
        ),
    ],
)
def test_check_statement_with_pattern_lambda(binders: str, statement: str, status: str) -> None:
    assert _status(binders, statement) == status


def test_sample_function_on_fin_product_as_array() -> None:
    env = environment(theorem("Proofs.t", "{m n : ℕ} (f : Fin m × Fin n → ℝ)", "f = f"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert checker.input_specs({"m": 2, "n": 3})["f"].shape == (2, 3)


# --- match ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "i, expected",
    [(0, 1.0), (1, 2.0), (2, 3.0)],
)
def test_match_fin_literals_in_order(i: int, expected: float) -> None:
    env = {"i": fin(i, 3), "x": real(1.0), "y": real(2.0), "z": real(3.0)}
    assert value("match i with | 0 => x | 1 => y | _ => z", env) == expected


def test_match_nat_successor_pattern_binds_predecessor() -> None:
    env = {"x": real(1.0), "y": real(2.0)}
    assert value("match n with | 0 => x | k + 1 => y * k", {**env, "n": nat(4)}) == 6.0
    assert value("match n with | 0 => x | k + 1 => y * k", {**env, "n": nat(0)}) == 1.0


def test_match_vectorised_over_index() -> None:
    env = {"x": real(1.0), "y": real(2.0)}
    out = value("fun (i : Fin 3) => match i with | 0 => x | _ => y", env)
    np.testing.assert_array_equal(out, [1.0, 2.0, 2.0])
    out = value("(fun | 0 => x | 2 => x * 5 | _ => y : Fin 3 → ℝ)", env)
    np.testing.assert_array_equal(out, [1.0, 2.0, 5.0])


def test_check_statement_with_match() -> None:
    binders = "{n : ℕ} (v : Vec (n + 1)) (i : Fin (n + 1))"
    assert _status(binders, "(match i with | 0 => v 0 | _ => v i) = v i") == "pass"
    assert _status(binders, "(match i with | 0 => v 0 * 2 | _ => v i) = v i") == "fail"
    assert _status(binders, "(match i with | ⟨0, _⟩ => v 0 | ⟨k, _⟩ => v i) = v i") == "pass"


def test_refuse_match_pattern_on_real_with_reason() -> None:
    with pytest.raises(NotSupported, match=r"the match pattern 0 on a value of type real"):
        value("match x with | 0 => x | _ => 1", {"x": real(0.5)})


# --- @f and named arguments ---------------------------------------------------------------


@pytest.mark.parametrize(
    "statement, status",
    [
        ("@rowDense_weight_grad N a c X dY i j = ∑ r : Fin N, X r i * dY r j", "pass"),
        ("@rowDense_weight_grad N a c X dY i j = ∑ r : Fin N, X r i * dY r j * 2", "fail"),
        ("rowDense_weight_grad (dY := dY) X i j = ∑ r : Fin N, X r i * dY r j", "pass"),
        ("rowDense_weight_grad (dY := X) (X := dY) j i = ∑ r : Fin N, X r i * dY r j", "pass"),
        ("@Finset.sum (Fin N) ℝ _ Finset.univ (fun r => X r i) = ∑ r : Fin N, X r i", "pass"),
        ("@Fin.val a i = ↑i", "pass"),
    ],
)
def test_check_explicit_and_named_arguments(statement: str, status: str) -> None:
    binders = "{N a c : ℕ} (X : Mat N a) (dY : Mat N c) (i : Fin a) (j : Fin c)"
    if "(X := dY)" in statement:
        binders = "{N a : ℕ} (X : Mat N a) (dY : Mat N a) (i : Fin a) (j : Fin a)"
    assert _status(binders, statement, ROWDENSE) == status


def test_pin_implicit_dimension_given_with_at() -> None:
    reason = _refusal(
        "{N a c : ℕ} (X : Mat N a) (dY : Mat N c) (i : Fin a) (j : Fin c)",
        "@rowDense_weight_grad (N + 1) a c X dY i j = 0",
        ROWDENSE,
    )
    assert "dimension N" in reason


@pytest.mark.parametrize(
    "statement, reason",
    [
        ("@max ℝ _ (v 0) 1 = max (v 0) 1", "`@max`: its implicit parameters are not known here"),
        (
            "Real.exp (x := v 0) = Real.exp (v 0)",
            "the named argument (x := …) of Real.exp: its parameter names are not known here",
        ),
    ],
)
def test_refuse_unknown_signature_with_reason(statement: str, reason: str) -> None:
    assert _refusal("{n : ℕ} (v : Vec (n + 1))", statement) == reason


# --- definitions by cases -------------------------------------------------------------


NAT_PRED = definition(
    "Proofs.natPred", "", "ℕ → ℕ", "Proofs.natPred 0 = 0", "Proofs.natPred (k + 1) = k"
)


def test_unfold_definition_given_by_cases_as_a_match() -> None:
    assert _status("(k : ℕ)", "natPred k = k - 1", NAT_PRED) == "pass"
    assert _status("(k : ℕ)", "natPred (k + 2) = k + 1", NAT_PRED) == "pass"


def test_sample_nat_arguments_from_zero() -> None:
    # the wrong first case only shows at k = 0: k is a sampled value, not a dimension ≥ 1
    wrong = definition(
        "Proofs.natPred", "", "ℕ → ℕ", "Proofs.natPred 0 = 1", "Proofs.natPred (k + 1) = k"
    )
    env = environment(wrong, theorem("Proofs.t", "(k : ℕ)", "natPred k = k - 1"))
    result = check("Proofs.t", env, trials=32, seed=0)
    assert result.status == "fail"
    assert result.counterexample is not None
    assert result.counterexample.inputs["k"] == [0]


def test_nat_argument_that_sizes_a_type_stays_a_dimension() -> None:
    total = definition(
        "Proofs.total", "(n : ℕ) (x : Fin n → ℝ)", "ℝ", "Proofs.total n x = ∑ i : Fin n, x i"
    )
    env = environment(total, theorem("Proofs.t", "(n : ℕ)", "total n (fun _ => 1) = (n : ℝ)"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker), checker
    assert checker.dim_names == ("n",)
    assert check("Proofs.t", env, trials=8, seed=0).status == "pass"


def test_unfold_recursive_definition_by_cases_on_concrete_values() -> None:
    # a sampled k cannot end the recursion; read as a dimension, k is a constant that does
    # (test_derived_lists.py has the limits that end every other recursion)
    assert _status("(k : ℕ)", "0 < fact k", FACT) == "pass"
    assert _status("(k : ℕ)", "fact k < k", FACT) == "fail"
