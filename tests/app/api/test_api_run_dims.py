"""Pinned dimensions in `POST /runs`: one rule with `check --dims` (a dimension that none of
the selected theorems has is refused, naming theirs), the same message on both."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_support import API, AUTH, DIMS_PAGE, ingest, wait_for_run
from cli_support import cli
from fastapi.testclient import TestClient


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            None,
            "none of the 2 selected theorems with a checker has a dimension ZZ "
            "(their dimensions: n)",
        ),
        (["Dims.add_zero"], "Dims.add_zero has no dimension ZZ (it has no dimensions)"),
    ],
)
def test_refuse_run_pinning_unknown_dimension_as_check_does(
    client: TestClient, database_url: str, tmp_path: Path, names: list[str] | None, message: str
) -> None:
    ingest(client, [("Dims.lean", DIMS_PAGE.encode())])
    body = {"dims": {"ZZ": 3}, "trials": 4} | ({"names": names} if names else {})

    response = client.post(f"{API}/runs", json=body, headers=AUTH)
    by_cli = cli(
        "check", *(names or ()), "--dims", "ZZ=3", "--trials", "4", url=database_url, cwd=tmp_path
    )

    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {"type": "value_error", "loc": ["body", "dims"], "msg": message, "input": {"ZZ": 3}}
        ]
    }
    assert (by_cli.returncode, by_cli.stderr) == (2, f"proofbridge: error: {message}\n")
    assert client.get(f"{API}/runs/1").status_code == 404  # nothing was created


def test_run_pins_dimension_some_theorems_have(client: TestClient) -> None:
    ingest(client, [("Dims.lean", DIMS_PAGE.encode())])

    response = client.post(f"{API}/runs", json={"dims": {"n": 3}, "trials": 4}, headers=AUTH)

    assert response.status_code == 202, response.text
    run = wait_for_run(client, response.json()["id"])
    assert run["summary"] == {"pass": 2, "fail": 0, "error": 0, "unsupported": 0}
    results = client.get(f"{API}/runs/{run['id']}/results").json()["data"]
    dims = {r["name"]: r["dims"] for r in results}
    assert dims == {"Dims.add_zero": {}, "Dims.sum_zero": {"n": 3}}
