"""Proof status through ingestion, on SQLite and PostgreSQL: each revision's own, what a
proof rests on (kept on the declarations as other proofs change), and a project's own
stand-ins for `sorry`."""

from __future__ import annotations

from pathlib import Path

import pytest
from db_support import (
    PROOF_SOURCE,
    batch,
    count,
    declaration,
    document,
    revisions,
    theorem,
)
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.ingest import ingest_batch, ingest_paths
from app.settings import get_settings
from theorem_index.model import PROVED, UNKNOWN, UNPROVED
from theorem_index.readers import read_paths

SOURCE = PROOF_SOURCE


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "P.lean"
    path.write_text(text, encoding="utf-8")
    return path


def _states(session: Session) -> dict[str, tuple[str, list[str]]]:
    session.expire_all()
    return {
        d.name: (d.proof, list(d.rests_on))
        for d in session.query(models.Declaration).order_by(models.Declaration.name)
    }


def test_ingestion_records_proofs_and_what_rests_on_them(session: Session, tmp_path: Path) -> None:
    path = _write(tmp_path, SOURCE)
    ingest_paths(session, paths=[str(path)])
    assert _states(session) == {
        "P.apart": (PROVED, []),
        "P.closed": (PROVED, []),
        "P.lemma1": (UNPROVED, []),
        "P.middle": (PROVED, ["P.lemma1"]),
        "P.stand_in": (PROVED, []),
        "P.top": (PROVED, ["P.lemma1"]),
    }
    rev = revisions(session, "P.lemma1")[0]
    assert (rev.proof, rev.sorried) == (UNPROVED, True)
    assert "lemma1" in revisions(session, "P.middle")[0].proof_uses

    # the lemma proved at last: a new revision of it; what rested on it no longer does
    _write(tmp_path, SOURCE.replace("  sorry\n", "  simp\n", 1))
    report = ingest_paths(session, paths=[str(path)])
    assert (report.changed, report.unchanged) == (1, 5)
    assert _states(session)["P.lemma1"] == (PROVED, [])
    assert _states(session)["P.top"] == (PROVED, [])
    assert len(revisions(session, "P.lemma1")) == 2


def test_a_proof_edited_under_an_unchanged_statement_makes_no_revision(
    session: Session, tmp_path: Path
) -> None:
    path = _write(tmp_path, SOURCE)
    ingest_paths(session, paths=[str(path)])
    # `top` stops using `middle`: same statement, so the same revision, updated in place
    _write(tmp_path, SOURCE.replace("exact middle x", "simp"))
    report = ingest_paths(session, paths=[str(path)])
    assert (report.new, report.changed) == (0, 0)
    assert len(revisions(session, "P.top")) == 1
    assert "middle" not in revisions(session, "P.top")[0].proof_uses
    assert _states(session)["P.top"] == (PROVED, [])
    assert _states(session)["P.middle"] == (PROVED, ["P.lemma1"])


def test_declared_sorry_macros_are_a_setting(session: Session, tmp_path: Path) -> None:
    path = _write(tmp_path, SOURCE)
    ingest_paths(session, paths=[str(path)])
    assert _states(session)["P.stand_in"][0] == PROVED
    ingest_batch(session, batch=read_paths([path]), sorry_macros=["sorry_proof"])
    assert _states(session)["P.stand_in"][0] == UNPROVED
    assert revisions(session, "P.stand_in")[-1].proof == UNPROVED


def test_the_setting_reaches_ingestion(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFBRIDGE_SORRY_MACROS", "sorry_proof, other_stand_in")
    get_settings.cache_clear()
    assert get_settings().sorry_macros == ["sorry_proof", "other_stand_in"]
    ingest_paths(session, paths=[str(_write(tmp_path, SOURCE))])
    assert _states(session)["P.stand_in"][0] == UNPROVED


def test_a_declaration_without_a_proof_status_is_unknown(session: Session) -> None:
    doc = document("Proofs/A.lean", [theorem("Proofs.t1"), theorem("Proofs.t2")])
    ingest_batch(session, batch=batch(doc))
    assert declaration(session, "Proofs.t1").proof == UNKNOWN
    assert count(session, models.Declaration) == 2


def test_docgen_database_marks_the_declarations_of_its_build(
    session: Session, tmp_path: Path
) -> None:
    import sqlite3

    path = _write(tmp_path, PROOF_SOURCE)
    ingest_paths(session, paths=[str(path)])
    db = tmp_path / "api-docs.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE name_info (name TEXT NOT NULL, sorried INTEGER NOT NULL)")
    conn.executemany(
        "INSERT INTO name_info VALUES (?, ?)", [("P.apart", 1), ("P.lemma1", 0), ("Q.x", 1)]
    )
    conn.commit()
    conn.close()
    report = ingest_paths(session, paths=[str(db)])
    assert report.errors == ()
    states = _states(session)
    assert states["P.apart"] == (UNPROVED, [])
    assert states["P.lemma1"] == (PROVED, [])
    assert states["P.top"] == (PROVED, [])  # lemma1 is proved now: nothing rests on it
    assert revisions(session, "P.apart")[-1].sorried is True
