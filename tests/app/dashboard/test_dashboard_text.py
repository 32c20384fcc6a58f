"""How the dashboard shows user text: docs of plain-text pages as text (markdown only where
the input wrote markdown), and bidirectional controls in names and statements isolated."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import lxml.html
import pytest
from dashboard_support import add_run
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.dashboard import theorems
from app.services.ingestion.ingest import ingest_paths

TEXT_PAGE = """Plain text #

module: Plain.Page

The weight gradient vit_render_rowdenseW and pdiv_rowLN_beta keep *their* underscores.
A second line of the same paragraph.

theorem Plain.add_zero (x : ℝ) : x + 0 = x

Uses x_1 and x_2 and **two stars**.
"""

LEAN_PAGE = """/-! Lean source: *emphasis* is `markdown`. -/

namespace Md

/-- Adding **zero** changes nothing. -/
theorem add_zero (x : ℝ) : x + 0 = x := by simp

end Md
"""

RLO = "\u202e"
BIDI_PAGE = f"""namespace Bidi

theorem «txt{RLO}exe» (x : ℝ) : x + 0 = x := by simp

theorem mirror («y{RLO}z» : ℝ) : «y{RLO}z» + 0 = «y{RLO}z» := by simp

end Bidi
"""
BIDI_NAMES = [f"Bidi.«txt{RLO}exe»", "Bidi.mirror"]


@pytest.fixture(autouse=True)
def _recorded_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(theorems, "checkers_loaded", lambda: False)


def _ingest(db: Session, tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = ingest_paths(db, paths=[str(tmp_path / name) for name in files])
    assert not report.errors, report.errors


def test_show_docs_of_plain_text_page_as_text(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _ingest(db, tmp_path, {"Plain.Page.txt": TEXT_PAGE})

    module = client.get("/modules/Plain.Page")
    theorem = client.get("/theorems/Plain.add_zero")

    assert (module.status_code, theorem.status_code) == (200, 200)
    assert (
        '<div class="doc"><div class="plain-doc">Plain text #\n\nThe weight gradient '
        "vit_render_rowdenseW and pdiv_rowLN_beta keep *their* underscores.\n"
        "A second line of the same paragraph.</div></div>"
    ) in module.text
    assert "<em>" not in module.text
    assert (
        '<section class="docstring" id="docstring"><div class="plain-doc">'
        "Uses x_1 and x_2 and **two stars**.</div></section>"
    ) in theorem.text
    assert "<strong>" not in theorem.text


def test_render_docs_of_lean_source_as_markdown(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _ingest(db, tmp_path, {"Md.lean": LEAN_PAGE})

    module = client.get("/modules/Md")
    theorem = client.get("/theorems/Md.add_zero")

    assert "<em>emphasis</em> is <code>markdown</code>" in module.text
    assert "<p>Adding <strong>zero</strong> changes nothing.</p>" in theorem.text


def _outside_bdi(html: str) -> list[str]:
    """The texts of the page that hold a bidirectional control outside any `<bdi>`. Left
    aside: `<title>`s (tooltips, which can hold no element) and SVG `<text>`s (each laid out
    on its own, holding a name alone)."""
    root = lxml.html.document_fromstring(html)
    isolating = {"bdi", "text"}
    found = []
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag == "title":
            continue
        for text, holder in ((el.text, el), (el.tail, el.getparent())):
            if text and RLO in text:
                inside = holder is not None and (
                    holder.tag in isolating
                    or any(a.tag in isolating for a in holder.iterancestors())
                )
                if not inside:
                    found.append(text)
    return found


def test_isolate_bidi_controls_in_names_and_statements(
    client: TestClient, db: Session, tmp_path: Path
) -> None:
    _ingest(db, tmp_path, {"Bidi.lean": BIDI_PAGE})
    add_run(db, {name: {"status": "pass"} for name in BIDI_NAMES})
    run = add_run(  # the overview lists the theorem as newly failing
        db,
        {
            BIDI_NAMES[0]: {"status": "fail", "reason": f"lhs {RLO}1 != rhs 0"},
            BIDI_NAMES[1]: {"status": "pass"},
        },
        status="failed",
    )
    pages = [
        "/",
        "/theorems",
        "/theorems?q=mirror",
        "/modules/Bidi",
        "/modules/Bidi/graph",
        f"/runs/{run.id}",
        *(f"/theorems/{quote(name, safe='')}" for name in BIDI_NAMES),
    ]
    missing = [f"/theorems/{quote(f'No.{RLO}such', safe='')}", f"/modules/No{RLO}such"]

    for path in pages + missing:
        response = client.get(path)
        assert response.status_code == (404 if path in missing else 200), path
        assert RLO in response.text, path
        assert _outside_bdi(response.text) == [], path
    statement = client.get(f"/theorems/{quote(BIDI_NAMES[1], safe='')}").text
    assert (
        f"theorem <bdi>Bidi.mirror</bdi> <bdi>(«y{RLO}z» : ℝ)</bdi> : "
        f"<bdi>«y{RLO}z» + 0 = «y{RLO}z»</bdi></pre>"
    ) in statement


EXAMPLES_TEXT = Path(__file__).resolve().parents[3] / "examples" / "text" / "Examples.Text.txt"


def test_lists_show_statements_after_their_hypotheses(client: TestClient, db: Session) -> None:
    report = ingest_paths(db, paths=[str(EXAMPLES_TEXT)])
    assert not report.errors, report.errors

    listed = client.get("/theorems", params={"q": "sqrt_nonpos"}).text
    module = client.get("/modules/Examples.Text").text

    shown = '<td><code class="lean"><bdi>x ≤ 0</bdi> ⊢ <bdi>Real.sqrt x = 0</bdi></code></td>'
    assert shown in listed
    assert shown in module
    # a statement without hypotheses is shown alone
    assert '<td><code class="lean"><bdi>∑ idx : Fin (m * n), f idx = ' in module
