"""Whether the broker answers, and which workers it has seen: what `/healthz` reports.

Each worker's main process announces itself on the broker every `PROOFBRIDGE_HEARTBEAT_S`
seconds: a key `proofbridge:worker:<node name>` holding the queues it consumes and its
concurrency, which expires after `PROOFBRIDGE_STALE_AFTER_S` (a worker killed, or one
whose pool never started, drops out then) and is deleted when the worker stops. How long
ago a worker was seen is read from its key's remaining time to live, so the clocks of the
workers and the server need not agree. Every call has a short socket timeout: a broker
that does not answer is reported as such, never waited for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import redis

__all__ = [
    "KEY_PREFIX",
    "PROBE_TIMEOUT_S",
    "BrokerState",
    "WorkerSeen",
    "announce",
    "broker_client",
    "probe",
    "redis_url",
    "withdraw",
]

KEY_PREFIX = "proofbridge:worker:"
PROBE_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class WorkerSeen:
    name: str
    queues: list[str]
    concurrency: int | None
    seen_s_ago: float


@dataclass(frozen=True)
class BrokerState:
    reachable: bool
    error: str | None = None
    workers: list[WorkerSeen] = field(default_factory=list)


def redis_url(url: str) -> str:
    """The broker URL as redis-py reads it: kombu's `redis+socket:///path` (and
    `socket://`) is `unix:///path`, its `virtual_host` query the database number."""
    for scheme in ("redis+socket://", "socket://"):
        if url.startswith(scheme):
            return "unix://" + url.removeprefix(scheme).replace("virtual_host=", "db=")
    return url


@lru_cache(maxsize=8)
def broker_client(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> redis.Redis:
    """A client of the Redis broker at `url` whose every call gives up after `timeout_s`."""
    return redis.Redis.from_url(
        redis_url(url),
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry_on_timeout=False,
    )


def announce(
    client: redis.Redis, name: str, *, queues: list[str], concurrency: int | None, ttl_s: float
) -> None:
    """Say that worker `name` is alive for the next `ttl_s` seconds."""
    info = {"queues": queues, "concurrency": concurrency, "ttl_s": ttl_s}
    client.set(KEY_PREFIX + name, json.dumps(info), px=max(1, int(ttl_s * 1000)))


def withdraw(client: redis.Redis, name: str) -> None:
    """Say that worker `name` stopped."""
    client.delete(KEY_PREFIX + name)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def probe(url: str, *, timeout_s: float = PROBE_TIMEOUT_S) -> BrokerState:
    """Whether the broker at `url` answers, and the workers it has seen (by name)."""
    try:
        client = broker_client(url, timeout_s)
        client.ping()
        keys = sorted(client.scan_iter(match=KEY_PREFIX + "*", count=1000))
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.get(key)
            pipe.pttl(key)
        answers = pipe.execute() if keys else []
    except (redis.RedisError, OSError, ValueError) as exc:
        return BrokerState(reachable=False, error=_first_line(exc))
    workers = []
    for key, value, ttl_ms in zip(keys, answers[::2], answers[1::2], strict=True):
        if value is None:  # expired in between
            continue
        try:
            info: Any = json.loads(value)
        except ValueError:
            info = {}
        if not isinstance(info, dict):
            info = {}
        queues, concurrency = info.get("queues"), info.get("concurrency")
        ttl_s = info.get("ttl_s")
        ttl_s = float(ttl_s) if isinstance(ttl_s, int | float) else 0.0
        workers.append(
            WorkerSeen(
                name=key.decode(errors="replace").removeprefix(KEY_PREFIX),
                queues=[str(q) for q in queues] if isinstance(queues, list) else [],
                concurrency=concurrency if isinstance(concurrency, int) else None,
                seen_s_ago=round(max(0.0, ttl_s - max(0, ttl_ms) / 1000), 1),
            )
        )
    return BrokerState(reachable=True, workers=workers)
