"""A run over theorem names holding control characters, through the API: its JUnit XML is
well-formed, with the names written visibly; JSON keeps them exactly."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from api_support import API, AUTH, ingest, wait_for_run
from fastapi.testclient import TestClient

from app.visible import visible

HOSTILE = """namespace Hostile

theorem «a\x1b]0;pwned\x07b» (x : ℝ) : x + 0 = x := by simp

theorem «back\x08space» (x : ℝ) : x * 1 = x + 1 := by simp

theorem «form\x0cfeed\x9b2J» (x : ℝ) : Real.frobnicate x = 0 := by simp

end Hostile
"""
NAMES = [
    "Hostile.«a\x1b]0;pwned\x07b»",
    "Hostile.«back\x08space»",
    "Hostile.«form\x0cfeed\x9b2J»",
]


def _junit_names(data: bytes) -> list[str]:
    suite = ET.fromstring(data).find("testsuite")
    assert suite is not None
    return sorted(str(case.get("name")) for case in suite.iter("testcase"))


def test_junit_of_api_run_is_wellformed_with_control_characters(client: TestClient) -> None:
    report = ingest(client, [("Hostile.lean", HOSTILE.encode())])
    assert report["theorems"] == 3, report

    created = client.post(f"{API}/runs", json={"trials": 8}, headers=AUTH)
    assert created.status_code == 202, created.text
    run = wait_for_run(client, created.json()["id"])
    junit = client.get(f"{API}/runs/{run['id']}/junit.xml")

    assert run["summary"] == {"pass": 1, "fail": 1, "error": 0, "unsupported": 1}
    assert junit.status_code == 200
    assert _junit_names(junit.content) == sorted(visible(n) for n in NAMES)
    results = client.get(f"{API}/runs/{run['id']}/results").json()
    assert sorted(r["name"] for r in results["data"]) == sorted(NAMES)
