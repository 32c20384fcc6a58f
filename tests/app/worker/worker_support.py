"""The parts of the worker tests: a private Redis server, worker processes, a database.

Every test here runs against real services: a Redis server of its own (started on a free
port, so that stopping or restarting it disturbs nothing else), `proofbridge worker`
processes started as a user would start them, and a fresh schema on the PostgreSQL
server of PROOFBRIDGE_TEST_POSTGRES_URL. Workers load the misbehaving checkers of
`fault_checkers` through PROOFBRIDGE_CHECKER_MODULES, with short time limits.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.db import make_engine
from app.settings import Settings

REPO = Path(__file__).resolve().parents[3]
PROOFBRIDGE = Path(sys.executable).with_name("proofbridge")
TOKEN = "worker-test-token-8c41d2e7f9"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
API = "/api/v1"

# short limits, so that each fault shows within seconds
LIMITS = {
    "PROOFBRIDGE_CHUNK_SIZE": "2",
    "PROOFBRIDGE_CHECK_SOFT_TIMEOUT_S": "4",
    "PROOFBRIDGE_CHECK_HARD_TIMEOUT_S": "8",
    "PROOFBRIDGE_HEARTBEAT_S": "0.5",
    "PROOFBRIDGE_STALE_AFTER_S": "3",
    "PROOFBRIDGE_RECONCILE_INTERVAL_S": "1",
}
CHECKER_MODULES = "tests.app.worker.fault_checkers"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A redis-server of this test's own, without persistence (a restart loses every
    queued message, as a flushed broker would)."""

    def __init__(self, workdir: Path) -> None:
        if shutil.which("redis-server") is None:
            message = "redis-server is not installed: the worker fault tests need one"
            if os.environ.get("CI"):
                pytest.fail(f"{message}; CI is set, so they must run")
            pytest.skip(message)
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        subprocess.run(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                "--daemonize",
                "yes",
                "--logfile",
                str(self.workdir / f"redis-{self.port}.log"),
            ],
            check=True,
        )
        self._wait(up=True)

    def stop(self) -> None:
        subprocess.run(
            ["redis-cli", "-p", str(self.port), "shutdown", "nosave"],
            capture_output=True,
            check=False,
        )
        self._wait(up=False)

    def _wait(self, *, up: bool) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            ping = subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
            )
            if (ping.stdout.strip() == "PONG") == up:
                return
            time.sleep(0.1)
        raise AssertionError(f"redis on {self.port} did not {'start' if up else 'stop'}")


class Worker:
    """One `proofbridge worker` process (and its pool), in a process group of its own."""

    def __init__(self, env: dict[str, str], log: Path, *, name: str, concurrency: int = 1):
        self.name = f"{name}@{socket.gethostname()}"
        self.log = log
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            [
                str(PROOFBRIDGE),
                "worker",
                "--queues",
                "cpu,light",
                "--concurrency",
                str(concurrency),
                "--hostname",
                self.name,
            ],
            env=env,
            cwd=REPO,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker {self.name} exited: {self.tail()}")
            if b" ready." in self.log.read_bytes():
                return
            time.sleep(0.2)
        raise AssertionError(f"worker {self.name} not ready after {timeout} s: {self.tail()}")

    def pool_processes(self) -> list[int]:
        """The pids of the worker's pool processes (its main process's children)."""
        pid = self.proc.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [int(c) for c in children]

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._out.close()

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_bytes()[-chars:].decode(errors="replace")


class Server:
    """`proofbridge serve` on a free port, in a process group of its own."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._out = log.open("wb")
        self.log = log
        self.proc = subprocess.Popen(
            [str(PROOFBRIDGE), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env | {"PROOFBRIDGE_API_TOKEN": TOKEN},
            cwd=REPO,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text(errors='replace')}")
            try:
                if httpx.get(f"{self.base}{API}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"server not ready: {self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        """SIGKILL the server at once."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        self._out.close()


def worker_env(database_url: str, broker_url: str, workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env.update(LIMITS)
    env.update(
        {
            "PYTHONPATH": str(REPO),
            "PROOFBRIDGE_DATABASE_URL": database_url,
            "PROOFBRIDGE_BROKER_URL": broker_url,
            "PROOFBRIDGE_CHECKER_MODULES": CHECKER_MODULES,
            "PROOFBRIDGE_DATA_DIR": str(workdir / "var"),
            "PROOFBRIDGE_JAX_CACHE_DIR": str(workdir / "jax-cache"),
        }
    )
    return env


def api_settings(database_url: str, broker_url: str, workdir: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=database_url,
        broker_url=broker_url,
        api_token=TOKEN,
        data_dir=workdir / "var",
        jax_cache_dir=None,
        chunk_size=int(LIMITS["PROOFBRIDGE_CHUNK_SIZE"]),
        stale_after_s=float(LIMITS["PROOFBRIDGE_STALE_AFTER_S"]),
        heartbeat_s=float(LIMITS["PROOFBRIDGE_HEARTBEAT_S"]),
        check_soft_timeout_s=float(LIMITS["PROOFBRIDGE_CHECK_SOFT_TIMEOUT_S"]),
        check_hard_timeout_s=float(LIMITS["PROOFBRIDGE_CHECK_HARD_TIMEOUT_S"]),
    )


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class Database:
    """Reads of the test database, outside the service."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)

    def results(self, run_id: int) -> list[models.Result]:
        with Session(self.engine) as s:
            stmt = select(models.Result).where(models.Result.run_id == run_id)
            return list(s.scalars(stmt.order_by(models.Result.name)))

    def result_count(self, run_id: int) -> int:
        with Session(self.engine) as s:
            stmt = select(func.count()).where(models.Result.run_id == run_id)
            return int(s.scalar(stmt.select_from(models.Result)) or 0)

    def run(self, run_id: int) -> models.Run:
        with Session(self.engine, expire_on_commit=False) as s:
            run = s.get(models.Run, run_id)
            assert run is not None
            return run

    def chunks(self, run_id: int) -> list[models.RunTask]:
        with Session(self.engine, expire_on_commit=False) as s:
            t = models.RunTask
            return list(s.scalars(select(t).where(t.run_id == run_id).order_by(t.position)))

    def runs_with_trials(self, trials: int) -> list[int]:
        with Session(self.engine) as s:
            runs = s.scalars(select(models.Run).order_by(models.Run.id))
            return [r.id for r in runs if r.params.get("trials") == trials]

    def runs_with_key(self, key: str) -> int:
        with Session(self.engine) as s:
            stmt = select(func.count()).where(models.Run.idempotency_key == key)
            return int(s.scalar(stmt.select_from(models.Run)) or 0)


def wait_until(predicate: Any, *, timeout: float, what: str, every: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise AssertionError(f"{what}: not after {timeout} s")


def by_name(results: Iterable[models.Result]) -> dict[str, models.Result]:
    out: dict[str, models.Result] = {}
    for r in results:
        assert r.name not in out, f"{r.name} has two results"
        out[r.name] = r
    return out
