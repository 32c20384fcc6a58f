"""Modules, with their theorems counted by the status of each one's newest result."""

from __future__ import annotations

from fastapi import APIRouter

from app import crud, schemas
from app.api.deps import SessionDep
from app.api.responses import error_responses
from app.api.schemas import ModuleOut
from app.services.reading import queries

__all__ = ["router"]

router = APIRouter(prefix="/modules", tags=["modules"])


@router.get("", response_model=schemas.Page[ModuleOut], responses=error_responses(validated=False))
def read_modules(session: SessionDep) -> schemas.Page[ModuleOut]:
    """Every module with live declarations or module docs, by name. `statuses` counts the
    theorems by newest result (`unchecked` for never checked)."""
    summaries = {s["module"]: s for s in crud.module_summaries(session)}
    docs = queries.module_doc_counts(session)
    data = []
    for module in sorted(set(summaries) | set(docs)):
        summary = summaries.get(
            module, {"module": module, "declarations": 0, "theorems": 0, "statuses": {}}
        )
        data.append(ModuleOut(**summary, module_docs=docs.get(module, 0)))
    return schemas.Page[ModuleOut](data=data, count=len(data))
