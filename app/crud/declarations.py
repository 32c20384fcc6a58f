"""Reading declarations, their revisions, module docs and per-module summaries.

Keyword-only data-access functions over a `Session`; they return ORM rows, plain tuples
or `theorem_index` records, never pydantic schemas (see `app.services.reading.views` for those).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import ColumnElement, Select, Text, and_, cast, func, or_, select
from sqlalchemy.orm import Session, load_only

from app import models
from theorem_index.model import Declaration, SourceLocation

__all__ = [
    "THEOREM_KINDS",
    "current_declaration_records",
    "current_declarations",
    "get_current_revision",
    "get_declaration",
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
        proof=rev.proof,
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
    "proof",
    "statement_line",
    "statement_column",
)
# Its JSON lists, read as text: most are empty, and `[]` needs no decoder.
_RECORD_LISTS = ("equations", "attributes", "modifiers", "opens", "links")


def _list(text: str | None) -> list[Any]:
    return [] if text is None or text == "[]" else list(json.loads(text))


def current_declaration_records(
    session: Session,
    *,
    include_removed: bool = False,
    revisions: Sequence[int] | None = None,
    structure: bool = False,
) -> list[Declaration]:
    """`revision_to_declaration` of every declaration's current revision, by name, reading
    only the columns the records hold (not the parse trees); or of the given `revisions`
    (ids, as `current_revision_ids` gave them: what was current then, removed since or
    not); with `structure`, of those `checkers`' constructor index may read only
    (constructors, and definitions whose binders name `self`: a superset of
    `structure_candidate`)."""
    d, r = models.Declaration, models.DeclarationRevision
    columns = [d.name, *(getattr(r, f) for f in _RECORD_FIELDS)]
    columns += [cast(getattr(r, f), Text).label(f) for f in _RECORD_LISTS]
    if revisions is None:
        stmt = _with_current(select(*columns))
        if not include_removed:
            stmt = stmt.where(d.removed.is_(False))
    else:
        stmt = select(*columns).join(r, r.declaration_id == d.id)
    stmt = stmt.order_by(d.name)
    shape = or_(r.kind == "ctor", and_(r.kind == "def", r.binders.contains("(self : ")))
    if structure:
        stmt = stmt.where(shape)
    if revisions is None:
        return _records(session, stmt)
    wanted = sorted(set(revisions))
    if structure:  # narrowed in one read of ids first, so that few are then read by id
        wanted = sorted(set(wanted).intersection(session.scalars(select(r.id).where(shape))))
    found = [
        rec
        for k in range(0, len(wanted), _IDS_AT_ONCE)
        for rec in _records(session, stmt.where(r.id.in_(wanted[k : k + _IDS_AT_ONCE])))
    ]
    return sorted(found, key=lambda rec: rec.name)


_IDS_AT_ONCE = 500


def _records(session: Session, stmt: Select[Any]) -> list[Declaration]:
    out = []
    for row in session.execute(stmt):
        fields = dict(row._mapping)
        for f in _RECORD_LISTS:
            fields[f] = _list(fields[f])
        out.append(_record(fields.pop("name"), SimpleNamespace(**fields)))
    return out


def current_revision_ids(session: Session) -> dict[str, int]:
    """name -> the id of its current revision, for the live declarations (those
    `current_declaration_records` gives), by name: what to read them by later, as they
    are now, whatever is ingested meanwhile."""
    d, r = models.Declaration, models.DeclarationRevision
    stmt = _with_current(select(d.name, r.id)).where(d.removed.is_(False)).order_by(d.name)
    return {str(name): int(rid) for name, rid in session.execute(stmt)}


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


# What a list shows of a revision: its text and place, never the parse tree, constants or
# equations (large JSON documents that a page of 50 would decode for nothing).
_SUMMARY = load_only(
    models.DeclarationRevision.binders,
    models.DeclarationRevision.statement,
    models.DeclarationRevision.docstring,
    models.DeclarationRevision.file,
    models.DeclarationRevision.line_start,
    models.DeclarationRevision.line_end,
    raiseload=True,
)


def _page(
    session: Session,
    where: Sequence[ColumnElement[bool]],
    q: str | None,
    limit: int,
    offset: int,
) -> tuple[list[Any], int]:
    """A page, by name, of the declarations that satisfy `where` (and match `q`), with
    their current revisions, and the size of the whole selection.

    Without a search, the page is chosen among the declarations alone (along the name
    index) and only its own revisions are read; a search reads the revisions' text."""
    d, r = models.Declaration, models.DeclarationRevision
    if q:
        stmt = _search(_with_current(select(d, r)).where(*where), q).order_by(d.name)
        count = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
        rows = list(session.execute(stmt.options(_SUMMARY).limit(limit).offset(offset)))
        return rows, int(count or 0)
    count = session.scalar(select(func.count()).select_from(d).where(*where))
    ids = list(
        session.scalars(select(d.id).where(*where).order_by(d.name).limit(limit).offset(offset))
    )
    if not ids:
        return [], int(count or 0)
    found = session.execute(_with_current(select(d, r)).where(d.id.in_(ids)).options(_SUMMARY))
    by_id = {decl.id: (decl, rev) for decl, rev in found}
    return [by_id[i] for i in ids if i in by_id], int(count or 0)


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
    where: list[ColumnElement[bool]] = []
    if kind:
        where.append(d.kind == kind)
    if module:
        where.append(d.module == module)
    if not include_removed:
        where.append(d.removed.is_(False))
    return _page(session, where, q, limit, offset)


def list_theorems(
    session: Session,
    *,
    status: str | None = None,
    module: str | None = None,
    q: str | None = None,
    proof: str | None = None,
    include_removed: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> tuple[list[tuple[models.Declaration, models.DeclarationRevision, models.Result | None]], int]:
    """A page of theorems with their current revision and newest result (None if never
    checked). `status` is a result status or `unchecked`.

    The newest status is a column of the declaration (`app.triggers`), so a page, its
    filters and its count read the declarations alone, and then only the page's own
    newest results: a page costs the same with 100 results or 100,000."""
    d = models.Declaration
    where: list[ColumnElement[bool]] = [d.kind.in_(THEOREM_KINDS)]
    if status == "unchecked":
        where.append(d.latest_result_id.is_(None))
    elif status is not None:
        where.append(d.latest_status == status)
    if module:
        where.append(d.module == module)
    if proof is not None:
        where.append(d.proof == proof)
    if not include_removed:
        where.append(d.removed.is_(False))
    page, count = _page(session, where, q, limit, offset)
    newest = newest_results(session, declarations=[decl for decl, _ in page])
    return [(decl, rev, newest.get(decl.id)) for decl, rev in page], count


def newest_results(
    session: Session, *, declarations: Sequence[models.Declaration]
) -> dict[int, models.Result]:
    """declaration id -> its newest result, for the given declarations (those checked)."""
    ids = [decl.latest_result_id for decl in declarations if decl.latest_result_id is not None]
    if not ids:
        return {}
    res = models.Result
    # what a list shows of a result; the rest (JSON draws, dims, assumptions) stays unread
    shown = load_only(res.declaration_id, res.status, res.checker, res.created_at, raiseload=True)
    stmt = select(res).where(res.id.in_(ids)).options(shown)
    return {r.declaration_id: r for r in session.scalars(stmt)}


def module_summaries(session: Session) -> list[dict[str, Any]]:
    """Per module: declarations, theorems, and theorems by newest result status."""
    d = models.Declaration
    stmt = (
        select(d.module, d.kind, d.latest_status, func.count())
        .where(d.removed.is_(False))
        .group_by(d.module, d.kind, d.latest_status)
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
