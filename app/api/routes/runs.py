"""Check runs: create one (executed by the worker), follow it, read its results and JUnit."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError

from app import crud, models, schemas
from app.api.deps import SessionDep, WriteAccess
from app.api.params import RunId
from app.api.responses import error_responses
from app.api.schemas import ErrorOut, RunCreate, RunDetail, RunProgress
from app.db import lock_for_writing, run_in_transaction
from app.services import queries, views
from app.services.checks import CheckParams, SelectionError
from app.services.checks import create_run as create_check_run
from app.services.junit import junit_xml
from app.services.runner import API_TRIGGER

__all__ = ["router", "run_detail"]

router = APIRouter(prefix="/runs", tags=["runs"])

UNKNOWN = "no run with that id"
RUNS_LOCK = "proofbridge.runs"
TOO_LARGE = "body over PROOFBRIDGE_MAX_UPLOAD_BYTES"


def unknown_run(run_id: int) -> HTTPException:
    return HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=f"unknown run: {run_id}")


def run_detail(request: Request, run: models.Run) -> RunDetail:
    out = views.run_out(run)
    return RunDetail(
        **out.model_dump(),
        progress=RunProgress(done=run.completed, total=run.total),
        summary={
            "pass": run.passed,
            "fail": run.failed,
            "error": run.errored,
            "unsupported": run.unsupported,
        },
        junit=str(request.url_for("read_run_junit", run_id=run.id).path),
    )


def _selection_error(exc: SelectionError, body: RunCreate) -> RequestValidationError:
    loc: tuple[Any, ...] = ("body", "module") if body.module else ("body",)
    return RequestValidationError(
        [{"type": "value_error", "loc": loc, "msg": str(exc), "input": body.module}]
    )


@router.post(
    "",
    response_model=RunDetail,
    status_code=status.HTTP_202_ACCEPTED,
    responses=error_responses(write=True, e413=TOO_LARGE),
)
def create_run(
    request: Request,
    response: Response,
    session: SessionDep,
    _: WriteAccess,
    body: RunCreate,
) -> RunDetail:
    """Queue a check run over `names` (default: every theorem, or those of `module`) and
    return it (202, status `queued`); the worker executes it. Unknown or unsuitable names
    are 422 errors located at their index in `names`."""
    names = list(body.names or [])

    def queue() -> models.Run:
        # It reads the selection, then writes the run: it takes the write lock first, so
        # that no other writer can commit in between and make SQLite refuse the write.
        lock_for_writing(session, RUNS_LOCK)
        problems = queries.run_selection_problems(session, names=names, module=body.module)
        if problems:
            raise RequestValidationError(
                [
                    {"type": "value_error", "loc": ("body", "names", i), "msg": msg}
                    | {"input": names[i]}
                    for i, msg in problems
                ]
            )
        try:
            params = CheckParams(
                names=tuple(names),
                module=body.module,
                trials=body.trials,
                seed=body.seed,
                dtype=body.dtype,
                dims=body.dims,
                changed_only=body.changed_only,
            )
            return create_check_run(session, params=params, trigger=API_TRIGGER)
        except SelectionError as exc:
            raise _selection_error(exc, body) from None

    run = run_in_transaction(session, queue)
    request.app.state.metrics.runs_created.inc()
    request.app.state.submit_run(run.id)
    detail = run_detail(request, run)
    response.headers["Location"] = str(request.url_for("read_run", run_id=run.id).path)
    return detail


@router.get("/{run_id}", response_model=RunDetail, responses=error_responses(e404=UNKNOWN))
def read_run(request: Request, session: SessionDep, run_id: RunId) -> RunDetail:
    """Status (`queued`, `running`, `done`, `failed`), progress and results by status."""
    run = crud.get_run(session, run_id=run_id)
    if run is None:
        raise unknown_run(run_id)
    return run_detail(request, run)


@router.get(
    "/{run_id}/results",
    response_model=schemas.Page[schemas.ResultOut],
    responses=error_responses(e404=UNKNOWN),
)
def read_run_results(
    session: SessionDep,
    run_id: RunId,
    status_: Annotated[
        schemas.ResultStatus | None, Query(alias="status", description="only this status")
    ] = None,
) -> schemas.Page[schemas.ResultOut]:
    """The run's results so far, by theorem name."""
    if crud.get_run(session, run_id=run_id) is None:
        raise unknown_run(run_id)
    results = crud.run_results(session, run_id=run_id)
    if status_ is not None:
        results = [r for r in results if r.status == status_]
    return schemas.Page[schemas.ResultOut](
        data=views.results_out(session, results), count=len(results)
    )


@router.get(
    "/{run_id}/junit.xml",
    response_class=Response,
    responses={
        status.HTTP_200_OK: {
            "content": {"application/xml": {"schema": {"type": "string"}}},
            "description": "JUnit XML",
        },
        **error_responses(
            e404=UNKNOWN,
            e409={"model": ErrorOut, "description": "the run is not finished yet"},
        ),
    },
)
def read_run_junit(session: SessionDep, run_id: RunId) -> Response:
    """The run's results as JUnit XML, one test case per theorem (`unsupported` is skipped).
    409 while the run is queued or running; a failed run adds an error case saying why."""
    run = crud.get_run(session, run_id=run_id)
    if run is None:
        raise unknown_run(run_id)
    if run.status in ("queued", "running"):
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail=f"run {run_id} is {run.status} ({run.completed} of {run.total} results): "
            "its JUnit XML is ready when it is done",
        )
    rows = [
        r.model_dump(mode="json")
        for r in views.results_out(session, crud.run_results(session, run_id=run_id))
    ]
    modules = queries.declaration_modules(session, names=[r["name"] for r in rows])
    if run.status == "failed":
        rows.append(
            {
                "name": f"run {run_id}",
                "status": "error",
                "reason": f"the run failed: {run.error}",
                "duration_s": 0.0,
            }
        )
        modules[f"run {run_id}"] = "proofbridge"
    body = junit_xml(rows, suite=f"proofbridge run {run_id}", modules=modules)
    return Response(content=body, media_type="application/xml")
