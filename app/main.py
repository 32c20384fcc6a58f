"""The ASGI application: builds the app and mounts the routers.

`create_app(settings)` builds one (tests pass their own settings; `app` below reads the
environment when it starts). Starting it (the lifespan) checks the database schema (and
migrates an embedded SQLite database) and settles the API token. With a broker
(`PROOFBRIDGE_BROKER_URL`), runs created through the API are sent to the Celery workers
once committed; without one, the in-process runner executes them on a thread of this
server, and stopping the server requeues the chunk in progress. Nothing here imports JAX:
the checkers load on the first check or description.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app import __version__, dashboard
from app.access_log import install_access_log_filter
from app.api.cache import PageCache
from app.api.deps import app_settings
from app.api.docs import install_docs
from app.api.errors import install_error_handlers
from app.api.head import HeadAsGet
from app.api.limits import BodySizeLimit
from app.api.main import API_PREFIX, api_router
from app.api.metrics import Metrics, RequestMetrics
from app.dashboard.errors import install_page_errors
from app.db import redact_url
from app.generation import Generation
from app.logs import install_visible_log_records
from app.runtime import load_settings, prepare_server
from app.services.ci.github_report import install_reporting
from app.services.coverage import CheckerDescriber, CoverageReporter, CoverageStore
from app.services.runs import InProcessRunner, WarmEnvironment
from app.settings import Settings

__all__ = ["API_PREFIX", "app", "create_app"]

log = logging.getLogger("proofbridge.api")

STATIC = Path(__file__).resolve().parent / "static"

DESCRIPTION = (
    "Lean 4 theorem statements, their numeric checkers and the recorded results. "
    "Write endpoints take `Authorization: Bearer <PROOFBRIDGE_API_TOKEN>`."
)


def _submit(app: FastAPI, run_id: int) -> None:
    settings = app_settings(app)
    if settings.broker_url:
        _dispatcher(app).dispatch_run(run_id)
    else:
        _runner(app).submit(run_id)


def _dispatcher(app: FastAPI) -> Any:
    if app.state.dispatcher is None:
        from app.db import get_sessionmaker
        from app.worker import CeleryDispatcher, create_celery

        settings = app_settings(app)
        app.state.dispatcher = CeleryDispatcher(
            create_celery(settings), settings, get_sessionmaker(settings.database_url, writer=True)
        )
    return app.state.dispatcher


def _generation(app: FastAPI) -> Generation:
    url = app_settings(app).database_url
    generation = app.state.generation
    if generation is None or generation.url != url:
        generation = app.state.generation = Generation(url)
    return generation


def _runner(app: FastAPI) -> InProcessRunner:
    runner = app.state.runner
    if runner is None:  # used without being started (no lifespan): start the worker now
        settings = app_settings(app)
        runner = InProcessRunner(
            settings.database_url, on_result=app.state.metrics.record_result, settings=settings
        )
        app.state.runner = runner
    return runner


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings = app_settings(app) if app.state.settings is not None else load_settings()
    app.state.settings = settings
    app.state.api_token = await run_in_threadpool(prepare_server, settings)
    app.state.metrics.watch_database(settings.database_url)
    install_reporting(settings)  # runs this process finishes report to GitHub
    if settings.broker_url:
        log.info("runs are sent to the Celery workers of %s", redact_url(settings.broker_url))
        yield
        return
    runner = _runner(app)
    resumed = await run_in_threadpool(runner.resume)
    if resumed:
        log.info("resuming queued runs: %s", ", ".join(map(str, resumed)))
    try:
        yield
    finally:
        app.state.runner = None
        await run_in_threadpool(lambda: runner.stop(wait=True))


def _favicon() -> FileResponse:
    """Browsers ask for /favicon.ico whatever the page names: the same icon as the pages'."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def create_app(settings: Settings | None = None) -> FastAPI:
    app = FastAPI(
        title="ProofBridge",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served by install_docs, from the package rather than a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.api_token = None
    app.state.metrics = Metrics()
    warm = WarmEnvironment()  # one environment of the declarations for both
    app.state.describer = CheckerDescriber(warm=warm)
    store = CoverageStore.for_settings(settings) if settings is not None else None
    app.state.coverage = CoverageReporter(warm=warm, store=store)
    app.state.runner = None
    app.state.dispatcher = None
    app.state.generation = None
    app.state.submit_run = lambda run_id: _submit(app, run_id)
    if settings is not None:
        app.state.metrics.watch_database(settings.database_url)

    install_visible_log_records()  # names logged with control characters shown as escapes
    install_error_handlers(app)
    install_page_errors(app)  # a browser's unknown page or method answers a page
    install_access_log_filter()  # no `?token=` in the access log
    app.add_middleware(
        PageCache,
        generation=lambda: _generation(app).read(),
        max_bytes=lambda: app_settings(app).page_cache_mb * 1024 * 1024,
    )
    app.add_middleware(BodySizeLimit, limit=lambda _scope: app_settings(app).max_upload_bytes)
    app.add_middleware(RequestMetrics, metrics=app.state.metrics)
    app.add_middleware(HeadAsGet)

    app.include_router(api_router, prefix=API_PREFIX)
    app.include_router(dashboard.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_api_route("/favicon.ico", _favicon, include_in_schema=False, methods=["GET"])
    install_docs(app)
    return app


app = create_app()
