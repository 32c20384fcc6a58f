"""Theorems: the list with each one's newest status, one theorem in full, its results."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, status

from app import crud, schemas
from app.api.deps import SessionDep
from app.api.params import Limit, ModuleQuery, Offset, SearchText, TheoremName
from app.api.responses import error_responses
from app.crud.declarations import THEOREM_KINDS
from app.services.reading import views

__all__ = ["router", "unknown_theorem"]

router = APIRouter(prefix="/theorems", tags=["theorems"])
log = logging.getLogger("proofbridge.api")

TheoremStatus = Literal["pass", "fail", "error", "unsupported", "unchecked"]
UNKNOWN = "no declaration of that name"


def unknown_theorem(name: str) -> HTTPException:
    return HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=f"unknown theorem: {name}")


@router.get("", response_model=schemas.Page[schemas.TheoremSummary], responses=error_responses())
def read_theorems(
    session: SessionDep,
    status: Annotated[
        TheoremStatus | None, Query(description="newest result status, or unchecked")
    ] = None,
    module: ModuleQuery = None,
    q: SearchText = None,
    proof: Annotated[
        schemas.ProofStatus | None,
        Query(description="the theorem's own proof: proved, unproved (sorry), or unknown"),
    ] = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> schemas.Page[schemas.TheoremSummary]:
    """Live theorems by name, each with the status of its newest result and its proof's."""
    rows, count = crud.list_theorems(
        session, status=status, module=module, q=q, proof=proof, limit=limit, offset=offset
    )
    data = [views.theorem_summary(decl, rev, result) for decl, rev, result in rows]
    return schemas.Page[schemas.TheoremSummary](data=data, count=count)


def _describe(request: Request, session: Any, name: str) -> dict[str, Any]:
    try:
        describer = request.app.state.describer
        return describer.describe(session, name=name)
    except Exception as exc:  # the checkers could not describe it: say so, show the rest
        log.warning("describing the checker of %s failed: %s", name, exc)
        return {"kind": "unknown", "reason": f"describing the checker failed: {exc}"}


# A name may hold "/" (Lean's «a/b»): the routes take the rest of the path, the results
# route first, so that ".../results" is not read as part of a name.
@router.get(
    "/{name:path}/results",
    response_model=schemas.Page[schemas.ResultOut],
    responses=error_responses(e404=UNKNOWN),
)
def read_theorem_results(
    session: SessionDep, name: TheoremName, limit: Limit = 50, offset: Offset = 0
) -> schemas.Page[schemas.ResultOut]:
    """The theorem's results, newest first."""
    decl = crud.get_declaration(session, name=name)
    if decl is None:
        raise unknown_theorem(name)
    results, count = crud.result_history(
        session, declaration_id=decl.id, limit=limit, offset=offset
    )
    return schemas.Page[schemas.ResultOut](data=views.results_out(session, results), count=count)


@router.get(
    "/{name:path}", response_model=schemas.TheoremDetail, responses=error_responses(e404=UNKNOWN)
)
def read_theorem(request: Request, session: SessionDep, name: TheoremName) -> schemas.TheoremDetail:
    """Statement, binders, docstring, parse tree or parse error, constants, the checker it
    gets, its newest results and its revisions: what `proofbridge show NAME --json` prints.
    Definitions are served too (their checker is `none`)."""
    decl = crud.get_declaration(session, name=name)
    if decl is None:
        raise unknown_theorem(name)
    checker = _describe(request, session, name) if decl.kind in THEOREM_KINDS else None
    detail = views.theorem_detail(session, name=name, checker=checker)
    if detail is None:  # a safeguard only: declarations are never deleted
        raise unknown_theorem(name)
    return detail
