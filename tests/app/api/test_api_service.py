"""Health, metrics, the home page, error shapes, and a web process that starts without JAX."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from api_support import API, AUTH, REPO, make_settings
from fastapi.testclient import TestClient

from app.main import create_app


def test_read_health_reports_database_ok(client: TestClient) -> None:
    response = client.get(f"{API}/healthz")
    assert response.status_code == 200
    # no broker: runs are checked in this server, so there is none to report
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "version": "0.1.0",
        "broker": None,
        "workers": None,
    }


def test_read_health_answers_503_when_database_unreachable(tmp_path: Path) -> None:
    url = "postgresql+psycopg://nobody:secret@127.0.0.1:1/missing"
    app = create_app(make_settings(url, tmp_path / "var"))
    client = TestClient(app)  # not started: starting needs the database
    response = client.get(f"{API}/healthz")
    assert response.status_code == 503
    detail = response.json()["detail"]
    assert detail.startswith(
        "database postgresql+psycopg://nobody:***@127.0.0.1:1/missing is unreachable: "
    )
    assert "secret" not in detail


def test_read_metrics_counts_requests_by_route(client: TestClient) -> None:
    client.get(f"{API}/theorems/Nope.one")
    client.get(f"{API}/theorems/Nope.two")
    client.get(f"{API}/theorems")
    client.post(f"{API}/runs", json={})
    client.get("/no/such/page")
    response = client.get(f"{API}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    text = response.text
    for line in (
        'proofbridge_http_requests_total{method="GET",route="/api/v1/theorems/{name}",'
        'status="404"} 2.0',
        'proofbridge_http_requests_total{method="GET",route="/api/v1/theorems",status="200"} 1.0',
        'proofbridge_http_requests_total{method="POST",route="/api/v1/runs",status="401"} 1.0',
        'proofbridge_http_requests_total{method="GET",route="<unmatched>",status="404"} 1.0',
        'proofbridge_http_request_duration_seconds_count{method="GET",'
        'route="/api/v1/theorems/{name}"} 2.0',
        'proofbridge_runs{status="queued"} 0.0',
        'proofbridge_results{status="pass"} 0.0',
        'proofbridge_theorems{status="unchecked"} 0.0',
        "proofbridge_database_up 1.0",
        "proofbridge_runs_created_total 0.0",
    ):
        assert line in text.splitlines(), line


def test_read_index_links_to_docs(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<a href="/docs">' in response.text
    assert client.get("/docs").status_code == 200


def test_openapi_documents_every_endpoint(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operations = {
        (method.upper(), path): op["operationId"]
        for path, item in spec["paths"].items()
        for method, op in item.items()
    }
    expected = {
        ("GET", "/api/v1/theorems"): "read_theorems",
        ("GET", "/api/v1/theorems/{name}"): "read_theorem",
        ("GET", "/api/v1/theorems/{name}/results"): "read_theorem_results",
        ("GET", "/api/v1/declarations"): "read_declarations",
        ("GET", "/api/v1/modules"): "read_modules",
        ("GET", "/api/v1/coverage"): "read_coverage",
        ("POST", "/api/v1/ingest"): "create_ingestion",
        ("GET", "/api/v1/runs"): "read_runs",
        ("POST", "/api/v1/runs"): "create_run",
        ("GET", "/api/v1/runs/{run_id}"): "read_run",
        ("POST", "/api/v1/runs/{run_id}/cancel"): "cancel_run",
        ("GET", "/api/v1/runs/{run_id}/results"): "read_run_results",
        ("GET", "/api/v1/runs/{run_id}/junit.xml"): "read_run_junit",
        ("GET", "/api/v1/runs/{run_id}/sarif"): "read_run_sarif",
        ("POST", "/api/v1/webhooks/github"): "create_github_delivery",
        ("POST", "/api/v1/webhooks/ci"): "create_ci_run",
        ("GET", "/api/v1/healthz"): "read_health",
        ("GET", "/api/v1/metrics"): "read_metrics",
    }
    assert {key: op.split("_api_v1")[0] for key, op in operations.items()} == expected
    security = spec["paths"]["/api/v1/runs"]["post"]["security"]
    assert security == [{"APIToken": []}]
    assert spec["paths"]["/api/v1/webhooks/ci"]["post"]["security"] == [{"APIToken": []}]
    # GitHub signs its deliveries; it sends no token
    assert "security" not in spec["paths"]["/api/v1/webhooks/github"]["post"]


def test_answer_unknown_route_with_json_detail(client: TestClient) -> None:
    response = client.get(f"{API}/nothing-here")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}
    wrong_method = client.delete(f"{API}/theorems", headers=AUTH)
    assert wrong_method.status_code == 405
    assert wrong_method.json() == {"detail": "Method Not Allowed"}


def test_start_web_process_without_jax(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        import app.main
        assert "jax" not in sys.modules, "importing app.main imported JAX"
        from fastapi.testclient import TestClient
        from app.settings import Settings
        settings = Settings(
            _env_file=None,
            database_url="sqlite:///{tmp_path}/web.db",
            api_token="web-process-token-0123",
            data_dir="{tmp_path}/var",
        )
        with TestClient(app.main.create_app(settings)) as client:
            for path in ("/", "/api/v1/theorems", "/api/v1/declarations", "/api/v1/modules",
                         "/api/v1/healthz", "/api/v1/metrics", "/api/v1/runs/1"):
                client.get(path)
        assert "jax" not in sys.modules, "serving imported JAX"
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
