"""The harness: runs a checker over dims draws and trials and writes the result record.

Comparison (checkers/tolerance.py). The checker's `relation` (`=`, `≤`, `<`, `≥`,
`>`, `≠`; '=' when it has none) is decided elementwise at the scale of the
values: within atol + rtol * max(|lhs|, |rhs|, scale), where `scale` is the
largest operand of an addition the trial evaluated (derived checkers, see
checkers/language/measure.py). A tie within that tolerance fails `<`, `>`, `≠`
(unless a value underflowed: undecided) and holds `≤` and `≥`; the result
counts `tied_trials` and `vacuous_trials`. float32 / bfloat16: the real inputs
are rounded to the dtype, both sides are evaluated in the dtype and in float64
from those same rounded inputs, and the relation must hold between each side in
the dtype and the *other* side's float64 reference (so a false statement fails
in every mode, and a side that loses precision fails too). A NaN or
infinity in any side is an 'error' naming the subterm (`locate_nonfinite`),
never a pass.

A fail means the statement is false (checkers/harness/confirming.py): in float64 a failing
trial, or one whose sides are not finite, is evaluated again exactly at its inputs;
only a confirmed counterexample fails the check, and a float artefact is counted in
`unstable_trials` and replaced by a fresh trial. Where it decides the statement, the
exact evaluation also settles a non-finite trial (a fail, or no error at all).

Reproducibility. Dims draws come from (name, seed, pinned dims); every trial's
inputs from (name, seed, dims, trial) (see `sampling`). Trials are evaluated in
fixed batches of consecutive trial numbers, and `repro` re-evaluates the very
batch a trial was part of, so it returns bit-identical sides.

Speed: see `batches` (one compiled program per checker, dims, dtype; the
programs of all dims draws are traced first, the largest draw first, and compiled
in parallel, and loaded from the program store when the persistent cache is on).
A draw at which the statement cannot be evaluated (the evaluator's limits) makes
the check `unsupported` before anything is compiled.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from checkers.core import Checker, Unsupported
from checkers.harness.crosscheck import SET_ASIDE, settle
from checkers.harness.evaluation import DrawOutcome, Session
from checkers.harness.interpreted import drop_dry_runs
from checkers.harness.outcome import Shrinking, conclude, draw_stats
from checkers.harness.reporting import explain
from checkers.harness.trials import BeyondChecker, CheckerFault
from checkers.inputs.dims import DimsError, draw_dims
from checkers.registry.binding import StatementMismatch
from checkers.registry.environment import DerivationError, Environment
from checkers.result import CheckResult
from checkers.runtime.jaxsetup import bound_trace_cache, device_name, release_abandoned_traces
from checkers.runtime.memory import on_one_stack_chunk
from checkers.tolerance import DTYPES, tolerance_for

DEFAULT_TRIALS = 64
DEFAULT_DRAWS = 4
SHRINK_BUDGET_S = 60.0


# --- public entry points -------------------------------------------------------


def _check_args(trials: int, seed: int, dtype: str, draws: int | None) -> None:
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be a positive int, got {trials!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {seed!r}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if draws is not None and (isinstance(draws, bool) or not isinstance(draws, int) or draws < 1):
        raise ValueError(f"draws must be a positive int, got {draws!r}")


def _check_dims(dims: Mapping[str, int] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in (dims or {}).items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"dimension {k} must be a non-negative int, got {v!r}")
        out[str(k)] = v
    return out


def run_checker(
    checker: Checker,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    dtype: str = "float64",
    dims: Mapping[str, int] | None = None,
    draws: int | None = None,
    shrink_failures: bool = True,
    shrink_budget_s: float = SHRINK_BUDGET_S,
) -> CheckResult:
    """Check one checker object (registered or derived) and return its result record.

    Raises ValueError for bad arguments; every problem of the checker itself
    becomes status 'error' with the reason.
    """
    _check_args(trials, seed, dtype, draws)
    pins = _check_dims(dims)
    start = time.perf_counter()
    try:
        whole = getattr(checker, "run_whole", None)
        if callable(whole):  # a whole check (prose, a conjunction): not trial by trial
            opts = {"draws": draws, "shrink_failures": shrink_failures, "dims": pins}
            return cast(CheckResult, whole(trials=trials, seed=seed, dtype=dtype, **opts))
        return _run(checker, trials, seed, dtype, pins, draws, shrink_failures, shrink_budget_s)
    except Exception as e:  # a checker broke in a way no phase anticipated: still a result
        return CheckResult(
            name=str(getattr(checker, "name", "?")),
            status="error",
            checker="registered" if getattr(checker, "kind", "") == "registered" else "derived",
            reason=f"the check failed unexpectedly: {explain(e)}",
            trials=trials,
            seed=seed,
            dtype=dtype,
            duration_s=round(time.perf_counter() - start, 6),
            device=device_name(),
        )


def _run(
    checker: Checker,
    trials: int,
    seed: int,
    dtype: str,
    pins: dict[str, int],
    draws: int | None,
    shrink_failures: bool,
    shrink_budget_s: float,
) -> CheckResult:
    start = time.perf_counter()
    kind = getattr(checker, "kind", "derived")
    common: dict[str, Any] = {
        "name": checker.name,
        "checker": kind if kind in ("registered", "derived") else "derived",
        "trials": trials,
        "seed": seed,
        "dtype": dtype,
        "device": device_name(),
        "assumptions": tuple(getattr(checker, "assumptions", ()) or ()),
        "dependencies": tuple(getattr(checker, "dependencies", ()) or ()),
        "version": str(getattr(checker, "version", "")),
    }

    def finish(status: str, reason: str, **fields: Any) -> CheckResult:
        fields.setdefault("duration_s", round(time.perf_counter() - start, 6))
        return CheckResult(status=status, reason=reason, **common, **fields)

    supported = tuple(getattr(checker, "dtypes", DTYPES) or DTYPES)
    if dtype not in supported:
        return finish("unsupported", f"this checker supports {', '.join(supported)}, not {dtype}")
    try:
        tol = tolerance_for(dtype, getattr(checker, "tolerance", None))
    except Exception as e:
        return finish("error", f"invalid tolerance override: {explain(e)}")
    common.update(atol=tol.atol, rtol=tol.rtol)
    session = Session(checker, trials, seed, dtype, tol)
    fixed = dict(getattr(checker, "fixed_dims", {}) or {})
    dim_names = tuple(checker.dim_names)
    lows = dict(getattr(checker, "dim_lows", {}) or {})
    try:
        constraints = tuple(checker.dim_constraints())
    except Exception as e:
        return finish("error", f"dim_constraints failed: {explain(e)}")
    try:
        chosen = draw_dims(
            checker.name,
            seed,
            dim_names,
            fixed=fixed,
            pinned=pins,
            constraints=constraints,
            draws=draws or DEFAULT_DRAWS,
            lows=lows,
        )
    except DimsError as e:
        return finish("error", str(e))
    common["draws"] = chosen

    results: list[DrawOutcome] = []
    # every draw traced now, then compiled in the background; a draw that cannot be
    # built decides the check before anything is compiled
    fault = session.prepare(chosen)
    if fault is not None:
        at, why = fault
        status = "unsupported" if isinstance(why, BeyondChecker) else "error"
        return finish(status, str(why), dims=at, stats=draw_stats(session, results))
    try:
        for d in chosen:
            results.append(session.run_draw(d))
    except BeyondChecker as e:
        return finish("unsupported", str(e), dims=dict(d), stats=draw_stats(session, results))
    except CheckerFault as e:
        return finish("error", str(e), dims=dict(d), stats=draw_stats(session, results))

    return conclude(
        session,
        results,
        finish,
        Shrinking(
            enabled=shrink_failures,
            free=tuple(d for d in dim_names if d not in fixed and d not in pins),
            constraints=constraints,
            lows=lows,
            budget_s=shrink_budget_s,
        ),
    )


def _not_checked(
    name: str, target: Unsupported, trials: int, seed: int, dtype: str, derive_s: float = 0.0
) -> CheckResult:
    broken = isinstance(target, DerivationError)  # deriving raised: the machinery broke
    status, checker = ("error", "derived") if broken else ("unsupported", "none")
    reason = target.reason
    if isinstance(target, StatementMismatch):  # written for another statement
        status, checker, reason = "error", "registered", f"{SET_ASIDE}: {reason}"
    return CheckResult(
        name=name,
        status=status,
        checker=checker,
        reason=reason,
        trials=trials,
        seed=seed,
        dtype=dtype,
        duration_s=round(derive_s, 6),
        device=device_name(),
        stats={"derive_s": round(derive_s, 6)},
    )


def check(
    name: str,
    env: Environment,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    dtype: str = "float64",
    dims: Mapping[str, int] | None = None,
    draws: int | None = None,
    shrink: bool = True,
    prefer: str = "registered",
) -> CheckResult:
    """Check one theorem of `env` (see CHECKERS_API / CONTRACT.md).

    A registered checker answers only for the statement it was written for,
    and is checked against the derived twin (`checkers.harness.crosscheck`); with
    prefer='derived' only the derived checker runs. Never raises for a checker
    problem (status 'error' with the reason); raises ValueError for bad
    arguments and UnknownTheorem for a name that is neither declared nor
    registered.
    """
    _check_args(trials, seed, dtype, draws)
    try:
        return on_one_stack_chunk(
            _check, name, env, trials, seed, dtype, dims, draws, shrink, prefer
        )
    finally:
        bound_trace_cache()  # what JAX traced for this theorem is seldom needed again
        release_abandoned_traces()  # nor what an exception ended
        drop_dry_runs(name)  # one this check did not run (another seed) never will be


def _check(
    name: str,
    env: Environment,
    trials: int,
    seed: int,
    dtype: str,
    dims: Mapping[str, int] | None,
    draws: int | None,
    shrink: bool,
    prefer: str,
) -> CheckResult:
    target = env.resolve(name, prefer=prefer)
    derive_s = env.derive_seconds(name, prefer=prefer)
    if isinstance(target, Unsupported):
        return _not_checked(name, target, trials, seed, dtype, derive_s)

    def run(checker: Checker, shrink_failures: bool) -> CheckResult:
        return run_checker(
            checker,
            trials=trials,
            seed=seed,
            dtype=dtype,
            dims=dims,
            draws=draws,
            shrink_failures=shrink_failures,
        )

    result = run(target, shrink) if prefer == "derived" else settle(name, env, target, run, shrink)
    # duration_s covers deriving the checker and checking it; stats says how it splits
    return replace(
        result,
        duration_s=round(result.duration_s + derive_s, 6),
        stats={**result.stats, "derive_s": round(derive_s, 6)},
    )
