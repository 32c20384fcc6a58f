"""Runs through Celery workers, against a real Redis server and a real PostgreSQL database:
the seed page checked through a worker; a worker killed mid-run; Redis restarted mid-run;
checkers that hang, get stuck, raise, exhaust memory or kill their process; two identical
triggers at once; a run cancelled mid-way. Every run must complete with exactly one result
per theorem, none lost, none duplicated."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from fault_names import FAULTS_LEAN, OK, SLOW, SLOW_S
from worker_support import (
    API,
    AUTH,
    Database,
    RedisServer,
    Server,
    Worker,
    api_settings,
    by_name,
    unique,
    wait_until,
    worker_env,
)

from app.db import get_sessionmaker
from app.main import create_app
from app.migrate import upgrade_database
from app.services.ingest import ingest_paths

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

RUN_TIMEOUT_S = 240


class Cluster:
    """A database with the fault theorems and the seed page, a Redis server, the API."""

    def __init__(self, database_url: str, workdir: Path) -> None:
        self.url = database_url
        self.workdir = workdir
        self.redis = RedisServer(workdir)
        self.redis.start()
        self.db = Database(database_url)
        self.workers: list[Worker] = []
        self.client = TestClient(
            create_app(api_settings(database_url, self.redis.url, workdir)),
            raise_server_exceptions=False,
        )
        self.client.__enter__()

    def worker(self, name: str, *, concurrency: int = 1) -> Worker:
        log = self.workdir / f"{unique(name)}.log"
        w = Worker(
            worker_env(self.url, self.redis.url, self.workdir),
            log,
            name=unique(name),
            concurrency=concurrency,
        )
        self.workers.append(w)
        return w

    def create_run(self, names: list[str], **extra: Any) -> int:
        response = self.client.post(f"{API}/runs", json={"names": names, **extra}, headers=AUTH)
        assert response.status_code == 202, response.text
        return int(response.json()["id"])

    def read_run(self, run_id: int) -> dict[str, Any]:
        response = self.client.get(f"{API}/runs/{run_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_finished(self, run_id: int, timeout: float = RUN_TIMEOUT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = self.read_run(run_id)
            if run["status"] not in ("queued", "running"):
                return run
            time.sleep(0.3)
        logs = "\n".join(f"--- {w.name}\n{w.tail()}" for w in self.workers)
        raise AssertionError(f"run {run_id} not finished: {self.read_run(run_id)}\n{logs}")

    def stop_workers(self) -> None:
        for w in self.workers:
            w.stop()
        self.workers.clear()

    def close(self) -> None:
        self.stop_workers()
        self.client.__exit__(None, None, None)
        self.db.engine.dispose()
        self.redis.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg_module_url: str) -> Iterator[Cluster]:
    workdir = tmp_path_factory.mktemp("workers")
    lean = workdir / "Faults.lean"
    lean.write_text(FAULTS_LEAN, encoding="utf-8")
    url = pg_module_url
    upgrade_database(url)
    with get_sessionmaker(url)() as session:
        report = ingest_paths(session, paths=[str(lean)])
        assert not report.errors, report.errors
        session.commit()
    c = Cluster(url, workdir)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def workers(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster; the test starts its workers, which are stopped afterwards."""
    yield cluster
    cluster.stop_workers()


def _exactly_one_result_each(cluster: Cluster, run_id: int, names: list[str]) -> dict[str, Any]:
    results = by_name(cluster.db.results(run_id))  # fails on a duplicate
    assert sorted(results) == sorted(names)
    return results


def test_seed_page_run_completes_through_a_worker_and_serve(
    workers: Cluster, seed_page: Path
) -> None:
    """`proofbridge serve` and `proofbridge worker` with the same settings. (Only this test
    needs the seed page: the fault tests run where ../shared is absent.)"""
    with get_sessionmaker(workers.url)() as session:
        report = ingest_paths(session, paths=[str(seed_page)])
        assert not report.errors, report.errors
        session.commit()
    env = worker_env(workers.url, workers.redis.url, workers.workdir)
    server = Server(env, workers.workdir / f"{unique('serve')}.log")
    try:
        w = workers.worker("seed")
        server.wait_ready()
        w.wait_ready()
        with httpx.Client(base_url=server.base, timeout=30) as http:
            listed = http.get(f"{API}/theorems", params={"limit": 1000}).json()["data"]
            names = sorted(t["name"] for t in listed if not t["name"].startswith("Faults."))
            assert len(names) >= 20
            created = http.post(f"{API}/runs", json={"names": names, "trials": 16}, headers=AUTH)
            assert created.status_code == 202, created.text
            run_id = created.json()["id"]
            run = workers.wait_finished(run_id)
            assert run["progress"] == {"done": len(names), "total": len(names)}
            assert run["status"] == "passed", run
            results = http.get(f"{API}/runs/{run_id}/results").json()["data"]
        assert len(results) == len(names)
        assert {(r["worker"], r["device"]) for r in results} == {(w.name, "cpu")}
        assert {r["status"] for r in results} == {"pass"}
    finally:
        server.stop()


def test_sigkill_one_of_two_workers_mid_run_loses_nothing(workers: Cluster) -> None:
    a, b = workers.worker("a"), workers.worker("b")
    a.wait_ready()
    b.wait_ready()
    run_id = workers.create_run(SLOW)
    # kill `a` while it is checking: once it has recorded a result
    wait_until(
        lambda: any(r.worker == a.name for r in workers.db.results(run_id)),
        timeout=120,
        what="worker a records a result",
        every=0.05,
    )
    a.kill()
    run = workers.wait_finished(run_id)
    results = _exactly_one_result_each(workers, run_id, SLOW)
    assert run["status"] == "passed", run
    assert {r.status for r in results.values()} == {"pass"}
    assert {r.worker for r in results.values()} == {a.name, b.name}
    chunks = workers.db.chunks(run_id)
    assert {c.status for c in chunks} == {"done"}
    assert max(c.attempts for c in chunks) == 2  # a's chunk was taken over, once


