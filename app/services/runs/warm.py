"""A process's warm checking state: the checkers loaded once, the environment rebuilt only
when the declarations changed.

Tasks come and go; the process that executes them keeps JAX, its compiled programs and
the environment over every live declaration between them. Before each chunk the
declarations' fingerprint (how many there are, the newest revision, the newest change,
how many are removed) is read; an ingestion since the last chunk rebuilds the
environment, anything else reuses it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from app import models
from app.services.runs.check_worker import check_one
from app.services.runs.selection import CheckParams

__all__ = ["WarmChecker", "WarmEnvironment", "declarations_fingerprint"]


def declarations_fingerprint(session: Session) -> tuple[Any, ...]:
    """Changes whenever a declaration is added, revised or removed."""
    d, r = models.Declaration, models.DeclarationRevision
    row = session.execute(
        select(
            func.count(d.id),
            func.max(d.updated_at),
            func.sum(case((d.removed.is_(True), 1), else_=0)),
        )
    ).one()
    newest = session.scalar(select(func.max(r.id)))
    return (*row, newest)


class WarmEnvironment:
    """The checkers, loaded on first use, and an `Environment` of every live declaration,
    rebuilt only when the declarations' fingerprint changes. `get(session)` ->
    (backend, environment, fingerprint); a long-lived process keeps one."""

    def __init__(
        self,
        load_backend: Callable[[], Any] | None = None,
        build_environment: Callable[..., Any] | None = None,
        backend: Any = None,
    ) -> None:
        if load_backend is None or build_environment is None:
            from app.services.runs.checks import build_environment as build
            from app.services.runs.checks import load_backend as load

            load_backend, build_environment = load_backend or load, build_environment or build
        self._load_backend = load_backend
        self._build_environment = build_environment
        self._lock = threading.Lock()
        self._backend: Any = backend
        self._env: Any = None
        self._fingerprint: tuple[Any, ...] | None = None

    def get(self, session: Session) -> tuple[Any, Any, tuple[Any, ...]]:
        with self._lock:
            if self._backend is None:
                self._backend = self._load_backend()
            fingerprint = declarations_fingerprint(session)
            if self._env is None or fingerprint != self._fingerprint:
                self._env = self._build_environment(session, self._backend)
                self._fingerprint = fingerprint
            return self._backend, self._env, fingerprint


class WarmChecker:
    """`check(session, name, params)`: one theorem's result payload, in the environment of
    the declarations as they were at the last `prepare` (before each chunk: rebuilt only
    when they changed)."""

    def __init__(self, load_backend: Callable[[], Any], build_environment: Callable[..., Any]):
        self._warm = WarmEnvironment(load_backend, build_environment)
        self._backend: Any = None
        self._env: Any = None

    def environment(self, session: Session) -> tuple[Any, Any]:
        self._backend, self._env, _ = self._warm.get(session)
        session.commit()
        return self._backend, self._env

    def warm_up(self, make_session: Callable[[], Session]) -> float:
        """Load the checkers and the environment now (before the first check needs them);
        returns the seconds it took."""
        start = time.perf_counter()
        with make_session() as session:
            self.environment(session)
        return time.perf_counter() - start

    def prepare(self, session: Session) -> None:
        """Before a chunk: rebuild the environment if the declarations changed."""
        self.environment(session)

    def __call__(self, session: Session, name: str, params: CheckParams) -> dict[str, Any]:
        if self._env is None:
            self.environment(session)
        return check_one(self._backend, self._env, name, params)
