"""Building declarations, documents and batches for the database tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from theorem_index.model import Declaration, Document, IngestError, ModuleDoc, SourceLocation
from theorem_index.readers import Batch

REPO = Path(__file__).resolve().parents[2]


def theorem(
    name: str,
    statement: str = "∑ i : Fin n, f i = ∑ i : Fin n, f i",
    *,
    binders: str = "(n : ℕ) (f : Fin n → ℝ)",
    file: str = "Proofs/A.lean",
    line: int = 1,
    kind: str = "theorem",
    module: str = "Proofs.A",
    docstring: str | None = "A docstring.",
    equations: tuple[str, ...] = (),
) -> Declaration:
    return Declaration(
        name=name,
        kind=kind,
        module=module,
        binders=binders,
        statement=statement,
        docstring=docstring,
        equations=equations,
        location=SourceLocation(file, line, line + 1),
        namespace=name.rpartition(".")[0],
        statement_line=line,
        statement_column=1,
    )


def definition(name: str, rhs: str = "x + 1", **kwargs: object) -> Declaration:
    """`def name (x : ℝ) : ℝ` with the rendered equation `name x = rhs`."""
    return theorem(
        name,
        "ℝ",
        binders="(x : ℝ)",
        kind="def",
        equations=(f"{name} x = {rhs}",),
        **kwargs,  # type: ignore[arg-type]
    )


def document(
    file: str,
    decls: Sequence[Declaration],
    *,
    module: str = "Proofs.A",
    docs: Sequence[ModuleDoc] = (),
    errors: Sequence[IngestError] = (),
) -> Document:
    placed = [
        replace(d, location=SourceLocation(file, i * 3 + 1, i * 3 + 2))
        if d.location is None or d.location.file != file
        else d
        for i, d in enumerate(decls)
    ]
    return Document(file, "lean", module, list(placed), list(docs), list(errors))


def batch(*docs: Document, errors: Sequence[IngestError] = ()) -> Batch:
    return Batch(list(docs), list(errors), len(docs))


def count(session: Session, model: type[models.Base]) -> int:
    return int(session.scalar(select(func.count()).select_from(model)) or 0)


def declaration(session: Session, name: str) -> models.Declaration:
    stmt = select(models.Declaration).where(models.Declaration.name == name)
    return session.scalars(stmt.execution_options(populate_existing=True)).one()


def revisions(session: Session, name: str) -> list[models.DeclarationRevision]:
    decl = declaration(session, name)
    r = models.DeclarationRevision
    stmt = select(r).where(r.declaration_id == decl.id).order_by(r.revision)
    return list(session.scalars(stmt.execution_options(populate_existing=True)))


# A Lean file with proofs in every state: a false lemma left to `sorry`, proofs resting on
# it, a complete one, a stand-in macro, and a complete proof of a false statement.
PROOF_SOURCE = """namespace P

theorem lemma1 (x : ℝ) : x * 2 = x := by
  sorry

theorem middle (x : ℝ) : x * 2 * 1 = x := by
  rw [mul_one]; exact lemma1 x

theorem top (x : ℝ) : x * 2 * 1 * 1 = x := by
  rw [mul_one]; exact middle x

theorem apart (x : ℝ) : x + 0 = x := by simp

theorem stand_in (x : ℝ) : 0 + x = x := sorry_proof

theorem closed (x : ℝ) : x * 3 = x := by
  simp

end P
"""