def test_redis_restarted_mid_run_completes_once_back(workers: Cluster) -> None:
    w = workers.worker("redis")
    w.wait_ready()
    run_id = workers.create_run(SLOW)
    wait_until(lambda: workers.db.result_count(run_id) >= 2, timeout=120, what="2 results")
    workers.redis.stop()  # every queued message is lost with it
    time.sleep(2)
    workers.redis.start()
    run = workers.wait_finished(run_id)
    assert run["status"] == "passed", run
    results = _exactly_one_result_each(workers, run_id, SLOW)
    assert {r.status for r in results.values()} == {"pass"}


def test_hung_and_stuck_checks_end_in_timeout_and_the_worker_goes_on(
    workers: Cluster,
) -> None:
    w = workers.worker("hang")
    w.wait_ready()
    names = ["Faults.hangs", OK[0], "Faults.stuck", OK[1]]
    run_id = workers.create_run(names)
    run = workers.wait_finished(run_id)
    results = _exactly_one_result_each(workers, run_id, names)
    hung, stuck = results["Faults.hangs"], results["Faults.stuck"]
    assert hung.status == "error"
    assert hung.reason == "timeout: the check ran past its soft time limit of 4 s"
    assert stuck.status == "error"
    assert stuck.reason == "timeout: the check ran past its hard time limit of 8 s"
    assert results[OK[0]].status == results[OK[1]].status == "pass"
    assert run["status"] == "error"
    assert run["summary"] == {"pass": 2, "fail": 0, "error": 2, "unsupported": 0}
    assert w.proc.poll() is None  # the worker survived; the stuck pool process was replaced


def test_raising_memory_hungry_and_killed_checkers_end_in_error(workers: Cluster) -> None:
    w = workers.worker("faults")
    w.wait_ready()
    names = ["Faults.raises", "Faults.memory", "Faults.killed", OK[2]]
    run_id = workers.create_run(names)
    run = workers.wait_finished(run_id)
    results = _exactly_one_result_each(workers, run_id, names)
    assert results["Faults.raises"].status == "error"
    assert "RuntimeError: a deliberate failure of the checker" in results["Faults.raises"].reason
    assert results["Faults.memory"].status == "error"
    assert "MemoryError" in results["Faults.memory"].reason
    assert results["Faults.killed"].status == "error"
    assert results["Faults.killed"].reason == (
        "not checked: its worker process was lost twice while checking it "
        "(killed, or out of memory)"
    )
    assert results[OK[2]].status == "pass"
    assert run["status"] == "error"
    assert w.proc.poll() is None


def test_two_identical_triggers_at_once_create_one_run(workers: Cluster) -> None:
    key = unique("trigger")
    body = {"names": OK[:4], "trials": 8}
    answers: list[Any] = []
    barrier = threading.Barrier(2)

    def trigger() -> None:
        barrier.wait()
        answers.append(
            workers.client.post(f"{API}/runs", json=body, headers=AUTH | {"Idempotency-Key": key})
        )

    threads = [threading.Thread(target=trigger) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(a.status_code for a in answers) == [200, 202]
    assert len({a.json()["id"] for a in answers}) == 1
    assert workers.db.runs_with_key(key) == 1
    assert [a.headers.get("idempotent-replayed") for a in answers if a.status_code == 200] == [
        "true"
    ]
    other = workers.client.post(
        f"{API}/runs", json=body | {"trials": 9}, headers=AUTH | {"Idempotency-Key": key}
    )
    assert other.status_code == 409, other.text
    assert "whose request differs" in other.json()["detail"]
    w = workers.worker("idem")
    w.wait_ready()
    run_id = answers[0].json()["id"]
    assert workers.wait_finished(run_id)["status"] == "passed"
    _exactly_one_result_each(workers, run_id, OK[:4])


def test_cancelled_run_stops_within_one_chunk_and_keeps_its_results(
    workers: Cluster,
) -> None:
    w = workers.worker("cancel")
    w.wait_ready()
    run_id = workers.create_run(SLOW)
    wait_until(lambda: workers.db.result_count(run_id) >= 3, timeout=120, what="3 results")
    response = workers.client.post(f"{API}/runs/{run_id}/cancel", headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "cancelled"
    at_cancel = workers.db.result_count(run_id)
    # the chunk being checked stops before its next theorem; nothing else starts
    wait_until(
        lambda: all(c.status in ("done", "cancelled") for c in workers.db.chunks(run_id)),
        timeout=60,
        what="every chunk stopped",
    )
    time.sleep(4 * SLOW_S)
    final = workers.db.result_count(run_id)
    chunk_size = 2
    assert at_cancel <= final <= at_cancel + chunk_size - 1
    assert final < len(SLOW)
    run = workers.read_run(run_id)
    assert run["status"] == "cancelled"
    assert run["progress"] == {"done": final, "total": len(SLOW)}
    assert {r.status for r in workers.db.results(run_id)} == {"pass"}
    again = workers.client.post(f"{API}/runs/{run_id}/cancel", headers=AUTH)
    assert again.status_code == 409
    assert again.json()["detail"] == f"run {run_id} has already finished: cancelled"
