"""Coverage of the ingested theorems: which get a checker, per module, and the missing
vocabulary ranked by the theorems it would unlock (`checkers.coverage`); the CLI's
`coverage` and `GET /coverage` share it.

A server keeps a `CoverageReporter`: the analysis of a whole corpus takes seconds, so it
is kept per module filter until the declarations change (their fingerprint, read by the
`WarmEnvironment` it shares with the checker descriptions).
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy.orm import Session

from app.schemas import (
    CoverageOut,
    ModuleCoverageOut,
    Page,
    ReasonCountOut,
    VocabularyNeedOut,
)
from app.services.checks import build_environment, load_backend
from app.services.warm import WarmEnvironment

__all__ = ["CoverageReporter", "coverage_report"]


def coverage_report(
    session: Session, *, module: str | None = None, backend: Any = None
) -> CoverageOut:
    """The coverage of every live theorem (of `module`'s only, when given)."""
    backend = backend if backend is not None else load_backend()
    return _report(build_environment(session, backend), module)


def _report(env: Any, module: str | None) -> CoverageOut:
    from checkers.coverage import coverage  # imports JAX: only when asked for

    report = coverage(env, module=module)
    modules = [ModuleCoverageOut(**vars(m)) for m in report.modules]
    needs = [VocabularyNeedOut(**vars(v)) for v in report.vocabulary]
    reasons = [ReasonCountOut(reason=r, theorems=n) for r, n in report.other_reasons]
    return CoverageOut(
        theorems=report.theorems,
        checked=report.checked,
        unsupported=report.unsupported,
        modules=Page[ModuleCoverageOut](data=modules, count=len(modules)),
        vocabulary=Page[VocabularyNeedOut](data=needs, count=len(needs)),
        other_reasons=Page[ReasonCountOut](data=reasons, count=len(reasons)),
    )


class CoverageReporter:
    """`report(session, module=...)`, kept until the declarations change."""

    MAX_KEPT = 64  # module filters kept per fingerprint

    def __init__(self, backend: Any = None, warm: WarmEnvironment | None = None) -> None:
        self.warm = warm if warm is not None else WarmEnvironment(backend=backend)
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._reports: dict[str | None, CoverageOut] = {}

    def report(self, session: Session, *, module: str | None = None) -> CoverageOut:
        _, env, key = self.warm.get(session)
        with self._lock:
            if key != self._key:
                self._key = key
                self._reports = {}
            if module not in self._reports:
                if len(self._reports) >= self.MAX_KEPT:
                    self._reports.clear()
                self._reports[module] = _report(env, module)
            return self._reports[module]
