"""The bearer token for write access.

`PROOFBRIDGE_API_TOKEN` wins when it is set. Otherwise the token stored in
`<data_dir>/api_token` is used; on the first start there is none, so one is generated
(`secrets.token_urlsafe`), written with mode 0600 (put in place atomically, so two
processes starting together agree on one token) and printed once. A stored token that
others can read, or that is too short, is refused.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from typing import TextIO

from app.settings import MIN_SECRET_LENGTH, Settings

__all__ = ["TokenError", "ensure_api_token", "token_matches"]

TOKEN_BYTES = 32


class TokenError(RuntimeError):
    """The stored token cannot be used; the message says why and what to do."""


def _read(path: os.PathLike[str] | str) -> str:
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenError(
            f"{path} is accessible by other users (mode {stat.S_IMODE(mode):04o}); "
            f"run `chmod 600 {path}`"
        )
    with open(path, encoding="utf-8") as f:
        token = f.read().strip()
    if len(token) < MIN_SECRET_LENGTH:
        raise TokenError(
            f"{path} holds a token of {len(token)} characters; at least {MIN_SECRET_LENGTH} "
            "are required (delete the file to generate a new one)"
        )
    return token


def ensure_api_token(settings: Settings, *, out: TextIO | None = None) -> str:
    """The token in effect; generates, stores and prints one when none exists yet."""
    if settings.api_token is not None:
        return settings.api_token.get_secret_value()
    path = settings.token_path
    if path.exists():
        return _read(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    # Write a private temporary file, then link it into place: the link either creates the
    # complete file or fails because another process got there first.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        os.link(tmp, path)
    except FileExistsError:
        return _read(path)
    finally:
        tmp.unlink(missing_ok=True)
    stream = out if out is not None else sys.stderr
    print(
        f"Generated the API token for write access (stored in {path}, shown only now):\n"
        f"  {token}\n"
        "Send it as `Authorization: Bearer <token>`, or set PROOFBRIDGE_API_TOKEN.",
        file=stream,
        flush=True,
    )
    return token


def token_matches(presented: str | None, expected: str) -> bool:
    """Constant-time comparison of a presented bearer token with the expected one."""
    if not presented:
        return False
    return secrets.compare_digest(presented.encode(), expected.encode())
