"""Inequalities are compared as the relation says, at the scale of the values.

A strict inequality whose sides tie fails (`a < a`); a tie holds `≤`; numbers
far from 1 (1e-38, 1e30) are decided relative to their own size, while terms
that cancel are allowed the rounding of the terms; trials where a hypothesis
fails are counted, and a pass resting on few decided trials says so.
"""

from __future__ import annotations

import numpy as np
import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

STATEMENTS = {
    "lt_self": ("(x : ℝ)", "x < x"),
    "le_self": ("(x : ℝ)", "x ≤ x"),
    "gt_self": ("(x : ℝ)", "x * 2 > x + x"),
    "ge_sq": ("(x : ℝ)", "x * x ≥ 0"),
    "relu_lt_self": (
        "(n : ℕ) (z : Fin n → ℝ) (k : Fin n)",
        "Proofs.relu n z k < Proofs.relu n z k",
    ),
    "pow_succ": ("(n : ℕ)", "n < 10 ^ (n + 1)"),
    "pow_pred": ("(n : ℕ)", "n < 10 ^ (n - 1)"),
    "tiny_neg": ("", "(1e-38 : ℝ) < 0"),
    "tiny_pos": ("", "0 < (1e-38 : ℝ)"),
    "tiny_eq": ("", "(1e-38 : ℝ) = 0"),
    "huge_plus_one": ("", "(1e30 : ℝ) + 1 = (1e30 : ℝ)"),
    "huge_plus_1e25": ("", "(1e30 : ℝ) + 1e25 = (1e30 : ℝ)"),
    "huge_lt": ("", "(1e30 : ℝ) < (1e30 : ℝ) + 1"),
    "cancel": ("(x y : ℝ)", "(x + y) - y - x = 0"),
    "cancel_square": ("(x : ℝ)", "(x + 1) * (x + 1) - x * x - 2 * x - 1 = 0"),
    "cancel_sum": ("(n : ℕ) (x : Fin n → ℝ)", "∑ i : Fin n, (x i * 3 - x i - x i - x i) = 0"),
    # sin reduces its argument modulo 2π: an addition at the scale of the argument
    "sin_pi_mul": ("(n : ℕ)", "Real.sin (Real.pi * (n : ℝ)) = 0"),
    "exp_pos": ("(x : ℝ)", "0 < Real.exp (-(x * x * 100000))"),
    "exp_neg": ("(x : ℝ)", "Real.exp (-(x * x * 100000)) < 0"),
    # hypotheses the sampler cannot meet by construction (a bound on x is met, not hoped for)
    "mostly_vacuous": ("(x : ℝ) (h : Real.sin x > 0.5)", "x < x * x + 1"),
    "rarely_vacuous": ("(x : ℝ) (h : Real.cos x > 0)", "x ≤ x * x + 1"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{k}", b, s) for k, (b, s) in STATEMENTS.items()))


def run(env, key, **kw):
    return check(f"Proofs.{key}", env, **kw)


def test_derived_checker_carries_its_relation(env):
    assert {
        k: derive(f"Proofs.{k}", env).relation for k in ("lt_self", "le_self", "ge_sq", "cancel")
    } == {
        "lt_self": "<",
        "le_self": "≤",
        "ge_sq": "≥",
        "cancel": "=",
    }
    checker = derive("Proofs.lt_self", env)
    assert isinstance(checker, DerivedChecker)
    assert not any("non-strict" in a for a in checker.assumptions)


@pytest.mark.parametrize("key", ["lt_self", "gt_self", "relu_lt_self"])
def test_fail_strict_inequality_between_equal_sides(env, key):
    result = run(env, key)
    assert result.status == "fail", result.reason
    assert result.tied_trials == result.trials * len(result.draws)
    assert "of the trials tie (the sides agree within the tolerance" in result.reason
    ce = result.counterexample
    assert ce is not None and ce.lhs == ce.rhs


def test_pass_non_strict_inequality_with_equality(env):
    result = run(env, "le_self")
    assert result.status == "pass", result.reason
    assert result.tied_trials == 64
    assert "satisfy ≤ within" in result.reason
    assert "64 of 64 trials tie" in result.reason
    assert run(env, "ge_sq").status == "pass"


def test_fail_nat_power_with_truncated_subtraction_at_one(env):
    assert run(env, "pow_succ").status == "pass"
    result = run(env, "pow_pred")
    assert result.status == "fail", result.reason
    # n = 1: 10 ^ (1 - 1) = 10 ^ 0 = 1, a tie (n = 0 gives 0 < 10 ^ 0: it holds)
    assert result.counterexample is not None
    assert result.counterexample.inputs == {"n": [1]}
    assert result.counterexample.lhs == result.counterexample.rhs == [1.0]


def test_decide_statements_about_tiny_numbers(env):
    assert run(env, "tiny_neg").status == "fail"
    assert run(env, "tiny_eq").status == "fail"
    result = run(env, "tiny_pos")
    assert result.status == "pass", result.reason
    assert result.tied_trials == 0


def test_huge_numbers_decided_exactly(env):
    # 1e30 + 1 rounds to 1e30 in float64 (and differs by 1e-30 relative): below the
    # resolution, so float64 passes the equation (false in ℝ) and ties the strict
    # inequality (true in ℝ). Both are closed and rational: decided exactly, Lean's
    # `(1e30 : ℝ)` being 10^30 itself
    plus_one = run(env, "huge_plus_one")
    assert plus_one.status == "fail", plus_one.reason
    assert "decided in exact arithmetic" in plus_one.reason
    assert run(env, "huge_plus_1e25").status == "fail"
    result = run(env, "huge_lt")
    assert result.status == "pass", result.reason
    assert "decided in exact arithmetic" in result.reason


@pytest.mark.parametrize("key", ["cancel", "cancel_square", "cancel_sum", "sin_pi_mul"])
def test_pass_cancellation_within_rounding_of_the_terms(env, key):
    result = run(env, key)
    assert result.status == "pass", result.reason


def test_underflow_ties_strict_inequality_undecided(env):
    # exp(-100000 x²) underflows to 0 for |x| > 0.084: those trials tie 0 < 0, undecided
    # (not at the scale 1e-3 or in the lopsided trials, where x is smaller)
    result = run(env, "exp_pos")
    assert result.status == "pass", result.reason
    assert result.tied_trials > 16
    assert f"weak: {result.tied_trials} of 64 trials undecided" in result.reason
    assert run(env, "exp_neg").status == "fail"


def test_underflow_is_watched_only_where_it_decides(env):
    # underflow only ever makes a tie of a strict inequality undecided: a checker of
    # <, > measures it, one of =, ≤, ≥ does not trace those measures at all
    from checkers.language.measure import Meter

    watching = Meter(underflow=True)
    watching.result((np.float64(1e-200), np.float64(1e-200)), np.float64(0.0))
    assert bool(watching.underflow())
    quiet = Meter(underflow=False)
    quiet.result((np.float64(1e-200), np.float64(1e-200)), np.float64(0.0))
    assert not bool(quiet.underflow())
    strict = env.resolve("Proofs.exp_pos")
    assert strict.relation == "<"
    fn = strict.build_measured({}, np.float64)
    _, _, measures = fn({n: np.float64(2.0) for n in strict.input_specs({})})
    assert bool(measures["underflow"])  # exp(-4000) underflows


def test_count_vacuous_trials_and_flag_weak_pass(env):
    # sin x > 0.5 holds in about a fifth of the trials: fresh ones are drawn for the vacuous
    # (up to four times the trials asked for), and the count is out of every trial drawn
    weak = run(env, "mostly_vacuous")
    assert weak.status == "pass", weak.reason
    (draw,) = weak.stats["per_draw"]
    drawn = draw["trials"]
    assert 64 < drawn <= 256 and draw["refilled_trials"] == drawn - 64
    assert 64 < weak.vacuous_trials < drawn
    note = f"{weak.vacuous_trials} of {drawn} trials vacuous (a hypothesis failed; fresh trials"
    assert note in weak.reason
    # weak where under three quarters of the 64 trials asked for decided the statement
    assert ("; weak: " + note in weak.reason) == (4 * (drawn - weak.vacuous_trials) < 3 * 64)
    strong = run(env, "rarely_vacuous")
    assert strong.status == "pass", strong.reason
    assert 0 < strong.vacuous_trials <= 16
    assert "weak" not in strong.reason
    assert f"{strong.vacuous_trials} of 64 trials vacuous" in strong.reason


def test_new_counts_round_trip_json(env):
    from checkers import CheckResult

    result = run(env, "mostly_vacuous")
    data = result.to_json()
    assert data["vacuous_trials"] == result.vacuous_trials > 0
    assert data["tied_trials"] == 0
    assert CheckResult.from_json(data) == result
    tied = run(env, "le_self")
    assert CheckResult.from_json(tied.to_json()).tied_trials == 64


def test_upstream_min_normal_positive_and_its_negation(upstream_tree):
    """`0 < minNormalF32` (2^-126, about 1.2e-38) is decided both ways, in every dtype."""
    from dataclasses import replace

    from checkers import Environment
    from theorem_index import read_paths

    batch = read_paths([str(upstream_tree / "Float" / "FloatSubnormalBridge.lean")])
    decls = [d for doc in batch.documents for d in doc.declarations]
    pos = next(d for d in decls if d.name.endswith("minNormalF32_pos"))
    neg = replace(pos, name=pos.name + "_mutant", statement="minNormalF32 < 0")
    env = Environment.from_declarations([*decls, neg])
    for dtype in ("float64", "float32", "bfloat16"):
        result = check(pos.name, env, dtype=dtype)
        assert result.status == "pass", (dtype, result.reason)
        assert result.tied_trials == 0
        assert check(neg.name, env, dtype=dtype).status == "fail", dtype


@pytest.mark.parametrize(
    "path, short, old, new, counterexample",
    [
        ("Foundation/ResNet34Live2.lean", "relu_chan_lt", "relu n z k₁ <", "relu n z k₀ <", None),
        ("Codegen/StableHLOLex.lean", "lt_ten_pow_succ", "(n + 1)", "(n - 1)", {"n": [1]}),
    ],
)
def test_upstream_strict_mutants_fail(upstream_tree, path, short, old, new, counterexample):
    """Two proved strict inequalities of the corpus pass; each mutated to tie somewhere fails."""
    from dataclasses import replace

    from checkers import Environment
    from theorem_index import read_paths

    batch = read_paths([str(upstream_tree / path)])
    decls = [d for doc in batch.documents for d in doc.declarations]
    proved = next(d for d in decls if d.name.endswith("." + short))
    assert old in proved.statement
    mutant = replace(
        proved, name=proved.name + "_mutant", statement=proved.statement.replace(old, new)
    )
    env = Environment.from_declarations([*decls, mutant])
    result = check(proved.name, env)
    assert result.status == "pass", result.reason
    failed = check(mutant.name, env)
    assert failed.status == "fail", failed.reason
    assert failed.tied_trials > 0 and "tie" in failed.reason
    if counterexample is not None:
        assert failed.counterexample is not None
        assert failed.counterexample.inputs == counterexample
