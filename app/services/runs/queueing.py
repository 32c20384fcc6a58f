"""Queueing a check run: what `POST /runs` and the webhooks share.

`queue_run` runs inside the caller's transaction (`run_in_transaction`): it takes the
runs' write lock (unless the caller already holds it), answers an idempotency key used
before with that key's run, refuses names that cannot be checked, and creates and plans
the run. The caller hands the run to the workers once the transaction has committed.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app import crud, models
from app.db import lock_for_writing
from app.services.reading import queries
from app.services.runs.checks import CheckParams, build_environment, check_pinned_dims, load_backend
from app.services.runs.checks import create_run as create_check_run
from app.services.runs.lifecycle import plan_run
from app.services.runs.warm import WarmEnvironment
from app.settings import Settings

__all__ = ["RUNS_LOCK", "IdempotencyConflict", "UncheckableNames", "lock_runs", "queue_run"]

RUNS_LOCK = "proofbridge.runs"


class IdempotencyConflict(Exception):
    """The idempotency key was used for a run whose request differs from this one."""

    def __init__(self, key: str, run: models.Run) -> None:
        super().__init__(
            f"Idempotency-Key {key!r} was used for run {run.id}, whose request differs from "
            "this one"
        )
        self.key = key
        self.run = run


class UncheckableNames(Exception):
    """Some of the names asked for cannot be checked: (index in `names`, message) each."""

    def __init__(self, names: tuple[str, ...], problems: list[tuple[int, str]]) -> None:
        super().__init__("; ".join(msg for _, msg in problems))
        self.names = names
        self.problems = problems


def lock_runs(session: Session) -> None:
    """Start the transaction holding the runs' write lock. A run is queued after reading
    the selection; holding the lock first means no other writer commits in between (which
    would make SQLite refuse the write)."""
    lock_for_writing(session, RUNS_LOCK)


def same_request(run: models.Run, params: CheckParams, commit: str | None) -> bool:
    stored = {k: v for k, v in run.params.items() if k != "selection"}
    return bool(stored == params.to_json()) and run.commit == commit


def queue_run(
    session: Session,
    *,
    settings: Settings,
    params: CheckParams,
    trigger: str,
    commit: str | None = None,
    idempotency_key: str | None = None,
    locked: bool = False,
    warm: WarmEnvironment | None = None,
) -> tuple[models.Run, bool]:
    """(the run, whether it was created now): the earlier run of `idempotency_key`, or a
    new queued and planned run (flushed, not committed). Raises IdempotencyConflict,
    UncheckableNames, or SelectionError (`app.services.runs.checks`) for the selection as a
    whole, UnknownDims for pinned dimensions that none of its theorems has (the rule of
    `check --dims`, judged in `warm`'s environment when given). `locked`: the caller's
    transaction already holds the lock (`lock_runs`)."""
    if not locked:
        lock_runs(session)
    if idempotency_key is not None:
        earlier = crud.run_by_idempotency_key(session, key=idempotency_key)
        if earlier is not None:
            if not same_request(earlier, params, commit):
                raise IdempotencyConflict(idempotency_key, earlier)
            return earlier, False
    problems = queries.run_selection_problems(session, names=params.names, module=params.module)
    if problems:
        raise UncheckableNames(params.names, problems)
    run = create_check_run(session, params=params, commit=commit, trigger=trigger)
    if params.dims:
        if warm is not None:
            backend, env, _ = warm.get(session)
        else:
            backend = load_backend()
            env = build_environment(session, backend)
        selection = list(run.params.get("selection") or [])
        check_pinned_dims(backend, env, names=selection, dims=params.dims)
    run.idempotency_key = idempotency_key
    plan_run(session, run, chunk_size=settings.chunk_size)
    return run, True
