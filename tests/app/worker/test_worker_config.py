"""The Celery configuration the settings give: late acknowledgement, redelivery when a
pool process dies, one message per process, time limits above the checks' own, Redis's
visibility timeout above those, the queues and routes; and the GPU assignment of pool
processes."""

from __future__ import annotations

import pytest

from app.settings import Settings
from app.worker import app as worker_app
from app.worker.config import CHECK_TASK, INGEST_TASK, RECONCILE_TASK, celery_config


def _settings(**values: object) -> Settings:
    return Settings(_env_file=None, broker_url="redis://127.0.0.1:6379/0", **values)  # type: ignore[call-arg,arg-type]


def test_tasks_are_acknowledged_late_and_redelivered_when_their_process_dies() -> None:
    conf = celery_config(_settings())
    assert conf["task_acks_late"] is True
    assert conf["task_reject_on_worker_lost"] is True
    assert conf["worker_prefetch_multiplier"] == 1
    assert conf["task_ignore_result"] is True


def test_time_limits_cover_every_check_of_a_chunk_and_redelivery_waits_longer() -> None:
    settings = _settings(chunk_size=4, check_soft_timeout_s=100, check_hard_timeout_s=120)
    conf = celery_config(settings)
    assert conf["task_time_limit"] >= 4 * 120
    assert conf["task_soft_time_limit"] < conf["task_time_limit"]
    assert conf["broker_transport_options"]["visibility_timeout"] > conf["task_time_limit"]


@pytest.mark.parametrize("queue", ["cpu", "gpu"])
def test_checks_go_to_the_check_queue_and_bookkeeping_to_light(queue: str) -> None:
    conf = celery_config(_settings(check_queue=queue))
    assert conf["task_routes"][CHECK_TASK] == {"queue": queue}
    assert conf["task_routes"][RECONCILE_TASK] == {"queue": "light"}
    assert conf["task_routes"][INGEST_TASK] == {"queue": "light"}
    assert {q.name for q in conf["task_queues"]} == {"cpu", "gpu", "light"}


def test_a_worker_needs_a_broker() -> None:
    with pytest.raises(ValueError, match="PROOFBRIDGE_BROKER_URL is not set"):
        worker_app.create_celery(Settings(_env_file=None))  # type: ignore[call-arg]


def test_gpus_from_cuda_visible_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert worker_app.gpu_ids() == ["2", "3"]
    assert worker_app.default_queues() == ["gpu", "light"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    assert worker_app.gpu_ids() == []
    assert worker_app.default_queues() == ["cpu", "light"]


def test_each_pool_process_sees_one_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    class Process:
        index = 0

    monkeypatch.setattr("billiard.process.current_process", lambda: Process)
    monkeypatch.setattr("app.db.after_fork", lambda: None)  # this is no forked process
    monkeypatch.setenv(worker_app.WARM_UP_VARIABLE, "0")
    monkeypatch.setenv(worker_app.GPU_IDS_VARIABLE, "4,5")
    seen = []
    for index in (0, 1, 2):
        Process.index = index
        worker_app._init_pool_process()
        seen.append(__import__("os").environ["CUDA_VISIBLE_DEVICES"])
    assert seen == ["4", "5", "4"]


def test_chunks_are_sent_from_both_halves_in_turn() -> None:
    from app.worker.dispatch import halves_interleaved

    assert halves_interleaved([1, 2, 3, 4, 5]) == [1, 4, 2, 5, 3]
    assert halves_interleaved([1, 2, 3, 4]) == [1, 3, 2, 4]
    assert halves_interleaved([7]) == [7]
    assert halves_interleaved([]) == []
