"""The dashboard's login session and the CSRF token of its write forms, read from and
checked against the request (the routes that log in and out: auth.py).

The cookie is signed, not stored: `ISSUED.NONCE.MAC`, the MAC an HMAC-SHA256 keyed with the
API token over the issue time and a random nonce, so it survives a restart of the server
and stops working when the token changes. Every write form carries a CSRF token, the HMAC
of the cookie's nonce under the same key.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from fastapi import Request, status

from app.api.deps import app_settings, expected_token

__all__ = [
    "COOKIE",
    "SESSION_MAX_AGE_S",
    "Login",
    "WriteRefused",
    "cookie_value",
    "current_login",
    "require_login",
]

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


def cookie_value(request: Request) -> str:
    """A fresh session cookie's value, issued now."""
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
