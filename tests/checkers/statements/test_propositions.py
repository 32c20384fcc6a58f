"""Statements that are not one relation: conjunctions, predicates unfolded through their
definitions, `≠`, `↔` and bounded `∀`; and wrong variants of each, which must fail."""

from __future__ import annotations

import pytest
from derived_support import definition, environment, term, theorem

from checkers import check, repro
from checkers.core import Unsupported
from checkers.language.substitute import substitute
from checkers.statements.checker import DerivedChecker
from checkers.statements.conjunction import Conjunction
from checkers.statements.derive import derive
from checkers.statements.propositions import MAX_UNFOLD, clauses
from theorem_index.lean import print_term
from theorem_index.lean import syntax as S

RELU_LB = definition(
    "Proofs.ReluLB",
    "(v l u a c : ℝ)",
    "Prop",
    "Proofs.ReluLB v l u a c = (∀ z, l ≤ z → z ≤ u → a * z + c ≤ v * max z 0)",
)
CERTIFIED = definition(
    "Proofs.Certified",
    "{n k : ℕ} (f : Vec n → Vec k) (ε : ℝ) (x : Vec n) (y : Fin k)",
    "Prop",
    "Proofs.Certified f ε x y = (∀ δ : Vec n, (∀ i, |δ i| ≤ ε) → ∀ j, j ≠ y → "
    "f (x + δ) j < f (x + δ) y)",
)
CLOSE = definition(
    "Proofs.Close",
    "(A B : ℝ)",
    "Prop",
    "Proofs.Close A B = ((∀ v : ℝ, |v| ≤ A → |v * v| ≤ A * A) ∧ ∀ v : ℝ, |v| ≤ A → |v| ≤ B)",
)


def _checked(decls: tuple, name: str, trials: int = 16) -> object:
    env = environment(*decls)
    return check(name, env, trials=trials)


# --- splitting ----------------------------------------------------------------------


def test_split_conjunction_under_binders_into_clauses() -> None:
    from checkers.statements.derive import shared_semantics

    sem = shared_semantics(environment())
    got = clauses((), term("∀ y : ℝ, 0 ≤ y → x + y = y + x ∧ x ≤ x", ("x",)), sem)
    assert not isinstance(got, Unsupported)
    texts = [str(print_term(c.statement)) for c in got]
    assert texts == ["∀ y : ℝ, 0 ≤ y → x + y = y + x", "∀ y : ℝ, 0 ≤ y → x ≤ x"]


def test_unfold_predicate_with_its_arguments_substituted() -> None:
    from checkers.statements.derive import shared_semantics

    env = environment(RELU_LB, theorem("Proofs.t", "{v l u : ℝ}", "ReluLB v l u 0 0"))
    got = clauses((), term("Proofs.ReluLB v l u 0 0", ("v", "l", "u")), shared_semantics(env))
    assert not isinstance(got, Unsupported)
    (clause,) = got
    assert clause.unfolded == ("Proofs.ReluLB",)
    # z typed in the definition's context (z ≤ u with u : ℝ)
    assert str(print_term(clause.statement)) == "∀ z : ℝ, l ≤ z → z ≤ u → 0 * z + 0 ≤ v * max z 0"


def test_substitute_renames_bound_variable_an_argument_mentions() -> None:
    body = term("∀ z, l ≤ z → z ≤ u", ("l", "u"))
    out = substitute(body, {"l": S.Var("z"), "u": S.Var("w")}, frozenset())
    assert str(print_term(out)) == "∀ z', z ≤ z' → z' ≤ w"


PEAK = definition(
    "Proofs.peak",
    "{n : ℕ} (x : Vec n)",
    "Vec (n + 1)",
    "Proofs.peak x = fun j => if j = 0 then 1 else 0",
)


def test_infer_implicit_dimensions_of_unfolded_predicate() -> None:
    # n from `x : Vec 3`, k from the type of `peak : Vec n → Vec (n + 1)`
    decls = (CERTIFIED, PEAK, theorem("Proofs.c", "(x : Vec 3)", "Certified peak (1 / 4) x 0"))
    got = derive("Proofs.c", environment(*decls))
    assert isinstance(got, DerivedChecker), got
    r = _checked(decls, "Proofs.c", trials=32)
    assert r.status == "pass", r.reason


