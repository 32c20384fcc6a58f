"""Which theorems stated in prose the registered checkers claim, for ingestion.

A registered checker of a prose theorem (`checkers.registry.prose`) names it and how a
module doc writes it; ingestion then records, for each document mentioning a
claimed name, a declaration of kind `prose` whose statement is the paragraph
(`theorem_index.prose_claims`). Knowing the claims means loading the checkers
(and JAX, with the settings' `checker_modules`), which is done only for a batch
holding a module doc that mentions a name at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.services.ingestion.batch import BatchLike
from theorem_index.model import Document, IngestError
from theorem_index.prose_claims import add_prose_declarations

__all__ = ["ProseBatch", "registered_claims", "with_prose_declarations"]


def registered_claims() -> dict[str, str]:
    """Theorem name -> its mention, for every registered checker of a prose theorem."""
    from app.services.runs import load_backend

    return dict(load_backend().REGISTRY.prose_claims())


@dataclass(frozen=True)
class ProseBatch:
    documents: Sequence[Document]
    errors: Sequence[IngestError]
    files: int


def with_prose_declarations(batch: BatchLike, claims: Mapping[str, str] | None = None) -> BatchLike:
    """`batch` with the prose declarations its module docs hold; `claims` None asks the
    registered checkers (only when some module doc mentions a name)."""
    if not any(doc.mentions for d in batch.documents for doc in d.module_docs):
        return batch
    if claims is None:
        claims = registered_claims()
    if not claims:
        return batch
    documents = add_prose_declarations(batch.documents, claims)
    return ProseBatch(documents, batch.errors, batch.files)
