"""What a check's dims draws add up to (see checkers/harness.py): a non-finite side is an
`error` naming it; no live trial is vacuous truth (or, where hypotheses held nowhere,
untested); trials that all hold are a `pass`, saying how many were vacuous, undecided or
tied; otherwise the worst failing trial is evaluated again, shrunk and reported as the
counterexample of a `fail`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checkers.evaluation import DrawOutcome, Session, format_dims, to_list
from checkers.result import CheckResult, Counterexample
from checkers.shrink import shrink
from checkers.trials import CheckerFault
from checkers.verdict import pass_notes

__all__ = ["Shrinking", "conclude", "draw_stats"]

# `finish(status, reason, **fields)`: the result record with the check's common fields
Finish = Callable[..., CheckResult]


@dataclass(frozen=True)
class Shrinking:
    """How a failure is shrunk: whether at all, the dims it may change, their
    constraints and lower bounds, and the seconds it may take."""

    enabled: bool
    free: tuple[str, ...]
    constraints: tuple[Any, ...]
    lows: Mapping[str, int]
    budget_s: float


def _each_draw(draws: int) -> str:
    """`each of 4 dims draws`, or `1 dims draw`."""
    return f"each of {draws} dims draws" if draws > 1 else f"{draws} dims draw"


def _failing_draws(failing: int, draws: int) -> str:
    """`in 2 of 4 dims draws`, or `at 1 dims draw`."""
    return f"in {failing} of {draws} dims draws" if draws > 1 else f"at {draws} dims draw"


def conclude(
    session: Session, results: Sequence[DrawOutcome], finish: Finish, shrinking: Shrinking
) -> CheckResult:
    """The result of a check whose draws all ran (`results`, in draw order)."""
    live = [r for r in results if not r.vacuous]
    rescaled = sum(r.rescaled_trials for r in results)

    def done(status: str, reason: str, **fields: Any) -> CheckResult:
        return finish(status, reason, rescaled_trials=rescaled, **fields)

    max_abs = max((r.max_abs for r in live), default=None)
    max_rel = max((r.max_rel for r in live), default=None)
    errs = {
        "max_abs_err": max_abs,
        "max_rel_err": max_rel,
        "vacuous_trials": sum(r.vacuous_trials for r in results),
        "tied_trials": sum(r.tied_trials for r in live),
    }
    relation = session.relation()
    trials, seed, tol = session.trials, session.seed, session.tol

    broken = [r for r in live if r.nonfinite]
    if broken:
        r = broken[0]
        assert r.nonfinite_trial is not None
        try:
            inputs, outs = session.trial_values(r.dims, r.nonfinite_trial)
            lhs, rhs = session.shown(outs)
            ce: Counterexample | None = Counterexample(
                dict(r.dims),
                seed,
                r.nonfinite_trial,
                {k: to_list(v) for k, v in inputs.items()},
                to_list(lhs),
                to_list(rhs),
                worst_index=list(r.nonfinite_index or ()),
            )
        except CheckerFault:
            ce = None
        return done(
            "error",
            r.nonfinite or "non-finite value",
            dims=dict(r.dims),
            trial=r.nonfinite_trial,
            worst_index=list(r.nonfinite_index or ()),
            counterexample=ce,
            stats=draw_stats(session, results),
            **errs,
        )
    if not live:
        # no possible input (an empty `Fin`) is vacuous truth; hypotheses that held in
        # none of the sampled trials leave the statement untested
        untested = any(r.premise_failed for r in results)
        return done(
            "unsupported" if untested else "pass",
            ("every trial is vacuous: " if untested else "vacuously true: ")
            + "; ".join(r.vacuous or "" for r in results),
            dims=dict(results[0].dims),
            stats=draw_stats(session, results),
            **errs,
        )
    rescaled_note = (
        f"; {rescaled} trial{'s' if rescaled != 1 else ''} re-drawn at scale 1 "
        "(float64 could not represent them at their stress scale: their sides overflowed, "
        "or a strict inequality's sides were rounded into a tie)"
        if rescaled
        else ""
    )
    failing = [r for r in live if r.failing_trials]
    if not failing:
        worst = max(live, key=lambda r: r.worst_ratio)
        held = "agree" if relation == "=" else f"satisfy {relation}"
        reason = (
            f"{trials} trials at {_each_draw(len(live))} "
            f"{held} within atol={tol.atol:g}, rtol={tol.rtol:g}{_pass_notes(live, trials)}"
            f"{rescaled_note}"
        )
        status = "pass"
        if all(r.vacuous_trials + r.undecided_trials >= r.evaluated for r in live):
            status, reason = "unsupported", "no trial decided the statement: " + reason
        return done(
            status,
            reason,
            dims=dict(worst.dims),
            trial=worst.worst_trial,
            worst_index=list(worst.worst_index or ()),
            stats=draw_stats(session, results),
            **errs,
        )

    worst = max(failing, key=lambda r: r.worst_ratio)
    assert worst.worst_trial is not None
    shrink_start = time.perf_counter()
    try:
        inputs, outs = session.trial_values(worst.dims, worst.worst_trial)
        failure = session.failure(worst.dims, worst.worst_trial, inputs, outs)
        if failure is None:  # the batch was re-evaluated; this cannot differ, but never lie
            raise CheckerFault("the failing trial did not fail again when re-evaluated")
        note = "the failing trial as drawn (a replay does not shrink)"
        shrunk_flag = False
        if shrinking.enabled:
            outcome = shrink(
                session,
                failure,
                free=list(shrinking.free),
                constraints=shrinking.constraints,
                budget_s=shrinking.budget_s,
                lows=dict(shrinking.lows),
            )
            failure, note, shrunk_flag = outcome.failure, outcome.note, outcome.shrunk
            if outcome.inputs_simplified:
                # the stored sides are those of these inputs evaluated alone, exactly as
                # repro(counterexample=...) will evaluate them
                outs = session.evaluate_inputs(failure.dims, [failure.inputs])[0]
                alone = session.failure(failure.dims, failure.trial, failure.inputs, outs)
                failure = alone or failure
    except CheckerFault as e:
        return done("error", f"while shrinking a failure: {e}", dims=dict(worst.dims), **errs)
    shrink_s = time.perf_counter() - shrink_start
    total = sum(r.evaluated for r in live)
    bad = sum(r.failing_trials for r in live)
    ce = Counterexample(
        dict(failure.dims),
        seed,
        failure.trial,
        {k: to_list(v) for k, v in failure.inputs.items()},
        to_list(failure.lhs),
        to_list(failure.rhs),
        shrunk=shrunk_flag,
        note=note,
        worst_index=list(failure.worst_index),
    )
    if relation == "=":
        head = f"{bad} of {total} trials outside atol={tol.atol:g}, rtol={tol.rtol:g}"
        largest = f"largest |lhs - rhs| {max_abs:.3g}"
    else:
        head = f"{bad} of {total} trials violate {relation} (atol={tol.atol:g}, rtol={tol.rtol:g})"
        largest = f"largest excess {max_abs:.3g}"
    tied = sum(r.tied_trials - r.undecided_trials for r in failing)
    if relation in ("<", ">", "≠") and tied:
        largest += (
            f"; {tied} of the trials tie (the sides agree within the tolerance, which "
            f"{relation} excludes)"
        )
    reason = (
        f"{head} {_failing_draws(len(failing), len(live))} ({largest}); "
        f"counterexample at {format_dims(failure.dims)}, trial {failure.trial}: {note}"
        f"{rescaled_note}"
    )
    return done(
        "fail",
        reason,
        dims=dict(failure.dims),
        trial=failure.trial,
        worst_index=list(failure.worst_index),
        counterexample=ce,
        stats={**draw_stats(session, results), "shrink_s": round(shrink_s, 6)},
        **errs,
    )


def _pass_notes(live: Sequence[DrawOutcome], trials: int) -> str:
    return pass_notes(
        trials * len(live),
        vacuous=sum(r.vacuous_trials for r in live),
        undecided=sum(r.undecided_trials for r in live),
        tied=sum(r.tied_trials for r in live),
    )


def draw_stats(session: Session, draws: Sequence[DrawOutcome]) -> dict[str, Any]:
    return {
        **{k: round(v, 6) for k, v in session.totals.items()},
        "programs_compiled": session.compiled,
        "programs_loaded": session.loaded,
        "programs_interpreted": session.interpreted,
        "per_draw": [d.stats() for d in draws],
    }
