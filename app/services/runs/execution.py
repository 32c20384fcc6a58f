"""Executing a run's chunks: the task code Celery workers and the in-process runner share.

A run queued for execution is split into chunks (`RunTask` rows) of at most `chunk_size`
theorems, in selection order (`lifecycle.plan_run`). Executing a chunk (`execute_chunk`) claims it,
checks its theorems one by one in a warm environment, records each result as soon as it
is known, and finishes the run when its last chunk is done. Doing any of it twice changes
nothing: a theorem the run has a result for is skipped, and a chunk that is done,
cancelled, or held by an attempt whose heartbeat is fresh is left alone.

Losing a process is survived at the theorem it was checking: the chunk remembers that
theorem (`current`); the next attempt checks it again once, and records it as `error` if
a second attempt is lost on it too (a checker that kills its process, or exhausts memory).
A chunk attempted `max_attempts` times records what it has not checked as `error`.
"""

from __future__ import annotations

import functools
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from types import EllipsisType
from typing import Any, Protocol

from sqlalchemy import Integer, and_, bindparam, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from app import models
from app.services.runs.lifecycle import ACTIVE_RUN_STATUSES, finish_run, recount
from app.services.runs.recording import error_payload, record_result
from app.services.runs.selection import CheckParams
from app.services.runs.timeouts import CheckTimeout, Watchdog, soft_deadline

__all__ = ["Limits", "execute_chunk", "timeout_payload", "worker_name"]

log = logging.getLogger("proofbridge.worker")

LOST_TWICE = (
    "not checked: its worker process was lost twice while checking it (killed, or out of memory)"
)


class Check(Protocol):
    """What checks a chunk's theorems: `prepare(session)` once before a chunk (for example
    to reload what changed in the database), then one result payload per theorem."""

    def prepare(self, session: Session) -> None: ...

    def __call__(self, session: Session, name: str, params: CheckParams) -> dict[str, Any]: ...


ResultCallback = Callable[[dict[str, Any]], None]


def worker_name(role: str) -> str:
    """`role@host`, the name recorded with results that no Celery worker checked."""
    return f"{role}@{socket.gethostname()}"


@dataclass(frozen=True)
class Limits:
    """Time limits and liveness of chunk execution (see `app.settings.Settings`)."""

    soft_s: float | None = None
    hard_s: float | None = None
    heartbeat_s: float = 2.0
    stale_after_s: float = 30.0
    max_attempts: int = 5

    @classmethod
    def from_settings(cls, settings: Any, *, hard: bool) -> Limits:
        """The settings' limits; `hard`: whether a check past the hard limit may end the
        process (a worker's pool process, which is replaced; never the server)."""
        return cls(
            soft_s=settings.check_soft_timeout_s,
            hard_s=settings.check_hard_timeout_s if hard else None,
            heartbeat_s=settings.heartbeat_s,
            stale_after_s=settings.stale_after_s,
            max_attempts=settings.max_task_attempts,
        )


# --- executing one chunk ----------------------------------------------------------------


def _claim(session: Session, chunk_id: int, worker: str, limits: Limits) -> bool:
    t = models.RunTask
    now = models.utcnow()
    stale = now - timedelta(seconds=limits.stale_after_s)
    claimed = session.execute(
        update(t)
        .where(
            t.id == chunk_id,
            or_(
                t.status == "queued",
                and_(t.status == "running", or_(t.heartbeat_at.is_(None), t.heartbeat_at < stale)),
            ),
        )
        .values(
            status="running",
            attempts=t.attempts + 1,
            worker=worker,
            started_at=now,
            heartbeat_at=now,
        )
    ).rowcount  # type: ignore[attr-defined]
    session.commit()
    return bool(claimed)


def _start_run(session: Session, run_id: int) -> None:
    r = models.Run
    session.execute(
        update(r)
        .where(r.id == run_id, r.status == "queued")
        .values(status="running", started_at=models.utcnow())
    )
    session.commit()


def _targets(session: Session, names: list[str]) -> dict[str, tuple[int, int]]:
    d, r = models.Declaration, models.DeclarationRevision
    rows = session.execute(
        select(d.name, d.id, r.id)
        .join(r, (r.declaration_id == d.id) & (r.revision == d.current_revision))
        .where(d.name.in_(names))
    )
    return {name: (decl_id, rev_id) for name, decl_id, rev_id in rows}


