"""The records a check environment is built from, read column by column, on SQLite and
PostgreSQL: the same as converting each full revision row."""

from __future__ import annotations

from dataclasses import replace

import pytest
from db_support import REPO, batch, definition, document, theorem
from sqlalchemy.orm import Session

from app import crud
from app.services.ingestion.ingest import ingest_batch, ingest_paths


def _from_full_rows(session: Session, *, include_removed: bool) -> list[object]:
    return [
        crud.revision_to_declaration(d, r)
        for d, r in crud.current_declarations(session, include_removed=include_removed)
    ]


@pytest.mark.parametrize("include_removed", [False, True])
def test_read_records_equal_to_full_revision_rows(session: Session, include_removed: bool) -> None:
    ingest_paths(session, paths=[str(REPO / "examples")])
    t1 = replace(theorem("Proofs.t1"), attributes=("simp",), modifiers=("private",))
    linked = replace(
        theorem("Proofs.t2"),
        links=(("dense", "Proofs.dense"), ("∑", "Finset.sum")),
        opens=("Real",),
    )
    ingest_batch(
        session, batch=batch(document("A.lean", [t1, linked, definition("Proofs.d", "x * 2")]))
    )
    changed = replace(t1, statement="0 ≤ 1", binders="", docstring=None)
    ingest_batch(session, batch=batch(document("A.lean", [changed, definition("Proofs.d")])))

    records = crud.current_declaration_records(session, include_removed=include_removed)

    assert records == _from_full_rows(session, include_removed=include_removed)
    names = [r.name for r in records]
    assert names == sorted(names)
    assert ("Proofs.t2" in names) is include_removed
    by_name = {r.name: r for r in records}
    assert (by_name["Proofs.t1"].statement, by_name["Proofs.t1"].attributes) == (
        "0 ≤ 1",
        ("simp",),
    )
    assert by_name["Proofs.d"].equations == ("Proofs.d x = x + 1",)
