"""Binders of a structure type drawn by the structure's sampler: the upstream `FloatModel`
(a rounding `rnd` with unit roundoff `u` and `err : |rnd x - x| ≤ u * |x|`)."""

from __future__ import annotations

from derived_support import definition, environment, theorem

from checkers import check
from checkers.derived import DerivedChecker, derive

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
