"""Ingestion records the theorems a module doc states in prose, when a checker claims them;
their results' rows per family of nodes are stored and served."""

from __future__ import annotations

from pathlib import Path

from db_support import batch, theorem
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app import crud, models
from app.db import get_engine, get_sessionmaker
from app.main import create_app
from app.migrate import upgrade_database
from app.services.ingestion.ingest import ingest_batch
from app.services.runs.recording import record_result
from app.settings import Settings
from theorem_index.model import Document, ModuleDoc, SourceLocation
from theorem_index.readers.prose import mentions

CLAIMS = {"Demo.net_grad_ok": "net_grad_ok"}
PARAGRAPH = "Here net_grad_ok says that every node is the gradient."


def _page(text: str, *decls) -> Document:
    doc = ModuleDoc("Demo.Page", text, (), mentions(text), SourceLocation("page.txt", 1, 1))
    return Document("page.txt", "text", "Demo.Page", list(decls), [doc], [])


def test_record_prose_theorem_then_its_changed_paragraph(session: Session) -> None:
    first = ingest_batch(session, batch=batch(_page(PARAGRAPH)), prose_claims=CLAIMS)
    assert (first.declarations, first.theorems, first.new, first.parsed) == (1, 1, 1, 1)
    decl = crud.get_declaration(session, name="Demo.net_grad_ok")
    assert decl is not None and decl.kind == "prose"
    same = ingest_batch(session, batch=batch(_page(PARAGRAPH)), prose_claims=CLAIMS)
    assert (same.new, same.changed, same.unchanged) == (0, 0, 1)
    changed = ingest_batch(
        session, batch=batch(_page(PARAGRAPH.replace("every", "each"))), prose_claims=CLAIMS
    )
    assert (changed.new, changed.changed) == (0, 1)
    current = crud.get_current_revision(session, declaration=decl)
    assert (current.revision, current.statement) == (2, PARAGRAPH.replace("every", "each"))
    assert current.parse_error is None  # prose is never parsed as Lean


def test_formal_statement_wins_over_prose(session: Session) -> None:
    formal = theorem("Demo.net_grad_ok", file="page.txt")
    report = ingest_batch(session, batch=batch(_page(PARAGRAPH, formal)), prose_claims=CLAIMS)
    assert report.declarations == 1
    decl = crud.get_declaration(session, name="Demo.net_grad_ok")
    assert decl is not None and decl.kind == "theorem"


def test_serve_prose_theorem_and_parts_of_its_result(db_url: str, tmp_path: Path) -> None:
    upgrade_database(db_url)

    part = {
        "family": "attention Q W/b",
        "nodes": 24,
        "max_abs_err": 3.5e-4,
        "max_rel_err": 5.5e-4,
        "worst_node": "blocks.0.attn.Wq",
        "worst_ratio": 0.063,
        "rtol": float("inf"),  # stored as NULL: JSONB has no infinity
        "failing": 0,
        "status": "pass",
    }
    with get_sessionmaker(db_url)() as session:
        ingest_batch(session, batch=batch(_page(PARAGRAPH)), prose_claims=CLAIMS)
        decl = crud.get_declaration(session, name="Demo.net_grad_ok")
        assert decl is not None
        run = models.Run(params={}, status="passed")
        session.add(run)
        session.flush()
        payload = {"name": decl.name, "status": "pass", "checker": "registered", "parts": [part]}
        revision = crud.get_current_revision(session, declaration=decl)
        record_result(
            session, run_id=run.id, declaration_id=decl.id, revision_id=revision.id, payload=payload
        )
        session.commit()
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=db_url,
        api_token="prose-test-token-0123",
        data_dir=tmp_path / "var",
        jax_cache_dir=None,
    )
    app = create_app(settings)
    with TestClient(app) as client:
        body = client.get("/api/v1/theorems/Demo.net_grad_ok").json()
        assert (body["kind"], body["statement"]) == ("prose", PARAGRAPH)
        (result,) = body["results"]
        assert result["parts"] == [{**part, "rtol": None}]
        listed = client.get("/api/v1/declarations", params={"kind": "prose"}).json()
        assert [d["name"] for d in listed["data"]] == ["Demo.net_grad_ok"]
        page = client.get("/theorems/Demo.net_grad_ok").text
        assert '<blockquote class="prose statement" id="statement">' in page
        assert '<section id="parts">' in page and "<code>blocks.0.attn.Wq</code>" in page
    get_engine(db_url).dispose()
