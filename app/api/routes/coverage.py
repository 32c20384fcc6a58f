"""Coverage: which theorems get a checker, per module, and what vocabulary to add next."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app import schemas
from app.api.deps import SessionDep
from app.api.params import ModuleQuery
from app.api.responses import error_responses

__all__ = ["router"]

router = APIRouter(prefix="/coverage", tags=["coverage"])


@router.get("", response_model=schemas.CoverageOut, responses=error_responses())
def read_coverage(
    request: Request, session: SessionDep, module: ModuleQuery = None
) -> schemas.CoverageOut:
    """Per module, the live theorems that get a checker (`checked`) and those that do not
    (`unsupported`), decided statically: nothing is traced or compiled, so a check can
    still refuse a theorem counted `checked`. `vocabulary` ranks the constants without
    semantics by the theorems each would unlock: `sole_blocker` (it is their only missing
    constant), then `blocks` (their missing constants include it). A module with no live
    theorems gives zero counts."""
    result: schemas.CoverageOut = request.app.state.coverage.report(session, module=module)
    return result
