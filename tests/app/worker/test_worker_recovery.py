"""How soon lost work is checked again, through real workers, Redis and PostgreSQL: a worker
SIGKILLed, its pool process SIGKILLed, Redis restarted, Redis down when a run is posted,
and the API server killed while it queues a run. Every run completes with one result per
theorem, and the lost theorems are checked within a minute of the fault (RECOVERY_S),
ahead of the chunks queued before them: while another run keeps the queue busy, the
recovered run finishes first."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest
from cluster_support import Cluster, exactly_one_result_each, faults_cluster
from fault_names import SLOW
from worker_support import API, AUTH, Server, unique, wait_until, worker_env

from app import models

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

RECOVERY_S = 60.0
# chunks of the run queued before the lost one that may start first: the one the worker
# had already taken when the chunk was sent again, and one more for timing
AHEAD_AT_MOST = 2


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg_module_url: str) -> Iterator[Cluster]:
    with faults_cluster(tmp_path_factory.mktemp("recovery"), pg_module_url) as c:
        yield c


@pytest.fixture
def workers(cluster: Cluster) -> Iterator[Cluster]:
    yield cluster
    cluster.stop_workers()


def _seconds(since: datetime, results: list[models.Result]) -> float:
    """Seconds from `since` to the last of `results`."""
    return max((r.created_at - since).total_seconds() for r in results)


def _lost_chunk(cluster: Cluster, run_id: int, worker: str) -> models.RunTask:
    (chunk,) = [
        c for c in cluster.db.chunks(run_id) if c.status == "running" and c.worker == worker
    ]
    return chunk


def _recovered_next(cluster: Cluster, run_id: int, lost_id: int, waiting: set[int]) -> None:
    """The lost chunk's last attempt started before all but AHEAD_AT_MOST of the chunks
    that were waiting in the queue when it was lost."""
    chunks = {c.id: c for c in cluster.db.chunks(run_id)}
    lost = chunks[lost_id]
    assert lost.attempts == 2
    ahead = [c for c in waiting if chunks[c].started_at < lost.started_at]
    assert len(ahead) <= AHEAD_AT_MOST, (len(ahead), len(waiting))


def _names_of(cluster: Cluster, run_id: int, chunk_id: int) -> list[str]:
    (chunk,) = [c for c in cluster.db.chunks(run_id) if c.id == chunk_id]
    return list(chunk.names)


def _kill_and_recover(cluster: Cluster, kill: str) -> None:
    a = cluster.worker("a")
    a.wait_ready()
    run_id = cluster.create_run(SLOW)
    wait_until(
        lambda: any(r.worker == a.name for r in cluster.db.results(run_id)),
        timeout=120,
        what="worker a records a result",
        every=0.05,
    )
    lost = _lost_chunk(cluster, run_id, a.name)
    waiting = {c.id for c in cluster.db.chunks(run_id) if c.attempts == 0}
    assert len(waiting) >= 4
    if kill == "worker":
        a.kill()
        b = cluster.worker("b")  # the only worker left; it takes the lost chunk over
    else:
        (pool,) = a.pool_processes()
        os.kill(pool, signal.SIGKILL)  # the worker stays; Celery starts another process
    fault = models.utcnow()
    run = cluster.wait_finished(run_id)
    assert run["status"] == "passed", run
    results = exactly_one_result_each(cluster, run_id, SLOW)
    lost_results = [results[n] for n in _names_of(cluster, run_id, lost.id)]
    assert _seconds(fault, lost_results) < RECOVERY_S
    _recovered_next(cluster, run_id, lost.id, waiting)
    if kill == "worker":
        assert {r.worker for r in lost_results} >= {b.name}


def test_killed_worker_s_chunk_is_checked_next_within_a_minute(workers: Cluster) -> None:
    _kill_and_recover(workers, "worker")


def test_killed_pool_process_s_chunk_is_checked_next_within_a_minute(workers: Cluster) -> None:
    _kill_and_recover(workers, "pool")


def test_redis_restarted_under_traffic_recovers_the_lost_run_first(workers: Cluster) -> None:
    w = workers.worker("restart")
    w.wait_ready()
    lost_run = workers.create_run(SLOW)
    wait_until(lambda: workers.db.result_count(lost_run) >= 2, timeout=120, what="2 results")
    workers.redis.stop()  # every queued message is lost with it
    workers.redis.start()
    back = models.utcnow()
    traffic = workers.create_run(SLOW)  # keeps the queue busy from now on
    assert workers.wait_finished(lost_run)["status"] == "passed"
    assert workers.wait_finished(traffic)["status"] == "passed"
    lost = exactly_one_result_each(workers, lost_run, SLOW)
    exactly_one_result_each(workers, traffic, SLOW)
    assert _seconds(back, list(lost.values())) < RECOVERY_S
    assert workers.db.run(lost_run).finished_at < workers.db.run(traffic).finished_at


def test_run_posted_while_redis_is_down_is_sent_once_it_is_back_despite_traffic(
    workers: Cluster,
) -> None:
    w = workers.worker("down")
    w.wait_ready()
    workers.redis.stop()
    try:
        unsent_run = workers.create_run(SLOW)  # accepted; its chunks cannot be sent
        assert {c.dispatched_at for c in workers.db.chunks(unsent_run)} == {None}
    finally:
        workers.redis.start()
    back = models.utcnow()
    traffic = workers.create_run(SLOW)  # sent at once: the queue is busy from now on
    assert workers.wait_finished(unsent_run)["status"] == "passed"
    assert workers.wait_finished(traffic)["status"] == "passed"
    unsent = exactly_one_result_each(workers, unsent_run, SLOW)
    exactly_one_result_each(workers, traffic, SLOW)
    assert _seconds(back, list(unsent.values())) < RECOVERY_S
    assert workers.db.run(unsent_run).finished_at < workers.db.run(traffic).finished_at


def test_api_killed_while_queueing_loses_nothing_and_recovers_first(workers: Cluster) -> None:
    """The server is SIGKILLed while it sends a run's chunks (Redis holds its writes, so
    the server is caught mid-send)."""
    w = workers.worker("api")
    w.wait_ready()
    traffic = workers.create_run(SLOW)  # queued before, through the in-process API
    env = worker_env(workers.url, workers.redis.url, workers.workdir)
    server = Server(env, workers.workdir / f"{unique('serve')}.log")
    redis_cli = ["redis-cli", "-p", str(workers.redis.port)]
    try:
        server.wait_ready()
        subprocess.run([*redis_cli, "client", "pause", "60000", "write"], check=True)
        answers: list[object] = []

        def post() -> None:
            try:
                answers.append(
                    httpx.post(
                        f"{server.base}{API}/runs",
                        json={"names": SLOW, "trials": 8},
                        headers=AUTH,
                        timeout=60,
                    )
                )
            except httpx.HTTPError as exc:
                answers.append(exc)

        poster = threading.Thread(target=post)
        poster.start()
        wait_until(
            lambda: workers.db.runs_with_trials(8), timeout=30, what="the server queued the run"
        )
        (killed_run,) = workers.db.runs_with_trials(8)
        wait_until(
            lambda: all(c.dispatched_at for c in workers.db.chunks(killed_run)),
            timeout=30,
            what="the server took the chunks to send",
        )
        server.kill()
        fault = models.utcnow()
    finally:
        subprocess.run([*redis_cli, "client", "unpause"], check=True)
        server.stop()
    poster.join(60)
    assert [type(a) for a in answers] != [httpx.Response]  # the request never answered
    assert workers.wait_finished(killed_run)["status"] == "passed"
    assert workers.wait_finished(traffic)["status"] == "passed"
    killed = exactly_one_result_each(workers, killed_run, SLOW)
    exactly_one_result_each(workers, traffic, SLOW)
    assert _seconds(fault, list(killed.values())) < RECOVERY_S
    assert workers.db.run(killed_run).finished_at < workers.db.run(traffic).finished_at
