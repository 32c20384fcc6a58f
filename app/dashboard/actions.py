"""The dashboard's writes, done as the API does them: a run is queued with the same
services as `POST /api/v1/runs` (`create_run`, `plan_run`, under the same write lock) and
handed to `app.state.submit_run` only once committed; a cancel is `lifecycle.cancel_run`.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import Request
from sqlalchemy.orm import Session

from app import models
from app.api.routes.runs import RUNS_LOCK
from app.db import lock_for_writing, run_in_transaction
from app.services import queries
from app.services.checks import CheckParams, SelectionError
from app.services.checks import create_run as create_check_run
from app.services.lifecycle import cancel_run as cancel_check_run
from app.services.lifecycle import plan_run
from app.settings import Settings

__all__ = ["DASHBOARD_TRIGGER", "QueueRefused", "cancel", "queue_run"]

DASHBOARD_TRIGGER = "dashboard"


class QueueRefused(ValueError):
    """The selection cannot be checked; the message says why."""


def queue_run(
    request: Request,
    session: Session,
    settings: Settings,
    *,
    names: Sequence[str],
    module: str | None,
) -> models.Run:
    """A committed, planned, submitted run over `names` or `module` (default settings)."""
    params = CheckParams(names=tuple(names), module=module)

    def queue() -> models.Run:
        lock_for_writing(session, RUNS_LOCK)
        problems = queries.run_selection_problems(session, names=list(names), module=module)
        if problems:
            raise QueueRefused("; ".join(msg for _, msg in problems))
        try:
            run = create_check_run(session, params=params, trigger=DASHBOARD_TRIGGER)
        except SelectionError as exc:
            raise QueueRefused(str(exc)) from None
        plan_run(session, run, chunk_size=settings.chunk_size)
        return run

    run = run_in_transaction(session, queue)
    request.app.state.metrics.runs_created.inc()
    request.app.state.submit_run(run.id)  # only now, committed, may a worker see it
    session.refresh(run)
    return run


def cancel(session: Session, run_id: int) -> bool:
    """Cancel the run; False when it had already finished."""

    def work() -> bool:
        lock_for_writing(session, RUNS_LOCK)
        return cancel_check_run(session, run_id)

    return run_in_transaction(session, work)
