"""The in-process worker: runs created through the API execute on a background thread of
the server when no broker is configured.

One run at a time, in the order submitted. A run is claimed before it executes (`queued` ->
`running` in one conditional UPDATE), so a run submitted twice, or seen by two server
processes resuming queued runs, executes once. Stopping (server shutdown) lets the theorem
being checked finish, then puts the run back to `queued` with the results recorded so far;
the next start resumes it (`resume`), and re-executing it overwrites those results.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app import models
from app.db import get_sessionmaker
from app.services.checks import execute_run

__all__ = ["API_TRIGGER", "InProcessRunner", "RunInterrupted"]

API_TRIGGER = "api"
log = logging.getLogger("proofbridge.runner")


class RunInterrupted(RuntimeError):
    """Raised between two theorems when the runner is stopping."""


class InProcessRunner:
    def __init__(
        self,
        database_url: str,
        *,
        on_result: Callable[[dict[str, Any]], None] | None = None,
        backend: Any = None,
    ) -> None:
        self._url = database_url
        self._on_result = on_result
        self._backend = backend
        self._stopping = threading.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proofbridge-run")

    def _session(self) -> Session:
        return get_sessionmaker(self._url, writer=True)()

    def submit(self, run_id: int) -> Future[str] | None:
        """Execute the queued run `run_id` when the runs before it are done. While stopping,
        the run stays queued (None is returned) for the next start to resume."""
        if self._stopping.is_set():
            return None
        try:
            return self._executor.submit(self._execute, run_id)
        except RuntimeError:  # shut down between the check and the call
            return None

    def resume(self) -> list[int]:
        """Submit the API's runs left queued (for example by a previous shutdown)."""
        r = models.Run
        with self._session() as session:
            stmt = select(r.id).where(r.status == "queued", r.trigger == API_TRIGGER)
            ids = list(session.scalars(stmt.order_by(r.id)))
        for run_id in ids:
            self.submit(run_id)
        return ids

    def stop(self, *, wait: bool = True) -> None:
        """Refuse new work, let the current theorem finish, requeue the current run."""
        self._stopping.set()
        self._executor.shutdown(wait=wait, cancel_futures=True)

    @staticmethod
    def _claim(session: Session, run_id: int) -> bool:
        r = models.Run
        stmt = (
            update(r)
            .where(r.id == run_id, r.status == "queued")
            .values(status="running", started_at=models.utcnow())
        )
        claimed = session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]
        session.commit()
        return claimed

    def _after_result(self, element: dict[str, Any]) -> None:
        if self._on_result is not None:
            self._on_result(element)
        if self._stopping.is_set():
            raise RunInterrupted("the server is shutting down")

    def _execute(self, run_id: int) -> str:
        if self._stopping.is_set():
            return "queued"
        try:
            with self._session() as session:
                if not self._claim(session, run_id):
                    return "not queued"
                outcome = execute_run(
                    session, run_id=run_id, backend=self._backend, on_result=self._after_result
                )
                if outcome.status == "failed" and self._stopping.is_set():
                    self._requeue(session, run_id)
                    return "queued"
                if outcome.status == "failed":
                    log.error("run %s failed: %s", run_id, outcome.error)
                return outcome.status
        except Exception:
            log.exception("run %s could not be executed", run_id)
            raise

    @staticmethod
    def _requeue(session: Session, run_id: int) -> None:
        r = models.Run
        session.execute(
            update(r)
            .where(r.id == run_id)
            .values(status="queued", error=None, started_at=None, finished_at=None)
        )
        session.commit()
        log.info("run %s was interrupted by the shutdown and is queued again", run_id)
