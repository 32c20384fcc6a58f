"""Sending work to the workers: a run's chunks once the run is committed, lost chunks again.

`CeleryDispatcher.dispatch_run(run_id)` is called after the transaction that created the
run (and planned its chunks) committed, so a worker never receives a chunk it cannot read.
A broker that cannot be reached leaves the chunks queued and undispatched: the reconciler
of any worker sends them when the broker is back. `queue_empty` tells the reconciler
whether the check queues hold any message (then a queued chunk dispatched long ago has
lost its message).
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app import models
from app.services.lifecycle import finish_run, unfinished_chunks
from app.settings import Settings
from app.worker.config import CHECK_QUEUES, CHECK_TASK

__all__ = ["CeleryDispatcher", "halves_interleaved"]

log = logging.getLogger("proofbridge.worker")


def halves_interleaved(chunks: list[int]) -> list[int]:
    """The chunks in the order c1, c(h+1), c2, c(h+2), ... (h: half of them): two workers
    taking messages in turn then walk the two halves of the selection, each through
    theorems of neighbouring modules, which share definitions and so compiled programs."""
    half = (len(chunks) + 1) // 2
    order = []
    for a, b in zip(chunks[:half], chunks[half:] + [None] * half, strict=False):
        order.append(a)
        if b is not None:
            order.append(b)
    return order


class CeleryDispatcher:
    def __init__(self, celery: Any, settings: Settings, make_session: sessionmaker[Session]):
        self._celery = celery
        self._settings = settings
        self._make_session = make_session

    def send_chunk(self, chunk_id: int) -> None:
        self._celery.send_task(CHECK_TASK, args=[chunk_id], queue=self._settings.check_queue)

    def dispatch_run(self, run_id: int) -> list[int]:
        """Send the run's unfinished chunks (a run with none is finished now); returns the
        chunks sent. Never raises for a broker that is down: the reconciler sends them."""
        with self._make_session() as session:
            chunks = unfinished_chunks(session, run_id)
            if not chunks:
                finish_run(session, run_id)
                return []
            t = models.RunTask
            session.execute(update(t).where(t.id.in_(chunks)).values(dispatched_at=models.utcnow()))
            session.commit()
        sent = []
        for chunk_id in halves_interleaved(chunks):
            try:
                self.send_chunk(chunk_id)
            except Exception as exc:  # the broker is down: the reconciler sends it later
                log.warning(
                    "run %s: chunk %s not sent (%s); it stays queued", run_id, chunk_id, exc
                )
                break
            sent.append(chunk_id)
        return sent

    def queue_empty(self) -> bool:
        """Whether no check queue holds a message (False when the broker cannot say)."""
        try:
            with self._celery.connection_for_read() as connection:
                channel = connection.default_channel
                waiting = sum(channel.queue_declare(queue=q).message_count for q in CHECK_QUEUES)
        except Exception as exc:
            log.warning("cannot read the queues' lengths: %s", exc)
            return False
        return waiting == 0
