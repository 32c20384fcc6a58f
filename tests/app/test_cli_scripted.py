"""In-process runs of the command line's `main` with a scripted checkers backend: exit
codes, JUnit files, pinned dimensions and repro output, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cli_support import upgraded
from db_support import batch, document, theorem
from sqlalchemy.orm import Session

from app.cli import main
from app.db import make_engine
from app.services.ingestion.ingest import ingest_batch


def test_exit_1_and_junit_failure_when_a_check_fails(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    from checks_support import ScriptedBackend, failing, passing

    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", db_url)
    engine = make_engine(db_url)
    try:
        upgraded(db_url, tmp_path)
        with Session(engine) as session:
            doc = document("A.lean", [theorem("Proofs.bad"), theorem("Proofs.good")])
            ingest_batch(session, batch=batch(doc))
    finally:
        engine.dispose()
    backend = ScriptedBackend({"Proofs.bad": failing, "Proofs.good": passing()})
    monkeypatch.setattr("app.services.runs.checks.load_backend", lambda: backend)
    junit = tmp_path / "junit.xml"

    code = main(["check", "--seed", "4", "--junit", str(junit)])

    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert (code, captured.err) == (1, "")  # stderr is no terminal: no progress drawn
    # the counterexample's own dims and errors; the maxima over all draws labelled as such
    assert out[0] == (
        "FAIL        Proofs.bad (proof unknown)  [derived] 64 trials, seed 4, float64, "
        "atol 1e-12, rtol 1e-10, "
        "counterexample dims n=2 (shrunk), trial 3: lhs 0.5, rhs 1.5, abs err 1, "
        "rel err 0.667; over all draws max abs err 1, max rel err inf (0.00 s): "
        "lhs and rhs differ by 1.0 at trial 3"
    )
    assert out[1] == (
        "PASS        Proofs.good (proof unknown)  [derived] 64 trials, seed 4, float64, "
        "atol 1e-12, rtol 1e-10, "
        "dims n=3 (worst of 2 draws), max abs err 1e-16, max rel err 2e-16 (0.50 s)"
    )
    assert out[2].endswith("2 theorems checked: 1 pass, 1 fail, 0 error, 0 unsupported")
    assert main(["check", "Proofs.good"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.endswith("1 theorem checked: 1 pass, 0 fail, 0 error, 0 unsupported"), last
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='Proofs.bad']/failure")
    assert failure is not None
    assert failure.get("message") == "lhs and rhs differ by 1.0 at trial 3"


def _scripted(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from checks_support import ScriptedBackend, failing, passing

    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", db_url)
    upgraded(db_url, tmp_path)
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            doc = document("A.lean", [theorem("Proofs.bad"), theorem("Proofs.good")])
            ingest_batch(session, batch=batch(doc))
    finally:
        engine.dispose()
    backend = ScriptedBackend({"Proofs.bad": failing, "Proofs.good": passing()})
    backend.dim_names["Proofs.good"] = ("N", "a", "c")
    monkeypatch.setattr("app.services.runs.checks.load_backend", lambda: backend)
    return backend


def _runs(db_url: str) -> int:
    from db_support import count

    from app.models import Run

    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            return count(session, Run)
    finally:
        engine.dispose()


def test_exit_2_naming_the_dimensions_when_a_pinned_one_is_unknown(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    backend = _scripted(db_url, tmp_path, monkeypatch)

    one = main(["check", "Proofs.good", "--dims", "zz=3"])
    one_err = capsys.readouterr().err
    both = main(["check", "Proofs.good", "Proofs.bad", "--dims", "zz=3,N=2"])
    both_err = capsys.readouterr().err

    assert (one, one_err) == (
        2,
        "proofbridge: error: Proofs.good has no dimension zz (its dimensions: N, a, c)\n",
    )
    assert (both, both_err) == (
        2,
        "proofbridge: error: none of the 2 selected theorems with a checker has a dimension "
        "zz (their dimensions: N, a, c, n)\n",
    )
    assert (backend.calls, _runs(db_url)) == ([], 0)  # refused before any run was made


def test_pin_dimension_where_known_when_some_selected_theorems_have_it(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    backend = _scripted(db_url, tmp_path, monkeypatch)

    code = main(["check", "--dims", "N=2", "--json"])

    captured = capsys.readouterr()
    assert code == 1, captured.err  # Proofs.bad fails, as scripted
    # the pins go to every checker; each pins the dimensions it has (checkers.sampling)
    assert [(name, kw["dims"]) for name, kw in backend.calls] == [
        ("Proofs.bad", {"N": 2}),
        ("Proofs.good", {"N": 2}),
    ]
    assert [r["name"] for r in json.loads(captured.out)] == ["Proofs.bad", "Proofs.good"]
    assert captured.err == ""


def test_repro_text_and_json_show_the_same_counterexample(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    _scripted(db_url, tmp_path, monkeypatch)
    main(["check", "Proofs.bad", "--seed", "4"])
    capsys.readouterr()

    text_code = main(["repro", "Proofs.bad", "--seed", "4"])
    text = capsys.readouterr().out.splitlines()
    json_code = main(["repro", "Proofs.bad", "--seed", "4", "--json"])
    data = json.loads(capsys.readouterr().out)

    assert (text_code, json_code) == (1, 1)
    assert text[:2] == [
        "Proofs.bad: seed 4, dims n=2, trial 3: fail",
        "  showing the stored counterexample's inputs (shrunk)",
    ]
    assert text[-3:] == ["  f = 1.0", "  lhs = 1.0", "  rhs = 2.0"]
    assert (data["inputs_from"], data["dims"], data["trial"]) == ("counterexample", {"n": 2}, 3)
    assert (data["inputs"], data["lhs"], data["rhs"]) == ({"f": [1.0]}, [1.0], [2.0])


def test_repro_without_seed_replays_the_newest_result(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    backend = _scripted(db_url, tmp_path, monkeypatch)
    main(["check", "Proofs.bad", "--seed", "2"])
    main(["check", "Proofs.bad", "--seed", "4"])
    capsys.readouterr()

    code = main(["repro", "Proofs.bad"])

    text = capsys.readouterr().out.splitlines()
    assert code == 1
    assert text[0] == "Proofs.bad: seed 4, dims n=2, trial 3: fail"
    assert backend.calls[-1][1]["seed"] == 4


def test_repro_without_seed_or_result_says_what_to_give(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("checkers.result")
    _scripted(db_url, tmp_path, monkeypatch)

    code = main(["repro", "Proofs.bad"])

    assert (code, capsys.readouterr().err) == (
        2,
        "proofbridge: error: no recorded check of Proofs.bad: give the seed and the "
        "dimensions with --seed S --dims K=V,...\n",
    )
