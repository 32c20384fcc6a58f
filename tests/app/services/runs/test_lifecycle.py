"""Chunked runs on SQLite and PostgreSQL: planning, executing a chunk (skipping what is
recorded, surviving lost attempts, time limits, cancellation), finishing, cancelling and
reconciling. A check function stands in for the checkers (no JAX); the database, the
recording and the bookkeeping are the real ones."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from db_support import batch, document, theorem
from sqlalchemy import Engine, event, select, update
from sqlalchemy.orm import Session, sessionmaker

from app import models
from app.services.ingestion.ingest import ingest_batch
from app.services.runs.checks import CheckParams, create_run
from app.services.runs.execution import Limits, execute_chunk
from app.services.runs.lifecycle import (
    MAX_CHUNKS,
    cancel_run,
    chunk_length,
    finish_run,
    plan_run,
    reconcile,
    run_status,
)

NAMES = [f"Proofs.t{k}" for k in range(5)]
SPIN = 10**7  # iterations of a "hung" check: minutes of work, so only a timeout ends it
LIMITS = Limits(soft_s=None, hard_s=None, heartbeat_s=0.2, stale_after_s=5.0, max_attempts=3)


def _payload(name: str, status: str = "pass") -> dict[str, Any]:
    return {"name": name, "status": status, "checker": "registered", "trials": 1, "seed": 0}


class Checks:
    """Records what it was asked to check; `outcomes` says a status per name."""

    def __init__(self, outcomes: dict[str, str] | None = None, hang: frozenset[str] = frozenset()):
        self.outcomes = outcomes or {}
        self.hang = set(hang)
        self.calls: list[str] = []

    def prepare(self, session: Session) -> None:
        self.prepared = getattr(self, "prepared", 0) + 1

    def __call__(self, session: Session, name: str, params: CheckParams) -> dict[str, Any]:
        self.calls.append(name)
        if name in self.hang:  # far past any soft limit of these tests, unless interrupted
            for _ in range(SPIN):
                sum(range(1000))
        return _payload(name, self.outcomes.get(name, "pass"))


@pytest.fixture
def make(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


def _run(make: sessionmaker[Session], chunk_size: int = 2) -> tuple[int, list[int]]:
    with make() as session:
        ingest_batch(session, batch=batch(document("Proofs/A.lean", [theorem(n) for n in NAMES])))
        run = create_run(session, params=CheckParams(trials=1), trigger="api")
        chunks = plan_run(session, run, chunk_size=chunk_size)
        session.commit()
        return run.id, [c.id for c in chunks]


def _get(make: sessionmaker[Session], model: Any, ident: int) -> Any:
    with make() as session:
        return session.get(model, ident)


def _results(make: sessionmaker[Session], run_id: int) -> dict[str, models.Result]:
    with make() as session:
        res = models.Result
        return {r.name: r for r in session.scalars(select(res).where(res.run_id == run_id))}


def _execute(make: sessionmaker[Session], chunk_id: int, check: Any, **kw: Any) -> str:
    return execute_chunk(make, chunk_id, check=check, worker="w1@host", limits=LIMITS, **kw)


def test_run_status_names_the_worst_result() -> None:
    assert run_status({"pass": 3, "unsupported": 2}) == "passed"
    assert run_status({"pass": 3, "error": 1}) == "error"
    assert run_status({"fail": 1, "error": 1}) == "failed"
    assert run_status({}) == "passed"
    assert run_status({"pass": 1}, broke=True) == "error"


def test_plan_splits_the_selection_in_order(make: sessionmaker[Session]) -> None:
    run_id, chunks = _run(make)
    assert [_get(make, models.RunTask, c).names for c in chunks] == [
        NAMES[:2],
        NAMES[2:4],
        NAMES[4:],
    ]


def test_a_large_run_gets_longer_chunks_not_more_than_max_chunks() -> None:
    assert chunk_length(100, 8) == 8
    assert chunk_length(MAX_CHUNKS * 8, 8) == 8
    assert chunk_length(MAX_CHUNKS * 8 + 1, 8) == 9
    assert chunk_length(7610, 8) == 30
    assert -(-7610 // chunk_length(7610, 8)) <= MAX_CHUNKS


def test_chunks_record_each_theorem_once_and_the_last_finishes_the_run(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make)
    check = Checks({"Proofs.t3": "fail"})
    assert [_execute(make, c, check) for c in chunks] == ["done", "done", "done"]
    assert _execute(make, chunks[0], check) == "skipped"  # a redelivered task does nothing
    assert check.calls == NAMES
    results = _results(make, run_id)
    assert {n: r.status for n, r in results.items()}["Proofs.t3"] == "fail"
    assert {r.worker for r in results.values()} == {"w1@host"}
    run = _get(make, models.Run, run_id)
    assert (run.status, run.completed, run.passed, run.failed) == ("failed", 5, 4, 1)


def test_a_chunk_held_by_a_live_attempt_is_left_alone_and_taken_over_once_silent(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make)
    now = models.utcnow()
    with make() as session:
        session.execute(
            update(models.RunTask)
            .where(models.RunTask.id == chunks[0])
            .values(status="running", attempts=1, heartbeat_at=now, current=NAMES[0], losses=0)
        )
        session.commit()
    check = Checks()
    assert _execute(make, chunks[0], check) == "busy"
    assert check.calls == []
    with make() as session:
        session.execute(
            update(models.RunTask)
            .where(models.RunTask.id == chunks[0])
            .values(heartbeat_at=now - timedelta(seconds=60))
        )
        session.commit()
    assert _execute(make, chunks[0], check) == "done"
    # the theorem the lost attempt was on is checked again, once
    assert check.calls == NAMES[:2]
    assert _get(make, models.RunTask, chunks[0]).attempts == 2


def test_a_theorem_two_lost_attempts_were_on_ends_in_error(make: sessionmaker[Session]) -> None:
    run_id, chunks = _run(make)
    with make() as session:
        session.execute(
            update(models.RunTask)
            .where(models.RunTask.id == chunks[0])
            .values(attempts=2, current=NAMES[0], losses=1)
        )
        session.commit()
    check = Checks()
    assert _execute(make, chunks[0], check) == "done"
    assert check.calls == [NAMES[1]]
    lost = _results(make, run_id)[NAMES[0]]
    assert (lost.status, lost.reason) == (
        "error",
        "not checked: its worker process was lost twice while checking it "
        "(killed, or out of memory)",
    )


def test_a_chunk_past_its_attempts_records_what_is_unchecked_as_error(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make)
    with make() as session:
        session.execute(
            update(models.RunTask).where(models.RunTask.id == chunks[1]).values(attempts=3)
        )
        session.commit()
    check = Checks()
    assert _execute(make, chunks[1], check) == "done"
    assert check.calls == []
    results = _results(make, run_id)
    assert {results[n].status for n in NAMES[2:4]} == {"error"}
    assert results[NAMES[2]].reason == (
        "not checked: its task was attempted 3 times without finishing (its workers were lost)"
    )


def test_a_check_past_the_soft_limit_ends_in_timeout_and_the_chunk_goes_on(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make)
    check = Checks(hang={NAMES[0]})
    limits = Limits(soft_s=0.5, heartbeat_s=0.2, stale_after_s=5.0)
    outcome = execute_chunk(make, chunks[0], check=check, worker="w", limits=limits)
    assert outcome == "done"
    results = _results(make, run_id)
    assert (results[NAMES[0]].status, results[NAMES[0]].reason) == (
        "error",
        "timeout: the check ran past its soft time limit of 0.5 s",
    )
    assert results[NAMES[1]].status == "pass"


def test_cancel_stops_before_the_next_theorem_and_keeps_results(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make, chunk_size=5)

    class CancelSecond(Checks):
        def __call__(self, session: Session, name: str, params: CheckParams) -> dict[str, Any]:
            if len(self.calls) == 1:
                with make() as other:
                    assert cancel_run(other, run_id)
                    other.commit()
            return super().__call__(session, name, params)

    check = CancelSecond()
    calls = check.calls
    assert _execute(make, chunks[0], check) == "cancelled"
    assert calls == NAMES[:2]
    assert sorted(_results(make, run_id)) == NAMES[:2]
    run = _get(make, models.Run, run_id)
    assert (run.status, run.completed) == ("cancelled", 2)
    assert _get(make, models.RunTask, chunks[0]).status == "cancelled"
    with make() as session:
        assert not cancel_run(session, run_id)  # already finished


def test_should_stop_queues_the_chunk_again(make: sessionmaker[Session]) -> None:
    run_id, chunks = _run(make)
    check = Checks()
    assert _execute(make, chunks[0], check, should_stop=lambda: bool(check.calls)) == "stopped"
    chunk = _get(make, models.RunTask, chunks[0])
    assert (chunk.status, chunk.current) == ("queued", None)
    assert _execute(make, chunks[0], check) == "done"
    assert check.calls == NAMES[:2]


def _reconcile(
    make: sessionmaker[Session], sent: list[int], held: Any = frozenset
) -> dict[str, list[int]]:
    with make() as session:
        return reconcile(session, dispatch=sent.append, stale_after_s=5, held=held, chunk_size=2)


def _set(make: sessionmaker[Session], chunk_id: int, **values: Any) -> None:
    with make() as session:
        t = models.RunTask
        session.execute(update(t).where(t.id == chunk_id).values(**values))
        session.commit()


def test_reconcile_dispatches_silent_and_lost_chunks_and_finishes_runs(
    make: sessionmaker[Session],
) -> None:
    run_id, chunks = _run(make)
    old, now = models.utcnow() - timedelta(seconds=60), models.utcnow()
    _set(make, chunks[0], status="running", heartbeat_at=old, dispatched_at=old)
    _set(make, chunks[1], dispatched_at=old)
    _set(make, chunks[2], dispatched_at=now)
    sent: list[int] = []
    # the broker holds chunk 1's message: it waits in the queue, however long
    done = _reconcile(make, sent, held=lambda: {chunks[1]})
    assert (done["silent"], done["unsent"], done["lost"], sent) == (
        [chunks[0]],
        [],
        [],
        [chunks[0]],
    )
    assert _get(make, models.RunTask, chunks[0]).status == "queued"
    _set(make, chunks[0], dispatched_at=old)
    sent.clear()
    # the broker holds none (it restarted): each chunk sent long ago is lost (not chunk 2)
    done = _reconcile(make, sent, held=set)
    assert (done["lost"], sent) == (chunks[:2], chunks[:2])
    # sent again just now: not lost, whatever the broker says
    assert _reconcile(make, sent, held=set)["lost"] == []
    for c in chunks:
        _execute(make, c, Checks())
    with make() as session:
        session.execute(update(models.Run).where(models.Run.id == run_id).values(status="running"))
        session.commit()
    done = _reconcile(make, sent)
    assert done["finished"] == [run_id]
    assert _get(make, models.Run, run_id).status == "passed"


def test_reconcile_sends_unsent_chunks_at_once_whatever_the_queue_holds(
    make: sessionmaker[Session],
) -> None:
    _, chunks = _run(make)  # planned, never sent (the server was killed before sending)
    other_messages = set(range(10_000, 10_100))  # a busy queue of other runs' chunks
    sent: list[int] = []
    done = _reconcile(make, sent, held=lambda: other_messages)
    assert (done["unsent"], sent) == (chunks, chunks)
    assert all(_get(make, models.RunTask, c).dispatched_at is not None for c in chunks)
    assert _reconcile(make, sent, held=lambda: other_messages)["unsent"] == []
    assert sent == chunks  # once each


def test_reconcile_sends_unsent_chunks_even_when_the_broker_cannot_list_them(
    make: sessionmaker[Session],
) -> None:
    _, chunks = _run(make)
    sent: list[int] = []
    assert _reconcile(make, sent, held=lambda: None)["unsent"] == chunks
    assert sent == chunks


def test_reconcile_leaves_a_chunk_unsent_while_the_broker_refuses_it_then_sends_it(
    make: sessionmaker[Session],
) -> None:
    _, chunks = _run(make)
    tries: list[int] = []

    def broker_down(chunk_id: int) -> None:
        tries.append(chunk_id)
        raise ConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    with make() as session:
        reconcile(session, dispatch=broker_down, stale_after_s=5, held=set, chunk_size=2)
    assert tries == chunks[:1]  # the broker is down: nothing more is tried this time
    assert [_get(make, models.RunTask, c).dispatched_at for c in chunks] == [None] * 3
    sent: list[int] = []
    assert _reconcile(make, sent)["unsent"] == chunks  # the broker is back
    assert sent == chunks


def test_two_reconcilers_racing_on_a_silent_chunk_dispatch_it_once(
    make: sessionmaker[Session], engine: Engine
) -> None:
    _, chunks = _run(make)
    old = models.utcnow() - timedelta(seconds=60)
    _set(make, chunks[0], status="running", heartbeat_at=old, dispatched_at=old)
    for c in chunks[1:]:
        _set(make, c, dispatched_at=models.utcnow())
    sent: list[int] = []
    second: list[dict[str, list[int]]] = []

    def before_update(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # the first reconciler selected the chunk; the second runs whole before it updates
        if statement.lstrip().upper().startswith("UPDATE RUN_TASKS") and not second:
            second.append({})
            second[0] = _reconcile(make, sent)

    event.listen(engine, "before_cursor_execute", before_update)
    try:
        first = _reconcile(make, sent)
    finally:
        event.remove(engine, "before_cursor_execute", before_update)
    assert (second[0]["silent"], first["silent"]) == ([chunks[0]], [])
    assert sent == [chunks[0]]
    chunk = _get(make, models.RunTask, chunks[0])
    assert (chunk.status, chunk.losses) == ("queued", 0)


def test_a_chunk_claimed_between_selection_and_take_over_is_not_reset(
    make: sessionmaker[Session], engine: Engine
) -> None:
    _, chunks = _run(make)
    old = models.utcnow() - timedelta(seconds=60)
    _set(make, chunks[0], status="running", heartbeat_at=old, dispatched_at=old)
    for c in chunks[1:]:
        _set(make, c, dispatched_at=models.utcnow())
    claimed: list[str] = []

    def before_update(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # a worker takes the silent chunk over (and finishes it) once it was selected
        if statement.lstrip().upper().startswith("UPDATE RUN_TASKS") and not claimed:
            claimed.append("")
            claimed[0] = _execute(make, chunks[0], Checks())

    sent: list[int] = []
    event.listen(engine, "before_cursor_execute", before_update)
    try:
        done = _reconcile(make, sent)
    finally:
        event.remove(engine, "before_cursor_execute", before_update)
    assert claimed == ["done"]
    assert (done["silent"], sent) == ([], [])
    assert _get(make, models.RunTask, chunks[0]).status == "done"


def test_finish_waits_for_every_chunk(make: sessionmaker[Session]) -> None:
    run_id, chunks = _run(make)
    _execute(make, chunks[0], Checks())
    with make() as session:
        assert finish_run(session, run_id) is None
    assert _get(make, models.Run, run_id).status == "running"


def test_a_run_queued_before_chunks_is_planned_never_passed_empty(
    make: sessionmaker[Session],
) -> None:
    with make() as session:
        ingest_batch(session, batch=batch(document("Proofs/A.lean", [theorem(n) for n in NAMES])))
        run = create_run(session, params=CheckParams(trials=1), trigger="api")
        session.commit()
        run_id = run.id
    with make() as session:
        assert finish_run(session, run_id) is None  # nothing was checked: not "passed"
    sent: list[int] = []
    with make() as session:
        reconcile(session, dispatch=sent.append, stale_after_s=5, held=set, chunk_size=2)
    chunks = sorted(sent)
    assert len(chunks) == 3
    assert [_get(make, models.RunTask, c).names for c in chunks] == [
        NAMES[:2],
        NAMES[2:4],
        NAMES[4:],
    ]
    for c in chunks:
        _execute(make, c, Checks())
    assert _get(make, models.Run, run_id).status == "passed"
