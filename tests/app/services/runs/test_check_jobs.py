"""A run checked in worker processes: the same results, recorded once each, in order."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.services.ingestion.ingest import ingest_paths
from app.services.runs import check_worker, parallel
from app.services.runs.checks import CheckParams, run_checks
from app.services.runs.forked import Template, TemplateLost, forking_supported
from app.services.runs.parallel import (
    PARALLEL_FROM,
    compile_threads_for,
    jobs_for,
    shared_database,
)
from app.services.runs.selection import select_theorems

pytest.importorskip("checkers.result")

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
COMPARED = ("name", "status", "checker", "reason", "max_abs_err", "max_rel_err", "dims", "trial")


def test_jobs_for_large_selections_only(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert jobs_for(None, PARALLEL_FROM - 1) == 1
    assert jobs_for(None, PARALLEL_FROM) == 4  # one per core, at most 4
    assert jobs_for(3, 5) == 3 and jobs_for(1, 10_000) == 1


def test_workers_share_the_cores_for_compiling(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert [compile_threads_for(j) for j in (1, 2, 3, 4, 8, 16)] == [8, 4, 2, 2, 1, 1]
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert compile_threads_for(2) == 1


def test_in_memory_sqlite_is_never_shared_with_workers():
    assert not shared_database("sqlite://")
    assert not shared_database("sqlite:///:memory:")
    assert not shared_database("sqlite:///file:pb?mode=memory&uri=true")
    assert shared_database("sqlite:////tmp/pb.db")
    assert shared_database("postgresql+psycopg://postgres@127.0.0.1:5432/test")


def test_workers_give_the_results_of_one_process(session: Session) -> None:
    report = ingest_paths(session, paths=[str(EXAMPLES)])
    assert not report.errors
    session.commit()
    params = CheckParams(trials=8, seed=3)
    here = run_checks(session, params=params, jobs=1)
    there = run_checks(session, params=params, jobs=2)
    # examples/ holds one false statement on purpose
    assert here.status == there.status == "failed"
    assert [r["name"] for r in there.results if r["status"] != "pass"] == ["Examples.sqrt_sq_draft"]
    assert len(here.results) >= 15
    assert [[r[k] for k in COMPARED] for r in there.results] == [
        [r[k] for k in COMPARED] for r in here.results
    ]
    assert "pass" in {r["status"] for r in there.results}
    res = models.Result
    recorded = session.execute(
        select(res.declaration_id, func.count())
        .where(res.run_id == there.run_id)
        .group_by(res.declaration_id)
    ).all()
    assert len(recorded) == len(there.results) and all(n == 1 for _, n in recorded)
    run = session.get(models.Run, there.run_id)
    assert run is not None and run.completed == len(there.results)
    assert run.passed == sum(r["status"] == "pass" for r in there.results)


def _examples(session: Session) -> list[str]:
    report = ingest_paths(session, paths=[str(EXAMPLES)])
    assert not report.errors
    session.commit()
    return select_theorems(session, names=(), module=None, changed_only=False)


def _database_url(session: Session) -> str:
    return session.get_bind().url.render_as_string(hide_password=False)


def test_workers_that_retire_after_every_theorem_give_the_results_of_one_process(
    session: Session, monkeypatch
) -> None:
    names = _examples(session)
    params = CheckParams(trials=8, seed=5)
    here = run_checks(session, params=params, jobs=1)
    # every worker holds more than 0 MB: it retires after its first theorem and hands
    # back the rest of its chunk, which a fresh worker checks
    monkeypatch.setattr(parallel, "WORKER_MEMORY_MB", 0)
    workers = parallel.Workers(2, _database_url(session), None)
    got = {p["name"]: p for p in workers.check(names, params)}
    assert sorted(got) == sorted(names) and len(names) > 8
    assert workers.started == len(names)
    assert [[got[r["name"]][k] for k in COMPARED] for r in here.results] == [
        [r[k] for k in COMPARED] for r in here.results
    ]


def test_workers_retire_after_their_theorem_count(session: Session, monkeypatch) -> None:
    names = _examples(session)
    monkeypatch.setattr(parallel, "WORKER_THEOREMS", 4)
    workers = parallel.Workers(2, _database_url(session), None)
    got = [p["name"] for p in workers.check(names, CheckParams(trials=4, seed=1))]
    assert sorted(got) == sorted(names)
    # 4 theorems a worker; the last two may share the remainder
    assert -(-len(names) // 4) <= workers.started <= -(-len(names) // 4) + 1


def test_a_worker_that_dies_ends_its_chunk_as_error_and_the_run_completes(
    session: Session,
) -> None:
    names = _examples(session)[:5]
    # a database it cannot open: every worker dies starting, before checking anything
    workers = parallel.Workers(2, "sqlite:////nonexistent/dir/pb.db", None)
    got = list(workers.check(names, CheckParams(trials=4)))
    assert sorted(p["name"] for p in got) == sorted(names)
    assert all(p["status"] == "error" for p in got)
    assert all("worker process ended before it finished" in p["reason"] for p in got)
    assert workers.started == len(parallel._chunks(names, 2))


def test_a_worker_measures_its_own_memory() -> None:
    held = check_worker.own_memory_mb()
    if not Path("/proc/self/statm").exists():
        assert held is None  # nothing to measure: the theorem count bounds a worker
        return
    assert held is not None and 10 < held < 10_000
    ballast = bytearray(200 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page: resident
    grown = check_worker.own_memory_mb()
    assert grown is not None and grown >= held + 150
    del ballast


def test_freed_heap_memory_is_handed_back_to_the_system() -> None:
    if check_worker._libc() is None or not Path("/proc/self/statm").exists():
        pytest.skip("no glibc heap to trim on this system")
    import numpy as np

    # 64 KB blocks come from the C heap (under glibc's mmap threshold); keeping every
    # 64th alive leaves the freed ones between them, which free() keeps resident
    blocks = [np.ones(8192) for _ in range(4096)]
    kept = blocks[::64]
    del blocks
    held = check_worker.own_memory_mb()
    check_worker.release_freed_memory()
    after = check_worker.own_memory_mb()
    assert held is not None and after is not None
    assert after <= held - 150, (held, after)  # of the 252 MB freed
    assert all(float(b[0]) == 1.0 for b in kept)  # what is alive stays


def test_workers_are_forked_from_a_template_and_give_the_results_of_one_process(
    session: Session, monkeypatch
) -> None:
    if not forking_supported():
        pytest.skip("no os.fork or pidfds here: workers are started afresh")
    names = _examples(session)
    params = CheckParams(trials=8, seed=5)
    here = run_checks(session, params=params, jobs=1)
    monkeypatch.setattr(parallel, "WORKER_THEOREMS", 3)  # many workers, one template
    for fork in (True, False):
        workers = parallel.Workers(2, _database_url(session), None, fork=fork)
        got = {p["name"]: p for p in workers.check(names, params)}
        assert workers.started >= len(names) // 3
        assert workers.forked == (workers.started if fork else 0)
        assert [[got[r["name"]][k] for k in COMPARED] for r in here.results] == [
            [r[k] for k in COMPARED] for r in here.results
        ]


def _load_nothing() -> str:
    return "loaded"


def _load_and_start_jax() -> str:
    import jax.numpy as jnp

    return str(jnp.ones(2).sum())  # JAX's runtime now runs in the template


def _answer_loaded(conn, loaded, extra) -> None:
    conn.send((loaded, extra, os.getppid()))
    conn.recv()  # until the run says stop


def _die(conn, loaded) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def _template(load):
    if not forking_supported():
        pytest.skip("no os.fork or pidfds here")
    ctx = get_context("spawn")
    template = Template(ctx, load)
    try:
        yield ctx, template
    finally:
        template.close()


def test_a_forked_worker_starts_with_what_the_template_loaded() -> None:
    with _template(_load_nothing) as (ctx, template):
        process, conn = template.fork(ctx, _answer_loaded, 7)
        assert conn.recv() == ("loaded", 7, template.process.pid)
        assert process.is_alive() and process.exitcode is None
        conn.send(None)
        process.join(timeout=10)
        assert not process.is_alive() and process.exitcode == 0
        # a worker killed: its exit code says by which signal, as multiprocessing's do
        dead, _ = template.fork(ctx, _die)
        dead.join(timeout=10)
        assert dead.exitcode == -signal.SIGKILL


def test_a_template_that_started_jax_does_not_fork() -> None:
    with _template(_load_and_start_jax) as (ctx, template):
        with pytest.raises(TemplateLost, match="started JAX's runtime"):
            template.fork(ctx, _answer_loaded, 0)


def test_workers_answer_in_batches_of_at_most_a_chunk(session: Session, monkeypatch) -> None:
    names = _examples(session)
    # chunks of 4 (a selection this small is otherwise given out one theorem at a time)
    monkeypatch.setattr(
        parallel, "_chunks", lambda ns, jobs: [list(ns[k : k + 4]) for k in range(0, len(ns), 4)]
    )
    workers = parallel.Workers(2, _database_url(session), None)
    batches = list(workers.batches(names, CheckParams(trials=4, seed=2)))
    got = [p["name"] for batch in batches for p in batch]
    assert sorted(got) == sorted(names)  # every name in exactly one batch
    assert all(1 <= len(batch) <= 4 for batch in batches)
    assert len(batches) == -(-len(names) // 4)  # one answer a chunk: no worker retired


def test_a_batch_is_committed_before_its_results_are_reported(session: Session) -> None:
    """Each result a run reports (`on_result`) is already in the database, readable by
    another connection, with the run's counts including it."""
    names = _examples(session)
    engine = session.get_bind()
    seen: list[tuple[str, int, int]] = []

    def on_result(element: dict) -> None:
        with Session(engine) as other:  # a connection of its own: only committed rows
            row = other.get(models.Result, element["result_id"])
            run = other.get(models.Run, element["run_id"])
            assert row is not None and row.name == element["name"]
            assert run is not None
            seen.append((element["name"], run.completed, len(seen) + 1))

    outcome = run_checks(session, params=CheckParams(trials=4, seed=2), jobs=2, on_result=on_result)
    assert outcome.status == "failed"  # Examples.sqrt_sq_draft, false on purpose
    assert sorted(name for name, _, _ in seen) == sorted(names)
    # a run's count is committed with its batch: at least every result reported so far
    assert all(completed >= reported for _, completed, reported in seen)
