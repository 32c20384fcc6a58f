"""Flaky theorems: a pass and a fail among the results of the current revision."""

from __future__ import annotations

import re

from dashboard_support import add_run, ingest, module_doc, seed_library
from db_support import declaration, definition, theorem
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app import crud

FLAKY = '<span class="badge flaky"'


def _seed_flaky(db: Session) -> None:
    """Alg.add_zero passes at seed 0 (float64) and fails at seed 7 (float32): flaky.
    Alg.bad passes and errors: not flaky. Alg.mul_one passed, then its statement changed
    and the new revision failed: not flaky (the pass was of another revision)."""
    seed_library(db)
    add_run(
        db,
        {
            "Alg.add_zero": {"status": "pass"},
            "Alg.bad": {"status": "pass"},
            "Alg.mul_one": {"status": "pass"},
        },
    )
    ingest(
        db,
        [
            theorem(
                "Alg.add_zero",
                "x + 0 = x",
                binders="(x : ℝ)",
                module="Alg",
                docstring="Adding **zero** changes nothing.",
            ),
            theorem("Alg.mul_one", "1 * x = x", binders="(x : ℝ)", module="Alg"),
            theorem(
                "Alg.bad",
                "double x = x",
                binders="(x : ℝ)",
                module="Alg",
                docstring="A *false* statement.",
            ),
            definition("Alg.double", "x + x", module="Alg"),
        ],
        module="Alg",
        file="Alg.lean",
        docs=[module_doc("Alg", "Alg.lean", "# Algebra\n\nIdentities of `+` and `*`.")],
    )
    assert declaration(db, "Alg.mul_one").current_revision == 2
    assert declaration(db, "Alg.add_zero").current_revision == 1
    add_run(
        db,
        {
            "Alg.add_zero": {"status": "fail", "seed": 7, "dtype": "float32"},
            "Alg.bad": {"status": "error", "seed": 3},
            "Alg.mul_one": {"status": "fail", "seed": 5},
        },
        status="failed",
    )


def _flaky_rows(html: str) -> list[str]:
    """The theorems of the page's table whose row carries the flaky badge."""
    rows = re.findall(r'<tr>\s*<td><a href="/theorems/([\w.]+)">(.*?)</tr>', html, re.S)
    assert rows, "no theorem rows on the page"
    return [name for name, row in rows if FLAKY in row]


def test_flaky_theorems_needs_a_pass_and_a_fail_of_the_current_revision(db: Session) -> None:
    _seed_flaky(db)
    ids = {n: declaration(db, n).id for n in ("Alg.add_zero", "Alg.bad", "Alg.mul_one")}
    assert crud.flaky_theorems(db, declaration_ids=list(ids.values())) == {ids["Alg.add_zero"]}
    assert crud.flaky_seeds(db, declaration_id=ids["Alg.add_zero"]) == {
        "pass": [(0, "float64")],
        "fail": [(7, "float32")],
    }
    assert crud.flaky_seeds(db, declaration_id=ids["Alg.mul_one"]) is None
    assert crud.flaky_theorems(db, declaration_ids=[]) == set()


def test_flaky_badge_on_the_theorem_page_with_its_seeds(client: TestClient, db: Session) -> None:
    _seed_flaky(db)
    html = client.get("/theorems/Alg.add_zero").text
    assert FLAKY in html
    assert '<dd id="flaky-pass">seed 0 (float64)</dd>' in html
    assert '<dd id="flaky-fail">seed 7 (float32)</dd>' in html
    for name in ("Alg.bad", "Alg.mul_one", "Geo.never"):
        assert FLAKY not in client.get(f"/theorems/{name}").text, name


def test_flaky_badge_in_the_module_page_and_search_results(client: TestClient, db: Session) -> None:
    _seed_flaky(db)
    assert _flaky_rows(client.get("/modules/Alg").text) == ["Alg.add_zero"]
    assert _flaky_rows(client.get("/theorems").text) == ["Alg.add_zero"]
    assert _flaky_rows(client.get("/theorems?q=Alg.").text) == ["Alg.add_zero"]
    assert _flaky_rows(client.get("/theorems?status=fail").text) == ["Alg.add_zero"]
    assert _flaky_rows(client.get("/theorems?q=mul").text) == []
