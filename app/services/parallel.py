"""Checking a run's theorems in several processes of this machine.

A check is CPU-bound Python and JAX tracing, one core's worth; a run over a large
selection is spread over worker processes, each of which loads the checkers and
the declarations once (from the same database, read only) and checks chunks of
theorems in turn. The process that owns the run records every result as it
arrives, so the database has one writer. Workers are started with `spawn` (JAX
does not survive `fork`), which costs each of them a few seconds of start-up:
`jobs_for` uses them only for selections large enough to repay it.

Each result is what the same check gives in one process: a check depends on the
theorem, its declarations and the run's parameters, not on what the process
checked before. A worker that dies (out of memory, killed) ends the theorems it
had not finished as `error`, saying so; the run still completes.

Memory: what a process keeps between theorems is bounded (checkers/memory.py, the
caches' sizes), but XLA's compilations and the native libraries' heaps leave some of
what a large theorem took behind. So a worker checks at most `WORKER_THEOREMS`
theorems and is then replaced by a fresh one: the run goes on in generations of
workers, and what one process holds at its largest does not grow with the corpus.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import Any

from app.services.recording import error_payload
from app.services.selection import CheckParams

__all__ = ["PARALLEL_FROM", "check_in_workers", "check_one", "jobs_for", "shared_database"]

# below this many theorems one process is faster: each worker first spends seconds
# importing JAX and loading the declarations
PARALLEL_FROM = 200
MAX_JOBS = 4
# a worker checks at most this many theorems before a fresh one takes over
WORKER_THEOREMS = 512

_WORKER: dict[str, Any] = {}


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


def _start_worker(database_url: str, jax_cache_dir: str | None) -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    import checkers
    from app import crud
    from checkers.jaxsetup import configure_compilation_cache

    if jax_cache_dir is not None:
        configure_compilation_cache(jax_cache_dir)
    engine = create_engine(database_url)
    with Session(engine) as session:
        records = crud.current_declaration_records(session)
        _WORKER["env"] = checkers.Environment.from_declarations(records)
    engine.dispose()
    _WORKER["backend"] = checkers


def check_one(backend: Any, env: Any, name: str, params: CheckParams) -> dict[str, Any]:
    """One theorem's result payload; a checker that raises gives an `error` payload."""
    try:
        return dict(
            backend.check(
                name,
                env,
                trials=params.trials,
                seed=params.seed,
                dtype=params.dtype,
                dims=None if params.dims is None else dict(params.dims),
                draws=params.draws,
            ).to_json()
        )
    except Exception as exc:  # one broken checker never stops the others
        return error_payload(name, params, exc)


def _check_chunk(names: Sequence[str], params_json: dict[str, Any]) -> list[dict[str, Any]]:
    params = CheckParams.from_json(params_json)
    return [check_one(_WORKER["backend"], _WORKER["env"], name, params) for name in names]


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
) -> Iterator[dict[str, Any]]:
    """The result payload of every theorem in `names`, as the workers finish them (not in
    order); a chunk whose worker died gives `error` payloads for its theorems."""
    context = get_context("spawn")
    chunks = _chunks(names, jobs)
    for generation in _generations(chunks, jobs):
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=context,
            initializer=_start_worker,
            initargs=(database_url, jax_cache_dir),
        ) as pool:
            pending: dict[Future[list[dict[str, Any]]], list[str]] = {
                pool.submit(_check_chunk, chunk, params.to_json()): chunk for chunk in generation
            }
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = pending.pop(future)
                    try:
                        yield from future.result()
                    except Exception as exc:  # the worker died: these were not checked
                        for name in chunk:
                            yield error_payload(name, params, _WorkerLost(exc))


def _generations(chunks: list[list[str]], jobs: int) -> Iterator[list[list[str]]]:
    """The chunks in groups of about `WORKER_THEOREMS` theorems a worker, each checked by
    fresh workers (see the module)."""
    group: list[list[str]] = []
    held = 0
    for chunk in chunks:
        group.append(chunk)
        held += len(chunk)
        if held >= WORKER_THEOREMS * jobs:
            yield group
            group, held = [], 0
    if group:
        yield group


class _WorkerLost(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"its check worker process ended before it finished ({cause})")
