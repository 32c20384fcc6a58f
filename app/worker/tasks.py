"""The tasks: checking a chunk (queues `cpu` and `gpu`), and light work (queue `light`):
reconciling, finishing a run, ingesting paths that the worker can read.

Each pool process keeps one warm checker (`WarmChecker`) for all the tasks it executes:
JAX, its compiled programs and the environment stay loaded, and JAX's persistent
compilation cache (`PROOFBRIDGE_JAX_CACHE_DIR`, shared by every worker that mounts the
same directory) makes a fresh process cheap as well. Results name the worker (its Celery
node name) and the device.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery

from app.db import get_sessionmaker
from app.services.runs import (
    Limits,
    WarmChecker,
    build_environment,
    execute_chunk,
    finish_run,
    load_backend,
    reconcile,
)
from app.settings import get_settings
from app.worker.config import CHECK_TASK, FINISH_TASK, INGEST_TASK, RECONCILE_TASK
from app.worker.dispatch import CeleryDispatcher

__all__ = ["reconcile_once", "register_tasks", "warm_up"]

log = logging.getLogger("proofbridge.worker")

_WARM: dict[str, WarmChecker] = {}


def _warm_checker() -> WarmChecker:
    if "checker" not in _WARM:
        _WARM["checker"] = WarmChecker(load_backend, build_environment)
    return _WARM["checker"]


def warm_up() -> None:
    """Load the checkers and the declarations in this pool process before its first task."""
    settings = get_settings()
    try:
        seconds = _warm_checker().warm_up(get_sessionmaker(settings.database_url))
    except Exception as exc:  # the first task loads them, and reports what is wrong
        log.warning("warming up failed: %s", exc)
        return
    log.info("pool process warm in %.1f s", seconds)


def reconcile_once(celery: Celery) -> dict[str, list[int]]:
    """One reconciliation pass (see `lifecycle.reconcile`)."""
    settings = get_settings()
    make_session = get_sessionmaker(settings.database_url, writer=True)
    dispatcher = CeleryDispatcher(celery, settings, make_session)
    with make_session() as session:
        return reconcile(
            session,
            dispatch=dispatcher.resend_chunk,
            stale_after_s=settings.stale_after_s,
            held=dispatcher.held,
            chunk_size=settings.chunk_size,
        )


def register_tasks(celery: Celery) -> None:
    @celery.task(name=CHECK_TASK, bind=True, shared=False)
    def check_chunk(self: Any, chunk_id: int) -> str:
        settings = get_settings()
        outcome = execute_chunk(
            get_sessionmaker(settings.database_url, writer=True),
            int(chunk_id),
            check=_warm_checker(),
            worker=str(self.request.hostname or "celery"),
            limits=Limits.from_settings(settings, hard=True),
        )
        log.info("chunk %s: %s", chunk_id, outcome)
        return outcome

    @celery.task(name=RECONCILE_TASK, shared=False)
    def reconcile_task() -> dict[str, list[int]]:
        return reconcile_once(celery)

    @celery.task(name=FINISH_TASK, shared=False)
    def finish_run_task(run_id: int) -> str | None:
        settings = get_settings()
        with get_sessionmaker(settings.database_url, writer=True)() as session:
            return finish_run(session, int(run_id))

    @celery.task(name=INGEST_TASK, shared=False)
    def ingest_paths_task(paths: list[str], commit: str | None = None) -> dict[str, Any]:
        from app.services.ingestion import ingest_paths

        settings = get_settings()
        with get_sessionmaker(settings.database_url)() as session:
            report = ingest_paths(
                session, paths=list(paths), commit=commit, max_file_bytes=settings.max_file_bytes
            )
            return dict(report.to_json())
