"""The dashboard's writes, done as the API does them: a run is queued by the service
`POST /api/v1/runs` uses (`queueing.queue_run`, under the runs' write lock) and handed to
`app.state.submit_run` only once committed; a cancel is `lifecycle.cancel_run`.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import Request
from sqlalchemy.orm import Session

from app import models
from app.db import run_in_transaction
from app.services.runs import CheckParams, SelectionError, UncheckableNames, lock_runs
from app.services.runs import cancel_run as cancel_check_run
from app.services.runs import queue_run as queue_check_run
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
        try:
            run, _ = queue_check_run(
                session, settings=settings, params=params, trigger=DASHBOARD_TRIGGER
            )
        except UncheckableNames as exc:
            raise QueueRefused("; ".join(msg for _, msg in exc.problems)) from None
        except SelectionError as exc:
            raise QueueRefused(str(exc)) from None
        return run

    run = run_in_transaction(session, queue)
    request.app.state.metrics.runs_created.inc()
    request.app.state.submit_run(run.id)  # only now, committed, may a worker see it
    session.refresh(run)
    return run


def cancel(session: Session, run_id: int) -> bool:
    """Cancel the run; False when it had already finished."""

    def work() -> bool:
        lock_runs(session)
        return cancel_check_run(session, run_id)

    return run_in_transaction(session, work)
