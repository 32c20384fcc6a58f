"""Check runs: create one (executed by the workers, or the in-process runner), follow it,
cancel it, read its results and JUnit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from sqlalchemy.orm import Session

from app import crud, models, schemas
from app.api.deps import SessionDep, SettingsDep, WriteAccess
from app.api.params import IdempotencyKey, Limit, Offset, RunId
from app.api.responses import error_responses, queue_responses
from app.api.schemas import ErrorOut, RunCreate, RunDetail, RunProgress, RunStatus, RunTrigger
from app.db import run_in_transaction
from app.services.ci import junit_xml, sarif_document, sarif_json, source_lines
from app.services.reading import views
from app.services.reading.proofs import proof_states
from app.services.runs import (
    API_TRIGGER,
    CheckParams,
    IdempotencyConflict,
    SelectionError,
    UncheckableNames,
    UnknownDims,
    lock_runs,
    queue_run,
)
from app.services.runs import cancel_run as cancel_check_run
from app.settings import Settings

__all__ = ["announce_run", "names_error", "router", "run_detail"]

router = APIRouter(prefix="/runs", tags=["runs"])

UNKNOWN = "no run with that id"
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
    given: Any = body.module
    if isinstance(exc, UnknownDims):
        loc, given = ("body", "dims"), body.dims
    return RequestValidationError(
        [{"type": "value_error", "loc": loc, "msg": str(exc), "input": given}]
    )


def names_error(exc: UncheckableNames) -> RequestValidationError:
    """The 422 of names that cannot be checked, each located at its index in `names`."""
    return RequestValidationError(
        [
            {"type": "value_error", "loc": ("body", "names", i), "msg": msg}
            | {"input": exc.names[i]}
            for i, msg in exc.problems
        ]
    )


def queue_for_request(
    request: Request,
    response: Response,
    session: Session,
    *,
    settings: Settings,
    params: CheckParams,
    trigger: str,
    idempotency_key: str | None,
    selection_error: Callable[[SelectionError], Exception],
    commit: str | None = None,
) -> models.Run:
    """Queue a run for an HTTP request (`queueing.queue_run` in a transaction of its own):
    a new run is announced, an Idempotency-Key's earlier run is answered 200 and marked
    replayed; a reused key is 409, uncheckable names 422 at their index, and a selection
    error what `selection_error` makes of it."""

    def queue() -> tuple[models.Run, bool]:
        try:
            return queue_run(
                session,
                settings=settings,
                params=params,
                trigger=trigger,
                commit=commit,
                idempotency_key=idempotency_key,
                warm=request.app.state.describer.warm,
            )
        except IdempotencyConflict as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from None
        except UncheckableNames as exc:
            raise names_error(exc) from None
        except SelectionError as exc:
            raise selection_error(exc) from None

    run, created = run_in_transaction(session, queue)
    if created:
        announce_run(request, session, run)
    else:
        response.status_code = status.HTTP_200_OK
        response.headers["Idempotent-Replayed"] = "true"
    return run


def announce_run(request: Request, session: Session, run: models.Run) -> None:
    """Count a run just created and hand it to the workers: only now, its transaction
    committed, may a worker see it."""
    request.app.state.metrics.runs_created.inc()
    request.app.state.submit_run(run.id)
    session.refresh(run)


@router.post(
    "",
    response_model=RunDetail,
    status_code=status.HTTP_202_ACCEPTED,
    responses=queue_responses(RunDetail, too_large=TOO_LARGE),
)
def create_run(
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    _: WriteAccess,
    body: RunCreate,
    idempotency_key: IdempotencyKey = None,
) -> RunDetail:
    """Queue a check run over `names` (default: every theorem, or those of `module`) and
    return it (202, status `queued`); the workers execute it. Unknown or unsuitable names
    are 422 errors located at their index in `names`. With an `Idempotency-Key` that an
    earlier request used, nothing is created: that request's run is returned (200)."""
    params = CheckParams(
        names=tuple(body.names or ()),
        module=body.module,
        trials=body.trials,
        seed=body.seed,
        dtype=body.dtype,
        dims=body.dims,
        changed_only=body.changed_only,
        proof=body.proof,
    )
    run = queue_for_request(
        request,
        response,
        session,
        settings=settings,
        params=params,
        trigger=API_TRIGGER,
        idempotency_key=idempotency_key,
        selection_error=lambda exc: _selection_error(exc, body),
    )
    detail = run_detail(request, run)
    response.headers["Location"] = str(request.url_for("read_run", run_id=run.id).path)
    return detail


