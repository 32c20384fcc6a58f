"""Theorem-checks per second: the in-process runner, one Celery worker, two workers.

    python bench/workers.py                                   # the seed page, 200 theorems
    python bench/workers.py --tree ../lean4-mlir/LeanMlir/Proofs

For each corpus (the seed page with its theorems copied under new names until it holds
`--replicate` theorems; and, with `--tree`, a whole Lean tree), ingested into a fresh
PostgreSQL schema, one run is checked three ways in the same benchmark run, each on a
fresh JAX compilation cache:

- `inprocess`: the server's in-process runner (no broker), in a process of its own;
- `worker1`: one `proofbridge worker --concurrency 1`, through a private Redis server;
- `worker2`: two such workers.

The clock runs from the moment the run is handed over (submitted to the runner, or its
chunks sent to the broker) until its last result is recorded. Every process that checks
is warm when it starts (JAX imported and the declarations loaded: a worker's pool process
does so when it starts, the runner is told to), and every JAX cache is cold: compiling is
inside the clock, for every mode.
Reported: wall time, checks per second, the ratios against `worker1` and `inprocess`,
the statuses (which must agree between the modes), and the dispatch overhead: the time to
publish one chunk message, and the extra time per task of `worker1` over `inprocess`.
Needs the PostgreSQL server of PROOFBRIDGE_TEST_POSTGRES_URL and `redis-server`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from app import models  # noqa: E402
from app.migrate import upgrade_database  # noqa: E402
from app.services.ingestion import ingest_paths  # noqa: E402
from app.services.runs import (  # noqa: E402
    CheckParams,
    create_run,
    plan_run,  # noqa: E402
)

PROOFBRIDGE = Path(sys.executable).with_name("proofbridge")
SEED_PAGE = ROOT.parent / "shared" / "seeds" / "004_6d8c43833ffb9c10.txt"
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
CHUNK_SIZE = 8

CHILD = """
import json, sys, time
from app.services.runs import InProcessRunner
runner = InProcessRunner(sys.argv[1])
runner.warm_up().result()
start = time.perf_counter()
status = runner.submit(int(sys.argv[2])).result()
elapsed = time.perf_counter() - start
runner.stop()
print(json.dumps({"status": status, "wall_s": elapsed}))
"""


def replicated_page(page: Path, theorems: int, out: Path) -> Path:
    """The page with its theorem blocks copied under new names until it has `theorems`."""
    body = page.read_text(encoding="utf-8")
    blocks = re.findall(
        r"^theorem (\S+)(.*?)(?=^theorem |^noncomputable def |^def |\Z)", body, flags=re.M | re.S
    )
    have = len(blocks)
    extra: list[str] = []
    k = 0
    while have + len(extra) < theorems:
        name, rest = blocks[k % len(blocks)]
        extra.append(f"theorem {name}_copy{k // len(blocks)}{rest.rstrip()}\n\n")
        k += 1
    out.write_text(body.rstrip() + "\n\n" + "".join(extra), encoding="utf-8")
    return out


class Schema:
    def __init__(self, server: str) -> None:
        self.name = f"pbbench_{uuid.uuid4().hex[:12]}"
        self.admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with self.admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{self.name}"'))
        self.url = (
            make_url(server)
            .update_query_dict({"options": f"-csearch_path={self.name}"})
            .render_as_string(hide_password=False)
        )

    def drop(self) -> None:
        with self.admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{self.name}" CASCADE'))
        self.admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    """A private redis-server without persistence: a restart loses every message."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.start()

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
            ],
            check=True,
            capture_output=True,
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
        for _ in range(200):
            ping = subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
            )
            if (ping.stdout.strip() == "PONG") == up:
                return
            time.sleep(0.1)
        raise RuntimeError(f"redis on {self.port} did not {'start' if up else 'stop'}")


