"""Keeping secrets out of the access log.

`GET /login?token=TOKEN` logs in to the dashboard (README); uvicorn's access log records
each request's path with its query string, and so would record the API token. A filter on
the `uvicorn.access` logger writes the value of every `token` query parameter as
`[redacted]` before any handler sees the record. The key is compared as the server decodes
it (`tok%65n` is `token` too).
"""

from __future__ import annotations

import logging
from urllib.parse import unquote_plus

__all__ = ["REDACTED", "RedactSecrets", "install_access_log_filter", "redact_query"]

ACCESS_LOGGER = "uvicorn.access"
SECRET_PARAMETERS = frozenset({"token"})
REDACTED = "[redacted]"


def redact_query(target: str) -> str:
    """`target` (a path with its query string) with the secret parameters' values redacted:
    `/login?token=abc&next=/` -> `/login?token=[redacted]&next=/`."""
    path, sep, query = target.partition("?")
    if not sep:
        return target
    kept = []
    for part in query.split("&"):
        key, eq, value = part.partition("=")
        if value and unquote_plus(key) in SECRET_PARAMETERS:
            part = f"{key}{eq}{REDACTED}"
        kept.append(part)
    return f"{path}?{'&'.join(kept)}"


class RedactSecrets(logging.Filter):
    """Redacts secret query parameters in an access record's arguments (uvicorn passes the
    path with its query string as one of them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_query(a) if isinstance(a, str) and "?" in a else a for a in record.args
            )
        return True


def install_access_log_filter() -> None:
    """Add the filter to uvicorn's access logger, once per process."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, RedactSecrets) for f in logger.filters):
        logger.addFilter(RedactSecrets())
