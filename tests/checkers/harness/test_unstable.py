"""A fail means the statement is false: failing float64 trials confirmed exactly
(checkers/harness/confirming.py), float artefacts counted as `unstable_trials` and replaced."""

from __future__ import annotations

import numpy as np
from derived_support import environment, theorem

from checkers import CheckResult, check, repro
from checkers.harness.evaluation import Session
from checkers.statements.derive import derive
from checkers.tolerance import tolerance_for

# Mathlib's `Real.log_rpow`: at x = 3, y = -746, 3 ^ -746 underflows to 0 in float64 and
# Lean's `Real.log 0 = 0` answers 0 against -820
LOG_RPOW = ("(x y : ℝ) (hx : 0 < x)", "Real.log (x ^ y) = y * Real.log x")
LOG_RPOW_FALSE = ("(x y : ℝ) (hx : 0 < x)", "Real.log (x ^ y) = (y + 1) * Real.log x")
# injectivity of the sigmoid: sigmoid 822 = sigmoid 1263 = 1.0 in float64
SIGMOID_INJ = (
    "(a b : ℝ) (ha : 0 < a) (hb : 0 < b) (h : 1 / (1 + Real.exp (-a)) = 1 / (1 + Real.exp (-b)))",
    "a = b",
)
# true in ℝ; its sides tie in float64 wherever |x| is above 1e-2
NEAR_TIE = ("(x : ℝ)", "x < x + 1 / 10 ^ 12")


def _env(binders_statement: tuple[str, str]):
    return environment(theorem("Proofs.t", *binders_statement))


def test_pass_where_failures_are_underflow_artefacts() -> None:
    result = check("Proofs.t", _env(LOG_RPOW))
    assert result.status == "pass", result.reason
    assert result.unstable_trials > 0
    assert f"{result.unstable_trials} trials unstable" in result.reason
    (draw,) = result.stats["per_draw"]
    assert draw["unstable_trials"] == result.unstable_trials
    assert draw["examined_trials"] >= result.unstable_trials and draw["confirm_s"] > 0
    data = result.to_json()
    assert data["unstable_trials"] == result.unstable_trials
    assert CheckResult.from_json(data).unstable_trials == result.unstable_trials


def test_fail_of_the_same_shape_is_confirmed() -> None:
    result = check("Proofs.t", _env(LOG_RPOW_FALSE))
    assert result.status == "fail", result.reason
    assert "the counterexample is confirmed exactly (lhs ≈" in result.reason
    assert result.unstable_trials == 0


def test_saturated_sigmoid_is_no_counterexample_to_injectivity() -> None:
    result = check("Proofs.t", _env(SIGMOID_INJ))
    assert result.status != "fail", result.reason
    assert result.unstable_trials > 0


def test_strict_inequality_at_near_ties_passes() -> None:
    # Mathlib's `Real.lt_log_one_add_of_pos`: the gap is about x³/12, inside float64's
    # tolerance for small x, where its sides tie and a strict inequality fails in float64
    mathlib = ("{x : ℝ} (hx : 0 < x)", "2 * x / (x + 2) < Real.log (1 + x)")
    result = check("Proofs.t", _env(mathlib))
    assert result.status == "pass", result.reason
    assert result.unstable_trials > 0


def test_near_tie_of_strict_inequality_is_not_a_fail() -> None:
    result = check("Proofs.t", _env(NEAR_TIE))
    # most trials tie; whether the few that do not are enough evidence for a pass
    # depends on the draws, a fail it never is
    assert result.status in ("pass", "unsupported"), result.reason
    assert result.unstable_trials > 0
    # an exact tie is still a counterexample to `<`
    assert check("Proofs.t", _env(("(x : ℝ)", "x < x"))).status == "fail"


def test_every_trial_unstable_is_not_a_pass() -> None:
    # e^x + 1 + 10^-30 is e^x + 1 in float64 at every x: every trial ties, every one is
    # unstable (exactly, the right side is above the left)
    tie = ("(x : ℝ)", "Real.exp x + 1 < Real.exp x + 1 + 1 / 10 ^ 30")
    result = check("Proofs.t", _env(tie), trials=8)
    assert result.status == "unsupported", result.reason
    assert result.reason.startswith("every trial was unstable")
    assert result.unstable_trials > 8


