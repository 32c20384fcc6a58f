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

from collections.abc import Mapping
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import PROVED, UNKNOWN, UNPROVED
from theorem_index.proofs import ProofRecord, direct_uses, resting

__all__ = ["apply_proof_marks", "update_resting"]


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


def apply_proof_marks(session: Session, marks: Mapping[str, bool]) -> int:
    """Set the proof status of the live declarations doc-gen4's database names (name ->
    uses `sorry`) on their current revisions; the number changed."""
    d, r = models.Declaration, models.DeclarationRevision
    names = sorted(marks)
    decl_rows: list[dict[str, Any]] = []
    rev_rows: list[dict[str, Any]] = []
    for start in range(0, len(names), 500):
        stmt = (
            select(d.id, d.name, d.proof, r.id)
            .join(r, and_(r.declaration_id == d.id, r.revision == d.current_revision))
            .where(d.name.in_(names[start : start + 500]), d.removed.is_(False))
        )
        for decl_id, name, proof, rev_id in session.execute(stmt):
            want = UNPROVED if marks[name] else PROVED
            if proof != want:
                decl_rows.append({"id": decl_id, "proof": want})
                rev_rows.append({"id": rev_id, "proof": want, "sorried": want == UNPROVED})
    if decl_rows:
        session.execute(update(d), decl_rows)
        session.execute(update(r), rev_rows)
    return len(decl_rows)
