"""`proofbridge show` says which statement a registered checker was written for, and whether
it is the one ingested."""

from __future__ import annotations

import json

import pytest
from db_support import batch, document, theorem
from sqlalchemy.orm import Session

from app.cli import main
from app.db import make_engine
from app.services.ingestion.ingest import ingest_batch

NAME = "Proofs.pdiv_rowLN_beta"
BINDERS = "(N D : ℕ) (ε γ : ℝ) (X : Mat N D) (β : Vec 1) (i : Fin 1) (idx : Fin (N * D))"
STATEMENT = (
    "pdiv (fun (β' : Vec 1) => Mat.flatten fun (r : Fin N) => layerNormForward D ε γ (β' 0) "
    "(X r)) β i idx = 1"
)


def _ingest(db_url: str, statement: str) -> None:
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            doc = document("Proofs/ViT.lean", [theorem(NAME, statement, binders=BINDERS)])
            ingest_batch(session, batch=batch(doc))
    finally:
        engine.dispose()


@pytest.fixture
def show(db_url: str, monkeypatch: pytest.MonkeyPatch, capsys):
    pytest.importorskip("checkers")
    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", db_url)
    assert main(["db", "upgrade"]) == 0

    def run(statement: str, *flags: str) -> str:
        _ingest(db_url, statement)
        capsys.readouterr()
        assert main(["show", NAME, *flags]) == 0
        return capsys.readouterr().out

    return run


def test_show_registered_statement_matching_ingested(show) -> None:
    out = show(STATEMENT)
    lines = out.splitlines()
    checker = lines.index(next(line for line in lines if line.startswith("checker: ")))
    assert lines[checker].startswith(
        "checker: registered (hand-written checker proofbridge_lean4_mlir.registered.vit."
        "pdiv_rowLN_beta "
        "(version 1); cross-checked against the derived checker)"
    )
    assert lines[checker + 2] == f"  registered for: {BINDERS} : {STATEMENT}"
    assert lines[checker + 3] == "  matches the ingested statement: yes"


def test_show_registered_statement_differing_from_ingested(show) -> None:
    out = show(STATEMENT.replace("= 1", "= 2"))
    assert (
        "checker: derived (registered checker set aside: it was written for another "
        "statement (they differ at rhs: `1` vs `2`); this one is the derived checker)"
    ) in out
    assert f"\n  registered for: {BINDERS} : {STATEMENT}\n" in out
    assert "\n  matches the ingested statement: no, rhs: `1` vs `2`\n" in out


def test_show_json_names_registered_statement(show) -> None:
    detail = json.loads(show(STATEMENT.replace("= 1", "= 2"), "--json"))
    checker = detail["checker"]
    assert checker["kind"] == "derived"
    assert checker["statement"] == f"{BINDERS} : {STATEMENT}"
    assert (checker["statement_matches"], checker["statement_difference"]) == (
        False,
        "rhs: `1` vs `2`",
    )
