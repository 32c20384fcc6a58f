"""`HEAD` answered wherever `GET` is (RFC 9110, 9.3.2): the same status and headers, no body.

FastAPI routes accept only the methods they declare, so `HEAD /` was 405. This ASGI
middleware hands a `HEAD` request to the application as a `GET`, passes on the start of
its answer and ends the body at once; a streamed answer (the run page's event stream) is
then told that the client has gone, so it stops.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGet"]


class HeadAsGet:
    """ASGI middleware: `HEAD` is `GET` without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        answered = False

        async def head_send(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not answered:
                answered = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def head_receive() -> Message:
            if answered:
                return {"type": "http.disconnect"}
            return await receive()

        await self.app(dict(scope, method="GET"), head_receive, head_send)
