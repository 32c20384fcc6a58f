"""Reading declarations, their revisions, module docs and per-module summaries.

Keyword-only data-access functions over a `Session`; they return ORM rows, plain tuples
or `theorem_index` records, never pydantic schemas (see `app.services.views` for those).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Select, Text, and_, cast, func, or_, select
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import Declaration, SourceLocation

__all__ = [
    "THEOREM_KINDS",
    "current_declaration_records",
    "current_declarations",
    "get_current_revision",
    "get_declaration",
    "latest_results_subquery",
    "list_declarations",
    "list_module_docs",
    "list_revisions",
    "list_theorems",
    "module_summaries",
    "revision_to_declaration",
]

# `prose`: a theorem a module doc states in words, checked by a registered checker
THEOREM_KINDS = ("theorem", "lemma", "prose")


def revision_to_declaration(
    decl: models.Declaration, rev: models.DeclarationRevision
) -> Declaration:
    """The `theorem_index` record a stored revision came from."""
    return _record(decl.name, rev)


def _record(name: str, rev: Any) -> Declaration:
    """The record named `name` from `rev`: an ORM revision, or a row of the same columns."""
    location = None
    if rev.file is not None:
        location = SourceLocation(rev.file, rev.line_start, rev.line_end)
    return Declaration(
        name=name,
        kind=rev.kind,
        module=rev.module,
        binders=rev.binders,
        statement=rev.statement,
        docstring=rev.docstring,
        equations=tuple(rev.equations or ()),
        equations_rendered=rev.equations_rendered,
        attributes=tuple(rev.attributes or ()),
        modifiers=tuple(rev.modifiers or ()),
        location=location,
        namespace=rev.namespace,
        opens=tuple(rev.opens or ()),
        sorried=rev.sorried,
        links=tuple((str(a), str(b)) for a, b in (rev.links or ())),
        statement_line=rev.statement_line,
        statement_column=rev.statement_column,
    )


def _with_current(stmt: Any) -> Any:
    """`stmt` joined to each declaration's current revision."""
    d, r = models.Declaration, models.DeclarationRevision
    return stmt.join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))


def get_declaration(session: Session, *, name: str) -> models.Declaration | None:
    return session.scalars(
        select(models.Declaration).where(models.Declaration.name == name)
    ).first()


def get_current_revision(
    session: Session, *, declaration: models.Declaration
) -> models.DeclarationRevision:
    r = models.DeclarationRevision
    stmt = select(r).where(
        r.declaration_id == declaration.id, r.revision == declaration.current_revision
    )
    return session.scalars(stmt).one()


def list_revisions(session: Session, *, declaration_id: int) -> list[models.DeclarationRevision]:
    """Every revision of a declaration, newest first."""
    r = models.DeclarationRevision
    stmt = select(r).where(r.declaration_id == declaration_id).order_by(r.revision.desc())
    return list(session.scalars(stmt))


def current_declarations(
    session: Session, *, include_removed: bool = False
) -> list[tuple[models.Declaration, models.DeclarationRevision]]:
    """Every declaration with its current revision, by name."""
    d = models.Declaration
    stmt = _with_current(select(d, models.DeclarationRevision)).order_by(d.name)
    if not include_removed:
        stmt = stmt.where(d.removed.is_(False))
    return [(a, b) for a, b in session.execute(stmt)]


# What a `theorem_index` record holds: the revision's text and metadata, never the parse
# tree (`parsed`, `parse_error`) nor the constant lists, which are large JSON documents.
_RECORD_FIELDS = (
    "kind",
    "module",
    "binders",
    "statement",
    "docstring",
    "equations_rendered",
    "file",
    "line_start",
    "line_end",
    "namespace",
    "sorried",
    "statement_line",
    "statement_column",
)
# Its JSON lists, read as text: most are empty, and `[]` needs no decoder.
_RECORD_LISTS = ("equations", "attributes", "modifiers", "opens", "links")


def _list(text: str | None) -> list[Any]:
    return [] if text is None or text == "[]" else list(json.loads(text))


def current_declaration_records(
    session: Session, *, include_removed: bool = False
) -> list[Declaration]:
    """`revision_to_declaration` of every declaration's current revision, by name, reading
    only the columns the records hold (not the parse trees)."""
    d, r = models.Declaration, models.DeclarationRevision
    columns = [d.name, *(getattr(r, f) for f in _RECORD_FIELDS)]
    columns += [cast(getattr(r, f), Text).label(f) for f in _RECORD_LISTS]
    stmt = _with_current(select(*columns)).order_by(d.name)
    if not include_removed:
        stmt = stmt.where(d.removed.is_(False))
    out = []
    for row in session.execute(stmt):
        fields = dict(row._mapping)
        for f in _RECORD_LISTS:
            fields[f] = _list(fields[f])
        out.append(_record(fields.pop("name"), SimpleNamespace(**fields)))
    return out


