"""Check runs through the API: created (202), executed by the in-process worker, read back
with their results and JUnit XML; validation errors located in the body."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from api_support import API, AUTH, ingest_small_page, make_settings, wait_for_run
from fastapi.testclient import TestClient

from app.main import create_app

SMALL = ["Small.div_zero", "Small.div_zero_wrong", "Small.opaque_id"]


def test_create_run_executes_in_worker_and_records_results(client: TestClient) -> None:
    ingest_small_page(client)
    response = client.post(f"{API}/runs", json={"names": SMALL, "trials": 8}, headers=AUTH)
    assert response.status_code == 202, response.text
    created = response.json()
    run_id = created["id"]
    assert response.headers["location"] == f"{API}/runs/{run_id}"
    assert created["trigger"] == "api"
    assert created["progress"] == {"done": 0, "total": 3}
    assert created["params"]["selection"] == sorted(SMALL)

    run = wait_for_run(client, run_id)
    assert run["status"] == "failed", run  # Small.div_zero_wrong fails
    assert run["progress"] == {"done": 3, "total": 3}
    assert run["summary"] == {"pass": 1, "fail": 1, "error": 0, "unsupported": 1}
    assert run["junit"] == f"{API}/runs/{run_id}/junit.xml"

    results = client.get(f"{API}/runs/{run_id}/results").json()
    assert results["count"] == 3
    by_name = {r["name"]: r for r in results["data"]}
    assert by_name["Small.div_zero"]["status"] == "pass"
    assert by_name["Small.div_zero"]["trials"] == 8
    assert by_name["Small.div_zero_wrong"]["status"] == "fail"
    assert by_name["Small.div_zero_wrong"]["counterexample"] is not None
    assert by_name["Small.opaque_id"]["status"] == "unsupported"
    assert "mysteryFunction" in by_name["Small.opaque_id"]["reason"]
    failed = client.get(f"{API}/runs/{run_id}/results", params={"status": "fail"}).json()
    assert [r["name"] for r in failed["data"]] == ["Small.div_zero_wrong"]

    history = client.get(f"{API}/theorems/Small.div_zero/results").json()
    assert history["count"] == 1
    assert (history["data"][0]["run_id"], history["data"][0]["status"]) == (run_id, "pass")
    theorem = client.get(f"{API}/theorems/Small.div_zero").json()
    assert (theorem["status"], theorem["stale"]) == ("pass", False)
    assert theorem["results"][0]["max_abs_err"] == 0.0
    listed = client.get(f"{API}/theorems", params={"status": "fail"}).json()
    assert [t["name"] for t in listed["data"]] == ["Small.div_zero_wrong"]

    junit = client.get(f"{API}/runs/{run_id}/junit.xml")
    assert junit.status_code == 200
    assert junit.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(junit.content)
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "0")
    assert suite.get("skipped") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == set(SMALL)
    failure = cases["Small.div_zero_wrong"].find("failure")
    assert failure is not None
    assert "counterexample: " in (failure.text or "")
    assert "replay: proofbridge repro Small.div_zero_wrong --seed 0" in (failure.text or "")
    assert cases["Small.opaque_id"].find("skipped") is not None
    assert list(cases["Small.div_zero"]) == []
    assert {case.get("classname") for case in cases.values()} == {"Small.Page"}

    metrics = client.get(f"{API}/metrics").text
    assert 'proofbridge_check_results_total{status="pass"} 1.0' in metrics
    assert 'proofbridge_check_results_total{status="fail"} 1.0' in metrics
    assert 'proofbridge_runs{status="failed"} 1.0' in metrics
    assert 'proofbridge_results{status="unsupported"} 1.0' in metrics
    assert "proofbridge_runs_created_total 1.0" in metrics


def test_read_runs_lists_newest_first_with_filters(client: TestClient) -> None:
    ingest_small_page(client)
    assert client.get(f"{API}/runs").json() == {"data": [], "count": 0}
    ids = []
    for names in (["Small.div_zero"], ["Small.div_zero_wrong"]):
        created = client.post(f"{API}/runs", json={"names": names, "trials": 4}, headers=AUTH)
        ids.append(created.json()["id"])
        wait_for_run(client, ids[-1])

    listed = client.get(f"{API}/runs")
    assert listed.status_code == 200
    body = listed.json()
    assert body["count"] == 2
    assert [r["id"] for r in body["data"]] == ids[::-1]
    assert body["data"][0] == client.get(f"{API}/runs/{ids[1]}").json()
    failed = client.get(f"{API}/runs", params={"status": "failed"}).json()
    assert (failed["count"], [r["id"] for r in failed["data"]]) == (1, [ids[1]])
    paged = client.get(f"{API}/runs", params={"limit": 1, "offset": 1}).json()
    assert (paged["count"], [r["id"] for r in paged["data"]]) == (2, [ids[0]])
    assert client.get(f"{API}/runs", params={"trigger": "ci"}).json() == {"data": [], "count": 0}
    assert client.get(f"{API}/runs", params={"status": "done"}).status_code == 422


def test_read_run_unknown_answers_404(client: TestClient) -> None:
    for path in ("", "/results", "/junit.xml"):
        response = client.get(f"{API}/runs/999{path}")
        assert response.status_code == 404, path
        assert response.json() == {"detail": "unknown run: 999"}


def test_refuse_run_with_malformed_json(client: TestClient) -> None:
    response = client.post(
        f"{API}/runs",
        content=b'{"names": [\n  "Small.div_zero"\n  "Small.opaque_id"]\n}',
        headers={"Content-Type": "application/json"} | AUTH,
    )
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "json_invalid",
                "loc": ["body", 33],
                "msg": "malformed JSON: Expecting ',' delimiter (at line 3, column 3)",
                "ctx": {"error": "Expecting ',' delimiter"},
                "line": 3,
                "column": 3,
                "position": 33,
            }
        ]
    }


def test_refuse_run_with_truncated_json(client: TestClient) -> None:
    response = client.post(
        f"{API}/runs", content=b'{"trials": ', headers={"Content-Type": "application/json"} | AUTH
    )
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["msg"] == "malformed JSON: Expecting value (at line 1, column 12)"
    assert (error["line"], error["column"]) == (1, 12)


def test_refuse_run_of_unknown_or_unsuitable_names(client: TestClient) -> None:
    ingest_small_page(client)
    body = {"names": ["Small.div_zero", "Nope.missing", "Small.double"]}
    response = client.post(f"{API}/runs", json=body, headers=AUTH)
    assert response.status_code == 422
    assert [(e["loc"], e["msg"]) for e in response.json()["detail"]] == [
        (["body", "names", 1], "unknown theorem: Nope.missing"),
        (["body", "names", 2], "Small.double is a def, not a theorem"),
    ]
    assert client.get(f"{API}/runs/1").status_code == 404  # nothing was created


def test_refuse_run_in_module_without_theorems(client: TestClient) -> None:
    ingest_small_page(client)
    response = client.post(f"{API}/runs", json={"module": "Nope"}, headers=AUTH)
    assert response.status_code == 422
    assert [(e["loc"], e["msg"]) for e in response.json()["detail"]] == [
        (["body", "module"], "no theorems in module Nope")
    ]


def test_refuse_run_with_invalid_fields(client: TestClient) -> None:
    body = {"trials": 0, "dtype": "float16", "dims": {"n": 0}, "colour": "red"}
    response = client.post(f"{API}/runs", json=body, headers=AUTH)
    assert response.status_code == 422
    errors = {tuple(e["loc"]): e["msg"] for e in response.json()["detail"]}
    assert errors == {
        ("body", "trials"): "Input should be greater than or equal to 1",
        ("body", "dtype"): "Input should be 'float64', 'float32' or 'bfloat16'",
        ("body", "dims", "n"): "Input should be greater than or equal to 1",
        ("body", "colour"): "Extra inputs are not permitted",
    }


def test_resume_queued_run_at_next_start(database_url: str, tmp_path: Path) -> None:
    settings = make_settings(database_url, tmp_path / "var")
    first = create_app(settings)
    first.state.submit_run = lambda run_id: None  # a worker that never picks the run up
    with TestClient(first) as client:
        ingest_small_page(client)
        response = client.post(f"{API}/runs", json={"names": ["Small.opaque_id"]}, headers=AUTH)
        run_id = response.json()["id"]
        assert client.get(f"{API}/runs/{run_id}").json()["status"] == "queued"
        junit = client.get(f"{API}/runs/{run_id}/junit.xml")
        assert junit.status_code == 409
        assert junit.json() == {
            "detail": f"run {run_id} is queued (0 of 1 results): "
            "its JUnit XML is ready when it is done"
        }
    with TestClient(create_app(settings)) as client:  # starting again resumes the run
        run = wait_for_run(client, run_id)
    assert run["status"] == "passed"  # nothing failed or errored
    assert run["summary"]["unsupported"] == 1
