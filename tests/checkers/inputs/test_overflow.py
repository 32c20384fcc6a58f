"""Trials re-drawn at a smaller scale where float64 overflows at their stress scale (a true
statement never fails or errors for it), and non-finite sides at scale 1 still an error."""

from __future__ import annotations

import numpy as np
from derived_support import environment, theorem

from checkers import check, repro
from checkers.inputs.sampling import draw_key, fin_plan, sample_trial, stress_scale, trial_scales
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

# True in ℝ; in float64 e^z overflows once z > 709, which the trials at scale 1e3 reach.
# (A quotient of exponentials such as a softmax no longer overflows: exponentials are
# held in log space through products and quotients; a difference is not.)
SOFTMAX = theorem(
    "Proofs.t",
    "{n : ℕ} (z : Vec n) (i : Fin n)",
    "(Real.exp (z i) - 1) + ∑ j : Fin n, Real.exp (z j)"
    " = Real.exp (z i) + (∑ j : Fin n, Real.exp (z j) - 1)",
)


def test_redraw_at_unit_scale_where_float64_overflows() -> None:
    result = check("Proofs.t", environment(SOFTMAX))
    assert result.status == "pass", result.reason
    assert result.rescaled_trials > 0
    assert f"{result.rescaled_trials} trials re-drawn at a smaller scale" in result.reason
    assert result.to_json()["rescaled_trials"] == result.rescaled_trials
    assert type(result).from_json(result.to_json()).rescaled_trials == result.rescaled_trials


def test_repro_replays_the_redrawn_trial() -> None:
    env = environment(SOFTMAX)
    dims = {"n": 3}
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    specs = checker.input_specs(dims)
    plan, base = fin_plan(specs, 64), draw_key("Proofs.t", 0, dims)
    with np.errstate(over="ignore"):
        overflowing = [
            t
            for t in range(64)
            if trial_scales(specs, plan, [t], "float64")[0] == 1e3
            and not np.isfinite(np.exp(sample_trial(specs, plan, base, t)["z"])).all()
        ]
    assert overflowing
    t = overflowing[0]
    replay = repro("Proofs.t", env, seed=0, dims=dims, trial=t)
    assert replay.result.status == "pass", replay.result.reason
    # drawn again at 10, where exp(z) of this statement is finite (at 1 only if not)
    again = sample_trial(specs, plan, base, t, scale=10.0)
    if not np.isfinite(np.exp(again["z"])).all():
        again = sample_trial(specs, plan, base, t, scale=1.0)
    np.testing.assert_array_equal(np.asarray(replay.inputs["z"]), again["z"])
    assert np.isfinite(replay.lhs).all() and np.isfinite(replay.rhs).all()


def test_redraw_at_ten_before_one_after_overflow_at_1e3() -> None:
    # e^(70 x) overflows at scale 1e3 where x > 0, at 10 where x > 10.1 (a sixth of the
    # draws), at 1 never (a difference, not held in log space): a trial lost at 1e3 is
    # tried at 10, then at 1; the check replays exactly what was drawn
    env = environment(theorem("Proofs.t", "(x : ℝ)", "Real.exp (70 * x) - Real.exp (70 * x) = 0"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    specs = checker.input_specs({})
    plan, base = fin_plan(specs, 64), draw_key("Proofs.t", 0, {})
    with np.errstate(over="ignore"):
        ladder = [
            t
            for t in range(64)
            if trial_scales(specs, plan, [t], "float64")[0] == 1e3
            and not np.isfinite(np.exp(70 * sample_trial(specs, plan, base, t)["x"]))
        ]
        at_ten = {t: sample_trial(specs, plan, base, t, scale=10.0)["x"] for t in ladder}
        settles = {t: 10.0 if np.isfinite(np.exp(70 * x)) else 1.0 for t, x in at_ten.items()}
    assert 10.0 in settles.values() and 1.0 in settles.values()  # both rungs are taken
    result = check("Proofs.t", env)
    assert result.status == "pass", result.reason
    for t, scale in settles.items():
        replay = repro("Proofs.t", env, seed=0, dims={}, trial=t)
        drawn = sample_trial(specs, plan, base, t, scale=scale)
        np.testing.assert_array_equal(np.asarray(replay.inputs["x"]), drawn["x"])


def test_error_where_not_finite_at_unit_scale() -> None:
    # `+ 0` makes the right side another quantity than the left: evaluated exactly, two
    # intervals can never show an equation of such numbers true, so float64's overflow
    # stays an error (a side that is the left side itself would be decided: it holds)
    env = environment(
        theorem(
            "Proofs.t",
            "(x : ℝ)",
            "Real.exp (1000 * Real.exp x) = Real.exp (1000 * Real.exp x) + 0",
        )
    )
    result = check("Proofs.t", env)
    assert result.status == "error"
    assert "non-finite value" in result.reason
    assert "subterm Real.exp (1000 * Real.exp x)" in result.reason
    assert stress_scale(result.trial or 0, "float64") == 1.0


def test_redraw_strict_tie_absorbed_at_stress_scale() -> None:
    # 1 + e^-x is exactly 1 in float64 once x > 37, which scale 1e3 reaches: a tie of
    # a true strict inequality that float64 cannot separate there; at scale 1 it can
    env = environment(
        theorem("Proofs.lt", "(x : ℝ)", "1 / (1 + Real.exp (-x)) < 1"),
        theorem("Proofs.self", "(x : ℝ)", "1 / (1 + Real.exp (-x)) < 1 / (1 + Real.exp (-x))"),
    )
    result = check("Proofs.lt", env)
    assert result.status == "pass", result.reason
    assert result.rescaled_trials > 0
    assert result.tied_trials == 0
    # a tie at every scale is still evidence against `<`
    mutant = check("Proofs.self", env)
    assert mutant.status == "fail"
    assert mutant.tied_trials > 0


def test_decide_inequality_by_a_side_beyond_float_range() -> None:
    # e^(e^(x² + 7)) exceeds the largest float at every x: +inf is above any finite value
    env = environment(
        theorem("Proofs.below", "(x : ℝ)", "x ≤ Real.exp (Real.exp (x ^ 2 + 7)) - 1"),
        theorem("Proofs.above", "(x : ℝ)", "Real.exp (Real.exp (x ^ 2 + 7)) - 1 ≤ x"),
    )
    result = check("Proofs.below", env)
    assert result.status == "pass", result.reason
    # the other way round float64 does not decide it: an infinity on the side that would
    # break the inequality may be a spurious overflow of an intermediate; evaluated
    # exactly, with no exponent range to leave, the side is finite and above x: a fail,
    # confirmed (checkers/harness/confirming.py), not an error
    above = check("Proofs.above", env)
    assert above.status == "fail", above.reason
    assert "the counterexample is confirmed exactly" in above.reason
