"""The in-process runner: with no broker configured, the server executes the runs created
through the API on a background thread, with the same task code as a Celery worker.

One run at a time, in the order submitted, chunk by chunk (`execution.execute_chunk`), so
what holds on a worker holds here: a theorem already recorded is not checked again, a
cancelled run stops before its next theorem, and a check past the soft time limit ends
`error: timeout`. (The hard limit, which ends a worker's process, is not applied to the
server.) Stopping (server shutdown) lets the theorem being checked finish and puts its
chunk back in the queue; the next start resumes the run (`resume`) where it stopped.
HTTP requests never wait for a check: they only queue runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import models
from app.db import get_sessionmaker
from app.services.runs.checks import build_environment, load_backend
from app.services.runs.execution import Limits, execute_chunk, worker_name
from app.services.runs.lifecycle import (
    ACTIVE_RUN_STATUSES,
    ensure_planned,
    fail_run,
    finish_run,
    unfinished_chunks,
)
from app.services.runs.warm import WarmChecker
from app.settings import Settings, get_settings

__all__ = ["API_TRIGGER", "InProcessRunner"]

API_TRIGGER = "api"
log = logging.getLogger("proofbridge.runner")


class InProcessRunner:
    def __init__(
        self,
        database_url: str,
        *,
        on_result: Callable[[dict[str, Any]], None] | None = None,
        backend: Any = None,
        limits: Limits | None = None,
        settings: Settings | None = None,
    ) -> None:
        self._url = database_url
        self._on_result = on_result
        settings = settings or get_settings()
        self._limits = limits or Limits.from_settings(settings, hard=False)
        self._chunk_size = settings.chunk_size
        self._checker = WarmChecker(
            (lambda: backend) if backend is not None else load_backend, build_environment
        )
        self._worker = worker_name("in-process")
        self._stopping = threading.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proofbridge-run")

    def _sessions(self) -> sessionmaker[Session]:
        return get_sessionmaker(self._url, writer=True)

    def submit(self, run_id: int) -> Future[str] | None:
        """Execute the run `run_id` when the runs before it are done. While stopping, the
        run stays queued (None is returned) for the next start to resume."""
        if self._stopping.is_set():
            return None
        try:
            return self._executor.submit(self._execute, run_id)
        except RuntimeError:  # shut down between the check and the call
            return None

    def warm_up(self) -> Future[float]:
        """Load the checkers and the environment on the runner's thread, ahead of the first
        run (which would otherwise load them); the future gives the seconds it took."""
        return self._executor.submit(self._checker.warm_up, self._sessions())

    def resume(self) -> list[int]:
        """Submit the runs of the API left queued or running (for example by a previous
        shutdown)."""
        r = models.Run
        with self._sessions()() as session:
            stmt = select(r.id).where(r.status.in_(ACTIVE_RUN_STATUSES), r.trigger != "cli")
            ids = list(session.scalars(stmt.order_by(r.id)))
        for run_id in ids:
            self.submit(run_id)
        return ids

    def stop(self, *, wait: bool = True) -> None:
        """Refuse new work, let the current theorem finish, queue its chunk again."""
        self._stopping.set()
        self._executor.shutdown(wait=wait, cancel_futures=True)

    def _execute(self, run_id: int) -> str:
        make_session = self._sessions()
        try:
            with make_session() as session:
                ensure_planned(session, run_id, chunk_size=self._chunk_size)
                chunks = unfinished_chunks(session, run_id)
            for chunk_id in chunks:
                outcome = self._execute_chunk(make_session, chunk_id)
                if outcome in ("stopped", "cancelled"):
                    return "queued" if outcome == "stopped" else "cancelled"
            with make_session() as session:
                finish_run(session, run_id)
                run = session.get(models.Run, run_id)
                return run.status if run is not None else "unknown"
        except Exception as exc:
            log.exception("run %s could not be executed", run_id)
            with make_session() as session:
                fail_run(session, run_id, f"{type(exc).__name__}: {exc}")
            return "error"

    def _execute_chunk(self, make_session: sessionmaker[Session], chunk_id: int) -> str:
        while True:
            if self._stopping.is_set():
                return "stopped"
            outcome = execute_chunk(
                make_session,
                chunk_id,
                check=self._checker,
                worker=self._worker,
                limits=self._limits,
                should_stop=self._stopping.is_set,
                on_result=self._on_result,
            )
            if outcome != "busy":
                return outcome
            # held by an attempt that is alive, or was until lately (a server killed while
            # checking it): it can be taken over once its heartbeat is stale
            self._stopping.wait(self._limits.heartbeat_s)