# Statements run for every theorem are built once and bound at execution: building them
# cost more than the database's work on them.
_COUNTED = ("passed", "failed", "errored", "unsupported")
_STATUS_COUNTER = {"pass": "passed", "fail": "failed", "error": "errored"}


@functools.cache
def _add_to_counts_statement() -> Any:
    r = models.Run
    counters = {c: getattr(r, c) + bindparam(c, type_=Integer) for c in _COUNTED}
    return update(r).where(r.id == bindparam("run")).values(completed=r.completed + 1, **counters)


def _add_to_counts(session: Session, run_id: int, status: str) -> None:
    counter = _STATUS_COUNTER.get(status, "unsupported")
    params = {c: int(c == counter) for c in _COUNTED}
    session.execute(_add_to_counts_statement(), {"run": run_id, **params})


def _error(name: str, params: CheckParams, reason: str) -> dict[str, Any]:
    payload = error_payload(name, params, RuntimeError(reason))
    payload["reason"] = reason
    return payload


def timeout_payload(name: str, params: CheckParams, seconds: float, limit: str) -> dict[str, Any]:
    """The result of a check stopped by a time limit (`limit`: "soft" or "hard")."""
    return _error(
        name, params, f"timeout: the check ran past its {limit} time limit of {seconds:g} s"
    )


@dataclass
class _Chunk:
    id: int
    run_id: int
    names: list[str]
    attempts: int
    current: str | None
    losses: int


def _load(session: Session, chunk_id: int) -> tuple[_Chunk, models.Run] | None:
    """The chunk and its run; None when there is nothing left to do (unknown, or finished)."""
    chunk = session.get(models.RunTask, chunk_id)
    if chunk is None or chunk.status in ("done", "cancelled"):
        return None
    run = session.get(models.Run, chunk.run_id)
    if run is None:
        return None
    view = _Chunk(
        chunk.id, chunk.run_id, list(chunk.names), chunk.attempts, chunk.current, chunk.losses
    )
    return view, run


def execute_chunk(
    make_session: sessionmaker[Session],
    chunk_id: int,
    *,
    check: Check,
    worker: str,
    limits: Limits,
    should_stop: Callable[[], bool] = lambda: False,
    on_result: ResultCallback | None = None,
) -> str:
    """Check the theorems of one chunk that the run has no result for. Returns `done`,
    `cancelled` (the run was cancelled), `stopped` (`should_stop` said so; the chunk is
    queued again), `busy` (another live attempt holds it) or `skipped` (it was already done,
    or is unknown). `check(session, name, params)` gives one theorem's result payload."""
    with make_session() as session:
        loaded = _load(session, chunk_id)
        if loaded is None:
            return "skipped"
        chunk, run = loaded
        if run.status not in ACTIVE_RUN_STATUSES:  # the run was cancelled (or failed)
            _set_chunk(session, chunk_id, status="cancelled", finished=True)
            return "cancelled"
        if not _claim(session, chunk_id, worker, limits):
            current = session.get(models.RunTask, chunk_id)
            session.commit()
            return "busy" if current is not None and current.status == "running" else "skipped"
        chunk.attempts += 1
        _start_run(session, chunk.run_id)
        params = CheckParams.from_json(run.params)

    def beat() -> None:
        with make_session() as s:
            _set_chunk(s, chunk_id, heartbeat=True)

    def hard_timeout(name: str, seconds: float) -> None:
        with make_session() as s:
            _record(s, chunk, name, timeout_payload(name, params, seconds, "hard"), worker)
            # the next attempt goes on after it at once: the chunk is free to claim again
            _set_chunk(s, chunk_id, status="queued", current=None, losses=0)

    with Watchdog(
        beat, every_s=limits.heartbeat_s, hard_s=limits.hard_s, on_hard_timeout=hard_timeout
    ) as watchdog:
        with make_session() as session:
            outcome = _check_names(
                session, chunk, params, check, worker, limits, watchdog, should_stop, on_result
            )
    if outcome == "done":
        with make_session() as session:
            finish_run(session, chunk.run_id)
    return outcome


