"""Health: the process answers, the database is reachable, and with a broker, whether it
answers and which workers it has seen (`app.services.runs.presence`)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response, status
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app import __version__
from app.api.deps import SessionDep, SettingsDep
from app.api.responses import DATABASE, error_responses
from app.api.schemas import BrokerHealthOut, ErrorOut, HealthOut, WorkerSeenOut
from app.db import redact_url
from app.services.runs import presence

__all__ = ["router"]

router = APIRouter(tags=["health"])

UNAVAILABLE = (
    f"{DATABASE} (`detail` says why); or the broker does not answer, so no run can be "
    "dispatched (the answer's `status` is `unavailable`)"
)


@router.get(
    "/healthz",
    response_model=HealthOut,
    responses=error_responses(
        validated=False,
        database=False,
        e503={"model": HealthOut | ErrorOut, "description": UNAVAILABLE},
    ),
)
def read_health(session: SessionDep, settings: SettingsDep, response: Response) -> HealthOut:
    """200 when the database answers a query and, with a broker, the broker answers within
    a second: `status` is `ok`, or `degraded` while no worker consuming the check queue
    has been seen (runs wait for one). 503 when the database does not answer (`detail`
    says why), or the broker does not (`status` is `unavailable`)."""
    _check_database(session, settings.database_url)
    if not settings.broker_url:
        return HealthOut(status="ok", database="ok", version=__version__)
    state = presence.probe(settings.broker_url)
    workers = [
        WorkerSeenOut(
            name=w.name, queues=w.queues, concurrency=w.concurrency, seen_s_ago=w.seen_s_ago
        )
        for w in state.workers
    ]
    if not state.reachable:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
        health = "unavailable"
    elif any(settings.check_queue in w.queues for w in workers):
        health = "ok"
    else:
        health = "degraded"
    return HealthOut(
        status=health,  # type: ignore[arg-type]
        database="ok",
        version=__version__,
        broker=BrokerHealthOut(
            url=redact_url(settings.broker_url), reachable=state.reachable, error=state.error
        ),
        workers=workers,
    )


def _check_database(session: Session, database_url: str) -> None:
    try:
        session.execute(text("SELECT 1")).scalar_one()
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            detail=f"database {redact_url(database_url)} is unreachable: "
            + (reason[0] if reason else type(exc).__name__),
        ) from None
