"""Bad requests to the dashboard's pages answer a page, not the API's JSON.

A dashboard route is a `PageRoute`: a request that fails validation (`/theorems?page=abc`,
a form without its fields) answers 422 with the dashboard's message page, naming each
parameter and what was wrong with it. The API under /api/v1 keeps its JSON errors.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from fastapi import Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from app.dashboard.render import page

__all__ = [
    "PageRoute",
    "describe_problems",
    "install_page_errors",
    "invalid_request_page",
    "wants_page",
]

SHOWN_INPUT = 80  # characters of a bad value echoed on the page
WHERE = {"query": "query parameter", "path": "path parameter", "body": "form field"}


def _problem(error: dict[str, Any]) -> str:
    loc = [str(part) for part in error.get("loc") or ()]
    where = WHERE.get(loc[0], loc[0]) if loc else "request"
    name = ".".join(loc[1:])
    text = f"{where} {name}: {error.get('msg', 'invalid')}" if name else str(error.get("msg"))
    given = error.get("input")
    if isinstance(given, str | int | float) and error.get("type") != "missing":
        shown = str(given)
        if len(shown) > SHOWN_INPUT:
            shown = shown[:SHOWN_INPUT] + "…"
        text += f" (got {shown!r})"
    return text


def describe_problems(errors: Sequence[dict[str, Any]]) -> str:
    """`query parameter page: Input should be a valid integer, … (got 'abc')`, one per
    problem, joined by "; "."""
    return "; ".join(_problem(dict(e)) for e in errors)


def invalid_request_page(request: Request, exc: RequestValidationError) -> Response:
    return page(
        request,
        "message.html",
        {"title": "Bad request", "message": describe_problems(exc.errors())},
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


class PageRoute(APIRoute):
    """A route of the dashboard: its validation errors are answered with a page."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def page_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                return invalid_request_page(request, exc)

        return page_handler


# paths that are not the dashboard's pages: their errors stay JSON
NOT_PAGES = ("/api/", "/docs", "/openapi.json", "/static/", "/favicon.ico")
TITLES = {404: "Not found", 405: "Method not allowed"}


def wants_page(request: Request) -> bool:
    """A browser asking for a dashboard path (not the API's, its documentation's or a
    static file's)."""
    if request.url.path.startswith(NOT_PAGES):
        return False
    return "text/html" in request.headers.get("accept", "")


def install_page_errors(app: Any) -> None:
    """Answer a browser's unknown dashboard path (404) or method (405) with a page; every
    other HTTP error goes on to the handler installed before."""
    from starlette.exceptions import HTTPException as StarletteHTTPException

    handle_json = app.exception_handlers[StarletteHTTPException]

    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code not in TITLES or not wants_page(request):
            return await handle_json(request, exc)
        message = (
            f"There is no page at {request.url.path}."
            if exc.status_code == 404
            else f"{request.method} is not allowed on {request.url.path}."
        )
        response = page(
            request,
            "message.html",
            {"title": TITLES[exc.status_code], "message": message},
            status_code=exc.status_code,
        )
        response.headers.update(exc.headers or {})
        return response

    app.add_exception_handler(StarletteHTTPException, handle)