def latest_results_subquery() -> Any:
    """(declaration_id, result_id) of each declaration's newest result."""
    res = models.Result
    return (
        select(res.declaration_id, func.max(res.id).label("result_id"))
        .group_by(res.declaration_id)
        .subquery("latest")
    )


def _search(stmt: Select[Any], q: str | None) -> Select[Any]:
    if not q:
        return stmt
    needle = q.lower()
    return stmt.where(
        or_(
            func.lower(models.Declaration.name).contains(needle, autoescape=True),
            func.lower(models.DeclarationRevision.statement).contains(needle, autoescape=True),
        )
    )


def _page(session: Session, stmt: Select[Any], limit: int, offset: int) -> tuple[list[Any], int]:
    count = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
    rows = list(session.execute(stmt.limit(limit).offset(offset)))
    return rows, count


def list_declarations(
    session: Session,
    *,
    kind: str | None = None,
    module: str | None = None,
    q: str | None = None,
    include_removed: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> tuple[list[tuple[models.Declaration, models.DeclarationRevision]], int]:
    """A page of declarations with their current revisions, and the total count."""
    d = models.Declaration
    stmt = _with_current(select(d, models.DeclarationRevision))
    if kind:
        stmt = stmt.where(d.kind == kind)
    if module:
        stmt = stmt.where(d.module == module)
    if not include_removed:
        stmt = stmt.where(d.removed.is_(False))
    return _page(session, _search(stmt, q).order_by(d.name), limit, offset)


def list_theorems(
    session: Session,
    *,
    status: str | None = None,
    module: str | None = None,
    q: str | None = None,
    include_removed: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> tuple[list[tuple[models.Declaration, models.DeclarationRevision, models.Result | None]], int]:
    """A page of theorems with their current revision and newest result (None if never
    checked). `status` is a result status or `unchecked`.

    Without a status, the page is chosen among the declarations alone and only its
    theorems' newest results are read (through the (declaration, id) index), so a page
    costs the same with 100 results or 100,000."""
    d, res = models.Declaration, models.Result
    if status is None or status == "unchecked":
        stmt = _with_current(select(d, models.DeclarationRevision)).where(d.kind.in_(THEOREM_KINDS))
        if status == "unchecked":
            stmt = stmt.where(~select(res.id).where(res.declaration_id == d.id).exists())
        if module:
            stmt = stmt.where(d.module == module)
        if not include_removed:
            stmt = stmt.where(d.removed.is_(False))
        page, count = _page(session, _search(stmt, q).order_by(d.name), limit, offset)
        newest = newest_results(session, declaration_ids=[decl.id for decl, _ in page])
        return [(decl, rev, newest.get(decl.id)) for decl, rev in page], count
    latest = latest_results_subquery()
    stmt = (
        _with_current(select(d, models.DeclarationRevision, res))
        .join(latest, latest.c.declaration_id == d.id)
        .join(res, res.id == latest.c.result_id)
        .where(d.kind.in_(THEOREM_KINDS), res.status == status)
    )
    if module:
        stmt = stmt.where(d.module == module)
    if not include_removed:
        stmt = stmt.where(d.removed.is_(False))
    rows, count = _page(session, _search(stmt, q).order_by(d.name), limit, offset)
    return [(decl, rev, result) for decl, rev, result in rows], count


def newest_results(session: Session, *, declaration_ids: Sequence[int]) -> dict[int, models.Result]:
    """declaration id -> its newest result, for the given declarations (those checked)."""
    if not declaration_ids:
        return {}
    res = models.Result
    newest = (
        select(func.max(res.id))
        .where(res.declaration_id.in_(list(declaration_ids)))
        .group_by(res.declaration_id)
    )
    return {r.declaration_id: r for r in session.scalars(select(res).where(res.id.in_(newest)))}


def module_summaries(session: Session) -> list[dict[str, Any]]:
    """Per module: declarations, theorems, and theorems by newest result status."""
    d, res = models.Declaration, models.Result
    latest = latest_results_subquery()
    stmt = (
        select(d.module, d.kind, res.status, func.count())
        .outerjoin(latest, latest.c.declaration_id == d.id)
        .outerjoin(res, res.id == latest.c.result_id)
        .where(d.removed.is_(False))
        .group_by(d.module, d.kind, res.status)
    )
    summaries: dict[str, dict[str, Any]] = {}
    for module, kind, status, count in session.execute(stmt):
        entry = summaries.setdefault(
            module, {"module": module, "declarations": 0, "theorems": 0, "statuses": {}}
        )
        entry["declarations"] += count
        if kind in THEOREM_KINDS:
            entry["theorems"] += count
            key = status or "unchecked"
            entry["statuses"][key] = entry["statuses"].get(key, 0) + count
    return [summaries[m] for m in sorted(summaries)]


def list_module_docs(session: Session, *, module: str | None = None) -> Sequence[models.ModuleDoc]:
    m = models.ModuleDoc
    stmt = select(m).order_by(m.module, m.source_id, m.position)
    if module:
        stmt = stmt.where(m.module == module)
    return list(session.scalars(stmt))
