"""The overview (`/`): theorems by newest status, coverage, modules, runs, new failures."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app import crud
from app.api.deps import SessionDep
from app.dashboard import data
from app.dashboard.errors import PageRoute
from app.dashboard.render import page
from app.dashboard.svg import STATUS_ORDER, status_bar

__all__ = ["router"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)


@router.get("/", response_class=HTMLResponse)
def read_overview(request: Request, session: SessionDep) -> HTMLResponse:
    modules = crud.module_summaries(session)
    counts: dict[str, int] = {}
    for summary in modules:  # what queries.theorem_status_counts adds up, read once
        for status, n in summary["statuses"].items():
            counts[status] = counts.get(status, 0) + n
    runs, run_count = crud.list_runs(session, limit=10)
    newest = data.previous_finished_run(session)
    failing = data.newly_failing(session, run=newest) if newest is not None else []
    return page(
        request,
        "overview.html",
        {
            "counts": counts,
            "statuses": STATUS_ORDER,
            "total": sum(counts.values()),
            "coverage": data.coverage(session),
            "bar": status_bar(counts, width=480, height=20),
            "modules": [m | {"bar": status_bar(m["statuses"])} for m in modules if m["theorems"]],
            "runs": runs,
            "run_count": run_count,
            "newest": newest,
            "failing": failing,
            "triaged": data.failing_by_proof(session),
        },
    )