def test_fail_unfolded_predicate_at_wrong_class() -> None:
    decls = (CERTIFIED, PEAK, theorem("Proofs.c", "(x : Vec 3)", "Certified peak (1 / 4) x 1"))
    r = _checked(decls, "Proofs.c", trials=32)
    assert r.status == "fail", r.reason


def test_refuse_existential_without_witness() -> None:
    env = environment(theorem("Proofs.t", "(x : ℝ)", "∃ y : ℝ, y = x"))
    got = derive("Proofs.t", env)
    assert isinstance(got, Unsupported)
    assert got.reason.startswith("the statement is an existential (∃) whose witness is not given")


def test_refuse_bounded_forall_over_unknown_set() -> None:
    env = environment(theorem("Proofs.t", "(s : List ℝ)", "∀ p ∈ s, p = p"))
    got = derive("Proofs.t", env)
    assert isinstance(got, Unsupported)
    assert got.reason.endswith("∀ p ∈ s")


def test_refuse_unfolding_deeper_than_limit() -> None:
    defs = [definition("Proofs.P0", "(x : ℝ)", "Prop", "Proofs.P0 x = (x = x)")]
    for k in range(1, MAX_UNFOLD + 2):
        defs.append(
            definition(f"Proofs.P{k}", "(x : ℝ)", "Prop", f"Proofs.P{k} x = Proofs.P{k - 1} x")
        )
    env = environment(*defs, theorem("Proofs.t", "(x : ℝ)", f"P{MAX_UNFOLD + 1} x"))
    got = derive("Proofs.t", env)
    assert isinstance(got, Unsupported)
    assert f"goes deeper than {MAX_UNFOLD} definitions" in got.reason


# --- checking -----------------------------------------------------------------------


def test_pass_conjunction_with_one_row_per_clause() -> None:
    r = _checked((theorem("Proofs.t", "(x y : ℝ)", "x + y = y + x ∧ x * y ≤ x * y"),), "Proofs.t")
    assert r.status == "pass", r.reason
    assert [p["family"] for p in r.parts] == ["clause 1: x + y = y + x", "clause 2: x * y ≤ x * y"]
    assert [p["status"] for p in r.parts] == ["pass", "pass"]
    assert r.reason.startswith("all 2 clauses hold")


def test_fail_conjunction_with_false_clause_and_its_counterexample() -> None:
    r = _checked((theorem("Proofs.t", "(x y : ℝ)", "x + y = y + x ∧ x - y = y - x"),), "Proofs.t")
    assert r.status == "fail"
    assert r.reason.startswith("clause 2 of 2 (x - y = y - x) fails: ")
    assert r.counterexample is not None and r.counterexample.shrunk
    assert [p["status"] for p in r.parts] == ["pass", "fail"]


def test_repro_replays_the_failing_clause_of_a_conjunction() -> None:
    env = environment(theorem("Proofs.t", "(x y : ℝ)", "x + y = y + x ∧ x - y = y - x"))
    r = check("Proofs.t", env, trials=16)
    assert r.status == "fail" and r.counterexample is not None
    again = repro("Proofs.t", env, seed=r.seed, dims=r.dims, trial=r.trial, trials=16)
    assert not again.error
    assert again.result.reason.startswith("clause 2 of 2 (x - y = y - x): ")
    x, y = again.inputs["x"][0], again.inputs["y"][0]
    assert (again.lhs[0], again.rhs[0]) == pytest.approx((x - y, y - x))
    assert x - y != pytest.approx(y - x)
    # the stored (shrunk) counterexample replays the same clause
    shrunk = repro(
        "Proofs.t", env, seed=r.seed, dims={}, trials=16, counterexample=r.counterexample
    )
    assert shrunk.result.reason.startswith("clause 2 of 2") and not shrunk.error
    assert shrunk.lhs != shrunk.rhs
    # a conjunction that holds replays the clause of the largest error
    ok = environment(theorem("Proofs.u", "(x y : ℝ)", "x + y = y + x ∧ x * y ≤ x * y"))
    held = repro("Proofs.u", ok, seed=0, dims={}, trials=16)
    assert held.result.status == "pass" and held.result.reason.startswith("clause ")


