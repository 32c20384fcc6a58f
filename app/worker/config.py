"""Celery's configuration, derived from the settings.

- Results live in the SQL database, never in Celery: tasks carry ids only (a chunk of
  a run) and return nothing worth keeping.
- A task is acknowledged after it ran (`task_acks_late`), and put back when its pool
  process dies (`task_reject_on_worker_lost`), so a killed worker loses no chunk; each
  pool process reserves one message at a time (`worker_prefetch_multiplier = 1`).
- Time limits: each check has its own soft and hard limits (`app.services.runs.timeouts`);
  a task (one chunk) gets Celery's limits above their sum, and Redis redelivers an
  unacknowledged message only after `visibility_timeout`, which is above those.
- Queues: `cpu` and `gpu` for checks (`PROOFBRIDGE_CHECK_QUEUE` says where they go),
  `light` for bookkeeping (reconciling, finishing runs, ingestion).
- Priorities: Redis keeps one list per priority step (`priority_steps`, 0 first); a
  run's chunks go at one step, the chunks the reconciler sends again at a step before it
  (`app.worker.dispatch`).
"""

from __future__ import annotations

import math
from typing import Any

from kombu import Queue

from app.settings import CHECK_QUEUES, LIGHT_QUEUE, Settings
from app.settings import WORKER_QUEUES as QUEUES

__all__ = ["CHECK_QUEUES", "LIGHT_QUEUE", "QUEUES", "celery_config", "task_time_limits"]

CHECK_TASK = "proofbridge.check_chunk"
RECONCILE_TASK = "proofbridge.reconcile"
FINISH_TASK = "proofbridge.finish_run"
INGEST_TASK = "proofbridge.ingest_paths"


def task_time_limits(settings: Settings) -> tuple[int, int]:
    """(soft, hard) Celery time limits of one chunk task: every check of the chunk at its
    hard limit, with a margin for loading the environment."""
    hard = math.ceil(settings.chunk_size * settings.check_hard_timeout_s + 300)
    return hard - 30, hard


def celery_config(settings: Settings) -> dict[str, Any]:
    soft, hard = task_time_limits(settings)
    return {
        "broker_url": settings.broker_url,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        "broker_connection_timeout": 4,
        "broker_transport_options": {
            "visibility_timeout": hard + 600,
            "socket_timeout": 10,
            "socket_connect_timeout": 4,
        },
        "task_ignore_result": True,
        "result_backend": None,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_soft_time_limit": soft,
        "task_time_limit": hard,
        "task_queues": [Queue(name) for name in QUEUES],
        "task_default_queue": LIGHT_QUEUE,
        "task_routes": {
            CHECK_TASK: {"queue": settings.check_queue},
            RECONCILE_TASK: {"queue": LIGHT_QUEUE},
            FINISH_TASK: {"queue": LIGHT_QUEUE},
            INGEST_TASK: {"queue": LIGHT_QUEUE},
        },
        "task_publish_retry": True,
        "task_publish_retry_policy": {
            "max_retries": 2,
            "interval_start": 0,
            "interval_step": 0.5,
            "interval_max": 1,
        },
        "task_serializer": "json",
        "accept_content": ["json"],
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "broker_channel_error_retry": True,
    }
