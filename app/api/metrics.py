"""Prometheus metrics: one registry per application.

- `proofbridge_http_requests_total{method,route,status}` and
  `proofbridge_http_request_duration_seconds{method,route}`, by route template
  (`/api/v1/theorems/{name}`, not the concrete path; `<unmatched>` for unknown paths);
- `proofbridge_runs_created_total`, `proofbridge_ingestions_total` and
  `proofbridge_check_results_total{status}`: what this process did;
- `proofbridge_runs{status}`, `proofbridge_results{status}`, `proofbridge_theorems{status}`
  (theorems by their newest result, `unchecked` included) and `proofbridge_database_up`:
  read from the database at scrape time, so they agree across processes.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db import get_sessionmaker
from app.models import RESULT_STATUSES, RUN_STATUSES, Result, Run

__all__ = ["DatabaseCollector", "Metrics", "RequestMetrics", "route_template"]

log = logging.getLogger("proofbridge.metrics")
UNMATCHED = "<unmatched>"
THEOREM_STATUSES = (*RESULT_STATUSES, "unchecked")


class DatabaseCollector(Collector):
    """Counts by status, queried when Prometheus scrapes."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, ...]:
        return (
            GaugeMetricFamily("proofbridge_runs", "Check runs by status", labels=["status"]),
            GaugeMetricFamily(
                "proofbridge_results", "Recorded check results by status", labels=["status"]
            ),
            GaugeMetricFamily(
                "proofbridge_theorems",
                "Live theorems by the status of their newest result",
                labels=["status"],
            ),
            GaugeMetricFamily(
                "proofbridge_database_up", "1 when the database answered the last scrape"
            ),
        )

    def describe(self) -> Iterator[Metric]:
        yield from self._families()

    def collect(self) -> Iterator[Metric]:
        from app.services.reading import count_by_status, theorem_status_counts

        runs, results, theorems, up = self._families()
        try:
            with get_sessionmaker(self.database_url)() as session:
                by_run = count_by_status(session, model=Run)
                by_result = count_by_status(session, model=Result)
                by_theorem = theorem_status_counts(session)
        except Exception as exc:  # a scrape must still answer while the database is down
            log.warning("metrics: database unavailable: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        for family, statuses, counts in (
            (runs, RUN_STATUSES, by_run),
            (results, RESULT_STATUSES, by_result),
            (theorems, THEOREM_STATUSES, by_theorem),
        ):
            for status in statuses:
                family.add_metric([status], counts.get(status, 0))
            yield family
        up.add_metric([], 1)
        yield up


class Metrics:
    """The registry of one application and the metrics it updates itself."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "proofbridge_http_requests",
            "HTTP requests by method, route template and status code",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "proofbridge_http_request_duration_seconds",
            "HTTP request latency by method and route template",
            ["method", "route"],
            registry=self.registry,
        )
        self.runs_created = Counter(
            "proofbridge_runs_created", "Check runs created through the API", registry=self.registry
        )
        self.ingestions = Counter(
            "proofbridge_ingestions", "Ingestions through the API", registry=self.registry
        )
        self.check_results = Counter(
            "proofbridge_check_results",
            "Check results recorded by this process's in-process worker, by status",
            ["status"],
            registry=self.registry,
        )
        self._database: DatabaseCollector | None = None

    def watch_database(self, database_url: str) -> None:
        """Add (or re-point) the database counts."""
        if self._database is not None:
            if self._database.database_url == database_url:
                return
            self.registry.unregister(self._database)
        self._database = DatabaseCollector(database_url)
        self.registry.register(self._database)

    def record_result(self, element: dict[str, Any]) -> None:
        self.check_results.labels(str(element.get("status", "unknown"))).inc()


_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


def route_template(scope: Scope) -> str:
    """The matched route's template with the prefixes it is mounted under
    (`/api/v1/theorems/{name}`), found by rendering the route's own template with the path
    parameters and taking what precedes it in the path; `<unmatched>` for unknown paths.
    A parameter's converter is left out of the label, so a route taking the rest of the
    path (`{name:path}`) keeps the series it had."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if not isinstance(template, str):
        return UNMATCHED
    params = scope.get("path_params") or {}
    rendered = _PARAM.sub(lambda m: str(params.get(m.group(1), m.group(0))), template)
    path = str(scope.get("path", ""))
    bare = _PARAM.sub(r"{\1}", template)  # `{name:path}` is labelled `{name}`
    if rendered and path.endswith(rendered):
        return path[: len(path) - len(rendered)] + bare
    return bare


class RequestMetrics:
    """ASGI middleware counting requests and their latency by route template."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_with_status)
        finally:
            route = route_template(scope)
            method = str(scope.get("method", ""))
            self.metrics.requests.labels(method, route, str(status)).inc()
            self.metrics.latency.labels(method, route).observe(time.perf_counter() - start)
