"""Small things a first visit trips over: a bad query parameter answers a page (the API
keeps its JSON), a theorem's source shows no server folder, numbers do not wrap."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_support import add_run, seed_library
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.dashboard.theorems import shown_source
from app.services.ingestion.ingest import ingest_paths

NOT_AN_INTEGER = "Input should be a valid integer, unable to parse string as an integer"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/theorems?page=abc", f"query parameter page: {NOT_AN_INTEGER} (got 'abc')"),
        (
            "/theorems?status=nope&page=0",
            "query parameter status: Input should be '', 'pass', 'fail', 'error', "
            "'unsupported' or 'unchecked' (got 'nope'); query parameter page: Input should "
            "be greater than or equal to 1 (got '0')",
        ),
        (
            "/modules/Alg?page=-1",
            "query parameter page: Input should be greater than or equal to 1 (got '-1')",
        ),
        ("/runs?page=x", f"query parameter page: {NOT_AN_INTEGER} (got 'x')"),
    ],
)
def test_bad_query_parameter_of_a_page_answers_a_page(
    client: TestClient, path: str, message: str
) -> None:
    response = client.get(path)

    assert response.status_code == 422
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "<title>Bad request · ProofBridge</title>" in response.text
    shown = message.replace("'", "&#39;")
    assert f'<p class="message">{shown}</p>' in response.text


def test_bad_query_parameter_of_the_api_answers_json(client: TestClient) -> None:
    response = client.get("/api/v1/theorems?limit=abc")

    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "int_parsing",
                "loc": ["query", "limit"],
                "msg": NOT_AN_INTEGER,
                "input": "abc",
            }
        ]
    }


@pytest.mark.parametrize(
    ("file", "module", "shown"),
    [
        ("/srv/src/Examples/Lean.lean", "Examples.Lean", "Examples/Lean.lean"),
        ("/srv/src/Lean.lean", "Lean", "Lean.lean"),
        ("/srv/docs/Examples.Text.txt", "Examples.Text", "Examples.Text.txt"),
        ("/srv/other/Place.lean", "Examples.Lean", "Place.lean"),
        ("Examples/Lean.lean", "Examples.Lean", "Examples/Lean.lean"),
        ("upload.html", "Up", "upload.html"),
        (None, "Up", None),
    ],
)
def test_shown_source_leaves_out_the_servers_folders(
    file: str | None, module: str, shown: str | None
) -> None:
    assert shown_source(file, module) == shown


def test_theorem_page_shows_no_absolute_path(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    source = tmp_path / "src" / "Deep" / "Mod.lean"
    source.parent.mkdir(parents=True)
    source.write_text(
        "namespace Deep.Mod\n\ntheorem add_zero (x : ℝ) : x + 0 = x := by simp\n\nend Deep.Mod\n",
        encoding="utf-8",
    )
    report = ingest_paths(db, paths=[str(tmp_path / "src")])
    assert not report.errors, report.errors

    html = client.get("/theorems/Deep.Mod.add_zero").text

    assert str(tmp_path) not in html
    assert " · <bdi>Deep/Mod.lean</bdi>:3" in html


def test_numbers_in_tables_do_not_wrap(client: TestClient, db: Session) -> None:
    seed_library(db)
    run = add_run(db, {"Alg.bad": {"status": "pass", "max_rel_err": 2.5e-15, "rtol": 1e-10}})

    html = client.get(f"/runs/{run.id}").text
    css = client.get("/static/dashboard.css").text

    assert '<td><span class="num">2.5e-15</span></td><td><span class="num">1e-10</span></td>' in (
        html
    )
    assert ".num { white-space: nowrap; }" in css


HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_unknown_page_or_method_answers_a_browser_a_page(client: TestClient) -> None:
    missing = client.get("/no/such/page", headers=HTML)
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "text/html; charset=utf-8"
    assert "<title>Not found · ProofBridge</title>" in missing.text
    assert '<p class="message">There is no page at /no/such/page.</p>' in missing.text

    refused = client.put("/theorems", headers=HTML)
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET"
    assert '<p class="message">PUT is not allowed on /theorems.</p>' in refused.text


def test_unknown_api_path_or_a_client_without_html_keeps_json(client: TestClient) -> None:
    for path, headers in (("/api/v1/nothing", HTML), ("/no/such/page", {"Accept": "*/*"})):
        response = client.get(path, headers=headers)
        assert (response.status_code, response.json()) == (404, {"detail": "Not Found"}), path
