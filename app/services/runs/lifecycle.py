"""The life of a run executed in chunks: planning it, finishing, cancelling, reconciling.

`queued -> running -> passed | failed | error | cancelled` (`run_status`). A run queued for
execution is split into chunks (`plan_run`); it finishes when its last chunk is done
(`finish_run`), or is cancelled (`cancel_run`: the chunks it had queued never run, one
being checked stops before its next theorem, what was recorded stays). `reconcile`
dispatches again the chunks whose attempt went silent (its worker killed), whose message
was never sent (the broker down, the server killed) or was lost (the broker flushed or
restarted), and finishes runs left unfinished.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select, text, update
from sqlalchemy.orm import Session

from app import models
from app.services.runs.recording import count_results

__all__ = [
    "ACTIVE_RUN_STATUSES",
    "MAX_CHUNKS",
    "cancel_run",
    "chunk_length",
    "ensure_planned",
    "fail_run",
    "finish_run",
    "plan_run",
    "reconcile",
    "recount",
    "run_status",
    "unfinished_chunks",
]

log = logging.getLogger("proofbridge.worker")

# What else happens once a run has its final status, by name: the reports to GitHub
# (`app.services.ci.github_report`), installed by the server and the workers as they start.
# A listener that raises is logged; the run stays finished.
FINISH_LISTENERS: dict[str, Callable[[Session, int], object]] = {}

ACTIVE_RUN_STATUSES = ("queued", "running")
MAX_CHUNKS = 256
ANALYZE_RESULTS_FROM = 1000


def run_status(counts: Mapping[str, int], *, broke: bool = False) -> str:
    """A finished run's status from its results by status."""
    if counts.get("fail", 0):
        return "failed"
    if broke or counts.get("error", 0):
        return "error"
    return "passed"


