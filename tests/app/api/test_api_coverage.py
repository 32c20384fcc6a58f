"""`GET /coverage`: checked / unsupported per module and the missing vocabulary, ranked."""

from __future__ import annotations

from typing import Any

from api_support import API, example_files, ingest
from fastapi.testclient import TestClient

LEAN = """namespace Proofs

theorem foo_only (x : Real) : foo x = x := by sorry
theorem foo_bar (x : Real) : foo x = bar x := by sorry
theorem not_relation (x : Real) : ∃ y : Real, y = x := by sorry

end Proofs
""".encode()


def _coverage(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get(f"{API}/coverage", params=params)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_read_coverage_counts_modules_and_ranks_vocabulary(client: TestClient) -> None:
    ingest(client, [*example_files(), ("Gaps/Missing.lean", LEAN)])
    body = _coverage(client)
    modules = {m["module"]: m for m in body["modules"]["data"]}
    assert body["modules"]["count"] == len(modules)
    assert modules["Gaps.Missing"] == {
        "module": "Gaps.Missing",
        "theorems": 3,
        "checked": 0,
        "unsupported": 3,
    }
    assert body["theorems"] == sum(m["theorems"] for m in modules.values())
    assert body["checked"] + body["unsupported"] == body["theorems"]
    assert body["vocabulary"] == {
        "data": [
            {"name": "foo", "sole_blocker": 1, "blocks": 2, "example": "Proofs.foo_bar"},
            {"name": "bar", "sole_blocker": 0, "blocks": 1, "example": "Proofs.foo_bar"},
        ],
        "count": 2,
    }
    reasons = {r["reason"]: r["theorems"] for r in body["other_reasons"]["data"]}
    assert reasons["the statement is an existential (∃) whose witness is not given"] == 1


def test_read_coverage_of_one_module_and_of_an_unknown_one(client: TestClient) -> None:
    ingest(client, [*example_files(), ("Gaps/Missing.lean", LEAN)])
    one = _coverage(client, module="Gaps.Missing")
    assert [m["module"] for m in one["modules"]["data"]] == ["Gaps.Missing"]
    assert (one["theorems"], one["checked"], one["unsupported"]) == (3, 0, 3)
    none = _coverage(client, module="No.Such.Module")
    assert none["modules"] == {"data": [], "count": 0}
    assert (none["theorems"], none["vocabulary"]["count"]) == (0, 0)


def test_read_coverage_again_after_new_declarations(client: TestClient) -> None:
    ingest(client, example_files())
    before = _coverage(client)
    assert before["vocabulary"]["count"] == 0
    ingest(client, [("Gaps/Missing.lean", LEAN)])
    after = _coverage(client)
    assert after["theorems"] == before["theorems"] + 3
    assert [v["name"] for v in after["vocabulary"]["data"]] == ["foo", "bar"]
