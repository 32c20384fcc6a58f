"""Answers to the read pages, kept per process and keyed by the database's generation.

A `GET` of a listed page (the theorem and declaration lists, a theorem, the modules, the
runs, and the dashboard's pages) is answered from memory when the same request was
answered before at the same generation of the database (`app.generation`): nothing has
committed since, so the answer would be the same bytes. Any commit, by this process, a
worker or another server, changes the generation and so misses every entry made before.

The key is the generation, the path and query, and the headers an answer can depend on
(`Cookie`, `Authorization`, `Accept`, `Accept-Encoding`, `HX-Request`), so a signed-in
page is never served to another visitor. Only complete `200` answers without
`Set-Cookie` are kept, each at most `MAX_ENTRY` bytes, the least recently used dropped
beyond `max_bytes`; streams (a run's events) and everything else pass straight through.
An answer says `X-Cache: hit` or `miss`. `max_bytes = 0` (`PROOFBRIDGE_PAGE_CACHE_MB=0`)
turns it off; a database whose generation cannot be read is never cached.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from anyio import to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CACHED_PATHS", "PageCache"]

# what is cached: pages that are a function of the database and the request alone
CACHED_PATHS = re.compile(
    r"^/(?:"
    r"|theorems(?:/.*)?|modules(?:/.*)?|runs(?:/\d+)?"
    r"|api/v1/(?:theorems(?:/.*)?|declarations|modules|runs(?:/\d+(?:/junit\.xml)?)?)"
    r")$"
)
VARY = (b"cookie", b"authorization", b"accept", b"accept-encoding", b"hx-request")
MAX_ENTRY = 4 * 1024 * 1024


@dataclass(frozen=True)
class _Answer:
    start: Message
    body: bytes


class PageCache:
    """ASGI middleware. `generation()` is called in a worker thread before each cached
    path is answered; `max_bytes()` is read per request (0: off)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        generation: Callable[[], str | None],
        max_bytes: Callable[[], int],
    ) -> None:
        self.app = app
        self.generation = generation
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[object, ...], _Answer] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not CACHED_PATHS.match(scope["path"])
            or self.max_bytes() <= 0
        ):
            await self.app(scope, receive, send)
            return
        generation = await to_thread.run_sync(self.generation)
        if generation is None:
            await self.app(scope, receive, send)
            return
        key = self._key(scope, generation)
        with self._lock:
            answer = self._entries.get(key)
            if answer is not None:
                self._entries.move_to_end(key)
        if answer is not None:
            await self._send(send, answer, b"hit")
            return
        await self._answer_and_keep(scope, receive, send, key)

    @staticmethod
    def _key(scope: Scope, generation: str) -> tuple[object, ...]:
        headers = dict(scope["headers"])
        return (
            generation,
            scope["path"],
            scope.get("query_string", b""),
            *(headers.get(name, b"") for name in VARY),
        )

    @staticmethod
    async def _send(send: Send, answer: _Answer, state: bytes) -> None:
        await send(_with_state(answer.start, state))
        await send({"type": "http.response.body", "body": answer.body, "more_body": False})

    async def _answer_and_keep(
        self, scope: Scope, receive: Receive, send: Send, key: tuple[object, ...]
    ) -> None:
        start: Message = {}
        chunks: list[bytes] = []
        held = 0
        keep = True

        async def capture(message: Message) -> None:
            nonlocal start, keep, held
            if message["type"] == "http.response.start":
                start = message
                headers = message.get("headers", [])
                if message["status"] != 200 or any(n.lower() == b"set-cookie" for n, _ in headers):
                    keep = False
                    await send(_with_state(message, b"miss"))
                return
            if not keep or message["type"] != "http.response.body":
                await send(message)
                return
            body = message.get("body", b"")
            chunks.append(body)
            held += len(body)
            if not message.get("more_body", False):
                answer = _Answer(start=start, body=b"".join(chunks))
                if held <= MAX_ENTRY:
                    self._keep(key, answer)
                await self._send(send, answer, b"miss")
            elif held > MAX_ENTRY:  # too large to keep: send what was held, pass the rest on
                keep = False
                await send(_with_state(start, b"miss"))
                await send(
                    {"type": "http.response.body", "body": b"".join(chunks), "more_body": True}
                )

        await self.app(scope, receive, capture)

    def _keep(self, key: tuple[object, ...], answer: _Answer) -> None:
        limit = self.max_bytes()
        size = len(answer.body) + 512
        if size > limit:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= len(old.body) + 512
            self._entries[key] = answer
            self._size += size
            while self._size > limit and self._entries:
                _, dropped = self._entries.popitem(last=False)
                self._size -= len(dropped.body) + 512


def _with_state(start: Message, state: bytes) -> Message:
    out = dict(start)
    out["headers"] = [*start.get("headers", []), (b"x-cache", state)]
    return out
