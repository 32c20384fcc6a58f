"""Coverage of the ingested theorems: which get a checker, per module, and the missing
vocabulary ranked by the theorems it would unlock (`checkers.analysis.coverage`); the CLI's
`coverage` and `GET /coverage` share it.

The analysis of a whole corpus takes seconds, so its report is kept: on disk by a
`CoverageStore` (app/services/coverage/store.py: per database, declarations' fingerprint,
code and module filter), which a fresh `proofbridge coverage` reads without importing the
checkers; and in memory by the server's `CoverageReporter`, per module filter until the
declarations change (their fingerprint, read by the `WarmEnvironment` it shares with the
checker descriptions).
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
from app.services.coverage.store import CoverageStore
from app.services.runs import (
    WarmEnvironment,
    build_environment,
    declarations_fingerprint,
    load_backend,
)

__all__ = ["CoverageReporter", "coverage_report"]


def coverage_report(
    session: Session,
    *,
    module: str | None = None,
    backend: Any = None,
    store: CoverageStore | None = None,
) -> CoverageOut:
    """The coverage of every live theorem (of `module`'s only, when given): read from
    `store` when it holds it, else computed (and kept there)."""
    key = None
    if store is not None and store.directory is not None:
        key = store.key(declarations_fingerprint(session), module)
        kept = store.load(key)
        if kept is not None:
            return kept
    backend = backend if backend is not None else load_backend()
    report = _report(build_environment(session, backend), module)
    if store is not None and key is not None:
        store.save(key, report)
    return report


def _report(env: Any, module: str | None) -> CoverageOut:
    from checkers.analysis.coverage import coverage  # imports JAX: only when asked for

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

    def __init__(
        self,
        backend: Any = None,
        warm: WarmEnvironment | None = None,
        store: CoverageStore | None = None,
    ) -> None:
        self.warm = warm if warm is not None else WarmEnvironment(backend=backend)
        self.store = store
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._reports: dict[str | None, CoverageOut] = {}

    def report(self, session: Session, *, module: str | None = None) -> CoverageOut:
        with self._lock:
            if declarations_fingerprint(session) == self._key and module in self._reports:
                return self._reports[module]
        _, env, key = self.warm.get(session)
        with self._lock:
            if key != self._key:
                self._key = key
                self._reports = {}
            if module not in self._reports:
                if len(self._reports) >= self.MAX_KEPT:
                    self._reports.clear()
                self._reports[module] = self._kept_or_computed(env, key, module)
            return self._reports[module]

    def _kept_or_computed(self, env: Any, key: tuple[Any, ...], module: str | None) -> CoverageOut:
        if self.store is None or self.store.directory is None:
            return _report(env, module)
        stored = self.store.key(key, module)
        report = self.store.load(stored)
        if report is None:
            report = _report(env, module)
            self.store.save(stored, report)
        return report
