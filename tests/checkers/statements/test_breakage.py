"""A checker that breaks is an `error`; a statement we lack semantics for is `unsupported`.

The dry run of a derived checker may refuse the statement (NotSupported,
EvalError: the evaluator's own refusals) or raise anything else, which is a
defect of the machinery and must surface as status 'error' with its reason.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.language.errors import NotSupported
from checkers.premises.holding import probe
from checkers.registry.environment import DerivationError
from checkers.statements.derive import DerivedChecker, derive

# the module, which the package's `derive` function shadows
derive_impl = importlib.import_module("checkers.statements.derive")


def _dry_run_raising(exc: Exception) -> Any:
    def dry_run(checker: Any) -> None:
        raise exc

    return dry_run


@pytest.mark.parametrize(
    "binders",
    [
        "(x : ℝ)",  # no ℕ argument: nothing to retry
        "(k : ℕ) (x : ℝ)",  # a ℕ argument: retried as a dimension, which breaks too
    ],
)
def test_report_checker_that_breaks_as_error(monkeypatch: pytest.MonkeyPatch, binders: str) -> None:
    monkeypatch.setattr(derive_impl, "dry_run", _dry_run_raising(TypeError("boom")))
    env = environment(theorem("Proofs.t", binders, "x + 0 = x"))
    derived = derive("Proofs.t", env)
    assert isinstance(derived, DerivationError)
    assert derived.reason == "the checker broke evaluating the statement: TypeError: boom"
    result = check("Proofs.t", env, trials=4)
    assert result.status == "error"
    assert result.reason == "the checker broke evaluating the statement: TypeError: boom"


def test_report_missing_semantics_as_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive_impl, "dry_run", _dry_run_raising(NotSupported("no way")))
    env = environment(theorem("Proofs.t", "(x : ℝ)", "x + 0 = x"))
    result = check("Proofs.t", env, trials=4)
    assert result.status == "unsupported"
    assert result.reason == "no way"


def test_count_hypotheses_of_statement_without_sampled_inputs() -> None:
    # `n` is a dimension: no input is sampled, yet each draw has its trials
    env = environment(theorem("Proofs.t", "{n : ℕ} (h : (n : ℝ) < 400)", "Real.sqrt (n : ℝ) < 20"))
    checker = derive("Proofs.t", env)
    assert isinstance(checker, DerivedChecker)
    assert not checker.plan.inputs
    counted = probe(checker)
    assert counted is not None
    assert counted.trials == 4 * 64 and counted.together == counted.trials


@pytest.mark.parametrize(
    "binders, statement, status",
    [
        ("{n : ℕ} (h : (n : ℝ) < 400)", "Real.sqrt (n : ℝ) < 20", "pass"),
        ("{n : ℕ} (h : (n : ℝ) < 400)", "Real.sqrt (n : ℝ) < 2", "fail"),
        (
            "(n : ℕ) (hn : (n : ℝ) ≤ (2 : ℝ) ^ (64 : ℕ))",
            "(n : ℝ) * ((2 : ℝ) ^ (150 : ℕ))⁻¹ ≤ ((2 : ℝ) ^ (86 : ℕ))⁻¹",
            "pass",
        ),
        (
            "(n : ℕ) (hn : (n : ℝ) ≤ (2 : ℝ) ^ (64 : ℕ))",
            "(n : ℝ) * ((2 : ℝ) ^ (2 : ℕ))⁻¹ ≤ ((2 : ℝ) ^ (4 : ℕ))⁻¹",
            "fail",
        ),
    ],
)
def test_check_hypothesis_on_dimensions_only(binders: str, statement: str, status: str) -> None:
    env = environment(theorem("Proofs.t", binders, statement))
    assert check("Proofs.t", env, trials=16, seed=0).status == status
