"""Which checker a theorem gets, for a long-lived process (the web server).

`app.services.runs.checks.describe_theorem` builds the checkers' `Environment` from every
declaration on each call; a server answering many requests keeps one (`WarmEnvironment`,
shared with the coverage report) and rebuilds it only when the declarations change. The
first call imports the checkers (and JAX); nothing is imported before.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.services.runs import WarmEnvironment

__all__ = ["CheckerDescriber"]


class CheckerDescriber:
    """`describe(session, name)` -> `CheckerInfo.to_json()`, with a cached environment."""

    def __init__(self, backend: Any = None, warm: WarmEnvironment | None = None) -> None:
        self.warm = warm if warm is not None else WarmEnvironment(backend=backend)

    def describe(self, session: Session, *, name: str) -> dict[str, Any]:
        backend, env, _ = self.warm.get(session)
        return dict(backend.describe(name, env).to_json())
