"""What ingestion compares a batch against: one in-memory snapshot of the database.

Loaded with one query over declarations joined to their current revisions (a few columns
each), so that deciding new / changed / unchanged / removed for a whole corpus needs no
per-declaration query.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import revision_to_declaration

__all__ = [
    "KnownDeclaration",
    "KnownSource",
    "Snapshot",
    "chunks",
    "load_snapshot",
    "revision_to_declaration",
]

T = TypeVar("T")
CHUNK = 5000


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """Slices of at most `size` (keeps IN lists under every backend's parameter limit)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True, slots=True)
class KnownDeclaration:
    id: int
    name: str
    content_hash: str
    current_revision: int
    removed: bool
    source_id: int | None
    module: str
    revision_id: int
    file: str | None
    line_start: int | None
    line_end: int | None
    parse_ok: bool
    unknown_constants: tuple[str, ...]
    proof: str
    proof_uses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KnownSource:
    id: int
    path: str
    module_docs_hash: str | None


@dataclass
class Snapshot:
    declarations: dict[str, KnownDeclaration]
    source_by_id: dict[int, KnownSource] = field(default_factory=dict)

    def sources_for(self, session: Session, paths: Sequence[str]) -> dict[str, KnownSource]:
        """The stored sources among `paths`, by path (also kept in `source_by_id`)."""
        found: dict[str, KnownSource] = {}
        unique = sorted(set(paths))
        for chunk in chunks(unique):
            stmt = select(
                models.Source.id, models.Source.path, models.Source.module_docs_hash
            ).where(models.Source.path.in_(chunk))
            for source_id, path, docs_hash in session.execute(stmt):
                known = KnownSource(source_id, path, docs_hash)
                found[path] = known
                self.source_by_id[source_id] = known
        return found


def load_snapshot(session: Session) -> Snapshot:
    d = models.Declaration
    r = models.DeclarationRevision
    parse_ok = and_(r.parse_error.is_(None), r.parsed.is_not(None))
    stmt = select(
        d.id,
        d.name,
        d.content_hash,
        d.current_revision,
        d.removed,
        d.source_id,
        d.module,
        r.id,
        r.file,
        r.line_start,
        r.line_end,
        parse_ok,
        r.unknown_constants,
        r.proof,
        r.proof_uses,
    ).join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
    declarations: dict[str, KnownDeclaration] = {}
    row: Any
    for row in session.execute(stmt):
        declarations[row[1]] = KnownDeclaration(
            id=row[0],
            name=row[1],
            content_hash=row[2],
            current_revision=row[3],
            removed=bool(row[4]),
            source_id=row[5],
            module=row[6],
            revision_id=row[7],
            file=row[8],
            line_start=row[9],
            line_end=row[10],
            parse_ok=bool(row[11]),
            unknown_constants=tuple(row[12] or ()),
            proof=row[13],
            proof_uses=tuple(row[14] or ()),
        )
    return Snapshot(declarations)
