"""Hypotheses the sampler meets: no vacuous trials for the shapes the corpus uses, mutants
inside the constrained region still fail, and scales that expose loose bounds."""

from __future__ import annotations

from typing import Any

import pytest
from derived_support import environment, term, theorem

from checkers import check
from checkers.inputs.sampling import stress_scale
from checkers.premises.bounds import plan_bounds
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

VEC = "{n : ℕ} (v : Vec n) (hv : ∀ i, 0 ≤ v i) (i : Fin n)"
W_AFTER = "{m n : ℕ} (W : Mat m n) (w : ℝ) (hw : ∀ i j, |W i j| ≤ w) (i : Fin m) (j : Fin n)"
W_WITHIN = (
    "{m n : ℕ} (w : ℝ) (hw0 : 0 ≤ w) (W : Mat m n) (hw : ∀ i j, |W i j| ≤ w) "
    "(i : Fin m) (j : Fin n)"
)
ADAM = (
    "{n : ℕ} {β₂ : ℝ} (hβ₂0 : 0 ≤ β₂) (hβ₂1 : β₂ ≤ 1) {v g : Vec n} (hv : ∀ i, 0 ≤ v i) (i : Fin n)"
)

# (binders, a true statement, a statement false somewhere inside the constrained region)
SHAPES = {
    "positive": ("(ε : ℝ) (hε : 0 < ε)", "ε / ε = 1", "ε ≤ 1"),
    "nonnegative": ("(x : ℝ) (hx : 0 ≤ x)", "|x| = x", "x ≤ 1"),
    "lower": ("(a x : ℝ) (h : a ≤ x)", "max a x = x", "max a x = a"),
    "upper": ("(b x : ℝ) (h : x ≤ b)", "min x b = x", "min x b = b"),
    "between": (
        "(a b x : ℝ) (hab : a < b) (h : a < x ∧ x < b)",
        "|x - (a + b) / 2| ≤ (b - a) / 2",
        "|x - (a + b) / 2| ≤ (b - a) / 4",
    ),
    "interval": ("(t : ℝ) (ht : t ∈ Set.Icc (0 : ℝ) 1)", "0 ≤ t * (1 - t)", "0 ≤ t * (1 / 2 - t)"),
    # π is a number the sampler computes: cos < 0 on half of [0, 2π]
    "interval_pi": (
        "(a : ℝ) (ha : a ∈ Set.Icc 0 (2 * Real.pi))",
        "Real.cos a ≤ 1",
        "0 ≤ Real.cos a",
    ),
    "abs_scalar": ("(w x : ℝ) (h : |x| ≤ w)", "x ≤ w", "x ≤ w / 2"),
    "abs_centred": ("(c e x : ℝ) (h : |x - c| ≤ e)", "x ≤ c + e", "x ≤ c"),
    "nonzero": ("(x : ℝ) (hx : x ≠ 0)", "x / x = 1", "x / |x| = 1"),
    "forall_vector": (VEC, "|v i| = v i", "v i ≤ 1"),
    "matrix_bound_after": (W_AFTER, "W i j ≤ w", "W i j ≤ w / 2"),
    "matrix_within_bound": (W_WITHIN, "W i j * W i j ≤ w * w", "W i j ≤ w / 2"),
    "adam": (
        ADAM,
        "0 ≤ β₂ * v i + (1 - β₂) * (g i) ^ 2",
        "0 ≤ β₂ * v i - (1 - β₂) * (g i) ^ 2",
    ),
}


def vacuous(result: Any) -> int:
    return sum(d.get("vacuous_trials", 0) for d in result.stats.get("per_draw", []))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_sample_to_satisfy_hypothesis_shape(shape: str) -> None:
    binders, true, false = SHAPES[shape]
    checker = derive("Proofs.t", environment(theorem("Proofs.t", binders, true)))
    assert isinstance(checker, DerivedChecker)
    assert all(h.how == "constraint" for h in checker.plan.hyps), checker.plan.hyps
    result = check("Proofs.t", environment(theorem("Proofs.t", binders, true)))
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0
    assert "vacuous" not in result.reason
    mutant = check("Proofs.t", environment(theorem("Proofs.t", binders, false)))
    assert mutant.status == "fail", mutant.reason
    assert vacuous(mutant) == 0


def test_plan_bound_on_the_later_input_without_cycles() -> None:
    # `x ≤ y` bounds y (declared later) by x; `y ≤ x + 1` cannot bound x by y as well, so it
    # bounds y from above
    checker = derive(
        "Proofs.t",
        environment(theorem("Proofs.t", "(x y : ℝ) (h₁ : x ≤ y) (h₂ : y ≤ x + 1)", "x ≤ y")),
    )
    assert isinstance(checker, DerivedChecker)
    assert [(b.target, b.side, sorted(b.names)) for b in checker.plan.bounds] == [
        ("y", "lower", ["x"]),
        ("y", "upper", ["x"]),
    ]


def test_keep_hypothesis_as_mask_when_it_is_no_bound() -> None:
    checker = derive(
        "Proofs.t", environment(theorem("Proofs.t", "(x y : ℝ) (h : x * y ≤ 1)", "x * y ≤ 1"))
    )
    assert isinstance(checker, DerivedChecker)
    assert [h.how for h in checker.plan.hyps] == ["mask"]


def test_bound_reads_dimension_cast_to_real() -> None:
    binders = "{d : ℕ} (v : Vec d) (s : ℝ) (hs : |(1 : ℝ) / Real.sqrt (d : ℝ)| ≤ s) (i : Fin d)"
    env = environment(theorem("Proofs.t", binders, "v i / Real.sqrt (d : ℝ) ≤ |v i| * s"))
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0


