"""Hypotheses evaluated per trial: vacuous trials are counted, never silent evidence."""

from __future__ import annotations

import jax
import numpy as np
from derived_support import environment, theorem

from checkers import check
from checkers.core import Unsupported
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive

DISTINCT = theorem(
    "Proofs.t",
    "{n : ℕ} (i j : Fin n) (hij : i ≠ j) (v : Vec n)",
    "v i - v j = -(v j - v i)",
)


def test_refuse_statement_whose_hypothesis_never_holds() -> None:
    # no draw meets it: float64 has no x with x * x = 3 (boundary trials draw 0 and ±1)
    env = environment(theorem("Proofs.t", "(x y : ℝ) (h : x * x = 3)", "x - y = 0"))
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert result.reason == (
        "the hypothesis `h : x * x = 3` held in none of the 64 trials sampled at seed 0 "
        "over 1 dims draw: every check would pass vacuously"
    )
    assert check("Proofs.t", env).status == "unsupported"


def test_refuse_statement_whose_hypotheses_never_hold_together() -> None:
    env = environment(
        theorem("Proofs.t", "(x y : ℝ) (h₁ : 1 < x) (h₂ : x < -1)", "x = y"),
    )
    result = derive("Proofs.t", env)
    assert isinstance(result, Unsupported)
    assert "never held together" in result.reason
    assert "`h₁ : 1 < x`" in result.reason and "`h₂ : x < -1`" in result.reason


def test_report_how_often_hypothesis_held() -> None:
    checker = derive("Proofs.t", environment(DISTINCT))
    assert isinstance(checker, DerivedChecker)
    assert checker.premises == ("hij : i ≠ j",)
    (note,) = [a for a in checker.assumptions if "hij" in a]
    held = int(note.split(" held in ")[1].split(" of ")[0])
    assert 0 < held < 256
    assert note.endswith("of the 256 trials sampled at seed 0 over 4 dims draws; "
                         "trials where it fails hold vacuously")  # fmt: skip


def test_build_premise_marks_vacuous_trials() -> None:
    checker = derive("Proofs.t", environment(DISTINCT))
    assert isinstance(checker, DerivedChecker)
    holds = checker.build_premise({"n": 3}, np.float64)
    assert holds is not None
    batch = {
        "i": np.array([0, 1, 2, 2]),
        "j": np.array([1, 1, 0, 2]),
        "v": np.zeros((4, 3)),
    }
    out = jax.jit(jax.vmap(holds))(batch)
    assert out.tolist() == [True, False, True, False]
    # a bound the sampler meets is still evaluated per trial, so a value that misses it
    # (a shrunk or replayed input, a bound that could not be met) is vacuous, not evidence
    plain = derive("Proofs.t", environment(theorem("Proofs.t", "(x : ℝ) (h : 0 < x)", "x = x")))
    assert isinstance(plain, DerivedChecker)
    bound = plain.build_premise({}, np.float64)
    assert bound is not None
    assert jax.vmap(bound)({"x": np.array([1.0, 0.0, -2.0])}).tolist() == [True, False, False]


def test_pass_with_some_vacuous_trials() -> None:
    result = check("Proofs.t", environment(DISTINCT), trials=64, seed=0)
    assert result.status == "pass", result.reason
    assert any("hij" in a for a in result.assumptions)


def test_refuse_run_whose_every_trial_is_vacuous() -> None:
    # at n = 1, i ≠ j holds for no i, j: every trial compares 0 = 0
    result = check("Proofs.t", environment(DISTINCT), dims={"n": 1})
    assert result.status == "unsupported"
    assert "held in none of the 64 trials" in result.reason


def test_count_vacuous_trials_in_pass_reason() -> None:
    result = check("Proofs.t", environment(DISTINCT), trials=64, seed=0)
    assert result.status == "pass", result.reason
    assert "trials vacuous (a hypothesis failed" in result.reason