def _env(database_url: str, broker_url: str | None, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env.update(
        PYTHONPATH=str(ROOT),
        PROOFBRIDGE_DATABASE_URL=database_url,
        PROOFBRIDGE_JAX_CACHE_DIR=str(cache),
        PROOFBRIDGE_DATA_DIR=str(cache.parent),
    )
    if broker_url:
        env["PROOFBRIDGE_BROKER_URL"] = broker_url
    return env


def _new_run(url: str, trials: int) -> tuple[int, list[int], int]:
    engine = create_engine(url)
    with Session(engine) as session:
        run = create_run(session, params=CheckParams(trials=trials), trigger="api")
        chunks = [c.id for c in plan_run(session, run, chunk_size=CHUNK_SIZE)]
        session.commit()
        total = run.total
    engine.dispose()
    return run.id, chunks, total


def _counts(url: str, run_id: int) -> tuple[str, dict[str, int], set[str]]:
    engine = create_engine(url)
    with Session(engine) as session:
        run = session.get(models.Run, run_id)
        assert run is not None
        res = models.Result
        counts = dict(
            session.execute(
                select(res.status, func.count()).where(res.run_id == run_id).group_by(res.status)
            ).all()
        )
        workers = set(session.scalars(select(res.worker).where(res.run_id == run_id).distinct()))
        status = run.status
    engine.dispose()
    return status, {k: int(v) for k, v in counts.items()}, {w for w in workers if w}


def _wait(url: str, run_id: int, start: float, timeout: float) -> float:
    engine = create_engine(url)
    try:
        while time.perf_counter() - start < timeout:
            with engine.connect() as c:
                status = c.execute(
                    select(models.Run.status).where(models.Run.id == run_id)
                ).scalar_one()
            if status not in ("queued", "running"):
                return time.perf_counter() - start
            time.sleep(0.1)
    finally:
        engine.dispose()
    raise RuntimeError(f"run {run_id} not finished after {timeout} s")


def measure_inprocess(url: str, trials: int, workdir: Path) -> dict[str, Any]:
    run_id, chunks, total = _new_run(url, trials)
    cache = workdir / "cache-inprocess" / "jax"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, url, str(run_id)],
        cwd=ROOT,
        env=_env(url, None, cache),
        capture_output=True,
        text=True,
        check=True,
    )
    wall = float(json.loads(out.stdout.strip().splitlines()[-1])["wall_s"])
    return _report("inprocess", url, run_id, total, len(chunks), wall)


