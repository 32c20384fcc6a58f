"""Sending work to the workers: a run's chunks once the run is committed, lost chunks again.

`CeleryDispatcher.dispatch_run(run_id)` is called after the transaction that created the
run (and planned its chunks) committed, so a worker never receives a chunk it cannot read.
It takes the run's chunks that no one sent yet (`dispatched_at` set, in one update) and
sends them; a chunk whose send fails (the broker is down) gets `dispatched_at` cleared,
and the reconciler of any worker sends it as soon as the broker takes messages again.

Priorities (Redis keeps one list per priority step and a worker pops the first non-empty
one, 0 first): a run's chunks are sent at `FRESH_PRIORITY`, chunks sent again by the
reconciler at `RECOVERED_PRIORITY`, so recovered work is checked next rather than behind
every chunk queued since. Each chunk's message has the task id `chunk-<id>-<nonce>`:
`held` reads which chunks the broker holds, waiting in a check queue or delivered to a
worker (Redis's `unacked` hash) less than `stale_after_s` ago.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app import models
from app.services.runs import finish_run, unfinished_chunks
from app.settings import Settings
from app.worker.config import CHECK_QUEUES, CHECK_TASK

__all__ = [
    "FRESH_PRIORITY",
    "RECOVERED_PRIORITY",
    "CeleryDispatcher",
    "chunk_of_task",
    "halves_interleaved",
]

log = logging.getLogger("proofbridge.worker")

RECOVERED_PRIORITY = 0
FRESH_PRIORITY = 6
_TASK_ID = re.compile(r"chunk-(\d+)-[0-9a-f]+")
_ARGS = re.compile(r"\[(\d+)\]")


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


def chunk_of_task(task_id: Any) -> int | None:
    """The chunk a check message is for, from its task id (None for any other message)."""
    match = _TASK_ID.fullmatch(task_id) if isinstance(task_id, str) else None
    return int(match.group(1)) if match else None


def _message_chunk(raw: bytes | str) -> int | None:
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    if isinstance(message, list) and message:  # an unacked entry: [message, exchange, key]
        message = message[0]
    headers = message.get("headers") if isinstance(message, dict) else None
    if not isinstance(headers, dict):
        return None
    chunk = chunk_of_task(headers.get("id"))
    if chunk is None and headers.get("task") == CHECK_TASK:  # sent before task ids said it
        args = _ARGS.fullmatch(str(headers.get("argsrepr", "")))
        chunk = int(args.group(1)) if args else None
    return chunk


class CeleryDispatcher:
    def __init__(self, celery: Any, settings: Settings, make_session: sessionmaker[Session]):
        self._celery = celery
        self._settings = settings
        self._make_session = make_session

    def send_chunk(self, chunk_id: int, *, recovered: bool = False) -> None:
        """Send one chunk's message (raises when the broker cannot take it)."""
        self._celery.send_task(
            CHECK_TASK,
            args=[chunk_id],
            queue=self._settings.check_queue,
            task_id=f"chunk-{chunk_id}-{uuid.uuid4().hex}",
            priority=RECOVERED_PRIORITY if recovered else FRESH_PRIORITY,
        )

    def resend_chunk(self, chunk_id: int) -> None:
        """Send a chunk again, ahead of the chunks queued before (the reconciler's send)."""
        self.send_chunk(chunk_id, recovered=True)

    def dispatch_run(self, run_id: int) -> list[int]:
        """Send the run's unfinished chunks that no one sent yet (a run with none left is
        finished now); returns the chunks sent. Never raises for a broker that is down: the
        chunks not sent are marked so, and the reconciler sends them."""
        t = models.RunTask
        claimed_at = models.utcnow()
        with self._make_session() as session:
            chunks = unfinished_chunks(session, run_id)
            if not chunks:
                finish_run(session, run_id)
                return []
            taken = set(
                session.scalars(
                    update(t)
                    .where(t.id.in_(chunks), t.status == "queued", t.dispatched_at.is_(None))
                    .values(dispatched_at=claimed_at)
                    .returning(t.id)
                )
            )
            session.commit()
        order = [c for c in halves_interleaved(chunks) if c in taken]
        sent: list[int] = []
        for chunk_id in order:
            try:
                self.send_chunk(chunk_id)
            except Exception as exc:  # the broker is down: the reconciler sends it later
                unsent = order[len(sent) :]
                log.warning(
                    "run %s: %s chunks not sent (%s); the reconciler sends them once the "
                    "broker is back",
                    run_id,
                    len(unsent),
                    exc,
                )
                with self._make_session() as session:
                    # unless a reconciler took them since (the send waited long)
                    session.execute(
                        update(t)
                        .where(t.id.in_(unsent), t.dispatched_at == claimed_at)
                        .values(dispatched_at=None)
                    )
                    session.commit()
                break
            sent.append(chunk_id)
        return sent

    def held(self) -> set[int] | None:
        """The chunks whose message the broker holds: waiting in a check queue (at any
        priority), or delivered to a worker less than `stale_after_s` ago and not yet
        acknowledged. None when the broker cannot say."""
        try:
            with self._celery.connection_for_read() as connection:
                channel = connection.default_channel
                client = channel.client
                keys = [
                    channel._q_for_pri(queue, pri)
                    for queue in CHECK_QUEUES
                    for pri in channel.priority_steps
                ]
                # one transaction: a message moves from its queue to `unacked` in between
                # two reads of it, never to nowhere (but for the instant a worker takes it)
                pipe = client.pipeline(transaction=True)
                for key in keys:
                    pipe.lrange(key, 0, -1)
                pipe.zrangebyscore(
                    channel.unacked_index_key, time.time() - self._settings.stale_after_s, "+inf"
                )
                pipe.hgetall(channel.unacked_key)
                *waiting, recent, unacked = pipe.execute()
        except Exception as exc:
            log.warning("cannot read the broker's messages: %s", exc)
            return None
        held = set()
        delivered = [unacked[tag] for tag in recent if tag in unacked]
        for raw in [m for messages in waiting for m in messages] + delivered:
            chunk = _message_chunk(raw)
            if chunk is not None:
                held.add(chunk)
        return held
