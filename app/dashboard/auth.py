"""Logging in to and out of the dashboard.

`/login?token=TOKEN` (or the login form) checks the API token with the same function the
API's bearer check uses (`app.api.deps.token_is_valid`) and sets a session cookie:
HttpOnly, SameSite=Strict, Secure over HTTPS, valid for `SESSION_MAX_AGE_S`, signed as
login.py says. Every write form carries a CSRF token, checked on POST. Without a valid
cookie a write answers 401, and with a wrong CSRF token 403, with a page saying how to log
in.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.api.deps import app_settings, token_is_valid
from app.dashboard.errors import PageRoute
from app.dashboard.login import (
    COOKIE,
    SESSION_MAX_AGE_S,
    Login,
    WriteRefused,
    cookie_value,
    current_login,
    require_login,
)
from app.dashboard.render import page

__all__ = ["COOKIE", "Login", "WriteRefused", "current_login", "require_login", "router"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)


def _next(target: str | None) -> str:
    """Where to go after logging in: a path of this site only."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


def _logged_in(request: Request, target: str | None) -> Response:
    response = RedirectResponse(_next(target), status_code=status.HTTP_303_SEE_OTHER)
    response.set_cookie(
        COOKIE,
        cookie_value(request),
        max_age=SESSION_MAX_AGE_S,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def _login_page(request: Request, *, message: str = "", status_code: int = 200) -> HTMLResponse:
    return page(request, "login.html", {"message": message}, status_code=status_code)


@router.get("/login", response_class=HTMLResponse)
def read_login(
    request: Request,
    token: Annotated[str | None, Query(max_length=1024)] = None,
    next: Annotated[str | None, Query(max_length=1024)] = None,
) -> Response:
    """With `?token=` the API token: log in and go to `next`; without it, the login form."""
    if token is None:
        return _login_page(request)
    if not token_is_valid(request, app_settings(request.app), token):
        return _login_page(request, message="That is not the API token.", status_code=401)
    return _logged_in(request, next)


@router.post("/login", response_class=HTMLResponse)
def create_login(
    request: Request,
    token: Annotated[str, Form(max_length=1024)],
    next: Annotated[str | None, Form(max_length=1024)] = None,
) -> Response:
    if not token_is_valid(request, app_settings(request.app), token):
        return _login_page(request, message="That is not the API token.", status_code=401)
    return _logged_in(request, next)


@router.post("/logout", response_class=HTMLResponse)
def create_logout(
    request: Request, csrf: Annotated[str | None, Form(max_length=128)] = None
) -> Response:
    try:
        require_login(request, csrf)
    except WriteRefused as exc:
        context = {"title": "Log out", "message": exc.message, "how_to_log_in": False}
        return page(request, "message.html", context, status_code=exc.status_code)
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
