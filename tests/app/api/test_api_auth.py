"""Write access: every write endpoint needs `Authorization: Bearer <token>`."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_support import API, AUTH, SMALL_PAGE, TOKEN, make_settings, multipart
from fastapi.testclient import TestClient

from app.main import create_app

WRITES = [
    ("post", f"{API}/ingest"),
    ("post", f"{API}/runs"),
    ("post", f"{API}/webhooks/ci"),
]


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_refuse_write_without_token(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path, json={})
    assert response.status_code == 401
    assert response.json() == {
        "detail": "missing bearer token: send the API token as `Authorization: Bearer <token>`"
    }
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_refuse_write_with_wrong_token(client: TestClient, method: str, path: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}x"}
    response = client.request(method, path, json={}, headers=headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "invalid bearer token"}
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", TOKEN])
def test_refuse_write_with_malformed_authorization(client: TestClient, header: str) -> None:
    response = client.post(f"{API}/runs", json={}, headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json() == {
        "detail": "malformed Authorization header: expected `Bearer <token>`"
    }
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_request"'


def test_refuse_upload_without_token_before_reading_it(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest", files=multipart([("Small.Page.txt", SMALL_PAGE.encode())])
    )
    assert response.status_code == 401
    assert client.get(f"{API}/declarations").json()["count"] == 0


def test_accept_write_with_token(client: TestClient) -> None:
    response = client.post(
        f"{API}/ingest", files=multipart([("Small.Page.txt", SMALL_PAGE.encode())]), headers=AUTH
    )
    assert response.status_code == 200
    assert response.json()["theorems"] == 3


def test_accept_token_generated_at_first_start(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var", api_token=None)
    with TestClient(create_app(settings)) as client:
        stored = (tmp_path / "var" / "api_token").read_text().strip()
        assert len(stored) >= 32
        refused = client.post(f"{API}/runs", json={}, headers=AUTH)
        accepted = client.post(
            f"{API}/runs", json={"trials": 0}, headers={"Authorization": f"Bearer {stored}"}
        )
    assert refused.status_code == 401
    assert refused.json() == {"detail": "invalid bearer token"}
    assert accepted.status_code == 422  # past the token: the body is checked
    assert accepted.json()["detail"][0]["loc"] == ["body", "trials"]


def test_allow_reads_without_token(client: TestClient) -> None:
    for path in ("/theorems", "/declarations", "/modules", "/healthz", "/metrics"):
        assert client.get(f"{API}{path}").status_code == 200, path
