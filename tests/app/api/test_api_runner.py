"""The in-process runner: executes a run once however often it is submitted, puts the chunk
in progress back in the queue when stopped, and resumes where it stopped, never checking a
recorded theorem again. A scripted backend stands in for the checkers (no JAX)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest
from api_support import SMALL_PAGE
from sqlalchemy import select

from app import crud, models
from app.db import get_sessionmaker
from app.services.ingestion.ingest import ingest_batch
from app.services.runs.checks import CheckParams, create_run
from app.services.runs.execution import worker_name
from app.services.runs.lifecycle import plan_run
from app.services.runs.runner import API_TRIGGER, InProcessRunner
from theorem_index.readers import read_bytes
from theorem_index.readers.batch import Batch


@dataclass(frozen=True)
class _Result:
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": "pass", "checker": "registered", "trials": 1}


class GatedBackend:
    """Each check waits for `release`; `started` is set when the first check begins."""

    class Environment:
        @staticmethod
        def from_declarations(decls: Any) -> None:
            return None

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls: list[str] = []

    def check(self, name: str, env: Any, **kwargs: Any) -> _Result:
        self.calls.append(name)
        self.started.set()
        assert self.release.wait(30), "the test never released the check"
        return _Result(name)


@pytest.fixture
def queued_run(database_url: str) -> int:
    with get_sessionmaker(database_url)() as session:
        page = read_bytes("Small.Page.txt", SMALL_PAGE.encode())
        ingest_batch(session, batch=Batch([page], [], 1))
        run = create_run(session, params=CheckParams(trials=1), trigger=API_TRIGGER)
        plan_run(session, run, chunk_size=8)
        session.commit()
        return run.id


def _run(database_url: str, run_id: int) -> Any:
    with get_sessionmaker(database_url)() as session:
        run = crud.get_run(session, run_id=run_id)
        assert run is not None
        return run


def _chunks(database_url: str, run_id: int) -> list[models.RunTask]:
    with get_sessionmaker(database_url)() as session:
        t = models.RunTask
        return list(session.scalars(select(t).where(t.run_id == run_id).order_by(t.position)))


def test_execute_run_submitted_twice_once(database_url: str, queued_run: int) -> None:
    backend = GatedBackend()
    backend.release.set()
    runner = InProcessRunner(database_url, backend=backend)
    first, second = runner.submit(queued_run), runner.submit(queued_run)
    assert first is not None and second is not None
    assert (first.result(60), second.result(60)) == ("passed", "passed")
    runner.stop()
    assert backend.calls == ["Small.div_zero", "Small.div_zero_wrong", "Small.opaque_id"]
    run = _run(database_url, queued_run)
    assert (run.status, run.completed, run.passed) == ("passed", 3, 3)
    with get_sessionmaker(database_url)() as session:
        results = crud.run_results(session, run_id=queued_run)
    assert {r.worker for r in results} == {worker_name("in-process")}


def test_stop_requeues_chunk_in_progress_and_resume_finishes_it(
    database_url: str, queued_run: int
) -> None:
    backend = GatedBackend()
    seen: list[str] = []
    runner = InProcessRunner(
        database_url, backend=backend, on_result=lambda r: seen.append(r["name"])
    )
    future = runner.submit(queued_run)
    assert future is not None
    assert backend.started.wait(30)
    assert _run(database_url, queued_run).status == "running"
    stopper = threading.Thread(target=runner.stop)
    stopper.start()
    backend.release.set()  # the theorem in progress finishes, then the run stops
    stopper.join(30)
    assert future.result(30) == "queued"
    assert seen == ["Small.div_zero"]
    run = _run(database_url, queued_run)
    assert (run.status, run.completed, run.error) == ("running", 1, None)
    assert [c.status for c in _chunks(database_url, queued_run)] == ["queued"]
    assert runner.submit(queued_run) is None  # a stopped runner takes nothing new

    again = InProcessRunner(database_url, backend=backend)
    assert again.resume() == [queued_run]
    deadline = time.monotonic() + 30
    while _run(database_url, queued_run).status == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    again.stop()
    run = _run(database_url, queued_run)
    assert (run.status, run.completed, run.passed) == ("passed", 3, 3)
    # the interrupted run goes on where it stopped: the recorded theorem is not checked again
    assert backend.calls == ["Small.div_zero", "Small.div_zero_wrong", "Small.opaque_id"]
    assert [(c.status, c.attempts) for c in _chunks(database_url, queued_run)] == [("done", 2)]
