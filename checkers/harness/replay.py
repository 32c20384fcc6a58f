"""Replaying one trial of a check: its inputs and both sides, bit-identical to the check.

`repro` reruns the check at exactly the recorded dims (one draw) and re-evaluates the
very batch the trial was part of (see `harness` on reproducibility), or evaluates a
stored (shrunk) counterexample's inputs at its dims. A float64 replay shows beside the
float64 sides the same trial evaluated exactly (checkers/confirm), and what that says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from checkers.core import REAL, Unsupported
from checkers.harness.check import (
    DEFAULT_TRIALS,
    _check_args,
    _check_dims,
    _not_checked,
    run_checker,
)
from checkers.harness.evaluation import Session
from checkers.harness.reporting import to_list
from checkers.harness.trials import CheckerFault
from checkers.registry.environment import Environment
from checkers.result import Counterexample, Repro
from checkers.tolerance import tolerance_for

__all__ = ["repro"]


def _clause_to_replay(
    checker: Any, *, trials: int, seed: int, dtype: str, dims: Mapping[str, int]
) -> tuple[Any, str]:
    """The clause of a statement of several clauses (or the statement at one modelled type,
    checkers/language/instances.py) whose trial a replay shows: the one the whole check
    reports (the first that errs or fails, else the largest error), and how its result
    names it (`R := ℤ`). Each samples as the whole check does (its name and seed)."""
    whole = run_checker(
        checker, trials=trials, seed=seed, dtype=dtype, dims=dims, draws=1, shrink_failures=False
    )
    rows = whole.parts or []
    k = next(
        (i for s in ("error", "fail") for i, row in enumerate(rows) if row.get("status") == s),
        None,
    )
    if k is None:
        k = max(range(len(rows)), key=lambda i: rows[i].get("max_abs_err") or 0.0, default=0)
    return checker.clauses[k], checker.part_name(k)


def repro(
    name: str,
    env: Environment,
    *,
    seed: int,
    dims: Mapping[str, int],
    trial: int | None = None,
    trials: int = DEFAULT_TRIALS,
    dtype: str = "float64",
    counterexample: Counterexample | None = None,
    prefer: str = "registered",
) -> Repro:
    """Replay one trial: the check at exactly `dims`, plus that trial's inputs and sides.

    `trial` None replays the check's worst (or failing) trial. With
    `counterexample`, its stored inputs (possibly simplified by shrinking) are
    evaluated at its dims instead of a sampled trial. `trials` must be the
    count of the recorded check: it decides the batches and the `Fin`
    enumeration. Of a statement of several clauses, the clause the check reports
    is replayed (the result's reason names it).
    """
    _check_args(trials, seed, dtype, None)
    target = env.resolve(name, prefer=prefer)
    if isinstance(target, Unsupported):
        return Repro(_not_checked(name, target, trials, seed, dtype), {}, [], [])
    pins = dict(counterexample.dims) if counterexample is not None else _check_dims(dims)
    clause = ""
    if getattr(target, "clauses", None):  # a statement of several clauses: replay one
        target, clause = _clause_to_replay(target, trials=trials, seed=seed, dtype=dtype, dims=pins)
    if callable(getattr(target, "run_whole", None)):
        whole = run_checker(target, trials=trials, seed=seed, dtype=dtype, dims=pins)
        why = "a whole check has no trial to replay alone: `check` at this seed reruns it"
        return Repro(whole, {}, [], [], dims=dict(whole.dims), error=why)
    result = run_checker(
        target, trials=trials, seed=seed, dtype=dtype, dims=pins, draws=1, shrink_failures=False
    )
    if clause:
        result = replace(result, reason=f"{clause}: {result.reason}")
    if result.status == "unsupported" or not result.draws:  # no draw: nothing to replay
        return Repro(result, {}, [], [])
    try:
        tol = tolerance_for(dtype, getattr(target, "tolerance", None))
    except Exception:
        return Repro(result, {}, [], [])
    session = Session(target, trials, seed, dtype, tol)
    at = dict(result.dims)
    try:
        if counterexample is not None:
            specs = session.specs(at)
            inputs = {
                n: np.asarray(
                    counterexample.inputs[n], dtype=np.float64 if s.kind == REAL else np.int64
                ).reshape(s.shape)
                for n, s in specs.items()
            }
            outs = session.evaluate_inputs(at, [inputs])[0]
            chosen = counterexample.trial
        else:
            chosen = trial if trial is not None else (result.trial or 0)
            inputs, outs = session.trial_values(at, chosen)
    except (CheckerFault, KeyError, ValueError) as e:
        return Repro(result, {}, [], [], trial=trial, dims=at, error=str(e))
    lhs, rhs = session.shown(outs)
    low = dtype != "float64"
    exact = None if low else session.exact(at, session.specs(at), inputs, chosen)
    lhs_exact, rhs_exact = exact.side_texts() if exact is not None else (None, None)
    return Repro(
        result,
        {k: to_list(v) for k, v in inputs.items()},
        to_list(lhs),
        to_list(rhs),
        trial=chosen,
        dims=at,
        lhs_reference=to_list(outs[2]) if low else None,
        rhs_reference=to_list(outs[3]) if low else None,
        lhs_exact=lhs_exact if exact is not None and exact.lhs is not None else None,
        rhs_exact=rhs_exact if exact is not None and exact.rhs is not None else None,
        exact="" if exact is None else exact.describe(),
    )
