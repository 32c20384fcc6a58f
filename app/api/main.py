"""The API router: every resource's router under `/api/v1`."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.routes import (
    coverage,
    declarations,
    health,
    ingest,
    metrics,
    modules,
    runs,
    theorems,
    webhooks,
)

__all__ = ["API_PREFIX", "api_router"]

API_PREFIX = "/api/v1"

api_router = APIRouter()
api_router.include_router(theorems.router)
api_router.include_router(declarations.router)
api_router.include_router(modules.router)
api_router.include_router(coverage.router)
api_router.include_router(ingest.router)
api_router.include_router(runs.router)
api_router.include_router(webhooks.router)
api_router.include_router(health.router)
api_router.include_router(metrics.router)
