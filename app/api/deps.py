"""Dependencies of the handlers, as `Annotated` aliases: `SessionDep`, `SettingsDep`,
`WriteAccess`.

The settings are the application's own (`app.state.settings`, set when the app is built or
started) and fall back to the process-wide `get_settings()`. Write access takes the bearer
token in effect: `PROOFBRIDGE_API_TOKEN`, or the one generated and stored under the data
folder on the first start (`app.token`). Tokens are compared in constant time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from app.db import get_sessionmaker
from app.settings import Settings, get_settings
from app.token import ensure_api_token, token_matches

__all__ = [
    "SessionDep",
    "SettingsDep",
    "WriteAccess",
    "app_settings",
    "expected_token",
    "get_app_settings",
    "get_session",
    "require_write_access",
    "token_is_valid",
]

MISSING_TOKEN = "missing bearer token: send the API token as `Authorization: Bearer <token>`"
MALFORMED_AUTHORIZATION = "malformed Authorization header: expected `Bearer <token>`"
INVALID_TOKEN = "invalid bearer token"


def app_settings(app: Any) -> Settings:
    """The settings an application was built or started with (else the process-wide ones)."""
    settings = getattr(app.state, "settings", None)
    return settings if isinstance(settings, Settings) else get_settings()


def get_app_settings(request: Request) -> Settings:
    return app_settings(request.app)


SettingsDep = Annotated[Settings, Depends(get_app_settings)]


def get_session(settings: SettingsDep) -> Iterator[Session]:
    session = get_sessionmaker(settings.database_url)()
    try:
        yield session
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]

# Declared for the OpenAPI document ("Authorize" in /docs); the header is checked below, so
# that each way of getting it wrong has its own message.
_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="APIToken",
    description="PROOFBRIDGE_API_TOKEN, or the token generated at first start under ./var/",
)


def _unauthorized(detail: str, error: str | None = None) -> HTTPException:
    challenge = "Bearer" if error is None else f'Bearer error="{error}"'
    return HTTPException(
        status_code=status.HTTP_401_UNAUTHORIZED,
        detail=detail,
        headers={"WWW-Authenticate": challenge},
    )


def expected_token(request: Request, settings: Settings) -> str:
    token = getattr(request.app.state, "api_token", None)
    if not isinstance(token, str):
        token = ensure_api_token(settings)
        request.app.state.api_token = token
    return token


def token_is_valid(request: Request, settings: Settings, token: str) -> bool:
    """Whether `token` is the API token in effect (compared in constant time)."""
    return token_matches(token, expected_token(request, settings))


def require_write_access(
    request: Request,
    settings: SettingsDep,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """401 unless the request carries `Authorization: Bearer <the API token>`."""
    header = request.headers.get("authorization", "").strip()
    if not header:
        raise _unauthorized(MISSING_TOKEN)
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise _unauthorized(MALFORMED_AUTHORIZATION, "invalid_request")
    if not token_is_valid(request, settings, token):
        raise _unauthorized(INVALID_TOKEN, "invalid_token")


WriteAccess = Annotated[None, Depends(require_write_access)]
