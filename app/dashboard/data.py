"""What the dashboard reads beyond `app.crud` and `app.services`: coverage, the theorems
that started failing in the newest run, a page of a run's results, module names.

Keyword-only functions over a `Session`; each is one or two bounded queries, so that the
pages stay fast with tens of thousands of theorems and results.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import THEOREM_KINDS, latest_results_subquery

__all__ = [
    "FAILING",
    "Coverage",
    "NewFailure",
    "coverage",
    "module_names",
    "newly_failing",
    "previous_finished_run",
    "run_results_page",
]

FAILING = ("fail", "error")
CHECKERS = ("derived", "registered")


@dataclass(frozen=True)
class Coverage:
    with_checker: int
    theorems: int

    @property
    def percent(self) -> float:
        return 100.0 * self.with_checker / self.theorems if self.theorems else 0.0


def coverage(session: Session) -> Coverage:
    """Live theorems whose newest result had a checker (derived or registered), of all."""
    d, res = models.Declaration, models.Result
    latest = latest_results_subquery()
    live = (d.kind.in_(THEOREM_KINDS), d.removed.is_(False))
    theorems = session.scalar(select(func.count()).select_from(d).where(*live)) or 0
    with_checker = (
        session.scalar(
            select(func.count())
            .select_from(d)
            .join(latest, latest.c.declaration_id == d.id)
            .join(res, res.id == latest.c.result_id)
            .where(*live, res.checker.in_(CHECKERS))
        )
        or 0
    )
    return Coverage(with_checker=int(with_checker), theorems=int(theorems))


def module_names(session: Session) -> list[str]:
    """Modules that hold live theorems, by name."""
    d = models.Declaration
    stmt = (
        select(d.module)
        .where(d.kind.in_(THEOREM_KINDS), d.removed.is_(False))
        .group_by(d.module)
        .order_by(d.module)
    )
    return [str(m) for m in session.scalars(stmt)]


def previous_finished_run(session: Session) -> models.Run | None:
    """The newest run that finished with results (not queued, running or empty)."""
    r = models.Run
    stmt = (
        select(r)
        .where(r.status.in_(models.FINAL_RUN_STATUSES), r.completed > 0)
        .order_by(r.id.desc())
        .limit(1)
    )
    return session.scalars(stmt).first()


@dataclass(frozen=True)
class NewFailure:
    result: models.Result
    before: str  # the status of the theorem's previous result


def newly_failing(session: Session, *, run: models.Run, limit: int = 50) -> list[NewFailure]:
    """Theorems that failed or errored in `run` whose previous result (in an earlier run)
    had passed or was unsupported: what started failing since the run before."""
    res = models.Result
    failing = list(
        session.scalars(
            select(res)
            .where(res.run_id == run.id, res.status.in_(FAILING))
            .order_by(res.name)
            .limit(1000)
        )
    )
    if not failing:
        return []
    ids = [r.declaration_id for r in failing]
    previous_ids = (
        select(func.max(res.id))
        .where(res.declaration_id.in_(ids), res.run_id < run.id)
        .group_by(res.declaration_id)
    )
    before = dict(
        session.execute(
            select(res.declaration_id, res.status).where(res.id.in_(previous_ids))
        ).all()
    )
    out = [
        NewFailure(result=r, before=str(before[r.declaration_id]))
        for r in failing
        if r.declaration_id in before and before[r.declaration_id] not in FAILING
    ]
    return out[:limit]


def run_results_page(
    session: Session, *, run_id: int, status: str | None, limit: int, offset: int
) -> tuple[list[models.Result], int]:
    """A page of the run's results by name (only `status`, when given), and their count."""
    res = models.Result
    where = [res.run_id == run_id]
    if status:
        where.append(res.status == status)
    count = session.scalar(select(func.count()).select_from(res).where(*where)) or 0
    stmt = select(res).where(*where).order_by(res.name).limit(limit).offset(offset)
    return list(session.scalars(stmt)), int(count)
