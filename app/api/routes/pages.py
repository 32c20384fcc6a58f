"""The home page: a placeholder until the dashboard exists, pointing at the API."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app import __version__

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>ProofBridge</title></head>
<body>
<h1>ProofBridge</h1>
<p>Numeric checks for the theorem statements of Lean 4 formalisations (version {version}).</p>
<p>The dashboard is not built yet. The REST API is under <code>/api/v1</code>:</p>
<ul>
<li><a href="/docs">API documentation (OpenAPI)</a></li>
<li><a href="/api/v1/theorems">/api/v1/theorems</a></li>
<li><a href="/api/v1/modules">/api/v1/modules</a></li>
<li><a href="/api/v1/healthz">/api/v1/healthz</a></li>
<li><a href="/api/v1/metrics">/api/v1/metrics</a></li>
</ul>
</body>
</html>
"""


@router.get("/", response_class=HTMLResponse)
def read_index() -> HTMLResponse:
    return HTMLResponse(PAGE.format(version=__version__))
