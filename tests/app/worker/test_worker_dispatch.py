"""Sending chunks to a real Redis broker (a private server): a run's chunks are sent once
each, a send the broker refuses leaves them unsent, the reconciler's sends come out of the
queue before the chunks queued earlier, and `held` names the chunks whose message the
broker holds, waiting or just delivered. (Real workers under the same faults:
test_worker_faults.py.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from celery import signals
from db_support import batch, document, theorem
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker
from worker_support import RedisServer, free_port

from app import models
from app.db import make_engine
from app.migrate import upgrade_database
from app.services.ingestion.ingest import ingest_batch
from app.services.runs.checks import CheckParams, create_run
from app.services.runs.lifecycle import plan_run, reconcile
from app.settings import Settings
from app.worker import CeleryDispatcher, create_celery
from app.worker.config import CHECK_TASK
from app.worker.dispatch import chunk_of_task

NAMES = [f"Proofs.t{k}" for k in range(5)]


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def make(db_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(db_url)
    engine: Engine = make_engine(db_url)
    try:
        yield sessionmaker(bind=engine, expire_on_commit=False)
    finally:
        engine.dispose()


def _dispatcher(make: sessionmaker[Session], broker_url: str) -> CeleryDispatcher:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url="sqlite://", broker_url=broker_url, stale_after_s=5
    )
    return CeleryDispatcher(create_celery(settings), settings, make)


def _flush(dispatcher: CeleryDispatcher) -> None:
    with dispatcher._celery.connection_for_write() as connection:
        connection.default_channel.client.flushdb()


def _run(make: sessionmaker[Session]) -> tuple[int, list[int]]:
    with make() as session:
        ingest_batch(session, batch=batch(document("Proofs/A.lean", [theorem(n) for n in NAMES])))
        run = create_run(session, params=CheckParams(trials=1), trigger="api")
        chunks = [c.id for c in plan_run(session, run, chunk_size=2)]
        session.commit()
        return run.id, chunks


def _dispatched(make: sessionmaker[Session], chunks: list[int]) -> list[Any]:
    t = models.RunTask
    with make() as session:
        return list(session.scalars(select(t.dispatched_at).where(t.id.in_(chunks)).order_by(t.id)))


def _take(dispatcher: CeleryDispatcher, *, ack: bool = True) -> tuple[int | None, Any]:
    """Take the next check message as a worker would (delivered, then acknowledged)."""
    connection = dispatcher._celery.connection_for_read()
    message = connection.default_channel.basic_get(queue="cpu", no_ack=False)
    assert message is not None, "the queue is empty"
    if ack:
        message.ack()
        connection.release()
        return chunk_of_task(message.headers["id"]), None
    return chunk_of_task(message.headers["id"]), connection


def test_dispatch_run_sends_each_unsent_chunk_once(
    make: sessionmaker[Session], redis: RedisServer
) -> None:
    dispatcher = _dispatcher(make, redis.url)
    _flush(dispatcher)
    run_id, chunks = _run(make)
    assert sorted(dispatcher.dispatch_run(run_id)) == chunks
    assert None not in _dispatched(make, chunks)
    assert dispatcher.dispatch_run(run_id) == []  # sent already: not again
    assert dispatcher.held() == set(chunks)


def test_dispatch_run_with_the_broker_down_leaves_every_chunk_unsent(
    make: sessionmaker[Session],
) -> None:
    dispatcher = _dispatcher(make, f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    run_id, chunks = _run(make)
    assert dispatcher.dispatch_run(run_id) == []
    assert _dispatched(make, chunks) == [None] * len(chunks)
    assert dispatcher.held() is None  # it cannot say


def test_recovered_chunk_comes_out_of_the_queue_before_earlier_chunks(
    make: sessionmaker[Session], redis: RedisServer
) -> None:
    dispatcher = _dispatcher(make, redis.url)
    _flush(dispatcher)
    for chunk_id in (101, 102, 103):
        dispatcher.send_chunk(chunk_id)
    dispatcher.resend_chunk(7)
    assert [_take(dispatcher)[0] for _ in range(4)] == [7, 101, 102, 103]


def test_held_names_waiting_and_just_delivered_chunks_not_old_deliveries(
    make: sessionmaker[Session], redis: RedisServer
) -> None:
    dispatcher = _dispatcher(make, redis.url)
    _flush(dispatcher)
    dispatcher.send_chunk(1)
    dispatcher.resend_chunk(2)
    dispatcher.send_chunk(3)
    dispatcher._celery.send_task("proofbridge.finish_run", args=[4])  # not a chunk
    taken, connection = _take(dispatcher, ack=False)  # delivered, not acknowledged
    assert taken == 2
    try:
        assert dispatcher.held() == {1, 2, 3}
        client = connection.default_channel.client
        index = connection.default_channel.unacked_index_key
        (tag,) = client.zrange(index, 0, -1)
        # delivered longer ago than stale_after_s: a worker that never claimed it died
        client.zadd(index, {tag: time.time() - 60})
        assert dispatcher.held() == {1, 3}
    finally:
        connection.release()


def test_held_knows_chunk_messages_sent_without_a_chunk_task_id(
    make: sessionmaker[Session], redis: RedisServer
) -> None:
    # a message queued by an earlier version, whose task id is Celery's own uuid
    dispatcher = _dispatcher(make, redis.url)
    _flush(dispatcher)
    dispatcher._celery.send_task(CHECK_TASK, args=[41], queue="cpu")
    assert dispatcher.held() == {41}


def test_a_failed_send_leaves_alone_the_chunks_a_reconciler_took_meanwhile(
    make: sessionmaker[Session],
) -> None:
    dispatcher = _dispatcher(make, f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    run_id, chunks = _run(make)
    resent: list[int] = []

    def reconcile_meanwhile(**_: Any) -> None:
        # while the server's first send waits on the broker, a reconciler takes the chunks
        if not resent:
            with make() as session:
                reconcile(
                    session, dispatch=resent.append, stale_after_s=1e-6, held=set, chunk_size=2
                )

    signals.before_task_publish.connect(reconcile_meanwhile, weak=False)
    try:
        assert dispatcher.dispatch_run(run_id) == []
    finally:
        signals.before_task_publish.disconnect(reconcile_meanwhile)
    assert sorted(resent) == chunks
    assert None not in _dispatched(make, chunks)  # taken by the reconciler: not unsent again
