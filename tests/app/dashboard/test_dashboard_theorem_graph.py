"""One theorem's dependency graph: what it uses to the right, what uses it to the left, to
a chosen depth; `holds` for a passing theorem whose proof's theorems all pass; how many
theorems a failing one blocks; counts by status under the legend."""

from __future__ import annotations

import re
from pathlib import Path

from dashboard_support import add_run
from db_support import PROOF_SOURCE
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.dashboard.theorem_graph import HOLDS, _Decl, _holds
from app.services.ingestion.ingest import ingest_paths


def _seed(db: Session, tmp_path: Path) -> None:
    path = tmp_path / "P.lean"
    path.write_text(PROOF_SOURCE, encoding="utf-8")
    ingest_paths(db, paths=[str(path)])
    passing = {"status": "pass"}
    add_run(
        db,
        {
            "P.lemma1": {"status": "fail", "reason": "lhs 2 vs rhs 1"},
            "P.middle": dict(passing),
            "P.top": dict(passing),
            "P.apart": dict(passing),
        },
        status="failed",
    )
    db.commit()


def _edges(html: str) -> list[tuple[str, str]]:
    found = re.findall(
        r"<li><code><bdi>(.*?)</bdi></code> uses <code><bdi>(.*?)</bdi></code>", html
    )
    return sorted(found)


def _counts(html: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'id="count-(\w+)">(\d+)<', html)}


def test_graph_of_a_failing_lemma_shows_what_it_blocks(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _seed(db, tmp_path)
    near = client.get("/theorems/P.lemma1/graph?depth=1").text
    assert _edges(near) == [("P.middle", "P.lemma1")]
    far = client.get("/theorems/P.lemma1/graph?depth=2").text
    assert _edges(far) == [("P.middle", "P.lemma1"), ("P.top", "P.middle")]
    assert re.search(r'id="blocks">.*blocks 2 theorems', far)
    counts = _counts(far)
    assert (counts["fail"], counts["pass"], counts[HOLDS]) == (1, 2, 0)
    # users to the left of what they use: the SVG places P.top before P.lemma1
    svg = far[far.index("<svg") :]
    assert svg.index('data-name="P.top"') > 0
    x = {
        n: float(v)
        for n, v in re.findall(
            r'data-name="([^"]+)"><title>[^<]*</title><a [^>]*><rect x="([\d.]+)"', svg
        )
    }
    assert x["P.top"] < x["P.middle"] < x["P.lemma1"]


def test_a_theorem_whose_dependencies_all_hold(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _seed(db, tmp_path)
    html = client.get("/theorems/P.apart/graph").text
    assert _counts(html)[HOLDS] == 1 and 'id="blocks"' not in html
    top = client.get("/theorems/P.top/graph?depth=3").text
    assert _counts(top)["pass"] == 2  # P.top and P.middle pass, but rest on a failure
    page = client.get("/theorems/P.top").text
    assert 'href="/theorems/P.top/graph" id="graph-link"' in page
    assert client.get("/theorems/P.nothing/graph").status_code == 404
    assert client.get("/theorems/P.top/graph?depth=99").status_code == 422


def test_holds_needs_every_theorem_below_to_pass_and_no_cycle() -> None:
    decls = {
        "a": _Decl("a", "theorem", "pass", ("b", "d")),
        "b": _Decl("b", "theorem", "pass", ("c",)),
        "c": _Decl("c", "theorem", "pass", ()),
        "d": _Decl("d", "def", None, ()),
        "e": _Decl("e", "theorem", "pass", ("f",)),
        "f": _Decl("f", "theorem", "unsupported", ()),
        "g": _Decl("g", "theorem", "pass", ("h",)),
        "h": _Decl("h", "theorem", "pass", ("g",)),
    }
    assert _holds(decls) == {"a", "b", "c"}
