"""A cluster for the worker tests: a database holding the fault theorems
(`fault_names.FAULTS_LEAN`), a private Redis server, the API in this process, and the
workers a test starts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fault_names import FAULTS_LEAN
from worker_support import (
    API,
    AUTH,
    Database,
    RedisServer,
    Worker,
    api_settings,
    by_name,
    unique,
    worker_env,
)

from app import models
from app.db import get_sessionmaker
from app.main import create_app
from app.migrate import upgrade_database
from app.services.ingestion.ingest import ingest_paths

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


@contextmanager
def faults_cluster(workdir: Path, database_url: str) -> Iterator[Cluster]:
    lean = workdir / "Faults.lean"
    lean.write_text(FAULTS_LEAN, encoding="utf-8")
    upgrade_database(database_url)
    with get_sessionmaker(database_url)() as session:
        report = ingest_paths(session, paths=[str(lean)])
        assert not report.errors, report.errors
        session.commit()
    c = Cluster(database_url, workdir)
    try:
        yield c
    finally:
        c.close()


def exactly_one_result_each(
    cluster: Cluster, run_id: int, names: list[str]
) -> dict[str, models.Result]:
    results = by_name(cluster.db.results(run_id))  # fails on a duplicate
    assert sorted(results) == sorted(names)
    return results
