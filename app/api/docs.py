"""The interactive API documentation (`/docs`), served without any outside host.

Swagger UI's script, stylesheet and icon come from the `swagger-ui-bundle-v2` package
(Swagger UI's own distribution, Apache-2.0), mounted under `/docs/assets`; the page sets
no validator, the one other host Swagger UI would call. ReDoc, which FastAPI loads from a
CDN, is not served.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

__all__ = ["ASSETS_PATH", "DOCS_PATH", "install_docs"]

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"


def install_docs(app: FastAPI) -> None:
    """Add `/docs`, its OAuth2 redirect page and its assets to `app` (built with
    `docs_url=None, redoc_url=None`)."""
    assets = Path(swagger_ui_path)
    openapi_url = app.openapi_url or "/openapi.json"
    title = f"{app.title} - API documentation"

    @app.get(DOCS_PATH, include_in_schema=False)
    def read_docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon-32x32.png",
            oauth2_redirect_url=OAUTH2_REDIRECT_PATH,
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(OAUTH2_REDIRECT_PATH, include_in_schema=False)
    def read_docs_oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    app.mount(ASSETS_PATH, StaticFiles(directory=assets), name="docs-assets")