def test_split_forall_over_conjunction_with_binders_in_each_clause() -> None:
    decls = (theorem("Proofs.t", "{n : ℕ} (v : Vec n)", "∀ i, v i * v i ≥ 0 ∧ |v i| ≥ 0"),)
    c = derive("Proofs.t", environment(*decls))
    assert isinstance(c, Conjunction)
    assert all(isinstance(k, DerivedChecker) for k in c.clauses)
    assert _checked(decls, "Proofs.t").status == "pass"


def test_pass_unfolded_predicate_with_premises_sampled_to_hold() -> None:
    decls = (RELU_LB, theorem("Proofs.dead", "{v l u : ℝ} (hu : u ≤ 0)", "ReluLB v l u 0 0"))
    r = _checked(decls, "Proofs.dead", trials=64)
    assert r.status == "pass", r.reason
    assert r.vacuous_trials <= 0.1 * 64  # l ≤ z ≤ u ≤ 0 sampled as a chain
    assert "Proofs.ReluLB" in r.dependencies


def test_fail_unfolded_predicate_with_wrong_argument() -> None:
    # a dead neuron contributes 0; an active one (0 ≤ l) passes `v` through, not `0`
    decls = (RELU_LB, theorem("Proofs.active", "{v l u : ℝ} (hl : 0 ≤ l)", "ReluLB v l u 0 0"))
    r = _checked(decls, "Proofs.active", trials=64)
    assert r.status == "fail", r.reason


def test_pass_unfolded_conjunction_of_foralls() -> None:
    decls = (CLOSE, theorem("Proofs.c", "(A : ℝ)", "Close A A"))
    c = derive("Proofs.c", environment(*decls))
    assert isinstance(c, Conjunction) and len(c.clauses) == 2
    assert _checked(decls, "Proofs.c", trials=32).status == "pass"


def test_fail_unfolded_conjunction_whose_second_clause_is_false() -> None:
    decls = (CLOSE, theorem("Proofs.c", "(A : ℝ)", "Close A (A / 2)"))
    r = _checked(decls, "Proofs.c", trials=64)
    assert r.status == "fail", r.reason
    assert r.reason.startswith("clause 2 of 2")


def test_pass_not_equal_whose_sides_differ() -> None:
    r = _checked((theorem("Proofs.t", "(x : ℝ)", "Real.exp x ≠ 0"),), "Proofs.t")
    assert r.status == "pass", r.reason
    assert any(a.startswith("≠ is checked as") for a in r.assumptions)


@pytest.mark.parametrize("statement", ["x + 1 - 1 ≠ x", "x * 2 ≠ x + x", "(fun i => v i) ≠ v"])
def test_fail_not_equal_whose_sides_are_equal(statement: str) -> None:
    decls = (theorem("Proofs.t", "{n : ℕ} (x : ℝ) (v : Vec (n + 1))", statement),)
    r = _checked(decls, "Proofs.t")
    assert r.status == "fail", r.reason
    assert "which ≠ excludes" in r.reason


def test_pass_not_equal_of_arrays_that_differ_in_one_entry() -> None:
    decls = (
        theorem(
            "Proofs.t", "{n : ℕ} (v : Vec (n + 1))", "(fun i => if i = 0 then v i + 1 else v i) ≠ v"
        ),
    )
    assert _checked(decls, "Proofs.t").status == "pass"


def test_pass_iff_whose_sides_agree_in_truth() -> None:
    r = _checked((theorem("Proofs.t", "(x : ℝ)", "0 < x ↔ 0 < x ^ 3"),), "Proofs.t")
    assert r.status == "pass", r.reason
    assert any(a.startswith("↔ is checked as") for a in r.assumptions)


