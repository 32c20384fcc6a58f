"""Error responses: always JSON `{"detail": ...}`.

- Validation errors keep FastAPI's shape (a list of `{type, loc, msg, ...}`), except that
  malformed JSON says where: `"malformed JSON: Expecting value (at line 2, column 5)"`, with
  `line` and `column` (1-based) beside it.
- The database being unreachable is a 503 naming the (password-less) URL.
- Anything else unexpected is a 500 whose detail names the exception type; the traceback
  goes to the log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, OperationalError

from app.api.deps import app_settings
from app.db import redact_url

__all__ = ["install_error_handlers", "json_error_position", "locate_json_error"]

log = logging.getLogger("proofbridge.api")


def json_error_position(document: str, pos: int) -> tuple[int, int]:
    """(line, column), both 1-based, of character offset `pos` in `document`."""
    pos = max(0, min(pos, len(document)))
    line = document.count("\n", 0, pos) + 1
    column = pos - (document.rfind("\n", 0, pos) + 1) + 1
    return line, column


def locate_json_error(error: Mapping[str, Any], body: Any) -> dict[str, Any]:
    """A `json_invalid` validation error with its line and column; others unchanged."""
    out = dict(error)
    if error.get("type") != "json_invalid":
        return out
    loc = tuple(error.get("loc") or ())
    pos = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else 0
    document = body if isinstance(body, str) else ""
    line, column = json_error_position(document, pos)
    reason = str((error.get("ctx") or {}).get("error") or "invalid JSON")
    out.update(
        msg=f"malformed JSON: {reason} (at line {line}, column {column})",
        line=line,
        column=column,
        position=pos,
    )
    out.pop("input", None)
    return out


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [locate_json_error(e, exc.body) for e in exc.errors()]
    return JSONResponse(
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        content={"detail": jsonable_encoder(errors)},
    )


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def _database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    url = redact_url(app_settings(request.app).database_url)
    log.error("database error on %s %s: %s", request.method, request.url.path, exc)
    return JSONResponse(
        status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
        content={"detail": f"database {url} is unavailable: {_first_line(exc)}"},
    )


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse(
        status_code=status.HTTP_500_INTERNAL_SERVER_ERROR,
        content={"detail": f"internal server error ({type(exc).__name__}); see the server log"},
    )


def _is_disconnect(exc: DBAPIError) -> bool:
    return isinstance(exc, OperationalError) or bool(exc.connection_invalidated)


async def _database_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DBAPIError)
    if _is_disconnect(exc):
        return await _database_unavailable(request, exc)
    return await _internal_error(request, exc)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(DBAPIError, _database_error)
    app.add_exception_handler(Exception, _internal_error)
