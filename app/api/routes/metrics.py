"""Prometheus metrics in the text exposition format (see `app.api.metrics`)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

__all__ = ["router"]

router = APIRouter(tags=["metrics"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text"}},
)
async def read_metrics(request: Request) -> Response:
    """Request counts and latency by route; runs, results and theorems by status."""
    registry = request.app.state.metrics.registry
    body = await run_in_threadpool(generate_latest, registry)
    return Response(content=body, media_type=CONTENT_TYPE_LATEST)
