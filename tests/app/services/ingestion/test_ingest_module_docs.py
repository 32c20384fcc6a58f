"""Module docs follow the ownership rule of declarations: one copy per module, the first
file's, on SQLite and PostgreSQL."""

from __future__ import annotations

from db_support import batch
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.ingest import ingest_batch
from theorem_index.model import Document, IngestError
from theorem_index.readers import read_bytes

PAGE = (
    "Same page #\nmodule: Pages.Same\n\nProse about the module.\n\ntheorem Pages.Same.t : 1 = 1\n"
)
NO_DOC = "theorem Other.u : 2 = 2\n"
DOC_COPY = (
    "duplicate module doc of module Pages.Same: the module's docs belong to {owner}:1; "
    "this copy is not stored"
)
DECL_COPY = (
    "duplicate declaration Pages.Same.t: it belongs to module Pages.Same ({owner}:6); "
    "this copy is not stored"
)


def _page(name: str, text: str = PAGE) -> Document:
    return read_bytes(name, text.encode())


def _stored(session: Session) -> list[tuple[str, str]]:
    rows = session.execute(
        select(models.Source.path, models.ModuleDoc.module)
        .join(models.Source, models.Source.id == models.ModuleDoc.source_id)
        .order_by(models.ModuleDoc.id)
    )
    return [(path, module) for path, module in rows]


def test_store_module_doc_once_when_same_page_under_two_names(session: Session) -> None:
    report = ingest_batch(session, batch=batch(_page("a.txt"), _page("b.txt")))

    assert _stored(session) == [("a.txt", "Pages.Same")]
    assert report.module_docs == 1
    assert report.errors == ()
    assert report.warnings == (
        IngestError("b.txt", 6, None, DECL_COPY.format(owner="a.txt")),
        IngestError("b.txt", 1, None, DOC_COPY.format(owner="a.txt")),
    )


def test_keep_module_doc_owner_whatever_the_order_of_later_batches(session: Session) -> None:
    ingest_batch(session, batch=batch(_page("a.txt")))

    again = ingest_batch(session, batch=batch(_page("b.txt"), _page("a.txt")))

    assert _stored(session) == [("a.txt", "Pages.Same")]
    assert again.module_docs == 1
    assert IngestError("b.txt", 1, None, DOC_COPY.format(owner="a.txt")) in again.warnings


def test_hand_module_doc_over_when_its_owner_drops_it(session: Session) -> None:
    ingest_batch(session, batch=batch(_page("a.txt")))

    report = ingest_batch(session, batch=batch(_page("a.txt", NO_DOC), _page("b.txt")))

    assert _stored(session) == [("b.txt", "Pages.Same")]
    assert report.module_docs == 1
    assert report.warnings == ()
