"""Checking a run's theorems in several processes of this machine.

A check is CPU-bound Python and JAX tracing, one core's worth; a run over a large
selection is spread over worker processes, each of which loads the checkers and
the declarations once (from the same database, read only) and checks chunks of
theorems in turn. The process that owns the run records every result as it
arrives, so the database has one writer. Workers are forked from a template
process of the run that has imported JAX and the checkers without starting JAX's
runtime (forked.py; JAX does not survive a fork once started), or, where this
system cannot fork so, started with `spawn`, which costs each of them seconds of
imports. Either way a worker costs start-up: `jobs_for` uses them only for
selections large enough to repay it.

Each result is what the same check gives in one process: a check depends on the
theorem, its declarations and the run's parameters, not on what the process
checked before. A worker that dies (out of memory, killed) ends the theorems it
had been given and not finished as `error`, saying so; the other workers go on and
the run still completes.

Memory: what a process keeps between theorems is bounded (checkers/runtime/memory.py, the
caches' sizes), and a worker drops its compiled programs after each theorem (a run
checks each theorem once), and hands the C heap's free pages back to the system after
a theorem that left it larger (check_worker.py). Its XLA compilations run on its
share of the cores (`compile_threads_for`): on cores the other workers keep busy more
threads compile no faster, and each compilation in flight holds its own memory. But
XLA's compilations and the native libraries' heaps still keep part of what a large
theorem took. So a worker
measures itself after each theorem and retires once it holds more than
`WORKER_MEMORY_MB`, or has checked `WORKER_THEOREMS` theorems: it hands back the rest
of its chunk, and a fresh worker takes its place, so what one process holds does not
grow with the corpus. Workers retire one at a time, as each reaches its bound, never
waiting for one another. A fresh worker costs seconds of start-up and recomputes the
shared values (large constant definitions) its predecessor had cached, so the bounds
are not lower.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from app.services.runs.check_worker import forked_main, load_template, worker_main
from app.services.runs.forked import ForkedProcess, Template, TemplateLost, forking_supported
from app.services.runs.recording import error_payload
from app.services.runs.selection import CheckParams

__all__ = [
    "PARALLEL_FROM",
    "Workers",
    "check_in_workers",
    "compile_threads_for",
    "jobs_for",
    "shared_database",
]

# below this many theorems one process is faster: each worker first spends seconds
# importing JAX and loading the declarations
PARALLEL_FROM = 200
MAX_JOBS = 4
# a worker retires, and a fresh one takes its place, once it holds more than this many
# MB (its resident set, measured after each theorem) or has checked this many theorems
WORKER_MEMORY_MB = 1000
WORKER_THEOREMS = 512


def jobs_for(requested: int | None, selected: int) -> int:
    """Worker processes for a run: `requested` when given (1: check in this process);
    otherwise one per core, at most MAX_JOBS, for PARALLEL_FROM theorems or more."""
    if requested is not None:
        return max(1, requested)
    if selected < PARALLEL_FROM:
        return 1
    return max(1, min(MAX_JOBS, os.cpu_count() or 1))


def shared_database(url: str) -> bool:
    """Whether other processes can open the database at `url` (not an in-memory SQLite)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return True
    database = parsed.database or ""
    return database not in ("", ":memory:") and parsed.query.get("mode") != "memory"


