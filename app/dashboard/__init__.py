"""The dashboard: server-rendered pages over the database (no JavaScript needed, no JAX
imported to render one), and the few writes a logged-in user can make from them."""

from fastapi import APIRouter

from app.dashboard import auth, overview, runs, theorem_graph, theorems

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
router.include_router(overview.router)
router.include_router(theorem_graph.router)  # its `/theorems/X/graph` before `/theorems/X`
router.include_router(theorems.router)
router.include_router(runs.router)
router.include_router(auth.router)
