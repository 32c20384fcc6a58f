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
from cluster_support import Cluster, exactly_one_result_each, faults_cluster
from fault_names import OK, SLOW, SLOW_S
from worker_support import API, AUTH, Server, unique, wait_until, worker_env

from app.db import get_sessionmaker
from app.services.ingestion.ingest import ingest_paths

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg_module_url: str) -> Iterator[Cluster]:
    with faults_cluster(tmp_path_factory.mktemp("workers"), pg_module_url) as c:
        yield c


@pytest.fixture
def workers(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster; the test starts its workers, which are stopped afterwards."""
    yield cluster
    cluster.stop_workers()


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
    results = exactly_one_result_each(workers, run_id, SLOW)
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
    results = exactly_one_result_each(workers, run_id, SLOW)
    assert {r.status for r in results.values()} == {"pass"}


def test_hung_and_stuck_checks_end_in_timeout_and_the_worker_goes_on(
    workers: Cluster,
) -> None:
    w = workers.worker("hang")
    w.wait_ready()
    names = ["Faults.hangs", OK[0], "Faults.stuck", OK[1]]
    run_id = workers.create_run(names)
    run = workers.wait_finished(run_id)
    results = exactly_one_result_each(workers, run_id, names)
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
    results = exactly_one_result_each(workers, run_id, names)
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
    exactly_one_result_each(workers, run_id, OK[:4])


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
