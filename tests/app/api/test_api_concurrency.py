"""Reads and writes at once: the in-process worker records results while requests read and
create runs, and nobody sees a server error or a run failed by a locked database."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest
from api_support import API, AUTH, ingest_small_page, make_settings, wait_for_run
from fastapi.testclient import TestClient
from sqlalchemy import select, text, update

from app import models
from app.db import LOCKED_ATTEMPTS, _retrying_commit, get_sessionmaker, run_in_transaction
from app.main import create_app
from app.services.runs.runner import InProcessRunner

SMALL = ["Small.div_zero", "Small.div_zero_wrong", "Small.opaque_id"]


@dataclass(frozen=True)
class _Result:
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": "pass", "checker": "registered", "trials": 1}


class ScriptedBackend:
    """Passes every theorem after `delay_s`; the first check waits for `release`."""

    class Environment:
        @staticmethod
        def from_declarations(decls: Any) -> None:
            return None

    def __init__(self, delay_s: float = 0.0, gated: bool = False) -> None:
        self.delay_s = delay_s
        self.started = threading.Event()
        self.release = threading.Event()
        if not gated:
            self.release.set()

    def check(self, name: str, env: Any, **kwargs: Any) -> _Result:
        self.started.set()
        assert self.release.wait(30), "the test never released the check"
        time.sleep(self.delay_s)
        return _Result(name)


def _client(database_url: str, tmp_path: Any, backend: ScriptedBackend) -> TestClient:
    app = create_app(make_settings(database_url, tmp_path / "var"))
    app.state.runner = InProcessRunner(database_url, backend=backend)
    return TestClient(app)


def _reads(client: TestClient, run_id: int) -> list[int]:
    return [
        client.get(f"{API}/runs/{run_id}").status_code,
        client.get(f"{API}/runs/{run_id}/results").status_code,
        client.get(f"{API}/theorems", params={"limit": 10}).status_code,
        client.get(f"{API}/theorems/Small.div_zero/results").status_code,
        client.get(f"{API}/modules").status_code,
    ]


def test_run_survives_a_writer_committing_during_its_first_check(
    database_url: str, tmp_path: Any
) -> None:
    backend = ScriptedBackend(gated=True)
    with _client(database_url, tmp_path, backend) as client:
        ingest_small_page(client)
        first = client.post(f"{API}/runs", json={"names": SMALL}, headers=AUTH).json()["id"]
        assert backend.started.wait(30)
        # While the worker checks the first theorem, another writer commits a run.
        second = client.post(f"{API}/runs", json={"names": SMALL[:1]}, headers=AUTH)
        assert second.status_code == 202, second.text
        assert set(_reads(client, first)) == {200}
        backend.release.set()
        runs = [wait_for_run(client, run_id) for run_id in (first, second.json()["id"])]
    assert [(r["status"], r["error"], r["progress"]["done"]) for r in runs] == [
        ("passed", None, 3),
        ("passed", None, 1),
    ]


@pytest.mark.slow
def test_reads_and_writes_at_once_never_answer_a_server_error(
    database_url: str, tmp_path: Any
) -> None:
    backend = ScriptedBackend(delay_s=0.005)
    statuses: list[int] = []
    run_ids: list[int] = []
    with _client(database_url, tmp_path, backend) as client:
        ingest_small_page(client)
        for i in range(12):
            created = client.post(f"{API}/runs", json={"names": SMALL, "seed": i}, headers=AUTH)
            statuses.append(created.status_code)
            run_ids.append(created.json()["id"])
            statuses.extend(_reads(client, run_ids[-1]))
        while client.get(f"{API}/runs/{run_ids[-1]}").json()["status"] in ("queued", "running"):
            statuses.extend(_reads(client, run_ids[-1]))
        runs = [wait_for_run(client, run_id) for run_id in run_ids]
    assert sorted(set(statuses)) == [200, 202]
    assert {(r["status"], r["error"], r["progress"]["done"]) for r in runs} == {("passed", None, 3)}


@pytest.fixture
def sqlite_url(tmp_path: Any) -> str:
    from app.migrate import upgrade_database

    url = f"sqlite:///{tmp_path / 'locks.db'}"
    upgrade_database(url)
    return url


def _queued_run(url: str) -> int:
    with get_sessionmaker(url)() as session:
        run = models.Run(status="queued", trigger="api", params={}, total=0)
        session.add(run)
        session.commit()
        return run.id


def test_run_in_transaction_reruns_a_unit_whose_reads_went_stale(sqlite_url: str) -> None:
    run_id = _queued_run(sqlite_url)
    make = get_sessionmaker(sqlite_url)
    attempts: list[int] = []

    def bump() -> int:
        total = session.scalar(select(models.Run.total).where(models.Run.id == run_id))
        assert total is not None
        if not attempts:  # another writer commits between this unit's read and its write
            with make() as other:
                other.execute(update(models.Run).values(total=models.Run.total + 10))
                other.commit()
        attempts.append(total)
        session.execute(update(models.Run).where(models.Run.id == run_id).values(total=total + 1))
        return total + 1

    with make() as session:
        assert run_in_transaction(session, bump) == 11
    assert attempts == [0, 10]  # the first attempt was refused ("database is locked")
    with make() as session:
        assert session.scalar(select(models.Run.total)) == 11


def test_run_in_transaction_gives_up_after_bounded_attempts(sqlite_url: str) -> None:
    run_id = _queued_run(sqlite_url)
    make = get_sessionmaker(sqlite_url)
    calls: list[int] = []

    def always_stale() -> None:
        session.execute(text("SELECT count(*) FROM runs")).scalar_one()
        with make() as other:
            other.execute(update(models.Run).values(total=models.Run.total + 1))
            other.commit()
        calls.append(1)
        session.execute(update(models.Run).where(models.Run.id == run_id).values(status="passed"))

    with make() as session, pytest.raises(Exception, match="database is locked"):
        run_in_transaction(session, always_stale, attempts=3)
    assert len(calls) == 3


def test_commit_is_retried_while_the_database_is_locked() -> None:
    import sqlite3

    outcomes: list[Exception | None] = [sqlite3.OperationalError("database is locked")] * 2
    outcomes.append(None)
    calls: list[object] = []

    def do_commit(connection: object) -> None:
        calls.append(connection)
        outcome = outcomes[len(calls) - 1]
        if outcome is not None:
            raise outcome

    _retrying_commit(do_commit)("conn")
    assert calls == ["conn"] * 3

    always: list[object] = []

    def locked(connection: object) -> None:
        always.append(connection)
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError):
        _retrying_commit(locked)("conn")
    assert len(always) == LOCKED_ATTEMPTS

    def broken(connection: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        _retrying_commit(broken)("conn")
