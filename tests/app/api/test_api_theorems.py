"""Reading theorems, declarations and modules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from api_support import API, example_files, ingest
from fastapi.testclient import TestClient

from app import cli
from app.settings import get_settings


@pytest.fixture
def examples(client: TestClient) -> TestClient:
    ingest(client, example_files())
    return client


def _all_theorems(client: TestClient) -> list[dict[str, Any]]:
    body = client.get(f"{API}/theorems", params={"limit": 1000}).json()
    assert body["count"] == len(body["data"])
    return list(body["data"])


def test_read_theorems_lists_every_theorem_unchecked(examples: TestClient) -> None:
    theorems = _all_theorems(examples)
    assert len(theorems) == 21
    assert [t["name"] for t in theorems] == sorted(t["name"] for t in theorems)
    assert {t["status"] for t in theorems} == {"unchecked"}
    first = next(t for t in theorems if t["name"] == "Examples.div_zero_sqrt")
    assert first == {
        "name": "Examples.div_zero_sqrt",
        "kind": "theorem",
        "module": "Examples.Text",
        "binders": "(x : ℝ)",
        "statement": "Real.sqrt x / 0 = 0",
        "status": "unchecked",
        "proof": "unknown",  # a text page says nothing of proofs
        "rests_on": [],
        "checker": None,
        "last_checked": None,
        "removed": False,
    }


def test_read_theorems_filters_by_module_query_and_status(examples: TestClient) -> None:
    theorems = _all_theorems(examples)

    def names(**params: Any) -> list[str]:
        response = examples.get(f"{API}/theorems", params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["count"] == len(body["data"])
        return [t["name"] for t in body["data"]]

    text_module = [t["name"] for t in theorems if t["module"] == "Examples.Text"]
    assert names(module="Examples.Text") == text_module
    assert len(text_module) == 6
    softmax = [t["name"] for t in theorems if "softmax" in (t["name"] + t["statement"]).lower()]
    assert names(q="SoftMax") == softmax
    assert names(status="unchecked") == [t["name"] for t in theorems]
    assert names(status="pass") == []


def test_read_theorems_pages_with_limit_and_offset(examples: TestClient) -> None:
    theorems = _all_theorems(examples)
    body = examples.get(f"{API}/theorems", params={"limit": 5, "offset": 5}).json()
    assert body["count"] == 21
    assert body["data"] == theorems[5:10]


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"status": "passed"}, ["query", "status"]),
        ({"limit": 0}, ["query", "limit"]),
        ({"offset": -1}, ["query", "offset"]),
    ],
)
def test_refuse_theorems_with_bad_query(
    client: TestClient, params: dict[str, Any], loc: list[str]
) -> None:
    response = client.get(f"{API}/theorems", params=params)
    assert response.status_code == 422
    assert [e["loc"] for e in response.json()["detail"]] == [loc]


def test_read_theorem_matches_show_json(
    examples: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    name = "Proofs.sum_fin_prod"
    response = examples.get(f"{API}/theorems/{name}")
    assert response.status_code == 200
    body = response.json()

    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    assert cli.main(["show", name, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown.pop("checker_source") == "described"  # never checked: no result says
    assert body == shown

    assert body["statement"] == (
        "∑ idx : Fin (m * n), f idx = ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k))"
    )
    assert body["binders"].startswith("{M : Type u_1}")
    assert body["docstring"].startswith("Summing over a flat index")
    assert body["checker"]["kind"] == "registered"
    assert body["checker"]["statement"] == f"{body['binders']} : {body['statement']}"
    assert body["checker"]["statement_matches"] is True
    assert body["parsed"] is not None and body["parse_error"] is None
    assert "finProdFinEquiv" in body["constants"]
    assert (body["status"], body["results"]) == ("unchecked", [])


def test_read_theorem_serves_definition(examples: TestClient) -> None:
    body = examples.get(f"{API}/theorems/Proofs.rowDense_weight_grad").json()
    assert body["kind"] == "def"
    assert body["equations"] == [
        "Proofs.rowDense_weight_grad X dY i j = ∑ r : Fin N, X r i * dY r j"
    ]
    assert body["checker"] == {
        "kind": "none",
        "reason": "Proofs.rowDense_weight_grad is a def, not a theorem",
        "dependencies": [],
        "version": "",
        "assumptions": [],
        "statement": "",
        "statement_matches": None,
        "statement_difference": "",
    }


def test_read_theorem_unknown_answers_404(client: TestClient) -> None:
    response = client.get(f"{API}/theorems/Nope.missing")
    assert response.status_code == 404
    assert response.json() == {"detail": "unknown theorem: Nope.missing"}
    history = client.get(f"{API}/theorems/Nope.missing/results")
    assert history.status_code == 404
    assert history.json() == {"detail": "unknown theorem: Nope.missing"}


def test_read_theorem_results_empty_before_any_run(examples: TestClient) -> None:
    response = examples.get(f"{API}/theorems/Proofs.sum_fin_prod/results")
    assert response.status_code == 200
    assert response.json() == {"data": [], "count": 0}


def test_read_declarations_lists_declarations_then_prose(examples: TestClient) -> None:
    body = examples.get(f"{API}/declarations", params={"limit": 1000}).json()
    assert body["count"] == 32 == len(body["data"])
    kinds = [d["kind"] for d in body["data"]]
    assert kinds[-3:] == ["module_doc"] * 3
    assert sorted(kinds[:-3]) == sorted(["theorem"] * 21 + ["def"] * 8)
    prose = body["data"][-1]
    assert set(prose) == {"kind", "module", "text", "headings", "mentions", "location"}
    assert prose["module"] == "Examples.Text"
    assert "What each statement exercises" in prose["headings"]
    assert "Proofs.sum_fin_prod" in prose["mentions"]


def test_read_declarations_filters_by_kind_module_and_query(examples: TestClient) -> None:
    def get(**params: Any) -> dict[str, Any]:
        response = examples.get(f"{API}/declarations", params=params)
        assert response.status_code == 200, response.text
        return dict(response.json())

    defs = get(kind="def")
    assert defs["count"] == 8
    assert {d["kind"] for d in defs["data"]} == {"def"}
    docs = get(kind="module_doc")
    assert docs["count"] == 3
    assert {d["module"] for d in docs["data"]} == {
        "Examples.Text",
        "Examples.Html",
        "Examples.Lean",
    }
    text = get(module="Examples.Text")
    assert text["count"] == 9  # 6 theorems, 2 definitions, 1 module doc
    lean = get(q="finProdFinEquiv", kind="theorem")
    assert lean["count"] >= 2
    assert all("finProdFinEquiv" in d["statement"] for d in lean["data"])
    prose = [d for d in docs["data"] if "total arithmetic" in d["text"].lower()]
    assert get(q="Total Arithmetic", kind="module_doc")["data"] == prose != []


def test_read_declarations_pages_across_prose(examples: TestClient) -> None:
    everything = examples.get(f"{API}/declarations", params={"limit": 1000}).json()["data"]
    page = examples.get(f"{API}/declarations", params={"limit": 4, "offset": 26}).json()
    assert page["count"] == 32
    assert page["data"] == everything[26:30]


def test_read_modules_counts_by_status(examples: TestClient) -> None:
    body = examples.get(f"{API}/modules").json()
    assert body["count"] == 4
    text = next(m for m in body["data"] if m["module"] == "Examples.Text")
    assert text == {
        "module": "Examples.Text",
        "declarations": 8,
        "theorems": 6,
        "statuses": {"unchecked": 6},
        "module_docs": 1,
    }
    assert sum(m["theorems"] for m in body["data"]) == 21


def test_read_lists_empty_database(client: TestClient) -> None:
    for path in ("/theorems", "/declarations", "/modules"):
        assert client.get(f"{API}{path}").json() == {"data": [], "count": 0}, path
