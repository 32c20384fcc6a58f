"""The error responses each operation documents (`responses=` of the routes), with their
models: `{"detail": "..."}` for most, FastAPI's list of located problems for a 422."""

from __future__ import annotations

from typing import Any

from fastapi import status

from app.api.schemas import ErrorOut, ValidationErrorOut

__all__ = ["DATABASE", "UNAUTHORIZED", "error_responses", "queue_responses"]

UNAUTHORIZED = "missing, malformed or wrong bearer token"
DATABASE = "the database is unreachable or stayed locked"
VALIDATION = "the request does not match the schema (each problem located in `detail`)"


def queue_responses(model: Any, *, too_large: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` for an operation that queues a run under an optional Idempotency-Key:
    the replayed run (200), a key reused for another request (409), a body too large."""
    return error_responses(
        write=True,
        e413=too_large,
        e409={
            "model": ErrorOut,
            "description": "the Idempotency-Key was used for a different request",
        },
    ) | {
        status.HTTP_200_OK: {
            "model": model,
            "description": "the run of an earlier request with the same Idempotency-Key",
        }
    }


def error_responses(
    *,
    write: bool = False,
    validated: bool = True,
    database: bool = True,
    **described: Any,
) -> dict[int | str, dict[str, Any]]:
    """`responses=` for an operation: 401 when it takes the token (`write`), 422 when it
    validates parameters or a body, 503 when it reads the database, and each code given as
    `e404="unknown theorem"` (a description, or a whole response object)."""
    out: dict[int | str, dict[str, Any]] = {}
    if write:
        out[status.HTTP_401_UNAUTHORIZED] = {"model": ErrorOut, "description": UNAUTHORIZED}
    for key, value in described.items():
        code = int(key.removeprefix("e"))
        out[code] = value if isinstance(value, dict) else {"model": ErrorOut, "description": value}
    if validated and status.HTTP_422_UNPROCESSABLE_CONTENT not in out:
        out[status.HTTP_422_UNPROCESSABLE_CONTENT] = {
            "model": ValidationErrorOut,
            "description": VALIDATION,
        }
    if database:
        out[status.HTTP_503_SERVICE_UNAVAILABLE] = {"model": ErrorOut, "description": DATABASE}
    return dict(sorted(out.items(), key=lambda item: str(item[0])))