def test_overflowed_sides_decided_exactly_are_not_an_error() -> None:
    # float64 overflows on both sides; exactly the two sides are one quantity: it holds
    same = ("(x : ℝ)", "Real.exp (1000 * Real.exp x) = Real.exp (1000 * Real.exp x)")
    result = check("Proofs.t", _env(same))
    assert result.status == "pass", result.reason
    assert result.unstable_trials > 0


def test_repro_shows_float64_and_exact_values() -> None:
    env = _env(LOG_RPOW)
    checker = derive("Proofs.t", env)
    session = Session(checker, 64, 0, "float64", tolerance_for("float64", None))
    artefact = next(
        t
        for t in range(64)
        if abs(float(session.trial_values({}, t)[1][0]) - float(session.trial_values({}, t)[1][1]))
        > 1.0
    )
    replay = repro("Proofs.t", env, seed=0, dims={}, trial=artefact)
    assert replay.lhs_exact is not None and replay.rhs_exact is not None
    lhs, rhs = float(replay.lhs[0]), float(replay.rhs[0])
    exact_lhs, exact_rhs = float(replay.lhs_exact[0]), float(replay.rhs_exact[0])
    assert abs(lhs - rhs) > 1.0  # float64: the underflow artefact
    assert np.isclose(exact_lhs, exact_rhs, rtol=1e-12)  # exactly: the sides agree
    assert np.isclose(exact_rhs, rhs, rtol=1e-12)
    assert replay.exact.startswith("undecided at")
    data = replay.to_json()
    assert data["lhs_exact"] == replay.lhs_exact and data["exact"] == replay.exact
    # a confirmed counterexample replays as confirmed
    failing = check("Proofs.t", _env(LOG_RPOW_FALSE), shrink=False)
    again = repro("Proofs.t", _env(LOG_RPOW_FALSE), seed=0, dims=failing.dims, trial=failing.trial)
    assert again.exact.startswith("confirmed at 200 bits")


def test_exact_tie_of_equal_inputs_confirms_a_strict_mutant() -> None:
    # Real.exp_lt_exp with `x < y` weakened to `x ≤ y`: false at x = y, where the two
    # sides are one number however wide its interval
    weakened = ("(x y : ℝ) (h : x ≤ y)", "Real.exp x < Real.exp y")
    result = check("Proofs.t", _env(weakened))
    assert result.status == "fail", result.reason
    assert "the counterexample is confirmed exactly" in result.reason


def test_unstable_trials_summed_over_clauses() -> None:
    both = (LOG_RPOW[0], f"{LOG_RPOW[1]} ∧ Real.log (x ^ y) = Real.log x * y")
    result = check("Proofs.t", _env(both))
    assert result.status == "pass", result.reason
    per_clause = [part["unstable_trials"] for part in result.parts]
    assert len(per_clause) == 2 and all(n > 0 for n in per_clause)
    assert result.unstable_trials == sum(per_clause)


def test_replacement_trials_replay_bit_for_bit() -> None:
    # a trial drawn in place of an unstable one is evaluated in its own fixed batch, so that
    # trial_values (repro) gives exactly its values
    from checkers.harness.confirming import replacements

    checker = derive("Proofs.t", _env(LOG_RPOW))
    session = Session(checker, 20, 0, "float64", tolerance_for("float64", None))
    specs = session.specs({})
    progs = session.programs({}, specs)
    size = progs[0].batch
    rows, _ = replacements(session, specs, {}, progs, 20, 2 * size, size)
    assert list(rows.numbers) == list(range(20, 20 + 2 * size))
    for k, trial in enumerate(rows.numbers):
        inputs, outs = session.trial_values({}, int(trial))
        assert all(np.array_equal(inputs[n], rows.inputs[n][k]) for n in inputs)
        assert all(
            np.array_equal(o, r[k], equal_nan=True) for o, r in zip(outs, rows.outs, strict=True)
        )


def test_failures_beyond_the_examination_budget_decide_nothing() -> None:
    # 64 trials that all tie, and their replacements tie too: past 256 exact evaluations
    # the rest are not examined, and what was examined was no counterexample
    tie = ("(x : ℝ)", "Real.exp x + 1 < Real.exp x + 1 + 1 / 10 ^ 30")
    result = check("Proofs.t", _env(tie), draws=1)
    assert result.status == "unsupported", result.reason
    assert "before the examination budget ran out" in result.reason
    assert result.unstable_trials == result.stats["per_draw"][0]["examined_trials"] == 256
