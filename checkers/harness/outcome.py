"""What a check's dims draws add up to (see checkers/harness/check.py): a non-finite side is an
`error` naming it; no live trial is vacuous truth (or, where hypotheses held nowhere,
untested); trials that all hold are a `pass`, saying how many were vacuous, undecided,
tied or unstable; otherwise the worst failing trial is evaluated again, shrunk and
reported as the counterexample of a `fail`.

A draw's failing trials were confirmed exactly before they counted (checkers/harness/confirming.py):
a `fail` names its confirmed counterexample and the exact values of its sides, and a
shrunk counterexample is kept only if it is confirmed too (else the trial as drawn is
reported). Where the exact evaluation could not be done, the float64 `fail` stands and its
reason says the counterexample is unconfirmed. Draws whose every trial was unstable
decided nothing: like a check whose trials were all vacuous, that is `unsupported`, not
a pass. So is a check in which as many failing trials as were asked for stopped, when
evaluated exactly, at a comparison no precision decided (`branching_trials`): nothing
says they were artefacts, and the trials that replaced them are no pass."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checkers.harness.confirming import BUDGET_S, OUT_OF_BUDGET
from checkers.harness.evaluation import DrawOutcome, Session
from checkers.harness.reporting import format_dims, to_list
from checkers.harness.shrink import Failure, shrink
from checkers.harness.trials import CheckerFault
from checkers.harness.verdict import pass_notes
from checkers.result import CheckResult, Counterexample

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
    unstable = sum(r.unstable_trials for r in results)
    branching = sum(r.branching_trials for r in results)

    def done(status: str, reason: str, **fields: Any) -> CheckResult:
        return finish(status, reason, rescaled_trials=rescaled, **fields)

    max_abs = max((r.max_abs for r in live), default=None)
    max_rel = max((r.max_rel for r in live), default=None)
    errs = {
        "max_abs_err": max_abs,
        "max_rel_err": max_rel,
        "vacuous_trials": sum(r.vacuous_trials for r in results),
        "tied_trials": sum(r.tied_trials for r in live),
        "unstable_trials": unstable,
    }
    relation = session.relation()
    trials, seed, tol = session.trials, session.seed, session.tol

    broken = [r for r in live if r.nonfinite]
    # a confirmed counterexample at another draw decides the check: the statement is false
    if broken and all(r.confirmed_trial is None for r in live):
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
        f"; {rescaled} trial{'s' if rescaled != 1 else ''} re-drawn at a smaller "
        "scale (float64 could not represent them at their stress scale: their sides overflowed, "
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
        decided = next((r.decided for r in live if r.decided is not None), None)
        if decided is not None:  # a closed statement decided exactly (confirming.py)
            reason = f"{relation} holds, {decided.summary()} (the statement is closed)"
        if all(not r.evaluated for r in live):
            status = "unsupported"
            reason = (
                f"every trial was unstable ({unstable} failed in float64 but were no "
                "counterexample when evaluated exactly: they held, or no precision decided "
                f"them): no trial decided the statement{rescaled_note}"
            )
        elif all(r.vacuous_trials + r.undecided_trials >= r.evaluated for r in live):
            status, reason = "unsupported", "no trial decided the statement: " + reason
        elif branching >= trials * len(live):
            # as many failing trials as were asked for stopped at a branch no precision
            # decided: nothing says they were artefacts, so the trials left do not make a pass
            status = "unsupported"
            reason = (
                f"{branching} trials failed in float64 and their exact evaluation stopped at "
                "a comparison no precision decided (a branch of the program), as many as the "
                f"trials asked for: the check cannot tell artefacts from counterexamples; {reason}"
            )
        return done(
            status,
            reason,
            dims=dict(worst.dims),
            trial=worst.worst_trial,
            worst_index=list(worst.worst_index or ()),
            stats=draw_stats(session, results),
            **errs,
        )

    total = sum(r.evaluated for r in live)
    bad = sum(r.failing_trials for r in live)
    if all(r.confirmed_trial is None and r.unconfirmed == OUT_OF_BUDGET for r in failing):
        worst = max(failing, key=lambda r: r.worst_ratio)
        return done(
            "unsupported",
            f"{unstable} trials failed in float64 but were no counterexample when evaluated "
            f"exactly (left out), and {bad} more failing trials were not evaluated "
            "exactly before the examination budget ran out: no counterexample was "
            f"confirmed, and float64 cannot decide the statement{rescaled_note}",
            dims=dict(worst.dims),
            trial=worst.worst_trial,
            stats=draw_stats(session, results),
            **errs,
        )
    # a confirmed counterexample before any unconfirmed one
    worst = max(failing, key=lambda r: (r.confirmed_trial is not None, r.worst_ratio))
    assert worst.worst_trial is not None
    shrink_start = time.perf_counter()
    try:
        inputs, outs = session.trial_values(worst.dims, worst.worst_trial)
        failure = session.failure(worst.dims, worst.worst_trial, inputs, outs)
        nonfinite = failure is None and worst.confirmed_trial == worst.worst_trial
        if nonfinite:  # confirmed exactly where float64 gave no finite sides: not shrunk
            lhs, rhs = session.shown(outs)
            failure = Failure(
                dict(worst.dims), worst.worst_trial, inputs, lhs, rhs, (), float("inf")
            )
        if failure is None:  # the batch was re-evaluated; this cannot differ, but never lie
            raise CheckerFault("the failing trial did not fail again when re-evaluated")
        note = "the failing trial as drawn (a replay does not shrink)"
        shrunk_flag = False
        drawn, exact = failure, worst.exact
        if shrinking.enabled and not nonfinite:
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
            if shrunk_flag and worst.confirmed_trial is not None:
                shrunk_exact = _exact(session, failure)
                if shrunk_exact.confirmed:
                    exact = shrunk_exact
                else:
                    failure, shrunk_flag = drawn, False
                    note = "the failing trial as drawn (no shrunk trial was confirmed exactly)"
    except CheckerFault as e:
        return done("error", f"while shrinking a failure: {e}", dims=dict(worst.dims), **errs)
    shrink_s = time.perf_counter() - shrink_start
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
        f"{head} {_failing_draws(len(failing), len(live))} ({largest})"
        f"{_confirmation_note(worst, exact, unstable)}; "
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
        sum(r.evaluated for r in live),
        vacuous=sum(r.vacuous_trials for r in live),
        undecided=sum(r.undecided_trials for r in live),
        tied=sum(r.tied_trials for r in live),
        unstable=sum(r.unstable_trials for r in live),
        branching=sum(r.branching_trials for r in live),
        wanted=trials * len(live),
    )


def _exact(session: Session, failure: Failure) -> Any:
    """A (shrunk) counterexample evaluated exactly (checkers.confirm.Exact), within the
    examination budget of one draw."""
    specs = session.specs(failure.dims)
    deadline = time.perf_counter() + BUDGET_S
    return session.exact(failure.dims, specs, failure.inputs, failure.trial, deadline)


def _confirmation_note(worst: DrawOutcome, exact: Any, unstable: int) -> str:
    """What the exact evaluation said of the reported trial, as a '; '-led clause."""
    others = (
        f"; {unstable} other failing trial{'s' if unstable != 1 else ''} "
        f"{'were' if unstable != 1 else 'was'} no counterexample when evaluated exactly "
        "(left out and replaced)"
        if unstable
        else ""
    )
    if worst.confirmed_trial is not None and exact is not None:
        return f"; the counterexample is confirmed exactly ({exact.summary()}){others}"
    if not worst.unconfirmed:  # a low-precision check: it compares dtypes, not exactness
        return others
    return (
        f"; the counterexample is unconfirmed (not evaluated exactly: {worst.unconfirmed}){others}"
    )


def draw_stats(session: Session, draws: Sequence[DrawOutcome]) -> dict[str, Any]:
    return {
        **{k: round(v, 6) for k, v in session.totals.items()},
        "programs_compiled": session.compiled,
        "programs_loaded": session.loaded,
        "programs_interpreted": session.interpreted,
        "per_draw": [d.stats() for d in draws],
    }