@router.get("", response_model=schemas.Page[RunDetail], responses=error_responses())
def read_runs(
    request: Request,
    session: SessionDep,
    status_: Annotated[
        RunStatus | None, Query(alias="status", description="only this status")
    ] = None,
    trigger: Annotated[RunTrigger | None, Query(description="only runs started so")] = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> schemas.Page[RunDetail]:
    """Runs, newest first, each as `GET /runs/{id}` gives it."""
    runs, count = crud.list_runs(
        session, limit=limit, offset=offset, status=status_, trigger=trigger
    )
    return schemas.Page[RunDetail](data=[run_detail(request, r) for r in runs], count=count)


@router.post(
    "/{run_id}/cancel",
    response_model=RunDetail,
    responses=error_responses(
        write=True,
        e404=UNKNOWN,
        e409={"model": ErrorOut, "description": "the run has already finished"},
    ),
)
def cancel_run(request: Request, session: SessionDep, _: WriteAccess, run_id: RunId) -> RunDetail:
    """Cancel a queued or running run: what it has not started is never checked, a chunk
    being checked stops before its next theorem, and every result recorded stays. 409 when
    the run has already finished."""

    def cancel() -> models.Run:
        # read, then write: the write lock first (see `create_run`)
        lock_runs(session)
        run = crud.get_run(session, run_id=run_id)
        if run is None:
            raise unknown_run(run_id)
        if not cancel_check_run(session, run_id):
            raise HTTPException(
                status.HTTP_409_CONFLICT,
                detail=f"run {run_id} has already finished: {run.status}",
            )
        return run

    run = run_in_transaction(session, cancel)
    session.refresh(run)
    return run_detail(request, run)


@router.get("/{run_id}", response_model=RunDetail, responses=error_responses(e404=UNKNOWN))
def read_run(request: Request, session: SessionDep, run_id: RunId) -> RunDetail:
    """Status (`queued`, `running`, then `passed`, `failed` (a theorem failed), `error` (a
    theorem errored, or the run could not be executed) or `cancelled`), progress and
    results by status."""
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
def read_run_junit(session: SessionDep, settings: SettingsDep, run_id: RunId) -> Response:
    """The run's results as JUnit XML, one test case per theorem (`unsupported` is skipped)
    at its file and line where known. 409 while the run is queued or running; a failed run
    adds an error case saying why."""
    rows = _finished_rows(session, run_id, "its JUnit XML")
    locations = source_lines(session, names=[r["name"] for r in rows], root=settings.source_root)
    run = crud.get_run(session, run_id=run_id)
    modules: dict[str, str] = {}
    if run is not None and run.error is not None:
        rows.append(
            {
                "name": f"run {run_id}",
                "status": "error",
                "reason": f"the run failed: {run.error}",
                "duration_s": 0.0,
            }
        )
        modules[f"run {run_id}"] = "proofbridge"
    body = junit_xml(rows, suite=f"proofbridge run {run_id}", modules=modules, locations=locations)
    return Response(content=body, media_type="application/xml")


@router.get(
    "/{run_id}/sarif",
    response_class=Response,
    responses={
        status.HTTP_200_OK: {
            "content": {"application/sarif+json": {"schema": {"type": "object"}}},
            "description": "SARIF 2.1.0",
        },
        **error_responses(
            e404=UNKNOWN,
            e409={"model": ErrorOut, "description": "the run is not finished yet"},
        ),
    },
)
def read_run_sarif(session: SessionDep, settings: SettingsDep, run_id: RunId) -> Response:
    """The run's failures and checker errors as SARIF 2.1.0 (for code scanning), each at its
    theorem's file and line, with a fingerprint that is the same for the same finding in
    every run. 409 while the run is queued or running."""
    rows = _finished_rows(session, run_id, "its SARIF")
    names = [r["name"] for r in rows]
    proofs = proof_states(session, names)
    rows = [r | proofs[r["name"]].to_json() if r["name"] in proofs else r for r in rows]
    locations = source_lines(session, names=names, root=settings.source_root)
    document = sarif_document(rows, locations=locations, automation_id=f"proofbridge/run/{run_id}")
    return Response(content=sarif_json(document), media_type="application/sarif+json")


def _finished_rows(session: Any, run_id: int, what: str) -> list[dict[str, Any]]:
    """The results of a finished run as JSON rows; 404 or 409 otherwise."""
    run = crud.get_run(session, run_id=run_id)
    if run is None:
        raise unknown_run(run_id)
    if run.status in ("queued", "running"):
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail=f"run {run_id} is {run.status} ({run.completed} of {run.total} results): "
            f"{what} is ready when it is done",
        )
    return [
        r.model_dump(mode="json")
        for r in views.results_out(session, crud.run_results(session, run_id=run_id))
    ]
