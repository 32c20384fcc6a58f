"""What each declaration's proof uses and rests on, kept on the declarations after every
batch.

A proof uses the declarations it mentions (`Declaration.proof_deps`: names resolved in its
namespace and `open`s) and rests on the unproved ones among them, directly or through other
proofs (`Declaration.rests_on`; `theorem_index.proofs`). One batch can change that for
declarations it did not touch (a lemma proved at last, a new `sorry` deep down, a name
defined), so both are recomputed over every live declaration, and written where they
changed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import UNKNOWN
from theorem_index.proofs import ProofRecord, direct_uses, resting

__all__ = ["update_resting"]


def update_resting(session: Session) -> int:
    """Recompute `Declaration.proof_deps` and `Declaration.rests_on`; the number of
    declarations whose values changed."""
    d, r = models.Declaration, models.DeclarationRevision
    stmt = (
        select(d.id, d.name, d.rests_on, d.proof_deps, r.proof, r.namespace, r.opens, r.proof_uses)
        .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
        .where(d.removed.is_(False))
    )
    records: list[ProofRecord] = []
    stored: dict[str, tuple[int, list[Any], list[Any]]] = {}
    for decl_id, name, rests, deps, proof, namespace, opens, uses in session.execute(stmt):
        stored[name] = (decl_id, list(rests or ()), list(deps or ()))
        records.append(
            ProofRecord(
                name, proof or UNKNOWN, namespace or "", tuple(opens or ()), tuple(uses or ())
            )
        )
    direct = direct_uses(records)
    found = resting(records, direct)
    rows = []
    for name, (decl_id, rests_before, deps_before) in stored.items():
        rests, deps = list(found.get(name, ())), list(direct.get(name, ()))
        if (rests, deps) != (rests_before, deps_before):
            rows.append({"id": decl_id, "rests_on": rests, "proof_deps": deps})
    if rows:
        session.execute(update(d), rows)
    return len(rows)
