"""Which checker a theorem gets, for a long-lived process (the web server).

`app.services.checks.describe_theorem` builds the checkers' `Environment` from every
declaration on each call; a server answering many requests keeps one and rebuilds it only
when the declarations change (their count, newest update or newest revision). The first
call imports the checkers (and JAX); nothing is imported before.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.services.checks import build_environment, load_backend

__all__ = ["CheckerDescriber", "declarations_fingerprint"]


def declarations_fingerprint(session: Session) -> tuple[Any, ...]:
    """Changes whenever a declaration is added, changed, removed or restored."""
    d, r = models.Declaration, models.DeclarationRevision
    count, updated = session.execute(select(func.count(d.id), func.max(d.updated_at))).one()
    newest_revision = session.scalar(select(func.max(r.id)))
    return (count, updated, newest_revision)


class CheckerDescriber:
    """`describe(session, name)` -> `CheckerInfo.to_json()`, with a cached environment."""

    def __init__(self, backend: Any = None) -> None:
        self._backend = backend
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._env: Any = None

    def describe(self, session: Session, *, name: str) -> dict[str, Any]:
        key = declarations_fingerprint(session)
        with self._lock:
            if self._backend is None:
                self._backend = load_backend()
            if self._env is None or key != self._key:
                self._env = build_environment(session, self._backend)
                self._key = key
            return dict(self._backend.describe(name, self._env).to_json())
