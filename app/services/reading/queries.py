"""Reads the HTTP API needs beyond `app.crud`: module docs by page, counts by status for
the metrics, and the validation of a requested run selection.

Keyword-only functions over a `Session`, returning rows or plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app import crud, models
from app.crud.declarations import THEOREM_KINDS

__all__ = [
    "count_by_status",
    "declaration_modules",
    "list_module_docs_page",
    "module_doc_counts",
    "run_selection_problems",
    "theorem_status_counts",
]


def list_module_docs_page(
    session: Session,
    *,
    module: str | None = None,
    q: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> tuple[list[models.ModuleDoc], int]:
    """A page of module docs (by module, then source and position), and the total count.
    `q` matches the module name or the prose, case-insensitively."""
    m = models.ModuleDoc
    stmt = select(m)
    if module:
        stmt = stmt.where(m.module == module)
    if q:
        needle = q.lower()
        stmt = stmt.where(
            or_(
                func.lower(m.module).contains(needle, autoescape=True),
                func.lower(m.text).contains(needle, autoescape=True),
            )
        )
    count = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    if limit <= 0:
        return [], count
    page = stmt.order_by(m.module, m.source_id, m.position).limit(limit).offset(offset)
    return list(session.scalars(page)), count


def module_doc_counts(session: Session) -> dict[str, int]:
    """module -> number of module-doc blocks."""
    m = models.ModuleDoc
    stmt = select(m.module, func.count()).group_by(m.module)
    return {str(module): int(count) for module, count in session.execute(stmt).all()}


def count_by_status(
    session: Session, *, model: type[models.Run] | type[models.Result]
) -> dict[str, int]:
    """status -> rows of `models.Run` or `models.Result`."""
    stmt = select(model.status, func.count()).group_by(model.status)
    return {str(status): int(count) for status, count in session.execute(stmt).all()}


def theorem_status_counts(session: Session) -> dict[str, int]:
    """Live theorems by the status of their newest result (`unchecked` when none)."""
    totals: dict[str, int] = {}
    for summary in crud.module_summaries(session):
        for status, count in summary["statuses"].items():
            totals[status] = totals.get(status, 0) + count
    return totals


def declaration_modules(session: Session, *, names: Sequence[str]) -> dict[str, str]:
    """name -> module for the given declaration names."""
    if not names:
        return {}
    d = models.Declaration
    stmt = select(d.name, d.module).where(d.name.in_(list(set(names))))
    return {str(name): str(module) for name, module in session.execute(stmt).all()}


def run_selection_problems(
    session: Session, *, names: Sequence[str], module: str | None
) -> list[tuple[int, str]]:
    """(index in `names`, message) for every name that cannot be checked, in one query.
    The messages are those of `app.services.runs.checks.select_theorems`."""
    if not names:
        return []
    d = models.Declaration
    rows: dict[str, Any] = {
        row.name: row for row in session.scalars(select(d).where(d.name.in_(list(set(names)))))
    }
    problems: list[tuple[int, str]] = []
    for index, name in enumerate(names):
        row = rows.get(name)
        if row is None:
            problems.append((index, f"unknown theorem: {name}"))
        elif row.kind not in THEOREM_KINDS:
            problems.append((index, f"{name} is a {row.kind}, not a theorem"))
        elif row.removed:
            problems.append((index, f"{name} was removed from its source file"))
        elif module and row.module != module:
            problems.append((index, f"{name} is in module {row.module}, not {module}"))
    return problems
