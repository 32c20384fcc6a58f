"""Logging in to the dashboard, and the CSRF token of its write forms.

`/login?token=TOKEN` (or the login form) checks the API token with the same function the
API's bearer check uses (`app.api.deps.token_is_valid`) and sets a session cookie:
HttpOnly, SameSite=Strict, Secure over HTTPS, valid for `SESSION_MAX_AGE_S`. The cookie
is signed, not stored: `ISSUED.NONCE.MAC`, the MAC an HMAC-SHA256 keyed with the API token
over the issue time and a random nonce, so it survives a restart of the server and stops
working when the token changes. Every write form carries a CSRF token, the HMAC of the
cookie's nonce under the same key, checked on POST. Without a valid cookie a write answers
401, and with a wrong CSRF token 403, with a page saying how to log in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.api.deps import app_settings, expected_token, token_is_valid
from app.dashboard.errors import PageRoute

__all__ = ["COOKIE", "Login", "WriteRefused", "current_login", "require_login", "router"]

router = APIRouter(include_in_schema=False, route_class=PageRoute)

COOKIE = "proofbridge_session"
SESSION_MAX_AGE_S = 12 * 3600


@dataclass(frozen=True)
class Login:
    """A valid dashboard session: its nonce, and the CSRF token its forms carry."""

    nonce: str
    csrf: str


class WriteRefused(Exception):
    """A dashboard write without a session (401) or with a wrong CSRF token (403)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message


def _key(request: Request) -> bytes:
    return expected_token(request, app_settings(request.app)).encode()


def _mac(key: bytes, *parts: str) -> str:
    return hmac.new(key, "|".join(parts).encode(), hashlib.sha256).hexdigest()


def _cookie_value(request: Request) -> str:
    issued, nonce = str(int(time.time())), secrets.token_urlsafe(16)
    return f"{issued}.{nonce}.{_mac(_key(request), 'session', issued, nonce)}"


def current_login(request: Request) -> Login | None:
    """The session the request's cookie holds, or None (absent, forged, expired)."""
    value = request.cookies.get(COOKIE)
    if not value or value.count(".") != 2:
        return None
    issued, nonce, mac = value.split(".")
    if not issued.isdigit() or time.time() - int(issued) > SESSION_MAX_AGE_S:
        return None
    key = _key(request)
    if not hmac.compare_digest(mac, _mac(key, "session", issued, nonce)):
        return None
    return Login(nonce=nonce, csrf=_mac(key, "csrf", nonce))


def require_login(request: Request, csrf: str | None) -> Login:
    """The session of a write request whose form carried the right CSRF token."""
    login = current_login(request)
    if login is None:
        raise WriteRefused(status.HTTP_401_UNAUTHORIZED, "You are not logged in.")
    if not csrf or not hmac.compare_digest(csrf, login.csrf):
        raise WriteRefused(
            status.HTTP_403_FORBIDDEN,
            "The form's CSRF token is missing or wrong: reload the page and submit it again.",
        )
    return login


def _next(target: str | None) -> str:
    """Where to go after logging in: a path of this site only."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


def _logged_in(request: Request, target: str | None) -> Response:
    response = RedirectResponse(_next(target), status_code=status.HTTP_303_SEE_OTHER)
    response.set_cookie(
        COOKIE,
        _cookie_value(request),
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
    from app.dashboard.render import page

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
        from app.dashboard.render import page

        context = {"title": "Log out", "message": exc.message, "how_to_log_in": False}
        return page(request, "message.html", context, status_code=exc.status_code)
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
