"""Proof status through the HTTP API: beside the check status in the list and the detail,
the `proof` filter, and runs over the unproved theorems only."""

from __future__ import annotations

from pathlib import Path

from api_support import TOKEN, wait_for_run
from db_support import PROOF_SOURCE
from fastapi.testclient import TestClient

from app.db import get_sessionmaker
from app.services.ingestion.ingest import ingest_paths
from app.settings import Settings


def _ingest(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "P.lean"
    path.write_text(PROOF_SOURCE, encoding="utf-8")
    with get_sessionmaker(settings.database_url)() as session:
        ingest_paths(session, paths=[str(path)])


def test_list_and_detail_carry_the_proof_and_filter_by_it(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    _ingest(settings, tmp_path)
    page = client.get("/api/v1/theorems").json()
    shown = {t["name"]: (t["proof"], t["rests_on"]) for t in page["data"]}
    assert shown["P.lemma1"] == ("unproved", [])
    assert shown["P.top"] == ("proved", ["P.lemma1"])
    assert shown["P.apart"] == ("proved", [])
    unproved = client.get("/api/v1/theorems", params={"proof": "unproved"}).json()
    assert [t["name"] for t in unproved["data"]] == ["P.lemma1"]
    assert unproved["count"] == 1
    assert client.get("/api/v1/theorems", params={"proof": "unknown"}).json()["count"] == 0
    assert client.get("/api/v1/theorems", params={"proof": "sorry"}).status_code == 422
    detail = client.get("/api/v1/theorems/P.middle").json()
    assert (detail["proof"], detail["rests_on"]) == ("proved", ["P.lemma1"])


def test_a_run_over_the_unproved_only(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    _ingest(settings, tmp_path)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    created = client.post("/api/v1/runs", json={"proof": "unproved", "trials": 8}, headers=headers)
    assert created.status_code == 202, created.text
    run = wait_for_run(client, created.json()["id"])
    assert run["total"] == 1
    results = client.get(f"/api/v1/runs/{run['id']}/results").json()["data"]
    assert [(r["name"], r["status"]) for r in results] == [("P.lemma1", "fail")]
    bad = client.post("/api/v1/runs", json={"proof": "maybe"}, headers=headers)
    assert bad.status_code == 422

    sarif = client.get(f"/api/v1/runs/{run['id']}/sarif")
    assert sarif.status_code == 200
    assert sarif.headers["content-type"].startswith("application/sarif+json")
    (finding,) = sarif.json()["runs"][0]["results"]
    assert finding["ruleId"] == "proofbridge/false-statement"
    assert finding["properties"]["proof"] == "unproved"
    physical = finding["locations"][0]["physicalLocation"]
    assert physical["region"] == {"startLine": 3}
    assert physical["artifactLocation"]["uri"].endswith("P.lean")
    junit = client.get(f"/api/v1/runs/{run['id']}/junit.xml").text
    assert 'line="3"' in junit
    assert client.get("/api/v1/runs/999999/sarif").status_code == 404