def compile_threads_for(jobs: int) -> int:
    """XLA compilation threads for each of `jobs` workers: the cores they share, divided
    among them (at least one). More would not compile faster on cores the other workers
    keep busy, and each compilation in flight holds its own memory."""
    return max(1, (os.cpu_count() or 1) // max(1, jobs))


@dataclass
class _Worker:
    process: BaseProcess | ForkedProcess
    conn: Connection
    chunk: list[str] | None = None

    def give(self, chunk: list[str] | None, params_json: dict[str, Any]) -> None:
        """Send the next chunk, or None: stop (where the process still listens)."""
        self.chunk = chunk
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None if chunk is None else (chunk, params_json))

    def end(self) -> None:
        """Stop the process (it is idle or retiring; a stuck one is killed)."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.close()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _chunks(names: Sequence[str], jobs: int) -> list[list[str]]:
    # small chunks keep the workers evenly loaded (a few theorems take seconds)
    size = max(1, min(8, len(names) // (jobs * 16) or 1))
    return [list(names[k : k + size]) for k in range(0, len(names), size)]


def check_in_workers(
    names: Sequence[str],
    params: CheckParams,
    *,
    jobs: int,
    database_url: str,
    jax_cache_dir: str | None,
) -> Iterator[list[dict[str, Any]]]:
    """The result payload of every theorem in `names`, as the workers finish them (not in
    order), in batches: one per answer of a worker (`Workers.batches`), so the caller can
    record each batch at once. A worker that retires (see the module) hands back what it
    had not checked of its chunk and a fresh one takes its place; a worker that dies ends
    what it was given as `error` payloads, and the others go on."""
    return Workers(jobs, database_url, jax_cache_dir).batches(names, params)


class Workers:
    """Up to `jobs` worker processes at a time, forked from a template process of the
    run (forked.py) where this system allows, else started afresh; `started` counts
    those started, `forked` those of them forked."""

    def __init__(
        self, jobs: int, database_url: str, jax_cache_dir: str | None, *, fork: bool = True
    ) -> None:
        self.jobs = jobs
        self.database_url = database_url
        self.jax_cache_dir = jax_cache_dir
        self.started = self.forked = 0
        self._context = get_context("spawn")
        self._fork = fork and forking_supported()
        self._template: Template | None = None

    def _start(self, chunk: list[str], params_json: dict[str, Any]) -> _Worker:
        limits = (WORKER_THEOREMS, WORKER_MEMORY_MB)
        args = (self.jax_cache_dir, limits, compile_threads_for(self.jobs))
        worker = self._forked(args) if self._fork else None
        if worker is None:
            parent, child = self._context.Pipe()
            process = self._context.Process(
                target=worker_main, args=(child, self.database_url, *args), daemon=True
            )
            process.start()
            child.close()
            worker = _Worker(process, parent)
        self.started += 1
        worker.give(chunk, params_json)
        return worker

    def _forked(self, args: tuple[Any, ...]) -> _Worker | None:
        """A worker forked from the template (started on first use), or None where it
        cannot fork: then this run's workers are started afresh."""
        if self._template is None:
            self._template = Template(self._context, load_template)
        try:
            process, conn = self._template.fork(
                self._context, forked_main, self.database_url, *args
            )
        except TemplateLost:
            self._fork = False
            self._close_template()
            return None
        self.forked += 1
        return _Worker(process, conn)

    def _close_template(self) -> None:
        if self._template is not None:
            self._template.close()
            self._template = None

    def check(self, names: Sequence[str], params: CheckParams) -> Iterator[dict[str, Any]]:
        """The result payload of every theorem in `names`, as the workers finish them."""
        for batch in self.batches(names, params):
            yield from batch

    def batches(self, names: Sequence[str], params: CheckParams) -> Iterator[list[dict[str, Any]]]:
        """The result payloads of `names` as the workers answer: each batch is one worker's
        answer (its chunk, or what it checked of it before retiring) or the `error`
        payloads of a chunk whose worker died; every name is in exactly one batch."""
        todo = deque(_chunks(names, self.jobs))
        params_json = params.to_json()
        workers: list[_Worker] = []
        try:
            while todo or workers:
                while todo and len(workers) < self.jobs:
                    workers.append(self._start(todo.popleft(), params_json))
                ready = set(wait([w.conn for w in workers] + [w.process.sentinel for w in workers]))
                for worker in list(workers):
                    if worker.conn not in ready and worker.process.is_alive():
                        continue
                    got = _answer(worker)  # an answer sent just before exiting is read too
                    if got is not None:
                        results, left, retire = got
                        if left:
                            todo.appendleft(left)
                        if not retire and todo:
                            worker.give(todo.popleft(), params_json)  # busy while we record
                        else:
                            worker.give(None, params_json)
                            worker.end()
                            workers.remove(worker)
                        yield results
                    else:  # it died: what it was given was not checked
                        worker.end()
                        workers.remove(worker)
                        lost = _WorkerLost(worker.process.exitcode)
                        yield [error_payload(name, params, lost) for name in worker.chunk or ()]
        finally:
            for worker in workers:
                worker.give(None, params_json)
                worker.end()
            self._close_template()


def _answer(worker: _Worker) -> tuple[list[dict[str, Any]], list[str], bool] | None:
    """The worker's answer to its chunk, or None where it died instead (its end of the
    pipe closed)."""
    try:
        answer = worker.conn.recv()
    except (EOFError, OSError):
        worker.process.join()
        return None
    return answer


class _WorkerLost(Exception):
    def __init__(self, exitcode: int | None) -> None:
        super().__init__(
            f"its check worker process ended before it finished (exit code {exitcode})"
        )
