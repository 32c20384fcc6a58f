"""Reading runs, results, counterexamples and dependencies; which theorems are stale."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, distinct, func, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import THEOREM_KINDS

__all__ = [
    "counterexamples_for",
    "dependencies_of",
    "flaky_seeds",
    "flaky_theorems",
    "get_run",
    "latest_result",
    "list_runs",
    "result_history",
    "revision_numbers",
    "run_by_idempotency_key",
    "run_results",
    "stale_theorems",
]


def get_run(session: Session, *, run_id: int) -> models.Run | None:
    return session.get(models.Run, run_id)


def run_by_idempotency_key(session: Session, *, key: str) -> models.Run | None:
    return session.scalars(select(models.Run).where(models.Run.idempotency_key == key)).first()


def list_runs(
    session: Session,
    *,
    limit: int = 50,
    offset: int = 0,
    status: str | None = None,
    trigger: str | None = None,
) -> tuple[list[models.Run], int]:
    """Runs, newest first (of that status and trigger, when given), and how many."""
    run = models.Run
    where = []
    if status is not None:
        where.append(run.status == status)
    if trigger is not None:
        where.append(run.trigger == trigger)
    count = session.scalar(select(func.count()).select_from(run).where(*where)) or 0
    stmt = select(run).where(*where).order_by(run.id.desc()).limit(limit).offset(offset)
    return list(session.scalars(stmt)), count


def run_results(session: Session, *, run_id: int) -> list[models.Result]:
    stmt = select(models.Result).where(models.Result.run_id == run_id).order_by(models.Result.name)
    return list(session.scalars(stmt))


def result_history(
    session: Session, *, declaration_id: int, limit: int = 50, offset: int = 0
) -> tuple[list[models.Result], int]:
    """A declaration's results, newest first, and how many there are."""
    res = models.Result
    where = res.declaration_id == declaration_id
    count = session.scalar(select(func.count()).select_from(res).where(where)) or 0
    stmt = select(res).where(where).order_by(res.id.desc()).limit(limit).offset(offset)
    return list(session.scalars(stmt)), count


def latest_result(
    session: Session, *, declaration_id: int, seed: int | None = None
) -> models.Result | None:
    """The newest result of a declaration (with that seed, when given)."""
    res = models.Result
    stmt = select(res).where(res.declaration_id == declaration_id)
    if seed is not None:
        stmt = stmt.where(res.seed == seed)
    return session.scalars(stmt.order_by(res.id.desc()).limit(1)).first()


def counterexamples_for(
    session: Session, *, result_ids: Sequence[int]
) -> dict[int, models.Counterexample]:
    if not result_ids:
        return {}
    c = models.Counterexample
    stmt = select(c).where(c.result_id.in_(list(result_ids)))
    return {ce.result_id: ce for ce in session.scalars(stmt)}


def revision_numbers(session: Session, *, revision_ids: Sequence[int]) -> dict[int, int]:
    """revision id -> revision number."""
    if not revision_ids:
        return {}
    r = models.DeclarationRevision
    stmt = select(r.id, r.revision).where(r.id.in_(list(set(revision_ids))))
    return dict(session.execute(stmt).all())


def dependencies_of(session: Session, *, declaration_id: int) -> list[models.Dependency]:
    dep = models.Dependency
    stmt = select(dep).where(dep.declaration_id == declaration_id).order_by(dep.depends_on)
    return list(session.scalars(stmt))


FLAKY_STATUSES = ("pass", "fail")


def _current_revision_results(statement: Any) -> Any:
    """`statement` over results limited to those of their declaration's current revision."""
    res, d, r = models.Result, models.Declaration, models.DeclarationRevision
    return (
        statement.join(r, r.id == res.revision_id)
        .join(d, and_(d.id == r.declaration_id, d.current_revision == r.revision))
        .where(res.status.in_(FLAKY_STATUSES))
    )


def flaky_theorems(session: Session, *, declaration_ids: Sequence[int]) -> set[int]:
    """The given declarations whose current revision has both a `pass` and a `fail` among
    its results (at other seeds, dtypes or runs): one grouped query, no result loaded."""
    if not declaration_ids:
        return set()
    res = models.Result
    stmt = (
        _current_revision_results(select(res.declaration_id))
        .where(res.declaration_id.in_(list(set(declaration_ids))))
        .group_by(res.declaration_id)
        .having(func.count(distinct(res.status)) == len(FLAKY_STATUSES))
    )
    return {int(i) for i in session.scalars(stmt)}


def flaky_seeds(
    session: Session, *, declaration_id: int, limit: int = 200
) -> dict[str, list[tuple[int, str]]] | None:
    """status -> the (seed, dtype) pairs of the current revision that passed and failed,
    when both did (else None), at most `limit` pairs of each."""
    res = models.Result
    stmt = (
        _current_revision_results(select(res.status, res.seed, res.dtype).distinct())
        .where(res.declaration_id == declaration_id)
        .order_by(res.status, res.dtype, res.seed)
    )
    seen: dict[str, list[tuple[int, str]]] = {s: [] for s in FLAKY_STATUSES}
    for status, seed, dtype in session.execute(stmt):
        if len(seen[status]) < limit:
            seen[status].append((int(seed), str(dtype)))
    return seen if all(seen.values()) else None


def stale_theorems(
    session: Session, *, module: str | None = None, declaration_ids: Sequence[int] | None = None
) -> list[str]:
    """Live theorems that need a (re)run: never checked, their own revision changed since
    their newest result, or a definition their checker used changed (or appeared, or was
    removed) since then. Within a module, or among the given declarations, when asked:
    then only their own dependencies and those definitions are read."""
    d, res, dep = models.Declaration, models.Result, models.Dependency
    r = models.DeclarationRevision
    where: list[ColumnElement[bool]] = [d.kind.in_(THEOREM_KINDS), d.removed.is_(False)]
    if module:
        where.append(d.module == module)
    if declaration_ids is not None:
        where.append(d.id.in_(list(declaration_ids)))
    stmt = (
        select(d.id, d.name, r.id, res.revision_id)
        .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
        .outerjoin(res, res.id == d.latest_result_id)
        .where(*where)
        .order_by(d.name)
    )
    rows = session.execute(stmt).all()
    stale: set[str] = {name for _, name, current, checked in rows if checked != current}
    ids = {decl_id: name for decl_id, name, _, _ in rows}
    deps = select(dep.declaration_id, dep.depends_on, dep.revision_hash)
    if declaration_ids is not None:
        deps = deps.where(dep.declaration_id.in_(list(ids)))
    elif module:
        deps = deps.join(d, d.id == dep.declaration_id).where(d.module == module)
    used = [(decl_id, on, recorded) for decl_id, on, recorded in session.execute(deps)]
    hashes = select(d.name, d.content_hash, d.removed)
    if declaration_ids is not None:
        hashes = hashes.where(d.name.in_(sorted({on for _, on, _ in used})))
    current_hash = {name: (h, removed) for name, h, removed in session.execute(hashes)}
    for decl_id, depends_on, recorded in used:
        name = ids.get(decl_id)
        if name is None or name in stale:
            continue
        now = current_hash.get(depends_on)
        now_hash = None if now is None or now[1] else now[0]
        if now_hash != recorded:
            stale.add(name)
    return sorted(stale)
