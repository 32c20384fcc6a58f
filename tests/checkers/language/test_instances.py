"""Generic statements (`{R : Type*} [CommRing R]`): checked at each modelled type that is an
instance of their classes, each named in the result; a class no modelled type is an
instance of makes the theorem unsupported, naming it (checkers/language/instances.py)."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, theorem

from checkers import check
from checkers.harness.replay import repro
from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive

STATEMENTS = {
    "norm_mul_le": ("{E : Type*} [SeminormedGroup E] (a b : E)", "‖a * b‖ ≤ ‖a‖ + ‖b‖"),
    "norm_subsingleton": (
        "{E : Type*} [NormedAddCommGroup E] [Subsingleton E] (a : E)",
        "‖a‖ = 0",
    ),
    "div_mul_cancel_ring": ("{R : Type*} [CommRing R] (a b : R) (hb : b ≠ 0)", "a / b * b = a"),
    "div_mul_cancel_field": ("{α : Type*} [Field α] (a b : α) (hb : b ≠ 0)", "a / b * b = a"),
    "add_sq_ring": (
        "{R : Type*} [CommRing R] (a b : R)",
        "(a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2",
    ),
    "sub_add_semiring": ("{R : Type*} [CommSemiring R] [Sub R] (a b : R)", "a - b + b = a"),
    "sum_half_ring": (
        "{R : Type*} [CommRing R] [Div R] (n : ℕ) (f : Fin n → R)",
        "∑ i, f i / 2 = (∑ i, f i) / 2",
    ),
    "fact_prime_bound": ("{p : ℕ} [Fact (1 < p)]", "2 ≤ p"),
    "decidable_family": ("[∀ k : ℕ, Decidable (k < 3)] (x : ℝ)", "x + 0 = x"),
    "fintype_index": ("{ι : Type*} [Fintype ι] (f : ι → ℝ)", "∑ i, f i = ∑ i, f i"),
    # `Fin 0` has no zero: a finite index type with a zero is not every `Fin k`
    "fintype_zero": ("{ι : Type*} [Fintype ι] [Zero ι] (f : ι → ℝ)", "f 0 = f 0"),
    "fintype_sum_sq": (
        "{ι : Type*} [Fintype ι] [DecidableEq ι] (f : ι → ℝ)",
        "∑ i, f i * f i = (∑ i, f i) ^ 2",
    ),
    "measurable_concrete": ("[MeasurableSpace ℝ] (x : ℝ)", "x = x"),
    "deriv_unique": (
        "{𝕜 : Type u} [NontriviallyNormedField 𝕜] {F : Type v} [NormedAddCommGroup F] "
        "[NormedSpace 𝕜 F] {f : 𝕜 → F} {f₀' f₁' : F} {x : 𝕜} (h₀ : HasDerivAt f f₀' x) "
        "(h₁ : HasDerivAt f f₁' x)",
        "f₀' = f₁'",
    ),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("norm_mul_le", "no modelled type is an instance of [SeminormedGroup E]"),
        ("norm_subsingleton", "no modelled type is an instance of [Subsingleton E]"),
        ("fintype_zero", "the instance [Zero ι] is not modelled at a finite index type"),
        ("measurable_concrete", "the instance [MeasurableSpace ℝ] is not modelled"),
    ],
)
def test_check_class_without_modelled_instance_is_unsupported(env, name: str, why: str) -> None:
    result = check(f"Proofs.{name}", env, trials=8)
    assert result.status == "unsupported"
    assert result.reason.startswith(why), result.reason


def test_check_comm_ring_statement_false_at_int_fails_there(env) -> None:
    result = check("Proofs.div_mul_cancel_ring", env, trials=16)
    assert result.status == "fail"
    assert result.reason.startswith("at R := ℤ fails: "), result.reason
    assert "checked at R := ℝ; R := ℤ" in result.assumptions
    assert [(p["family"], p["status"]) for p in result.parts] == [
        ("R := ℝ", "pass"),
        ("R := ℤ", "fail"),
    ]
    assert result.counterexample is not None
    assert result.counterexample.inputs["b"] != [0]


def test_repro_names_instance_of_failing_trial(env) -> None:
    result = check("Proofs.div_mul_cancel_ring", env, trials=16, shrink=False)
    replay = repro("Proofs.div_mul_cancel_ring", env, seed=0, dims={}, trials=16)
    assert replay.result.reason.startswith("R := ℤ: "), replay.result.reason
    assert replay.trial == result.trial
    assert replay.lhs != replay.rhs


def test_check_field_statement_passes_at_real(env) -> None:
    checker = derive("Proofs.div_mul_cancel_field", env)
    assert isinstance(checker, DerivedChecker)  # ℝ is the one modelled field
    result = check("Proofs.div_mul_cancel_field", env, trials=16)
    assert result.status == "pass", result.reason
    assert "checked at α := ℝ" in result.assumptions


def test_check_ring_identity_names_every_instance_checked(env) -> None:
    result = check("Proofs.add_sq_ring", env, trials=16)
    assert result.status == "pass", result.reason
    assert result.reason.startswith("holds at all 2: (R := ℝ) "), result.reason
    assert "; (R := ℤ) " in result.reason
    assert [p["family"] for p in result.parts] == ["R := ℝ", "R := ℤ"]


def test_check_truncating_subtraction_fails_at_nat(env) -> None:
    result = check("Proofs.sub_add_semiring", env, trials=16)
    assert result.status == "fail"
    assert result.reason.startswith("at R := ℕ fails: "), result.reason
    assert [p["status"] for p in result.parts] == ["pass", "pass", "fail"]


def test_check_integer_array_divides_as_lean(env) -> None:
    checker = derive("Proofs.sum_half_ring", env)
    assert isinstance(checker, Conjunction)
    assert checker.clauses[1].input_specs({"n": 3})["f"].kind == "int"
    result = check("Proofs.sum_half_ring", env, trials=16)
    assert result.status == "fail"
    assert result.reason.startswith("at R := ℤ fails: "), result.reason


def test_check_fact_instance_is_a_hypothesis(env) -> None:
    checker = derive("Proofs.fact_prime_bound", env)
    assert isinstance(checker, DerivedChecker)
    assert not any("assumed" in a for a in checker.assumptions)
    assert [str(c) for c in checker.dim_constraints()] == ["1 < p"]
    assert check("Proofs.fact_prime_bound", env, trials=8).status == "pass"


def test_check_finite_index_type_at_fin_of_drawn_sizes(env) -> None:
    result = check("Proofs.fintype_index", env, trials=8)
    assert result.status == "pass", result.reason
    assert "checked at ι := Fin ι" in result.assumptions, result.assumptions
    assert len({d["ι"] for d in result.draws}) > 1, result.draws


def test_check_finite_index_type_refutes_at_some_size(env) -> None:
    # (∑ f)² = ∑ f² holds at ι := Fin 1 only: another size refutes it
    result = check("Proofs.fintype_sum_sq", env, trials=16)
    assert result.status == "fail", result.reason
    assert result.counterexample is not None and result.counterexample.dims["ι"] >= 2


def test_check_derivative_hypothesis_defines_the_derivative(env) -> None:
    # `HasDerivAt f f₀' x` is `deriv f x = f₀'`: f₀' is not drawn, the hypothesis defines it
    result = check("Proofs.deriv_unique", env, trials=8)
    assert result.status == "pass", result.reason
    assert any("f₀' is not drawn" in a for a in result.assumptions), result.assumptions
    assert any("differentiable at x is not checked" in a for a in result.assumptions)


def test_check_instance_without_drawable_dims_is_left_out() -> None:
    # at α := ℕ the values become dimensions, and no draw meets a₀ = b₀, a₁ = b₁, a₂ = b₂;
    # at ℝ the hypotheses define a₀, a₁, a₂ (not drawn): nothing errs
    env = environment(
        theorem(
            "Proofs.vec3_eq",
            "{α : Type*} {a₀ a₁ a₂ b₀ b₁ b₂ : α} (h₀ : a₀ = b₀) (h₁ : a₁ = b₁) (h₂ : a₂ = b₂)",
            "![a₀, a₁, a₂] = ![b₀, b₁, b₂]",
        )
    )
    result = check("Proofs.vec3_eq", env, trials=16)
    assert result.status == "pass", result.reason
    assert "checked at α := ℝ" in result.assumptions, result.assumptions


def test_check_generic_definition_at_its_arguments_type() -> None:
    # `half` unfolded at R := ℤ divides as ℤ does (Euclidean), not as ℝ: 1 / 2 * 2 = 0
    env = environment(
        definition(
            "Proofs.half", "{α : Type*} [DivisionRing α] (x : α)", "α", "Proofs.half x = x / 2"
        ),
        theorem("Proofs.half_mul_two", "{R : Type*} [CommRing R] (a : R)", "Proofs.half a * 2 = a"),
    )
    result = check("Proofs.half_mul_two", env, trials=16)
    assert result.status == "fail"
    assert result.reason.startswith("at R := ℤ fails: "), result.reason


def test_check_decidability_instance_under_binders_holds(env) -> None:
    # classical logic decides every proposition: the instance is true of every draw
    result = check("Proofs.decidable_family", env, trials=8)
    assert result.status == "pass", result.reason
