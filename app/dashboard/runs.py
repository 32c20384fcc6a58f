"""Runs: the list, one run with its results, its live progress as server-sent events, and
the dashboard's writes (start a run over a module or a theorem, cancel a run).

Without JavaScript a run's page shows its state when loaded, with a refresh link; with
it, `static/dashboard.js` follows `/runs/{id}/events` and reloads the page when the run
finishes. The writes need a dashboard login and the form's CSRF token (`auth`), and queue
runs as `POST /api/v1/runs` does (`actions`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from app import crud, models
from app.api.deps import SessionDep, SettingsDep
from app.api.params import MAX_ID
from app.dashboard import actions, data
from app.dashboard.errors import PageRoute
from app.dashboard.login import WriteRefused, require_login
from app.dashboard.paging import MAX_PAGE, Pager
from app.dashboard.render import page
from app.dashboard.svg import STATUS_ORDER
from app.dashboard.theorems import not_found
from app.db import get_sessionmaker
from app.services.reading import views
from app.services.runs import ACTIVE_RUN_STATUSES

__all__ = ["EVENT_POLL_S", "router"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)

# how often the event stream reads the run again, and sends a keep-alive comment
EVENT_POLL_S = 0.5
KEEPALIVE_S = 15.0

PageNumber = Annotated[int, Query(alias="page", ge=1, le=MAX_PAGE)]
ResultFilter = Literal["", "pass", "fail", "error", "unsupported"]
FormText = Annotated[str, Form(max_length=1024, pattern=r"^[^\x00]*$")]


def refused(request: Request, exc: WriteRefused) -> HTMLResponse:
    return page(
        request,
        "message.html",
        {"title": "Log in to do this", "message": exc.message, "how_to_log_in": True},
        status_code=exc.status_code,
    )


@router.get("/runs", response_class=HTMLResponse)
def read_runs(request: Request, session: SessionDep, page_: PageNumber = 1) -> HTMLResponse:
    pager = Pager(page=page_)
    runs, count = crud.list_runs(session, limit=pager.size, offset=pager.offset)
    return page(request, "runs.html", {"runs": runs, "pager": pager.counted(count)})


def progress(run: models.Run) -> dict[str, object]:
    return {
        "id": run.id,
        "status": run.status,
        "done": run.completed,
        "total": run.total,
        "pass": run.passed,
        "fail": run.failed,
        "error": run.errored,
        "unsupported": run.unsupported,
        "active": run.status in ACTIVE_RUN_STATUSES,
    }


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def read_run(
    request: Request,
    session: SessionDep,
    run_id: int,
    status_: Annotated[ResultFilter, Query(alias="status")] = "",
    page_: PageNumber = 1,
) -> HTMLResponse:
    run = crud.get_run(session, run_id=run_id) if 0 < run_id <= MAX_ID else None
    if run is None:
        return not_found(request, f"There is no run {run_id}.")
    pager = Pager(page=page_)
    results, count = data.run_results_page(
        session, run_id=run_id, status=status_ or None, limit=pager.size, offset=pager.offset
    )
    return page(
        request,
        "run.html",
        {
            "run": run,
            "p": progress(run),
            "results": views.results_out(session, results),
            "pager": pager.counted(count),
            "filter": status_,
            "statuses": STATUS_ORDER[:4],
        },
    )


def _event(name: str, payload: dict[str, object]) -> str:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n"


@router.get("/runs/{run_id}/events")
async def read_run_events(request: Request, settings: SettingsDep, run_id: int) -> Response:
    """`text/event-stream`: a `progress` event whenever the run's counts change, then
    `done` once it has finished, and the stream ends."""
    maker = get_sessionmaker(settings.database_url)

    def read() -> dict[str, object] | None:
        with maker() as session:
            run = crud.get_run(session, run_id=run_id) if 0 < run_id <= MAX_ID else None
            return progress(run) if run is not None else None

    first = await run_in_threadpool(read)
    if first is None:
        return Response(f"unknown run: {run_id}", status_code=404, media_type="text/plain")

    async def stream() -> AsyncIterator[str]:
        state: dict[str, object] | None = first
        last: dict[str, object] | None = None
        quiet = 0.0
        yield "retry: 2000\n\n"
        while state is not None:
            if state != last:
                yield _event("progress", state)
                last, quiet = state, 0.0
            if not state["active"]:
                yield _event("done", state)
                return
            if quiet >= KEEPALIVE_S:
                yield ": keep-alive\n\n"
                quiet = 0.0
            if await request.is_disconnected():
                return
            await asyncio.sleep(EVENT_POLL_S)
            quiet += EVENT_POLL_S
            state = await run_in_threadpool(read)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.post("/runs", response_class=HTMLResponse)
def create_run(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    csrf: FormText = "",
    module: FormText = "",
    name: FormText = "",
) -> Response:
    """Start a run over a module (`module`), one theorem (`name`) or every theorem."""
    try:
        require_login(request, csrf)
    except WriteRefused as exc:
        return refused(request, exc)
    try:
        run = actions.queue_run(
            request, session, settings, names=[name] if name else [], module=module or None
        )
    except actions.QueueRefused as exc:
        return page(
            request,
            "message.html",
            {"title": "The run was not started", "message": str(exc)},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    return RedirectResponse(f"/runs/{run.id}", status_code=status.HTTP_303_SEE_OTHER)


@router.post("/runs/{run_id}/cancel", response_class=HTMLResponse)
def cancel_run(request: Request, session: SessionDep, run_id: int, csrf: FormText = "") -> Response:
    try:
        require_login(request, csrf)
    except WriteRefused as exc:
        return refused(request, exc)
    if not 0 < run_id <= MAX_ID or crud.get_run(session, run_id=run_id) is None:
        return not_found(request, f"There is no run {run_id}.")
    actions.cancel(session, run_id)
    return RedirectResponse(f"/runs/{run_id}", status_code=status.HTTP_303_SEE_OTHER)
