"""`/docs` works without internet: the page and everything it loads come from the app."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.main import create_app

URL_ATTRIBUTE = re.compile(r'\b(?:src|href)="([^"]*)"')


def test_docs_reference_only_local_urls_that_answer() -> None:
    client = TestClient(create_app())  # no lifespan needed: nothing here reads the database
    page = client.get("/docs")
    assert page.status_code == 200
    assert "http://" not in page.text and "https://" not in page.text
    urls = URL_ATTRIBUTE.findall(page.text)
    assert sorted(urls) == [
        "/docs/assets/favicon-32x32.png",
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
    ]
    assert "url: '/openapi.json'" in page.text
    assert '"validatorUrl": null' in page.text  # Swagger UI would call validator.swagger.io
    for url in [*urls, "/openapi.json", "/docs/oauth2-redirect"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.content, url
    script = client.get("/docs/assets/swagger-ui-bundle.js")
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert "SwaggerUIBundle" in script.text


def test_redoc_is_not_served_since_it_needs_a_cdn() -> None:
    client = TestClient(create_app())
    assert client.get("/redoc").status_code == 404