def test_fail_iff_whose_sides_differ_in_truth() -> None:
    r = _checked((theorem("Proofs.t", "(x : ℝ)", "0 < x ↔ 0 < x ^ 2"),), "Proofs.t", trials=64)
    assert r.status == "fail", r.reason


def test_refuse_iff_whose_side_is_not_decidable() -> None:
    env = environment(theorem("Proofs.t", "(x : ℝ)", "0 ≤ x ↔ ∀ y : ℝ, y * y ≤ x * y * y"))
    got = derive("Proofs.t", env)
    assert isinstance(got, Unsupported)


def test_check_forall_over_univ_as_forall() -> None:
    decls = (theorem("Proofs.t", "{n : ℕ} (v : Vec n)", "∀ i ∈ Finset.univ, v i * v i ≥ 0"),)
    assert _checked(decls, "Proofs.t").status == "pass"


def test_check_forall_with_binder_bound_as_premise() -> None:
    ok = (theorem("Proofs.t", "", "∀ ε > (0 : ℝ), ε / 2 < ε"),)
    assert _checked(ok, "Proofs.t").status == "pass"
    bad = (theorem("Proofs.t", "", "∀ ε ≥ (1 : ℝ), ε < 2"),)
    assert _checked(bad, "Proofs.t", trials=64).status == "fail"


# --- sampling the premises to hold ------------------------------------------------------

LO = definition("Proofs.lo", "", "Fin 3 → ℝ", "Proofs.lo = ![-1, 0, 2]")
HI = definition("Proofs.hi", "", "Fin 3 → ℝ", "Proofs.hi = ![1, 3, 2]")


def test_draw_binder_inside_bounds_the_sampler_cannot_compute() -> None:
    decls = (LO, HI, theorem("Proofs.t", "", "∀ t : Fin 3, ∀ z : ℝ, lo t ≤ z → z ≤ hi t → z ≤ 3"))
    c = derive("Proofs.t", environment(*decls))
    assert isinstance(c, DerivedChecker)
    assert any(
        a.startswith("z is drawn from its bounds through zₛ ∈ [0, 1]") for a in c.assumptions
    )
    r = _checked(decls, "Proofs.t", trials=64)
    assert r.status == "pass", r.reason
    assert r.vacuous_trials <= 0.1 * 64


def test_fail_false_statement_over_bounds_drawn_inside() -> None:
    # z = 2.5 lies in [lo 1, hi 1] = [0, 3] and breaks it
    decls = (LO, HI, theorem("Proofs.t", "", "∀ t : Fin 3, ∀ z : ℝ, lo t ≤ z → z ≤ hi t → z ≤ 2"))
    r = _checked(decls, "Proofs.t", trials=64)
    assert r.status == "fail", r.reason


def test_unfold_hypothesis_that_is_a_predicate_into_bounds() -> None:
    inside = definition(
        "Proofs.Inside", "(a b x : ℝ)", "Prop", "Proofs.Inside a b x = (a ≤ x ∧ x ≤ b)"
    )
    decls = (inside, theorem("Proofs.t", "(x : ℝ) (h : Inside 0 1 x)", "x * x ≤ x"))
    c = derive("Proofs.t", environment(*decls))
    assert isinstance(c, DerivedChecker)
    assert "Proofs.Inside" in c.dependencies
    r = _checked(decls, "Proofs.t", trials=64)
    assert r.status == "pass", r.reason
    assert r.vacuous_trials == 0


def test_pass_box_premise_sampled_as_a_chain() -> None:
    # `lo i ≤ u i ∧ u i ≤ hi i` from one hypothesis: lo ≤ u ≤ hi, not u between two
    # independent draws that cross in half of the entries
    decls = (
        theorem(
            "Proofs.t",
            "{n : ℕ} (lo hi u : Vec n) (h : ∀ i, lo i ≤ u i ∧ u i ≤ hi i)",
            "∀ i, lo i ≤ hi i",
        ),
    )
    r = _checked(decls, "Proofs.t", trials=32)
    assert r.status == "pass", r.reason
    assert r.vacuous_trials == 0
