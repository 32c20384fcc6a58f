"""Search, filters and pagination of `/theorems`, fast with 10,000 theorems."""

from __future__ import annotations

import re

import pytest
from dashboard_support import add_run, ingest, seed_history, seed_library
from db_support import theorem
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

MODULES = 20
THEOREMS = 10_000


def _names(html: str) -> list[str]:
    return re.findall(r'<td><a href="/theorems/([^"]+)">', html)


def test_search_by_name_or_statement_and_filter(client: TestClient, db: Session) -> None:
    seed_library(db)
    seed_history(db)
    assert _names(client.get("/theorems?q=add_").text) == ["Alg.add_zero"]
    assert _names(client.get("/theorems?q=X * 1").text) == ["Alg.mul_one"]  # statement text
    assert _names(client.get("/theorems?status=fail").text) == ["Alg.bad"]
    assert _names(client.get("/theorems?status=unchecked").text) == ["Geo.never"]
    assert _names(client.get("/theorems?module=Geo").text) == ["Geo.never"]
    assert _names(client.get("/theorems?module=Alg&status=pass").text) == ["Alg.add_zero"]
    html = client.get("/theorems?module=Alg&status=pass&q=zero").text
    assert '<option value="Alg" selected>Alg</option>' in html
    assert '<option value="pass" selected>pass</option>' in html
    assert "1 theorem; 1–1 shown." in html
    assert client.get("/theorems?status=bogus").status_code == 422
    assert client.get("/theorems?page=0").status_code == 422


@pytest.fixture
def many(db: Session) -> None:
    """10,000 theorems in 20 modules; every tenth one checked (pass), every 100th failed."""
    decls = [
        theorem(
            f"Big.M{i % MODULES:02d}.t{i:05d}",
            f"x + {i} = x + {i}",
            binders="(x : ℝ)",
            module=f"Big.M{i % MODULES:02d}",
            docstring=None,
        )
        for i in range(THEOREMS)
    ]
    for m in range(MODULES):
        module = f"Big.M{m:02d}"
        ingest(db, [d for d in decls if d.module == module], module=module, file=f"{module}.lean")
    add_run(
        db,
        {
            d.name: {"status": "fail" if i % 100 == 0 else "pass"}
            for i, d in enumerate(decls)
            if i % 10 == 0
        },
        status="failed",
    )


def test_pages_of_ten_thousand_theorems_page_through_all(client: TestClient, many: None) -> None:
    # how fast they are is measured by bench/api_load.py, not asserted here
    for url in ("/theorems", "/theorems?page=100", "/theorems?page=200", "/"):
        response = client.get(url)
        assert response.status_code == 200, url
    first = client.get("/theorems").text
    assert "10000 theorems; 1–50 shown." in first
    assert "page 1 of 200" in first
    assert _names(first)[:2] == ["Big.M00.t00000", "Big.M00.t00020"]
    last = client.get("/theorems?page=200").text
    assert "9951–10000 shown" in last and len(_names(last)) == 50
    assert _names(last)[-1] == "Big.M19.t09999"
    assert 'rel="next"' not in last and 'rel="prev"' in last
    beyond = client.get("/theorems?page=201").text
    assert "There is no page 201" in beyond and _names(beyond) == []
    # filters page too
    failing = client.get("/theorems?status=fail&page=2").text
    assert "100 theorems; 51–100 shown." in failing
    module = client.get("/modules/Big.M03?page=10").text
    assert "500 theorems; 451–500 shown." in module and len(_names(module)) == 50