def chunk_length(theorems: int, chunk_size: int) -> int:
    """Theorems per chunk: `chunk_size`, or more for a run of more than MAX_CHUNKS chunks
    of it, which then gets MAX_CHUNKS (every task costs its dispatch, acknowledgement and
    claim, about 15 ms on a worker; a cancelled or interrupted chunk still stops at its
    next theorem, whatever its length)."""
    return max(chunk_size, -(-theorems // MAX_CHUNKS))


def plan_run(session: Session, run: models.Run, *, chunk_size: int) -> list[models.RunTask]:
    """Split the run's selection into chunks (flushed, not committed)."""
    names = list(run.params.get("selection") or [])
    chunk_size = chunk_length(len(names), chunk_size)
    chunks = [
        models.RunTask(
            run_id=run.id,
            position=k // chunk_size,
            names=names[k : k + chunk_size],
            status="queued",
            attempts=0,
            losses=0,
        )
        for k in range(0, len(names), chunk_size)
    ]
    session.add_all(chunks)
    session.flush()
    return chunks


def ensure_planned(session: Session, run_id: int, *, chunk_size: int) -> bool:
    """Plan an active run that has no chunks yet (committed): a run queued through the API
    before runs were chunked. True when it planned one."""
    run = session.get(models.Run, run_id)
    if run is None or run.status not in ACTIVE_RUN_STATUSES or run.trigger == "cli":
        return False
    t = models.RunTask
    if run.total == 0 or session.scalar(select(func.count()).where(t.run_id == run_id)):
        return False
    plan_run(session, run, chunk_size=chunk_size)
    session.commit()
    log.info("run %s had no chunks: planned %s", run_id, -(-run.total // chunk_size))
    return True


def unfinished_chunks(session: Session, run_id: int) -> list[int]:
    """Ids of the run's chunks not yet done or cancelled, in order."""
    t = models.RunTask
    stmt = (
        select(t.id)
        .where(t.run_id == run_id, t.status.in_(("queued", "running")))
        .order_by(t.position)
    )
    return list(session.scalars(stmt))


# --- finishing and cancelling -------------------------------------------------------------


def recount(session: Session, run_id: int) -> dict[str, int]:
    """Set the run's counts from its results (not committed); returns them by status."""
    counts = count_results(session, run_id)
    session.execute(
        update(models.Run)
        .where(models.Run.id == run_id)
        .values(
            passed=counts.get("pass", 0),
            failed=counts.get("fail", 0),
            errored=counts.get("error", 0),
            unsupported=counts.get("unsupported", 0),
            completed=sum(counts.values()),
        )
    )
    return counts


def finish_run(session: Session, run_id: int) -> str | None:
    """Give the run its final status if every chunk is done (committed); returns the new
    status, or None when chunks remain or the run had already finished."""
    if unfinished_chunks(session, run_id):
        return None
    run = session.get(models.Run, run_id)
    if run is None or run.status not in ACTIVE_RUN_STATUSES:
        return None
    t = models.RunTask
    if run.total and not session.scalar(select(func.count()).where(t.run_id == run_id)):
        return None  # never planned: nothing was checked yet
    counts = recount(session, run_id)
    status = run_status(counts, broke=run.error is not None)
    r = models.Run
    finished = session.execute(
        update(r)
        .where(r.id == run_id, r.status.in_(ACTIVE_RUN_STATUSES))
        .values(status=status, finished_at=models.utcnow())
    ).rowcount  # type: ignore[attr-defined]
    session.commit()
    if (
        finished
        and run.total >= ANALYZE_RESULTS_FROM
        and session.get_bind().dialect.name == ("postgresql")
    ):
        # a large run's results: refresh the planner's statistics (see ingest.refresh_...)
        session.execute(text("ANALYZE results"))
        session.commit()
    if finished:
        _notify_finished(session, run_id)
    return status if finished else None


def _notify_finished(session: Session, run_id: int) -> None:
    for name, listener in list(FINISH_LISTENERS.items()):
        try:
            listener(session, run_id)
        except Exception:
            session.rollback()
            log.exception("run %s: %s failed after the run finished", run_id, name)


def fail_run(session: Session, run_id: int, error: str) -> None:
    """End an active run as `error` because it could not be executed (committed)."""
    session.rollback()
    r = models.Run
    ended = session.execute(
        update(r)
        .where(r.id == run_id, r.status.in_(ACTIVE_RUN_STATUSES))
        .values(status="error", error=error, finished_at=models.utcnow())
    ).rowcount  # type: ignore[attr-defined]
    recount(session, run_id)
    session.commit()
    if ended:
        _notify_finished(session, run_id)


def cancel_run(session: Session, run_id: int) -> bool:
    """Cancel a queued or running run (not committed): its queued chunks are cancelled, a
    chunk being checked stops before its next theorem, and every result recorded stays.
    False when the run had already finished."""
    r, t = models.Run, models.RunTask
    now = models.utcnow()
    cancelled = session.execute(
        update(r)
        .where(r.id == run_id, r.status.in_(ACTIVE_RUN_STATUSES))
        .values(status="cancelled", finished_at=now)
    ).rowcount  # type: ignore[attr-defined]
    if cancelled:
        session.execute(
            update(t)
            .where(t.run_id == run_id, t.status == "queued")
            .values(status="cancelled", finished_at=now)
        )
        recount(session, run_id)
    return bool(cancelled)


# --- reconciling ------------------------------------------------------------------------


def reconcile(
    session: Session,
    *,
    dispatch: Callable[[int], None],
    stale_after_s: float,
    held: Callable[[], Collection[int] | None],
    chunk_size: int,
) -> dict[str, list[int]]:
    """Dispatch again what was lost, finish runs whose chunks are all done (committed).

    `dispatch(chunk_id)` sends a chunk's message (raising when the broker cannot take it);
    `held()` names the chunks whose message the broker holds, waiting or just delivered
    (None when it cannot say). A chunk's `dispatched_at` is set when a sender takes it and
    cleared when its message could not be sent. Three kinds of chunks of active runs are
    sent again, each taken by one atomic update that repeats the conditions it was
    selected on, so that of two reconcilers only one sends it and a chunk that changed in
    between (claimed by a worker, sent by the server) is left alone:

    - silent: running, its heartbeat older than `stale_after_s` (its process was lost; the
      theorem it was on counts one loss);
    - unsent: queued and never sent, or its send failed (the broker was down, or the server
      was killed before sending): sent as soon as the broker takes messages;
    - lost: queued and sent more than `stale_after_s` ago, but not held by the broker (it
      restarted or was flushed, or a worker died holding the message unclaimed).

    A run that was never split into chunks (queued before runs were) is planned first.
    """
    t, r = models.RunTask, models.Run
    unplanned = session.scalars(
        select(r.id).where(
            r.status.in_(ACTIVE_RUN_STATUSES),
            r.trigger != "cli",
            r.total > 0,
            r.id.not_in(select(t.run_id)),
        )
    )
    for run_id in list(unplanned):
        ensure_planned(session, run_id, chunk_size=chunk_size)
    stale = models.utcnow() - timedelta(seconds=stale_after_s)
    active = t.run_id.in_(select(r.id).where(r.status.in_(ACTIVE_RUN_STATUSES)))
    silent_if = and_(t.status == "running", or_(t.heartbeat_at.is_(None), t.heartbeat_at < stale))
    unsent_if = and_(t.status == "queued", t.dispatched_at.is_(None))
    sent_long_ago_if = and_(t.status == "queued", t.dispatched_at < stale)
    taken: dict[str, list[int]] = {"silent": [], "unsent": [], "lost": []}
    sender = _Sender(session, dispatch)
    for kind, condition in (("silent", silent_if), ("unsent", unsent_if)):
        condition = and_(active, condition)
        for chunk_id in _ids(session, condition):
            if sender.take(chunk_id, condition, requeue=kind == "silent"):
                taken[kind].append(chunk_id)
    condition = and_(active, sent_long_ago_if)
    waiting = _ids(session, condition)
    in_broker = held() if waiting and not sender.broker_down else None
    if in_broker is not None:
        for chunk_id in waiting:
            if chunk_id not in in_broker and sender.take(chunk_id, condition):
                taken["lost"].append(chunk_id)
    finished = []
    pending = case((t.status.in_(("queued", "running")), 1), else_=0)
    candidates = session.execute(
        select(r.id)
        .outerjoin(t, t.run_id == r.id)
        .where(r.status.in_(ACTIVE_RUN_STATUSES), r.trigger != "cli")
        .group_by(r.id)
        .having(func.coalesce(func.sum(pending), 0) == 0)
    ).scalars()
    for run_id in list(candidates):
        if finish_run(session, run_id) is not None:
            finished.append(run_id)
    if sender.sent or finished:
        log.info("reconciled: dispatched %s again, finished runs %s", taken, finished)
    return taken | {"finished": finished}


def _ids(session: Session, condition: Any) -> list[int]:
    """The chunks that meet `condition`, in order; the reading transaction ends here, so
    that each take-over is a transaction of its own (on SQLite, one that reads nothing
    before it writes)."""
    t = models.RunTask
    ids = list(session.scalars(select(t.id).where(condition).order_by(t.run_id, t.position)))
    session.commit()
    return ids


class _Sender:
    """Takes chunks over one at a time and sends them; after a failed send (the broker is
    down) it takes nothing more."""

    def __init__(self, session: Session, dispatch: Callable[[int], None]) -> None:
        self._session = session
        self._dispatch = dispatch
        self.broker_down = False
        self.sent: list[int] = []

    def take(self, chunk_id: int, condition: Any, *, requeue: bool = False) -> bool:
        """Take the chunk if `condition` still holds (one UPDATE, committed), then send it;
        True when it was taken, whether or not the send then failed."""
        if self.broker_down:
            return False
        t = models.RunTask
        values: dict[str, Any] = {"dispatched_at": models.utcnow()}
        if requeue:
            values["status"] = "queued"
        hit = self._session.execute(
            update(t).where(t.id == chunk_id, condition).values(values)
        ).rowcount  # type: ignore[attr-defined]
        self._session.commit()
        if not hit:
            return False
        try:
            self._dispatch(chunk_id)
        except Exception as exc:  # the broker is down: sent as soon as it is back
            log.warning("chunk %s not sent (%s); it stays queued, unsent", chunk_id, exc)
            self._session.rollback()
            self._session.execute(
                update(t)
                .where(t.id == chunk_id, t.dispatched_at == values["dispatched_at"])
                .values(dispatched_at=None)
            )
            self._session.commit()
            self.broker_down = True
            return True
        self.sent.append(chunk_id)
        return True
