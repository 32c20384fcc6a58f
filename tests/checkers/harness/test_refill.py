"""Vacuous trials replaced by fresh ones (checkers/harness/refill.py): a check's trials are
evidence where its hypotheses held, up to four times the trials asked for."""

from __future__ import annotations

import numpy as np
from derived_support import environment, theorem

from checkers import check, repro
from checkers.harness.confirming import Rows, replacements
from checkers.harness.evaluation import Session
from checkers.harness.refill import FACTOR, refill
from checkers.statements.derive import derive
from checkers.tolerance import tolerance_for

# sin x > 1/2 holds in about a fifth of the trials (never at the tiny scales)
RARE = ("(x : ℝ) (h : Real.sin x > 1 / 2)", "Real.sin x > 0")
# false where 7/10 < sin x ≤ 8/10: a fifth of the trials whose hypothesis holds
RARE_FALSE = ("(x : ℝ) (h : Real.sin x > 7 / 10)", "Real.sin x > 8 / 10")


def _env(binders_statement: tuple[str, str]):
    return environment(theorem("Proofs.t", *binders_statement))


def _draw(result) -> dict:
    (draw,) = result.stats["per_draw"]
    return draw


def test_vacuous_trials_are_replaced_and_still_counted() -> None:
    result = check("Proofs.t", _env(RARE), trials=16, seed=0)
    assert result.status == "pass", result.reason
    draw = _draw(result)
    drawn = draw["trials"]
    assert 16 < drawn <= FACTOR * 16
    assert draw["refilled_trials"] == drawn - 16
    held = drawn - draw["vacuous_trials"]
    # as many held as were asked for, or the cap on trials drawn was reached
    assert held >= 16 or drawn == FACTOR * 16
    assert result.vacuous_trials == draw["vacuous_trials"]
    assert f"{result.vacuous_trials} of {drawn} trials vacuous" in result.reason
    assert "fresh trials drawn in their place" in result.reason


def test_a_false_statement_seen_only_in_a_fresh_trial_fails_and_replays() -> None:
    env = _env(RARE_FALSE)
    result = check("Proofs.t", env, trials=16, seed=1, shrink=False)
    assert result.status == "fail", result.reason
    assert result.trial is not None and result.trial >= 16  # a trial drawn for a vacuous one
    assert "the counterexample is confirmed exactly" in result.reason
    # its inputs and sides come back bit for bit from its fixed batch
    replay = repro("Proofs.t", env, seed=1, dims={}, trial=result.trial, trials=16)
    assert replay.result.status == "fail"
    ce = result.counterexample
    assert ce is not None
    assert np.array_equal(np.asarray(replay.inputs["x"]), np.asarray(ce.inputs["x"]))
    assert float(np.asarray(replay.lhs).reshape(-1)[0]) <= 8 / 10


def test_a_draw_whose_every_trial_is_vacuous_is_not_refilled() -> None:
    # the hypothesis probe refuses such a statement before any draw (held in none)
    result = check("Proofs.t", _env(("(x : ℝ) (h : x ≠ x)", "x > 0")), trials=16)
    assert result.status == "unsupported", result.reason
    assert "held in none" in result.reason
    # and a draw whose rows held nowhere draws nothing more: its hypotheses may hold nowhere
    # at those dims
    checker = derive("Proofs.t", _env(RARE))
    session = Session(checker, 16, 0, "float64", tolerance_for("float64", None))
    specs = session.specs({})
    progs = session.programs({}, specs)
    size = progs[0].batch
    rows, _ = replacements(session, specs, {}, progs, 0, 16, size)
    assert rows.held is not None
    nowhere = Rows(rows.outs, rows.inputs, np.zeros(16, bool), rows.numbers)
    assert refill(session, specs, {}, progs, nowhere, size) == (nowhere, 0)
    # the same rows with one trial held are refilled
    one = Rows(rows.outs, rows.inputs, np.arange(16) == 3, rows.numbers)
    more, _ = refill(session, specs, {}, progs, one, size)
    assert len(more) > 16


def test_a_draw_without_vacuous_trials_draws_no_more() -> None:
    result = check("Proofs.t", _env(("(x : ℝ)", "Real.sin x ≤ 1")), trials=16)
    assert result.status == "pass", result.reason
    draw = _draw(result)
    assert draw["trials"] == 16 and "refilled_trials" not in draw


def test_a_draw_with_few_vacuous_trials_is_left_as_it_is() -> None:
    # sin x > -9/10 holds in most trials: the few vacuous ones cost no extra batch
    result = check("Proofs.t", _env(("(x : ℝ) (h : Real.sin x > -9 / 10)", "Real.sin x < 2")))
    assert result.status == "pass", result.reason
    for draw in result.stats["per_draw"]:
        assert "refilled_trials" not in draw
    assert result.vacuous_trials > 0
    assert "fresh trials drawn in their place" not in result.reason


def test_fresh_trials_fill_whole_batches() -> None:
    result = check("Proofs.t", _env(RARE), trials=16, seed=0)
    draw = _draw(result)
    assert draw["trials"] % 16 == 0  # every trial of each batch evaluated is kept
