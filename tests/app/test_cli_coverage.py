"""`proofbridge coverage [--module M] [--json]`, in-process on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from db_support import batch, document, theorem
from sqlalchemy.orm import Session

from app.cli import main
from app.db import make_engine
from app.migrate import upgrade_database
from app.services.coverage.store import code_identity
from app.services.ingestion.ingest import ingest_batch


@pytest.fixture
def corpus(db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", db_url)
    monkeypatch.setenv("PROOFBRIDGE_DATA_DIR", str(tmp_path / "var"))
    upgrade_database(db_url)
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            a = document("Proofs/A.lean", [theorem("Proofs.ok"), theorem("Proofs.t1", "foo n = 1")])
            b = document(
                "Proofs/B.lean",
                [theorem("Proofs.t2", "foo n = bar n", module="Proofs.B")],
                module="Proofs.B",
            )
            ingest_batch(session, batch=batch(a, b))
    finally:
        engine.dispose()
    return db_url


def test_print_coverage_as_json(corpus: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["theorems"], report["checked"], report["unsupported"]) == (3, 1, 2)
    assert report["modules"]["data"] == [
        {"module": "Proofs.A", "theorems": 2, "checked": 1, "unsupported": 1},
        {"module": "Proofs.B", "theorems": 1, "checked": 0, "unsupported": 1},
    ]
    assert [(v["name"], v["sole_blocker"], v["blocks"]) for v in report["vocabulary"]["data"]] == [
        ("foo", 1, 2),
        ("bar", 0, 1),
    ]


def test_print_coverage_as_text(corpus: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", "--module", "Proofs.B"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "module    theorems  checked  unsupported"
    assert out[1] == "Proofs.B         1        0            1"
    assert out[2] == "1 theorem: 0 checked (0.0 %), 1 unsupported"
    assert out[4] == "missing vocabulary (2 names; sole blocker / blocks):"
    assert out[5] == "       0 / 1      bar  (e.g. Proofs.t2)"


def test_refuse_coverage_of_module_without_theorems(
    corpus: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["coverage", "--module", "Proofs.None"]) == 2
    assert capsys.readouterr().err == "proofbridge: error: no theorems in module Proofs.None\n"


def _kept(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "var" / "coverage").glob("*.json"))


def test_a_kept_report_is_not_read_after_an_ingestion(
    corpus: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["coverage", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["theorems"] == 3
    assert len(_kept(tmp_path)) == 1

    engine = make_engine(corpus)
    try:
        with Session(engine) as session:
            c = document(
                "Proofs/C.lean", [theorem("Proofs.t3", module="Proofs.C")], module="Proofs.C"
            )
            ingest_batch(session, batch=batch(c))
    finally:
        engine.dispose()

    assert main(["coverage", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["theorems"] == 4
    assert len(_kept(tmp_path)) == 2


def test_a_kept_report_that_cannot_be_read_is_computed_again(
    corpus: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["coverage", "--json"]) == 0
    computed = capsys.readouterr().out
    [kept] = _kept(tmp_path)
    kept.write_text('{"theorems": 3, "checked"')  # cut short

    assert main(["coverage", "--json"]) == 0
    assert capsys.readouterr().out == computed
    assert json.loads(kept.read_text())["theorems"] == 3  # written whole again


def test_the_store_can_be_switched_off(
    corpus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFBRIDGE_COVERAGE_STORE", "0")
    assert main(["coverage", "--json"]) == 0
    assert _kept(tmp_path) == []


def test_the_code_identity_follows_checker_modules_outside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "team_checkers.py"
    module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = code_identity(["team_checkers", "checkers.registered"])
    assert "team_checkers" in before and "checkers.registered" not in before

    module.write_text("X = 2  # changed\n")
    os.utime(module, ns=(0, 10**18))
    assert code_identity(["team_checkers"]) != before
    assert "\nnowhere_to_be_found: not found" in code_identity(["nowhere_to_be_found"])
