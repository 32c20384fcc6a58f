"""Proof status on the dashboard: the overview leads with the unproved and false theorems
(their counterexample one click away) and, apart, the proved yet failing; the list filters
and badges by proof; a theorem's page says what its proof rests on."""

from __future__ import annotations

import re
from pathlib import Path

from dashboard_support import add_run
from db_support import PROOF_SOURCE
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.services.ingestion.ingest import ingest_paths


def _seed(db: Session, tmp_path: Path) -> None:
    path = tmp_path / "P.lean"
    path.write_text(PROOF_SOURCE, encoding="utf-8")
    ingest_paths(db, paths=[str(path)])
    failing = {"status": "fail", "reason": "lhs 2 vs rhs 1"}
    add_run(
        db,
        {
            "P.lemma1": dict(failing),
            "P.middle": dict(failing),
            "P.top": dict(failing),
            "P.closed": dict(failing),
            "P.apart": {"status": "pass"},
        },
        status="failed",
    )
    db.commit()


def _section(html: str, anchor: str) -> str:
    start = html.index(f'id="{anchor}"')
    return html[start : html.index("</section>", start)]


def test_overview_leads_with_unproved_and_false_then_proved_yet_failing(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _seed(db, tmp_path)
    html = client.get("/").text
    # the first section of the page, before the counts by status
    assert html.index('id="unproved-false"') < html.index("Theorems by newest result")
    unproved = _section(html, "unproved-false")
    assert re.findall(r'href="/theorems/(P\.\w+)"', unproved) == ["P.lemma1", "P.middle", "P.top"]
    assert 'href="/theorems/P.lemma1#counterexample"' in unproved
    assert "rests on 1 unproved" in unproved
    proved = _section(html, "proved-failing")
    assert re.findall(r'href="/theorems/(P\.\w+)"', proved) == ["P.closed"]


def test_list_filters_and_badges_by_proof(client: TestClient, db: Session, tmp_path: Path) -> None:
    _seed(db, tmp_path)
    html = client.get("/theorems?proof=unproved").text
    assert "1 theorem;" in html
    assert 'class="badge p-unproved"' in html
    every = client.get("/theorems").text
    assert every.count('class="badge p-proved"') == 5
    assert every.count('class="badge p-rests"') == 2
    assert client.get("/theorems?proof=bogus").status_code == 422


def test_theorem_page_names_what_its_proof_rests_on(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _seed(db, tmp_path)
    html = client.get("/theorems/P.top").text
    rests = html[html.index('id="rests-on"') :]
    assert 'href="/theorems/P.lemma1"' in rests[: rests.index("</p>")]
    assert 'class="badge p-proved"' in html
