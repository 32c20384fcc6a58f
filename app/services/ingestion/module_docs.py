"""Writing a batch's module docs, one owner per module.

Rule, as for declarations (`owners`): a module's docs belong to the source file
that first stated them, until that file, read again, no longer states any for that
module. A copy in another file (the same page uploaded under two names) is reported as a
warning naming the owner's file and line, and is not stored, so that the module's docs
are shown once. Between copies none of which is owned yet, the batch's first wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.batch import module_docs_hash
from app.services.ingestion.snapshot import Snapshot
from theorem_index.model import Document, IngestError, ModuleDoc

__all__ = ["ModuleDocOwner", "duplicate_module_doc", "write_module_docs"]


@dataclass(frozen=True)
class ModuleDocOwner:
    source_id: int
    file: str
    line: int | None


def duplicate_module_doc(copy: ModuleDoc, doc: Document, owner: ModuleDocOwner) -> IngestError:
    where = owner.file if owner.line is None else f"{owner.file}:{owner.line}"
    loc = copy.location
    return IngestError(
        loc.file if loc else doc.file,
        loc.line_start if loc else None,
        None,
        f"duplicate module doc of module {copy.module}: the module's docs belong to {where}; "
        "this copy is not stored",
    )


def _stored_owners(session: Session) -> dict[str, ModuleDocOwner]:
    """Each module's owner among the stored module docs (the first source, by id)."""
    m = models.ModuleDoc
    stmt = (
        select(m.module, m.source_id, models.Source.path, m.line_start)
        .join(models.Source, models.Source.id == m.source_id)
        .order_by(m.source_id, m.position)
    )
    owners: dict[str, ModuleDocOwner] = {}
    for module, source_id, path, line in session.execute(stmt):
        owners.setdefault(module, ModuleDocOwner(source_id, path, line))
    return owners


def _kept(
    documents: Sequence[Document],
    source_ids: Mapping[str, int],
    stored: Mapping[str, ModuleDocOwner],
) -> tuple[list[tuple[Document, list[ModuleDoc]]], list[IngestError]]:
    """Each document of the batch (first of a file) with the module docs it may store."""
    docs: dict[str, Document] = {}
    for doc in documents:
        docs.setdefault(doc.file, doc)
    stating = {source_ids[d.file]: {md.module for md in d.module_docs} for d in docs.values()}
    claimed: dict[str, ModuleDocOwner] = {}
    result: list[tuple[Document, list[ModuleDoc]]] = []
    warnings: list[IngestError] = []
    for doc in docs.values():
        source_id = source_ids[doc.file]
        kept: list[ModuleDoc] = []
        for md in doc.module_docs:
            owner = claimed.get(md.module)
            if owner is None:
                held = stored.get(md.module)
                if (
                    held is None
                    or held.source_id == source_id
                    # the owner, read again, states none for the module: it gave them up
                    or md.module not in stating.get(held.source_id, {md.module})
                ):
                    line = md.location.line_start if md.location else None
                    owner = claimed[md.module] = ModuleDocOwner(source_id, doc.file, line)
                else:
                    owner = held
            if owner.source_id == source_id:
                kept.append(md)
            else:
                warnings.append(duplicate_module_doc(md, doc, owner))
        result.append((doc, kept))
    return result, warnings


def write_module_docs(
    session: Session,
    *,
    documents: Sequence[Document],
    source_ids: Mapping[str, int],
    snap: Snapshot,
    now: datetime,
) -> tuple[int, list[IngestError]]:
    """Store the batch's module docs (a source's rows are rewritten only when what it
    keeps changed); the number stored, and a warning per copy left out."""
    kept_docs, warnings = _kept(documents, source_ids, _stored_owners(session))
    count = 0
    for doc, kept in kept_docs:
        count += len(kept)
        source_id = source_ids[doc.file]
        docs_hash = module_docs_hash(kept)
        known = snap.source_by_id.get(source_id)
        if known is not None and known.module_docs_hash == docs_hash:
            continue
        session.execute(delete(models.ModuleDoc).where(models.ModuleDoc.source_id == source_id))
        rows = [
            {
                "source_id": source_id,
                "position": i,
                "module": md.module,
                "text": md.text,
                "headings": list(md.headings),
                "mentions": list(md.mentions),
                "file": md.location.file if md.location else doc.file,
                "line_start": md.location.line_start if md.location else None,
                "line_end": md.location.line_end if md.location else None,
                "created_at": now,
            }
            for i, md in enumerate(kept)
        ]
        if rows:
            session.execute(insert(models.ModuleDoc), rows)
        session.execute(
            update(models.Source)
            .where(models.Source.id == source_id)
            .values(module_docs_hash=docs_hash)
        )
    return count, warnings