def _check_names(
    session: Session,
    chunk: _Chunk,
    params: CheckParams,
    check: Check,
    worker: str,
    limits: Limits,
    watchdog: Watchdog,
    should_stop: Callable[[], bool],
    on_result: ResultCallback | None,
) -> str:
    targets = _targets(session, chunk.names)
    res = models.Result
    recorded = set(
        session.scalars(
            select(res.name).where(res.run_id == chunk.run_id, res.name.in_(chunk.names))
        )
    )
    check.prepare(session)
    session.commit()
    pending = [n for n in chunk.names if n not in recorded and n in targets]
    gave_up = chunk.attempts > limits.max_attempts
    # One transaction per theorem: the previous theorem's result, then the mark of the
    # next one (`current`: an attempt lost while checking it is charged to it).
    state = _mark(session, chunk, pending[0] if pending else None, should_stop)
    for k, name in enumerate(pending):
        if state != "go":
            return state
        if gave_up:
            payload = _error(
                name,
                params,
                f"not checked: its task was attempted {chunk.attempts - 1} times without "
                "finishing (its workers were lost)",
            )
        elif chunk.losses >= 2:
            payload = _error(name, params, LOST_TWICE)
        else:
            payload = _timed_check(session, name, params, check, limits, watchdog)
        element = _record(session, chunk, name, payload, worker, targets[name], commit=False)
        state = _mark(session, chunk, pending[k + 1] if k + 1 < len(pending) else None, should_stop)
        if on_result is not None:
            on_result(element)
    return state


def _mark(
    session: Session, chunk: _Chunk, name: str | None, should_stop: Callable[[], bool]
) -> str:
    """Mark `name` as the theorem being checked and commit: `go`; or, when there is none
    left, the chunk done (`done`); when the runner stops, the chunk queued again
    (`stopped`); when the run was cancelled, the chunk cancelled (`cancelled`)."""
    if name is None:
        _set_chunk(session, chunk.id, status="done", current=None, losses=0, finished=True)
        return "done"
    if should_stop():
        _set_chunk(session, chunk.id, status="queued", current=None, losses=0)
        return "stopped"
    status = session.scalar(select(models.Run.status).where(models.Run.id == chunk.run_id))
    if status not in ACTIVE_RUN_STATUSES:
        recount(session, chunk.run_id)
        _set_chunk(session, chunk.id, status="cancelled", current=None, finished=True)
        return "cancelled"
    chunk.losses = chunk.losses + 1 if chunk.current == name else 0
    chunk.current = name
    _set_chunk(session, chunk.id, current=name, losses=chunk.losses, heartbeat=True)
    return "go"


def _timed_check(
    session: Session,
    name: str,
    params: CheckParams,
    check: Check,
    limits: Limits,
    watchdog: Watchdog,
) -> dict[str, Any]:
    watchdog.begin(name)
    try:
        with soft_deadline(limits.soft_s):
            return check(session, name, params)
    except CheckTimeout as exc:
        session.rollback()
        return timeout_payload(name, params, exc.seconds, "soft")
    finally:
        watchdog.end()


def _record(
    session: Session,
    chunk: _Chunk,
    name: str,
    payload: dict[str, Any],
    worker: str,
    target: tuple[int, int] | None = None,
    *,
    commit: bool = True,
) -> dict[str, Any]:
    if target is None:
        target = _targets(session, [name])[name]
    decl_id, rev_id = target
    payload = dict(payload) | {"worker": worker}
    result_id = record_result(
        session,
        run_id=chunk.run_id,
        declaration_id=decl_id,
        revision_id=rev_id,
        payload=payload,
    )
    _add_to_counts(session, chunk.run_id, payload["status"])
    if commit:
        session.commit()
    return payload | {"run_id": chunk.run_id, "result_id": result_id}


def _set_chunk(
    session: Session,
    chunk_id: int,
    *,
    status: str | None = None,
    current: str | None | EllipsisType = ...,
    losses: int | None = None,
    heartbeat: bool = False,
    finished: bool = False,
) -> None:
    values: dict[str, Any] = {}
    now = models.utcnow()
    if status is not None:
        values["status"] = status
    if current is not ...:
        values["current"] = current
    if losses is not None:
        values["losses"] = losses
    if heartbeat:
        values["heartbeat_at"] = now
    if finished:
        values["finished_at"] = now
    session.execute(_set_chunk_statement(tuple(values)), {"chunk": chunk_id, **values})
    session.commit()


@functools.cache
def _set_chunk_statement(columns: tuple[str, ...]) -> Any:
    t = models.RunTask
    return (
        update(t)
        .where(t.id == bindparam("chunk"))
        .values({c: bindparam(c, type_=t.__table__.c[c].type) for c in columns})
    )
