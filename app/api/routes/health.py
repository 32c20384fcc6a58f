"""Liveness: the process answers and the database is reachable."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app import __version__
from app.api.deps import SessionDep, SettingsDep
from app.api.responses import error_responses
from app.api.schemas import HealthOut
from app.db import redact_url

__all__ = ["router"]

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    response_model=HealthOut,
    responses=error_responses(validated=False),
)
def read_health(session: SessionDep, settings: SettingsDep) -> HealthOut:
    """200 when the database answers a query, else 503 saying why."""
    try:
        session.execute(text("SELECT 1")).scalar_one()
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            detail=f"database {redact_url(settings.database_url)} is unreachable: "
            + (reason[0] if reason else type(exc).__name__),
        ) from None
    return HealthOut(status="ok", database="ok", version=__version__)
