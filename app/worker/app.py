"""The Celery application and `proofbridge worker`.

A worker consumes the queues it is given (`cpu,light` by default, `gpu,light` where a GPU
is present). Its pool processes are forked before any of them imports JAX; each leaves its
parent's database connections alone (`db.after_fork`). On a GPU machine each pool process
gets one GPU (`CUDA_VISIBLE_DEVICES`), the concurrency defaults to the number of GPUs,
and JAX does not pre-allocate the GPU's memory (`XLA_PYTHON_CLIENT_PREALLOCATE=false`).
Each pool process loads the checkers (JAX) and the declarations as soon as it starts, on
a thread of its own, so that its first task does not wait for them. Every worker announces
itself on the broker every `PROOFBRIDGE_HEARTBEAT_S` seconds (`app.services.runs.presence`,
read by `/healthz`); a worker that consumes `light` also reconciles every
`PROOFBRIDGE_RECONCILE_INTERVAL_S` seconds. Both run on threads of its main process.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from typing import Any

from celery import Celery, signals

from app.logs import install_visible_log_records
from app.services.ci.github_report import install_reporting
from app.services.runs import presence
from app.settings import Settings, get_settings
from app.worker.config import LIGHT_QUEUE, celery_config
from app.worker.tasks import reconcile_once, register_tasks, warm_up

__all__ = ["create_celery", "default_queues", "gpu_ids", "run_worker"]

log = logging.getLogger("proofbridge.worker")

GPU_IDS_VARIABLE = "PROOFBRIDGE_WORKER_GPU_IDS"
WARM_UP_VARIABLE = "PROOFBRIDGE_WORKER_WARM_UP"


def create_celery(settings: Settings | None = None) -> Celery:
    """The Celery app for `settings` (default: the environment's); needs a broker URL."""
    settings = settings or get_settings()
    if not settings.broker_url:
        raise ValueError("PROOFBRIDGE_BROKER_URL is not set: a worker needs a broker")
    celery = Celery("proofbridge", set_as_current=False)
    celery.conf.update(celery_config(settings))
    register_tasks(celery)
    install_reporting(settings)  # runs this worker finishes report to GitHub
    return celery


def gpu_ids() -> list[str]:
    """The GPUs of this machine: `CUDA_VISIBLE_DEVICES` when set, else what `nvidia-smi`
    lists; none when neither says."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [g.strip() for g in visible.split(",") if g.strip() and g.strip() != "-1"]
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def default_queues() -> list[str]:
    return ["gpu" if gpu_ids() else "cpu", LIGHT_QUEUE]


@signals.worker_process_init.connect
def _init_pool_process(**_: Any) -> None:
    from billiard.process import current_process

    from app.db import after_fork

    after_fork()
    gpus = [g for g in os.environ.get(GPU_IDS_VARIABLE, "").split(",") if g]
    if gpus:
        index = getattr(current_process(), "index", 0) or 0
        os.environ["CUDA_VISIBLE_DEVICES"] = gpus[index % len(gpus)]
    if os.environ.get(WARM_UP_VARIABLE, "1") != "0":
        # beside the pool's start-up, which has a few seconds only: the first task waits
        threading.Thread(target=warm_up, name="proofbridge-warm-up", daemon=True).start()


class _Beacon:
    """Announces the worker on the broker every `heartbeat_s` (`app.services.runs.presence`)."""

    def __init__(self, settings: Settings, queues: list[str], concurrency: int | None) -> None:
        self._settings = settings
        self._queues = queues
        self._concurrency = concurrency
        self._name: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="proofbridge-beacon")
        self._thread.daemon = True

    def start(self, sender: Any = None, **_: Any) -> None:
        self._name = str(getattr(sender, "hostname", None) or "celery")
        if self._concurrency is None:  # Celery's default: read what it chose
            chosen = getattr(getattr(sender, "controller", None), "concurrency", None)
            self._concurrency = chosen if isinstance(chosen, int) else None
        self._thread.start()

    def stop(self, **_: Any) -> None:
        self._stop.set()
        if self._name is not None:
            try:
                presence.withdraw(self._client(), self._name)
            except Exception as exc:  # the broker is down: the key expires
                log.warning("cannot withdraw from the broker: %s", exc)

    def _client(self) -> Any:
        assert self._settings.broker_url
        return presence.broker_client(self._settings.broker_url, presence.PROBE_TIMEOUT_S * 4)

    def _loop(self) -> None:
        assert self._name is not None
        while True:
            try:
                presence.announce(
                    self._client(),
                    self._name,
                    queues=self._queues,
                    concurrency=self._concurrency,
                    ttl_s=self._settings.stale_after_s,
                )
            except Exception as exc:  # the broker is down: next time
                log.debug("cannot announce the worker: %s", exc)
            if self._stop.wait(self._settings.heartbeat_s):
                return


class _Reconciler:
    def __init__(self, celery: Celery, every_s: float) -> None:
        self._celery = celery
        self._every = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="proofbridge-reconciler")
        self._thread.daemon = True

    def start(self, **_: Any) -> None:
        self._thread.start()

    def stop(self, **_: Any) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                reconcile_once(self._celery)
            except Exception as exc:  # the database or the broker is down: next time
                log.warning("reconciling failed: %s", exc)


def run_worker(
    settings: Settings,
    *,
    queues: Sequence[str] | None = None,
    concurrency: int | None = None,
    loglevel: str = "INFO",
    hostname: str | None = None,
) -> None:
    """Start a worker in this process (it returns when the worker stops)."""
    install_visible_log_records()  # names logged with control characters shown as escapes
    queues = list(queues or default_queues())
    gpus = gpu_ids() if "gpu" in queues else []
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if gpus:
        os.environ[GPU_IDS_VARIABLE] = ",".join(gpus)
        concurrency = concurrency or len(gpus)
    celery = create_celery(settings)
    beacon = _Beacon(settings, queues, concurrency)
    signals.worker_ready.connect(beacon.start, weak=False)
    signals.worker_shutdown.connect(beacon.stop, weak=False)
    reconciler = None
    if LIGHT_QUEUE in queues:
        reconciler = _Reconciler(celery, settings.reconcile_interval_s)
        signals.worker_ready.connect(reconciler.start, weak=False)
        signals.worker_shutdown.connect(reconciler.stop, weak=False)
    argv = ["worker", "--queues", ",".join(queues), "--loglevel", loglevel, "--pool", "prefork"]
    if concurrency:
        argv += ["--concurrency", str(concurrency)]
    if hostname:
        argv += ["--hostname", hostname]
    celery.worker_main(argv)
