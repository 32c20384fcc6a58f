"""Parsing at ingestion: outcomes in worker processes equal those parsed in-process, and a
worker that cannot start falls back to parsing in-process."""

from __future__ import annotations

import pytest
from db_support import theorem

from app.services.ingestion import parsing
from app.services.ingestion.parsing import Parser

DECLS = [
    theorem(f"Proofs.t{i}", f"∑ i : Fin n, f i * {i} = {i} * ∑ i : Fin n, f i") for i in range(6)
]
BROKEN = theorem("Proofs.broken", "(1 + = 2", binders="")


def test_parse_in_workers_same_as_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARALLEL_THRESHOLD", 1)
    decls = [*DECLS, BROKEN]
    names = [d.name for d in decls]

    serial = Parser(names, workers=1).analyse_many(decls)
    parallel = Parser(names, workers=3).analyse_many(decls)

    assert parallel == serial
    assert [o.ok for o in parallel] == [True] * 6 + [False]
    assert parallel[-1].parse_error is not None
    assert parallel[-1].parse_error["part"] == "statement"


def test_parse_in_process_when_workers_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(parsing.sys, "executable", "/nonexistent/python")

    outcomes = Parser([d.name for d in DECLS], workers=2).analyse_many(DECLS)

    assert [o.ok for o in outcomes] == [True] * 6


def test_record_internal_error_when_analyser_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(decl: object, known: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("theorem_index.lean.analyse_declaration", explode)

    outcome = Parser([]).analyse(DECLS[0])

    assert outcome.parsed is None
    assert outcome.parse_error == {
        "part": "declaration",
        "message": "internal error while parsing: RecursionError: maximum recursion depth exceeded",
        "line": None,
        "column": None,
        "file_line": 1,
        "file_column": None,
    }
