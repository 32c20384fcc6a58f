"""Binders of a structure type drawn by the structure's sampler: the upstream `FloatModel`
(a rounding `rnd` with unit roundoff `u` and `err : |rnd x - x| ≤ u * |x|`)."""

from __future__ import annotations

from derived_support import definition, environment, theorem

from checkers import check
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

ADD = definition(
    "Proofs.FloatModel.add",
    "(M : FloatModel) (x y : ℝ)",
    "ℝ",
    "Proofs.FloatModel.add M x y = M.rnd (x + y)",
)


def _check(statement: str, binders: str = "(M : FloatModel) (x y : ℝ)", trials: int = 64):
    env = environment(ADD, theorem("Proofs.t", binders, statement))
    return check("Proofs.t", env, trials=trials)


def test_the_model_property_holds_of_every_draw_and_is_tight() -> None:
    assert _check("|M.rnd x - x| ≤ M.u * |x|").status == "pass"
    # the draws reach the largest error the model allows: half of it is exceeded
    assert _check("|M.rnd x - x| ≤ M.u * |x| / 2").status == "fail"
    assert _check("0 ≤ M.u").status == "pass"


def test_generalized_field_notation_unfolds_the_namespace_definition() -> None:
    # `M.add x y` is `FloatModel.add M x y`, rounded once
    assert _check("|M.add x y - (x + y)| ≤ M.u * |x + y|").status == "pass"
    assert _check("M.add x y = x + y").status == "fail"  # a rounding that is exact: false


def test_a_hypothesis_bounding_the_roundoff_is_met_by_the_sampler() -> None:
    result = _check(
        "|M.rnd x - x| ≤ |x| / 16777216",
        binders="(M : FloatModel) (hM : M.u ≤ 1 / 16777216) (x : ℝ)",
    )
    assert result.status == "pass", result.reason
    assert result.vacuous_trials == 0
    wrong = _check(
        "|M.rnd x - x| ≤ |x| / 33554432",
        binders="(M : FloatModel) (hM : M.u ≤ 1 / 16777216) (x : ℝ)",
    )
    assert wrong.status == "fail"


def test_the_result_says_what_was_drawn() -> None:
    env = environment(ADD, theorem("Proofs.t", "(M : FloatModel) (x : ℝ)", "0 ≤ M.u * |x|"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert any(a.startswith("M : FloatModel drawn from roundings") for a in checker.assumptions)
    specs = checker.input_specs({})
    assert set(specs) == {"M.u", "M.θ", "x"}
    assert specs["M.u"].distribution == "roundoff"


# `variable (M : FloatModel)` … `def dot : {n : Nat} → Vec n → Vec n → ℝ | 0, _, _ => 0 |
# n + 1, x, y => M.add (dot …) …`: the implicit size is matched, the section variable M is
# left out of the recursive call (Lean fixes it inside the definition)
MUL = definition(
    "Proofs.FloatModel.mul",
    "(M : FloatModel) (x y : ℝ)",
    "ℝ",
    "Proofs.FloatModel.mul M x y = M.rnd (x * y)",
    namespace="Proofs.FloatModel",
)
DOT = definition(
    "Proofs.FloatModel.dot",
    "(M : FloatModel)",
    "{n : Nat} → Vec n → Vec n → ℝ",
    "Proofs.FloatModel.dot M 0 _ _ = 0",
    "Proofs.FloatModel.dot M (n + 1) x y = M.add (dot (fun i => x i.castSucc) "
    "(fun i => y i.castSucc)) (M.mul (x (Fin.last n)) (y (Fin.last n)))",
    namespace="Proofs.FloatModel",
)


def _dot_check(statement: str) -> str:
    env = environment(
        ADD, MUL, DOT, theorem("Proofs.t", "(M : FloatModel) {n : ℕ} (x y : Vec n)", statement)
    )
    return check("Proofs.t", env, trials=64).status


def test_a_recursive_definition_over_an_implicit_size_with_a_section_variable() -> None:
    # each product is rounded, then each partial sum (the first addition is to 0): at most
    # n + 1 roundings per term, so γ_(n+1) = (1 + u)^(n+1) - 1 bounds the error
    err = "|M.dot x y - ∑ i, x i * y i|"
    assert _dot_check(f"{err} ≤ ((1 + M.u) ^ (n + 1) - 1) * ∑ i, |x i * y i|") == "pass"
    # one rounding fewer: refuted where the errors pile up (at n = 1: two roundings)
    assert _dot_check(f"{err} ≤ ((1 + M.u) ^ n - 1) * ∑ i, |x i * y i|") == "fail"
    assert _dot_check("M.dot x y = ∑ i, x i * y i") == "fail"
