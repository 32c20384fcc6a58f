"""The light tasks' own code, run in this process on a real database (the queues that
carry them are exercised in test_worker_faults.py): ingesting paths a worker can read, and
finishing a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.db import make_engine
from app.migrate import upgrade_database
from app.settings import get_settings
from app.worker import create_celery
from app.worker.config import FINISH_TASK, INGEST_TASK

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def worker_db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    upgrade_database(db_url)
    monkeypatch.setenv("PROOFBRIDGE_DATABASE_URL", db_url)
    monkeypatch.setenv("PROOFBRIDGE_BROKER_URL", "redis://127.0.0.1:1/0")  # never connected
    get_settings.cache_clear()
    return db_url


def test_ingest_task_ingests_what_the_worker_reads(worker_db: str) -> None:
    celery = create_celery()
    report = celery.tasks[INGEST_TASK].run([str(REPO / "examples" / "text")], "abc1234")
    assert report["errors"] == [] and report["theorems"] > 0
    engine = make_engine(worker_db)
    with Session(engine) as session:
        stmt = select(func.count()).select_from(models.Declaration)
        assert session.scalar(stmt) == report["declarations"]
        commits = set(session.scalars(select(models.DeclarationRevision.commit)))
    engine.dispose()
    assert commits == {"abc1234"}


def test_finish_task_finishes_a_run_whose_chunks_are_done(worker_db: str) -> None:
    engine = make_engine(worker_db)
    with Session(engine) as session:
        run = models.Run(status="running", trigger="api", params={"selection": []}, total=0)
        session.add(run)
        session.commit()
        run_id = run.id
    celery = create_celery()
    assert celery.tasks[FINISH_TASK].run(run_id) == "passed"
    assert celery.tasks[FINISH_TASK].run(run_id) is None  # already finished: nothing to do
    with Session(engine) as session:
        assert session.get(models.Run, run_id).status == "passed"  # type: ignore[union-attr]
    engine.dispose()
