"""Every ingested declaration (theorems, definitions, ...) and the module docs' prose."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app import crud, models, schemas
from app.api.deps import SessionDep
from app.api.params import MODULE_DOC, DeclarationKind, Limit, ModuleQuery, Offset, SearchText
from app.api.responses import error_responses
from app.api.schemas import ProseOut
from app.services.reading import queries, views

__all__ = ["MODULE_DOC", "router"]

router = APIRouter(prefix="/declarations", tags=["declarations"])

Item = schemas.DeclarationSummary | ProseOut


def _prose(doc: models.ModuleDoc) -> ProseOut:
    return ProseOut(**views.module_doc_out(doc).model_dump())


@router.get("", response_model=schemas.Page[Item], responses=error_responses())
def read_declarations(
    session: SessionDep,
    kind: Annotated[
        DeclarationKind | None,
        Query(description="the Lean keyword `show` prints (theorem, def, ...), or module_doc"),
    ] = None,
    module: ModuleQuery = None,
    q: SearchText = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> schemas.Page[Item]:
    """Declarations by name, then module-doc blocks (kind `module_doc`) by module; `count`
    covers both."""
    data: list[Item] = []
    count = 0
    if kind != MODULE_DOC:
        rows, count = crud.list_declarations(
            session, kind=kind, module=module, q=q, limit=limit, offset=offset
        )
        data.extend(views.declaration_summary(decl, rev) for decl, rev in rows)
    if kind is None or kind == MODULE_DOC:
        room = limit - len(data)
        docs, doc_count = queries.list_module_docs_page(
            session, module=module, q=q, limit=room, offset=max(0, offset - count)
        )
        data.extend(_prose(doc) for doc in docs)
        count += doc_count
    return schemas.Page[Item](data=data, count=count)
