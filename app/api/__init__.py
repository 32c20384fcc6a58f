"""The HTTP API: routers under `/api/v1`, their dependencies, errors and middleware."""

from app.api.main import API_PREFIX, api_router

__all__ = ["API_PREFIX", "api_router"]