def measure_workers(url: str, trials: int, workdir: Path, redis: Redis, n: int) -> dict[str, Any]:
    from app.db import get_sessionmaker
    from app.settings import Settings
    from app.worker import CeleryDispatcher, create_celery

    cache = workdir / f"cache-worker{n}" / "jax"
    procs, logs, paths = [], [], []
    for k in range(n):
        paths.append(workdir / f"worker{n}-{k}.log")
        log = paths[-1].open("wb")
        logs.append(log)
        procs.append(
            subprocess.Popen(
                [
                    str(PROOFBRIDGE),
                    "worker",
                    "--queues",
                    "cpu,light",
                    "--concurrency",
                    "1",
                    "--hostname",
                    f"bench{n}-{k}@%h",
                    "--loglevel",
                    "INFO",
                ],
                cwd=ROOT,
                env=_env(url, redis.url, cache),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    deadline = time.monotonic() + 300
    while sum(p.read_bytes().count(b"pool process warm in") for p in paths) < n:
        if time.monotonic() > deadline:
            raise RuntimeError("the workers did not warm up: " + paths[0].read_text())
        time.sleep(0.2)
    settings = Settings(
        _env_file=None,
        database_url=url,
        broker_url=redis.url,  # type: ignore[call-arg]
        jax_cache_dir=None,
    )
    dispatcher = CeleryDispatcher(
        create_celery(settings), settings, get_sessionmaker(url, writer=True)
    )
    run_id, chunks, total = _new_run(url, trials)
    start = time.perf_counter()
    sent = dispatcher.dispatch_run(run_id)
    publish_s = time.perf_counter() - start
    wall = _wait(url, run_id, start, timeout=3600)
    for p in procs:
        os.killpg(p.pid, 15)
    for p in procs:
        p.wait(timeout=60)
    for log in logs:
        log.close()
    report = _report(f"worker{n}", url, run_id, total, len(chunks), wall)
    report["publish_ms_per_task"] = 1000 * publish_s / max(1, len(sent))
    return report


def _report(
    mode: str, url: str, run_id: int, total: int, tasks: int, wall: float
) -> dict[str, Any]:
    status, counts, workers = _counts(url, run_id)
    assert sum(counts.values()) == total, (mode, counts, total)
    return {
        "mode": mode,
        "run": run_id,
        "theorems": total,
        "tasks": tasks,
        "wall_s": wall,
        "checks_per_s": total / wall,
        "status": status,
        "counts": counts,
        "workers": sorted(workers),
    }


def measure_bookkeeping(url: str) -> dict[str, Any]:
    """The task code's own cost per theorem, without checking: a run executed chunk by
    chunk with a check that answers `pass` at once (claim, heartbeats, the result's row,
    its dependencies, the counts). The ceiling of results one process records per second."""
    from sqlalchemy.orm import sessionmaker

    from app.services.runs import Limits, execute_chunk

    run_id, chunks, total = _new_run(url, 1)
    engine = create_engine(url)
    make = sessionmaker(bind=engine, expire_on_commit=False)

    class Instant:
        def prepare(self, session: Any) -> None:
            pass

        def __call__(self, session: Any, name: str, params: Any) -> dict[str, Any]:
            return {"name": name, "status": "pass", "checker": "derived", "trials": 1}

    instant = Instant()

    start = time.perf_counter()
    for chunk in chunks:
        execute_chunk(make, chunk, check=instant, worker="bench", limits=Limits())
    wall = time.perf_counter() - start
    engine.dispose()
    return {
        "theorems": total,
        "wall_s": wall,
        "results_per_s": total / wall,
        "ms_per_result": 1000 * wall / total,
    }


def bench_corpus(
    label: str, paths: list[str], server: str, trials: int, workdir: Path, redis: Redis
) -> dict[str, Any]:
    schema = Schema(server)
    try:
        upgrade_database(schema.url)
        engine = create_engine(schema.url)
        with Session(engine) as session:
            report = ingest_paths(session, paths=paths)
            session.commit()
        engine.dispose()
        print(f"[{label}] ingested {report.theorems} theorems", flush=True)
        modes = []
        for measure in (
            lambda: measure_inprocess(schema.url, trials, workdir),
            lambda: measure_workers(schema.url, trials, workdir, redis, 1),
            lambda: measure_workers(schema.url, trials, workdir, redis, 2),
        ):
            m = measure()
            print(
                f"[{label}] {m['mode']}: {m['wall_s']:.1f} s, {m['checks_per_s']:.1f} checks/s, "
                f"{m['counts']}",
                flush=True,
            )
            modes.append(m)
        bookkeeping = measure_bookkeeping(schema.url)
        print(
            f"[{label}] bookkeeping alone: {bookkeeping['results_per_s']:.0f} results/s", flush=True
        )
    finally:
        schema.drop()
    by = {m["mode"]: m for m in modes}
    same = len({json.dumps(m["counts"], sort_keys=True) for m in modes}) == 1
    extra = (by["worker1"]["wall_s"] - by["inprocess"]["wall_s"]) / by["worker1"]["tasks"]
    return {
        "corpus": label,
        "modes": modes,
        "two_over_one": by["worker2"]["checks_per_s"] / by["worker1"]["checks_per_s"],
        "one_worker_over_inprocess": by["worker1"]["checks_per_s"]
        / by["inprocess"]["checks_per_s"],
        "worker_overhead_ms_per_task": 1000 * extra,
        "publish_ms_per_task": by["worker1"]["publish_ms_per_task"],
        "same_statuses": same,
        "bookkeeping": bookkeeping,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--tree", type=Path, help="also a whole Lean tree, e.g. lean4-mlir/LeanMlir/Proofs"
    )
    ap.add_argument("--replicate", type=int, default=200, help="theorems of the seed corpus (200)")
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--skip-seed", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "workers.json")
    args = ap.parse_args(argv)
    server = os.environ.get("PROOFBRIDGE_TEST_POSTGRES_URL", DEFAULT_PG)
    workdir = Path(tempfile.mkdtemp(prefix="pb-workers-"))
    redis = Redis(workdir)
    results: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "trials": args.trials,
        "chunk_size": CHUNK_SIZE,
        "corpora": [],
    }
    try:
        if not args.skip_seed:
            page = replicated_page(SEED_PAGE, args.replicate, workdir / "seed200.txt")
            results["corpora"].append(
                bench_corpus(
                    f"seed page x{args.replicate}", [str(page)], server, args.trials, workdir, redis
                )
            )
        if args.tree is not None:
            results["corpora"].append(
                bench_corpus("upstream tree", [str(args.tree)], server, args.trials, workdir, redis)
            )
    finally:
        redis.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    for c in results["corpora"]:
        print(
            f"{c['corpus']}: two workers / one = {c['two_over_one']:.2f}x; one worker / "
            f"in-process = {c['one_worker_over_inprocess']:.3f}; worker overhead "
            f"{c['worker_overhead_ms_per_task']:.1f} ms/task; publish "
            f"{c['publish_ms_per_task']:.2f} ms/task; same statuses: {c['same_statuses']}"
        )
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
