"""A run checked in worker processes: the same results, recorded once each, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.services import parallel
from app.services.checks import CheckParams, run_checks
from app.services.ingest import ingest_paths
from app.services.parallel import PARALLEL_FROM, jobs_for, shared_database

pytest.importorskip("checkers.result")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMPARED = ("name", "status", "checker", "reason", "max_abs_err", "max_rel_err", "dims", "trial")


def test_jobs_for_large_selections_only(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert jobs_for(None, PARALLEL_FROM - 1) == 1
    assert jobs_for(None, PARALLEL_FROM) == 4  # one per core, at most 4
    assert jobs_for(3, 5) == 3 and jobs_for(1, 10_000) == 1


def test_in_memory_sqlite_is_never_shared_with_workers():
    assert not shared_database("sqlite://")
    assert not shared_database("sqlite:///:memory:")
    assert not shared_database("sqlite:///file:pb?mode=memory&uri=true")
    assert shared_database("sqlite:////tmp/pb.db")
    assert shared_database("postgresql+psycopg://postgres@127.0.0.1:5432/test")


def test_workers_give_the_results_of_one_process(session: Session) -> None:
    report = ingest_paths(session, paths=[str(EXAMPLES)])
    assert not report.errors
    session.commit()
    params = CheckParams(trials=8, seed=3)
    here = run_checks(session, params=params, jobs=1)
    there = run_checks(session, params=params, jobs=2)
    assert here.status == there.status == "passed"
    assert len(here.results) >= 15
    assert [[r[k] for k in COMPARED] for r in there.results] == [
        [r[k] for k in COMPARED] for r in here.results
    ]
    assert "pass" in {r["status"] for r in there.results}
    res = models.Result
    recorded = session.execute(
        select(res.declaration_id, func.count())
        .where(res.run_id == there.run_id)
        .group_by(res.declaration_id)
    ).all()
    assert len(recorded) == len(there.results) and all(n == 1 for _, n in recorded)
    run = session.get(models.Run, there.run_id)
    assert run is not None and run.completed == len(there.results)
    assert run.passed == sum(r["status"] == "pass" for r in there.results)


def test_workers_are_replaced_in_generations(monkeypatch) -> None:
    monkeypatch.setattr(parallel, "WORKER_THEOREMS", 5)
    chunks = [[f"t{k}", f"u{k}"] for k in range(12)]  # 24 theorems, 2 a chunk
    groups = list(parallel._generations(chunks, 2))
    assert [sum(map(len, g)) for g in groups] == [10, 10, 4]  # 5 a worker, 2 workers
    assert [c for g in groups for c in g] == chunks


def test_fresh_generations_of_workers_give_the_results_of_one_process(
    session: Session, monkeypatch
) -> None:
    report = ingest_paths(session, paths=[str(EXAMPLES)])
    assert not report.errors
    session.commit()
    params = CheckParams(trials=8, seed=5)
    here = run_checks(session, params=params, jobs=1)
    monkeypatch.setattr(parallel, "WORKER_THEOREMS", 4)  # several generations of workers
    there = run_checks(session, params=params, jobs=2)
    assert len(here.results) > 2 * 2 * 4
    assert [[r[k] for k in COMPARED] for r in there.results] == [
        [r[k] for k in COMPARED] for r in here.results
    ]
