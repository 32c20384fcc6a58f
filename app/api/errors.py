"""Error responses: always JSON `{"detail": ...}`.

- Validation errors keep FastAPI's shape (a list of `{type, loc, msg, ...}`), except that
  malformed JSON says where: `"malformed JSON: Expecting value (at line 2, column 5)"`, with
  `line` and `column` (1-based) beside it. A body that is not even text (invalid UTF-8) or
  nests too deeply is malformed JSON too (422, where FastAPI answers 400). Text the request
  sent that is not Unicode (a lone surrogate) is echoed with U+FFFD in its place.
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
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.deps import app_settings
from app.db import redact_url

__all__ = [
    "install_error_handlers",
    "json_error_position",
    "locate_json_error",
    "undecodable_body_error",
    "unicode_safe",
]

# What FastAPI answers (400) when reading the body raised something else than a
# JSONDecodeError.
BODY_PARSE_FAILURE = "There was an error parsing the body"

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


def unicode_safe(value: Any) -> Any:
    """`value` (JSON-like) with every lone surrogate replaced by U+FFFD, so it encodes."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {unicode_safe(k): unicode_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [unicode_safe(v) for v in value]
    return value


def undecodable_body_error(cause: BaseException) -> dict[str, Any]:
    """The `json_invalid` problem of a body that could not be read as JSON text at all."""
    if isinstance(cause, UnicodeDecodeError):
        data = bytes(cause.object)
        pos = cause.start
        line = data.count(b"\n", 0, pos) + 1
        column = pos - (data.rfind(b"\n", 0, pos) + 1) + 1
        reason = f"not {cause.encoding} text ({cause.reason} at byte {pos})"
    else:
        line, column, pos = 1, 1, 0
        reason = "nested too deeply" if isinstance(cause, RecursionError) else str(cause)
    return {
        "type": "json_invalid",
        "loc": ["body", pos],
        "msg": f"malformed JSON: {reason} (at line {line}, column {column})",
        "line": line,
        "column": column,
        "position": pos,
    }


def _unprocessable(errors: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse(
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        content={"detail": unicode_safe(jsonable_encoder(errors))},
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return _unprocessable([locate_json_error(e, exc.body) for e in exc.errors()])


async def _http_error(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, StarletteHTTPException)
    cause = exc.__cause__
    if exc.status_code == 400 and exc.detail == BODY_PARSE_FAILURE and cause is not None:
        log.info("unreadable body on %s %s: %r", request.method, request.url.path, cause)
        return _unprocessable([undecodable_body_error(cause)])
    return await http_exception_handler(request, exc)


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
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(DBAPIError, _database_error)
    app.add_exception_handler(Exception, _internal_error)
