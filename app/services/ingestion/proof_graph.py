"""What each declaration's proof rests on, kept on the declarations after every batch.

A proof rests on the unproved declarations it uses, directly or through other proofs
(`theorem_index.proofs.resting`). One batch can change that for declarations it did not
touch (a lemma proved at last, a new `sorry` deep down), so it is recomputed over every
live declaration, and written where it changed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import UNKNOWN
from theorem_index.proofs import ProofRecord, resting

__all__ = ["update_resting"]


def update_resting(session: Session) -> int:
    """Recompute `Declaration.rests_on`; the number of declarations whose value changed."""
    d, r = models.Declaration, models.DeclarationRevision
    stmt = (
        select(d.id, d.name, d.rests_on, r.proof, r.namespace, r.opens, r.proof_uses)
        .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
        .where(d.removed.is_(False))
    )
    records: list[ProofRecord] = []
    stored: dict[str, tuple[int, list[Any]]] = {}
    for decl_id, name, rests, proof, namespace, opens, uses in session.execute(stmt):
        stored[name] = (decl_id, list(rests or ()))
        records.append(
            ProofRecord(
                name, proof or UNKNOWN, namespace or "", tuple(opens or ()), tuple(uses or ())
            )
        )
    found = resting(records)
    rows = [
        {"id": decl_id, "rests_on": list(found.get(name, ()))}
        for name, (decl_id, before) in stored.items()
        if list(found.get(name, ())) != before
    ]
    if rows:
        session.execute(update(d), rows)
    return len(rows)
