"""The request body limit (`PROOFBRIDGE_MAX_UPLOAD_BYTES`), enforced twice.

A declared `Content-Length` over the limit is answered 413 before any of the body is read;
a body sent without one (chunked) or longer than declared is counted while it streams in,
and the read that crosses the limit raises `BodyTooLarge`, which handlers let through and
which becomes the same 413. Either way no more than the limit is ever read.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import HTTPException, status
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodySizeLimit", "BodyTooLarge", "too_large_detail"]

SETTING = "PROOFBRIDGE_MAX_UPLOAD_BYTES"


def too_large_detail(limit: int, size: int | None = None) -> str:
    amount = f"more than {limit}" if size is None else str(size)
    return f"request body too large: {amount} bytes (limit {limit} bytes, {SETTING})"


class BodyTooLarge(HTTPException):
    """The body read so far is over the limit."""

    def __init__(self, limit: int, size: int | None = None) -> None:
        super().__init__(
            status_code=status.HTTP_413_CONTENT_TOO_LARGE, detail=too_large_detail(limit, size)
        )


def _content_length(scope: Scope) -> int | None:
    value = Headers(scope=scope).get("content-length")
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


class BodySizeLimit:
    """ASGI middleware; `limit(scope)` gives the largest accepted body in bytes."""

    def __init__(self, app: ASGIApp, limit: Callable[[Scope], int]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await self._refuse(BodyTooLarge(limit, declared), scope, receive, send)
            return

        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge as exc:
            if started:
                raise
            await self._refuse(exc, scope, receive, send)

    @staticmethod
    async def _refuse(exc: BodyTooLarge, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            status_code=exc.status_code,
            content={"detail": exc.detail},
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)
