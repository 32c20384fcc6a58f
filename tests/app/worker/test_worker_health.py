"""`/healthz` with a broker (a private Redis server) and real `proofbridge worker`
processes: 503 while the broker is stopped, refuses connections or does not answer (and
the answer comes within seconds), `degraded` while no worker was seen, and the workers
that announce themselves, named."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from worker_support import (
    API,
    RedisServer,
    Worker,
    api_settings,
    free_port,
    unique,
    wait_until,
    worker_env,
)

from app.main import create_app
from app.migrate import upgrade_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def database(pg_module_url: str) -> str:
    upgrade_database(pg_module_url)
    return pg_module_url


def _client(database: str, broker_url: str, workdir: Path) -> TestClient:
    return TestClient(
        create_app(api_settings(database, broker_url, workdir)), raise_server_exceptions=False
    )


def _health(client: TestClient) -> tuple[int, dict[str, Any], float]:
    start = time.monotonic()
    response = client.get(f"{API}/healthz")
    return response.status_code, response.json(), time.monotonic() - start


@pytest.fixture
def silent_broker() -> Iterator[str]:
    """A TCP server that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        stop.set()
        thread.join(5)
        for conn in accepted:
            conn.close()
        listener.close()


def test_read_health_answers_503_when_the_broker_refuses_connections(
    database: str, tmp_path: Path
) -> None:
    url = f"redis://:secret@127.0.0.1:{free_port()}/0"  # nothing listens there
    with _client(database, url, tmp_path) as client:
        code, body, seconds = _health(client)
    assert code == 503
    assert body["status"] == "unavailable"
    assert body["database"] == "ok"
    assert body["workers"] == []
    broker = body["broker"]
    assert broker["url"] == url.replace(":secret@", ":***@")
    assert broker["reachable"] is False
    assert "Connection refused" in broker["error"]
    assert seconds < 3


def test_read_health_answers_503_within_seconds_when_the_broker_does_not_answer(
    database: str, tmp_path: Path, silent_broker: str
) -> None:
    with _client(database, silent_broker, tmp_path) as client:
        code, body, seconds = _health(client)
    assert code == 503
    assert body["status"] == "unavailable"
    assert body["broker"]["reachable"] is False
    port = silent_broker.rsplit(":", 1)[1].removesuffix("/0")
    assert body["broker"]["error"] == f"Timeout reading from 127.0.0.1:{port}"
    assert seconds < 3


def test_read_health_reports_the_workers_seen_and_the_broker_stopped(
    database: str, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path)
    redis.start()
    worker: Worker | None = None
    try:
        with _client(database, redis.url, tmp_path) as client:
            code, body, _ = _health(client)
            # the broker answers, but no worker consumes the check queue: runs would wait
            assert (code, body["status"], body["workers"]) == (200, "degraded", [])
            assert body["broker"] == {"url": redis.url, "reachable": True, "error": None}
            name = unique("health")
            worker = Worker(
                worker_env(database, redis.url, tmp_path), tmp_path / "w.log", name=name
            )
            worker.wait_ready()
            wait_until(lambda: _health(client)[1]["workers"], timeout=30, what="worker seen")
            code, body, _ = _health(client)
            assert (code, body["status"]) == (200, "ok")
            (seen,) = body["workers"]
            assert (seen["name"], seen["queues"], seen["concurrency"]) == (
                worker.name,
                ["cpu", "light"],
                1,
            )
            assert 0 <= seen["seen_s_ago"] <= 3
            redis.stop()
            code, body, seconds = _health(client)
            assert (code, body["status"], body["workers"]) == (503, "unavailable", [])
            assert body["broker"]["reachable"] is False
            assert "Connection refused" in body["broker"]["error"]
            assert seconds < 3
            redis.start()  # empty: the worker announces itself again
            wait_until(lambda: _health(client)[1]["workers"], timeout=30, what="worker back")
            worker.stop()  # a worker that stops says so
            worker = None
            code, body, _ = _health(client)
            assert (code, body["status"], body["workers"]) == (200, "degraded", [])
    finally:
        if worker is not None:
            worker.stop()
        redis.stop()


def test_read_health_reads_a_broker_on_a_unix_socket(database: str, tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"
    subprocess.run(
        [
            "redis-server",
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
            "--daemonize",
            "yes",
        ],
        check=True,
    )
    try:
        wait_until(sock.exists, timeout=20, what="redis listens on its socket")
        with _client(database, f"redis+socket://{sock}?virtual_host=3", tmp_path) as client:
            code, body, _ = _health(client)
        assert (code, body["status"], body["broker"]["reachable"]) == (200, "degraded", True)
    finally:
        subprocess.run(["redis-cli", "-s", str(sock), "shutdown", "nosave"], check=False)
