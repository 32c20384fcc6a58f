"""Proof status as every surface shows it: each declaration's own (`proved`, `unproved`,
`unknown`) and, for one whose proof uses unproved declarations (as far as the ingested
sources show), what it rests on (kept by ingestion: `app.services.ingestion.proof_graph`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import PROVED, UNKNOWN, UNPROVED

__all__ = [
    "PROVED_FAILING",
    "UNPROVED_FALSE",
    "ProofState",
    "proof_label",
    "proof_states",
    "triage",
]

# A failing theorem nobody should try to prove: its proof is not complete, or rests on
# one that is not; and one whose proof is complete and rests on nothing unproved, so
# that its failure is, by definition, a defect of the checker's semantics.
UNPROVED_FALSE = "unproved and false"
PROVED_FAILING = "proved yet failing"


@dataclass(frozen=True)
class ProofState:
    proof: str = UNKNOWN
    rests_on: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"proof": self.proof, "rests_on": list(self.rests_on)}

    @property
    def fully_proved(self) -> bool:
        return self.proof == PROVED and not self.rests_on


def triage(status: str | None, state: ProofState) -> str | None:
    """UNPROVED_FALSE or PROVED_FAILING for a failing theorem in that state, else None."""
    if status != "fail":
        return None
    if state.proof == UNPROVED or state.rests_on:
        return UNPROVED_FALSE
    return PROVED_FAILING if state.proof == PROVED else None


def proof_states(session: Session, names: Collection[str] | None = None) -> dict[str, ProofState]:
    """name -> its proof state, for `names` (every live declaration when None)."""
    d = models.Declaration
    stmt = select(d.name, d.proof, d.rests_on).where(d.removed.is_(False))
    if names is not None:
        stmt = stmt.where(d.name.in_(list(names)))
    return {
        name: ProofState(proof or UNKNOWN, tuple(rests or ()))
        for name, proof, rests in session.execute(stmt)
    }


def proof_label(state: ProofState) -> str:
    """A few words for a line of text: '' where the proof is complete and rests on
    nothing unproved; never anything that reads as proved where it is not known."""
    if state.proof == UNPROVED:
        label = "unproved"
    elif state.proof == PROVED:
        label = ""
    else:
        label = "proof unknown"
    if state.rests_on:
        shown = ", ".join(state.rests_on[:3])
        more = f" and {len(state.rests_on) - 3} more" if len(state.rests_on) > 3 else ""
        label = f"{label + '; ' if label else ''}rests on unproved {shown}{more}"
    return label
