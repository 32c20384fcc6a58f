"""Ingestion: a batch of read documents into sources, declarations and their revisions.

Rules (FORMATS.md, "What ingestion keeps"):
- a name belongs to the module (source file) that first declared it until that file drops
  it; a copy elsewhere is a warning and is not stored (`owners`), so re-ingesting
  the same inputs, in any order, changes nothing; a module's docs follow the same rule
  (`module_docs`);
- a declaration whose revision hash is unchanged creates nothing new;
- a changed one gets a new revision, the old ones stay;
- a declaration that was last read from a file which, read cleanly again, no longer has it
  is marked removed (scoped per source file; never deleted). A file read with errors marks
  nothing removed, since a declaration it lost may only be broken;
- every new revision is parsed, with the names of the database and the batch as the known
  constants; older revisions whose unknown constants this batch defines are resolved again.

The whole batch is one transaction holding the database's ingestion lock (`BEGIN IMMEDIATE`
on SQLite, an advisory lock on PostgreSQL), so that concurrent ingestions of the same files
end with one copy of each declaration; the unique constraints on names back that up, and a
conflict that still happens makes the batch start over.

Comparisons happen in memory against one snapshot of the database, and rows are written in
bulk, so that re-ingesting an unchanged corpus costs a few queries.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

from sqlalchemy import select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from app import models
from app.db import lock_for_writing
from app.services.ingestion.batch import (
    DEFINITION_KINDS,
    THEOREM_KINDS,
    BatchLike,
    IngestReport,
    collect,
    describe_document_kinds,
    revision_hash,
)
from app.services.ingestion.parsing import Parser, gc_paused
from app.services.ingestion.proof_graph import apply_proof_marks, update_resting
from app.services.ingestion.prose import with_prose_declarations
from app.services.ingestion.writer import BatchWriter
from app.settings import get_settings
from theorem_index.model import IngestError

__all__ = [
    "DEFINITION_KINDS",
    "THEOREM_KINDS",
    "BatchLike",
    "IngestReport",
    "describe_document_kinds",
    "ingest_batch",
    "ingest_paths",
    "remove_sources",
    "revision_hash",
]

LOCK_NAME = "proofbridge.ingest"
MAX_ATTEMPTS = 3


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, IntegrityError):
        return True
    code = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return code in ("40001", "40P01") or "database is locked" in str(exc)


# PostgreSQL plans its queries from statistics that autovacuum refreshes only a while
# after a bulk write: right after a large ingestion they still describe the empty tables,
# and listing theorems took seconds instead of milliseconds.
ANALYZE_FROM = 1000


def refresh_statistics(session: Session, *, written: int) -> None:
    """After a write of `written` declarations, refresh PostgreSQL's planner statistics."""
    if written < ANALYZE_FROM or session.get_bind().dialect.name != "postgresql":
        return
    session.execute(text("ANALYZE declarations, declaration_revisions"))
    session.commit()


def ingest_batch(
    session: Session,
    *,
    batch: BatchLike,
    commit: str | None = None,
    parser_factory: Callable[[Iterable[str]], Parser] = Parser,
    prose_claims: Mapping[str, str] | None = None,
    sorry_macros: Collection[str] | None = None,
) -> IngestReport:
    """Write `batch` in one transaction of its own and commit it (a transaction the session
    has open is committed first). The theorems its module docs state in prose that a
    registered checker claims (`prose_claims`, by default the registered checkers') are
    recorded as declarations of kind `prose` (`app.services.ingestion.prose`). A proof
    that uses one of `sorry_macros` (by default the setting's) is unproved."""
    marks = getattr(batch, "proof_marks", None)  # doc-gen4's database: proof status only
    batch = with_prose_declarations(batch, prose_claims)
    if sorry_macros is None:
        sorry_macros = get_settings().sorry_macros
    collected = collect(batch, sorry_macros)
    if session.in_transaction():
        session.commit()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            lock_for_writing(session, LOCK_NAME)
            with gc_paused():
                writer = BatchWriter(session, batch, collected, commit, parser_factory)
                report = writer.run()
                marked = apply_proof_marks(session, marks) if marks else 0
                if writer.proofs_changed or marked:
                    update_resting(session)
            session.commit()
            refresh_statistics(session, written=report.new + report.changed)
            return report
        except (IntegrityError, OperationalError) as exc:
            session.rollback()
            if attempt == MAX_ATTEMPTS or not _retryable(exc):
                raise
        except BaseException:
            session.rollback()
            raise
    raise AssertionError("unreachable")


def remove_sources(session: Session, *, paths: Sequence[str]) -> int:
    """Mark the live declarations read from the files `paths` (deleted) removed, in one
    transaction of its own (committed); how many were."""
    d, src = models.Declaration, models.Source
    if session.in_transaction():
        session.commit()
    lock_for_writing(session, LOCK_NAME)
    ids = select(src.id).where(src.path.in_(list(paths)))
    now = models.utcnow()
    removed = session.execute(
        update(d)
        .where(d.source_id.in_(ids), d.removed.is_(False))
        .values(removed=True, removed_at=now, updated_at=now)
    ).rowcount  # type: ignore[attr-defined]
    if removed:
        update_resting(session)
    session.commit()
    return int(removed or 0)


def ingest_paths(
    session: Session,
    *,
    paths: Sequence[str],
    commit: str | None = None,
    max_file_bytes: int | None = None,
) -> IngestReport:
    """Read files and folders with the readers, then ingest them (see `ingest_batch`).

    A path that does not exist, and a folder holding no document, are errors of the
    report (one each), so that a typo or an empty folder never passes for an ingestion."""
    from theorem_index.readers import Batch, read_paths

    limit = {} if max_file_bytes is None else {"max_file_bytes": max_file_bytes}
    batch = Batch()
    for given in paths:
        path = Path(given)
        if not path.exists():
            batch.errors.append(IngestError(given, None, None, "no such file or directory"))
            continue
        part = read_paths([path], keep_duplicates=True, **limit)
        if path.is_dir() and part.files == 0 and not part.errors:
            message = f"no documents found: looked for {describe_document_kinds()}"
            batch.errors.append(IngestError(given, None, None, message))
        batch.documents.extend(part.documents)
        batch.errors.extend(part.errors)
        batch.files += part.files
        batch.proof_marks.update(part.proof_marks)
    return ingest_batch(session, batch=batch, commit=commit)