# --- scales --------------------------------------------------------------------

SCALE = "(A x : ℝ) (hA : 0 ≤ A) (h : |x| ≤ A)"


def test_pass_bound_that_holds_at_every_scale() -> None:
    result = check("Proofs.t", environment(theorem("Proofs.t", SCALE, "2 * x ≤ 2 * A")))
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0


def test_fail_bound_loose_only_at_small_values() -> None:
    # 2 * x ≤ 2 + A holds whenever A ≤ 2: only inputs drawn at a large scale refute it
    result = check("Proofs.t", environment(theorem("Proofs.t", SCALE, "2 * x ≤ 2 + A")))
    assert result.status == "fail", result.reason
    assert result.counterexample is not None
    assert stress_scale(result.counterexample.trial, "float64") > 1
    assert result.counterexample.inputs["A"][0] > 2


def test_plan_no_bound_from_quantifier_over_reals() -> None:
    prop = term("∀ t : ℝ, |f t - t| ≤ e", ("f", "e"))
    assert plan_bounds(prop, "h", "…", ["f", "e"], []) is None
    over_indices = term("∀ i : Fin n, |f i - c| ≤ e", ("f", "c", "e", "n"))
    # f (declared last) is drawn within c ± e, and e ≥ 0, which the hypothesis implies
    plans = plan_bounds(over_indices, "h", "…", ["c", "e", "f"], ["n"])
    assert plans is not None
    assert [(p.target, p.side, p.labels, sorted(p.names)) for p in plans] == [
        ("f", "lower", ("i",), ["c", "e"]),
        ("f", "upper", ("i",), ["c", "e"]),
        ("e", "lower", (), []),
    ]
    # declared last, e is bounded by the largest |f i - c| instead
    plans = plan_bounds(over_indices, "h", "…", ["c", "f", "e"], ["n"])
    assert plans is not None
    assert [(p.target, p.side, p.labels, sorted(p.names)) for p in plans] == [
        ("e", "lower", (), ["c", "f"])
    ]


def test_plan_hypothesis_met_one_way_first() -> None:
    # x ≤ y could bound y below, but y < 1 already bounds it above (the two may cross):
    # x is bounded above by y instead, so every trial meets both
    binders = "(x y : ℝ) (hxy : x ≤ y) (hy : y < 1)"
    env = environment(theorem("Proofs.t", binders, "x / (1 - x) ≤ y / (1 - y)"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert [(b.target, b.side) for b in checker.plan.bounds] == [("x", "upper"), ("y", "upper")]
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0


def test_draw_radius_non_negative_when_implied() -> None:
    # |zt i - z i| ≤ ez and ez < |z i|: 0 ≤ ez < min |z i|, and zt within z ± ez
    binders = (
        "{n : ℕ} (zt z : Vec n) (ez : ℝ) (hz : ∀ i, |zt i - z i| ≤ ez) (hm : ∀ i, ez < |z i|) "
        "(i : Fin n)"
    )
    env = environment(theorem("Proofs.t", binders, "0 < z i * zt i"))
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    # a 0 drawn into z by a boundary trial leaves no ez with ez < |z i|: such a trial is
    # drawn again without boundary values (regimes.py), so no trial is vacuous
    assert vacuous(result) == 0


def test_bound_with_natural_exponent_and_cast() -> None:
    binders = "(m : ℕ) (u g : ℝ) (hu : 0 ≤ u) (hg : (1 + u) ^ (m + 1) - 1 ≤ g) (hm : ↑m * u ≤ g)"
    env = environment(theorem("Proofs.t", binders, "(m : ℝ) * u ≤ g"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert [h.how for h in checker.plan.hyps] == ["constraint"] * 3
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0
    mutant = check("Proofs.t", environment(theorem("Proofs.t", binders, "g ≤ (m : ℝ) * u + 1")))
    assert mutant.status == "fail", mutant.reason


@pytest.mark.parametrize(
    ("binders", "true", "false"),
    [
        ("(x y : ℝ) (h : y = x ^ 2)", "0 ≤ y", "1 ≤ y"),
        ("(x y : ℝ) (h : x ^ 2 + 1 = y)", "1 ≤ y", "2 ≤ y"),
        # the defining term is read at ℝ: `y = n` is `y = (n : ℝ)`, so `y / 2` divides in ℝ
        ("(n : ℕ) (y : ℝ) (h : y = n)", "y / 2 * 2 = y", "y / 2 * 2 = y + 1"),
    ],
)
def test_hypothesis_that_defines_a_binder_replaces_it(binders: str, true: str, false: str) -> None:
    # drawn, y would meet `y = e` in no trial; it is e instead, and the check says so
    result = check("Proofs.t", environment(theorem("Proofs.t", binders, true)), trials=16)
    assert result.status == "pass", result.reason
    assert vacuous(result) == 0
    assert any(a.startswith("y is not drawn: the hypothesis h : ") for a in result.assumptions)
    mutant = check("Proofs.t", environment(theorem("Proofs.t", binders, false)), trials=16)
    assert mutant.status == "fail", mutant.reason


def test_hypothesis_defining_a_binder_by_itself_is_not_a_definition() -> None:
    # `y = y + 0` mentions y: it defines nothing, and stays a hypothesis
    checker = derive(
        "Proofs.t", environment(theorem("Proofs.t", "(y : ℝ) (h : y = y * 1)", "y = y"))
    )
    assert isinstance(checker, DerivedChecker)
    assert not any("is not drawn" in a for a in checker.plan.assumptions)
