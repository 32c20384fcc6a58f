"""Start-up shared by the CLI and the server: settings, database schema, API token."""

from __future__ import annotations

import errno
import socket
from typing import TextIO

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.db import get_engine, get_sessionmaker
from app.migrate import ensure_schema
from app.settings import Settings, get_settings
from app.token import ensure_api_token

__all__ = [
    "load_settings",
    "open_database",
    "open_session",
    "prepare_server",
    "settings_error_message",
    "why_cannot_listen",
]


def settings_error_message(exc: ValidationError) -> str:
    """One line per invalid setting, naming its environment variable."""
    lines = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        variable = f"PROOFBRIDGE_{field.upper()}" if field else "settings"
        if variable in message:
            lines.append(message)
        else:
            lines.append(f"{variable}: {message}")
    return "invalid settings: " + "; ".join(lines)


def load_settings() -> Settings:
    """The settings; raises ValueError with `settings_error_message` when they are unsafe."""
    try:
        return get_settings()
    except ValidationError as exc:
        raise ValueError(settings_error_message(exc)) from None


def open_database(settings: Settings) -> Engine:
    """The engine, with the schema checked (and, for embedded SQLite, brought up to date)."""
    engine = get_engine(settings.database_url)
    ensure_schema(settings, engine)
    return engine


def open_session(settings: Settings) -> Session:
    """A session on the settings' database, its schema checked (or migrated) first."""
    open_database(settings)
    return get_sessionmaker(settings.database_url)()


def prepare_server(settings: Settings, *, out: TextIO | None = None) -> str:
    """Everything the server needs before it accepts requests; returns the API token."""
    open_database(settings)
    return ensure_api_token(settings, out=out)


def why_cannot_listen(host: str, port: int) -> str | None:
    """Why a server could not listen on `host:port` (a port something already listens on,
    an unknown host), or None when it can: uvicorn would only log the error and exit 3."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return f"cannot serve on {host}:{port}: {exc.strerror}"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is already in use (another `proofbridge serve`?): "
                    "choose another with --port N (`make demo PORT=N`)"
                )
            return f"cannot serve on {host}:{port}: {exc.strerror}"
    return None
