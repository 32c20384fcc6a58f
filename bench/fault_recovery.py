"""How soon lost work is checked again: faults injected into a run through Celery workers.

    python bench/fault_recovery.py ../lean4-mlir/LeanMlir/Proofs
    python bench/fault_recovery.py CORPUS... --faults worker,pool,redis,api --workers 2

The corpus (any paths `proofbridge ingest` reads) is ingested once into a fresh PostgreSQL
schema. For each fault, a private Redis server, `--workers` workers (`--concurrency 1`
each, warm) and a `proofbridge serve` start afresh; a run over every theorem is posted
through the API, and once `--at` of it is recorded the fault is injected:

- `worker`: the first worker and its pool SIGKILLed (not restarted); lost: its chunk;
- `pool`: the first worker's pool process SIGKILLed (Celery starts another); lost: its
  chunk;
- `redis`: Redis restarted without persistence; lost: every chunk queued or running;
- `api`: Redis holds its writes, a second run over `--api-names` theorems is posted, and
  the server is SIGKILLed while it sends that run's chunks; Redis is then released and
  the server started again; lost: the second run.

Reported for each: the seconds from the fault to the first and to the last result of the
lost theorems (the issue's target: the last within a minute), apart for the chunks the
reconciler sent again (`sent_again_s`: first, last, theorems) and for those delivered from
the message the broker still held (`original_message_s`: not lost, so they wait their turn
behind the queue like any run's chunks), the run's wall time, and
the results lost (theorems without a result) and duplicated (two results for one
theorem) over every run, which must be 0. Needs the PostgreSQL server of
PROOFBRIDGE_TEST_POSTGRES_URL and `redis-server`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import httpx  # noqa: E402
from sqlalchemy import create_engine, func, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402
from workers import Redis, Schema, free_port  # noqa: E402

from app import models  # noqa: E402
from app.migrate import upgrade_database  # noqa: E402
from app.services.ingestion import ingest_paths  # noqa: E402

PROOFBRIDGE = Path(sys.executable).with_name("proofbridge")
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TOKEN = "fault-recovery-bench-token-5e1f"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FAULTS = ("worker", "pool", "redis", "api")


class Cluster:
    """Redis, `n` warm workers and a server, over the database at `url`."""

    def __init__(self, url: str, workdir: Path, n: int, env_extra: dict[str, str]) -> None:
        self.url = url
        self.workdir = workdir
        self.redis = Redis(workdir)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
        self.env.update(
            PYTHONPATH=str(ROOT),
            PROOFBRIDGE_DATABASE_URL=url,
            PROOFBRIDGE_BROKER_URL=self.redis.url,
            PROOFBRIDGE_JAX_CACHE_DIR=str(workdir / "jax"),
            PROOFBRIDGE_DATA_DIR=str(workdir),
            PROOFBRIDGE_API_TOKEN=TOKEN,
            **env_extra,
        )
        self.workers: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        for k in range(n):
            self.logs.append(workdir / f"worker-{k}-{time.time_ns()}.log")
            self.workers.append(
                self._start(
                    "worker",
                    "--queues",
                    "cpu,light",
                    "--concurrency",
                    "1",
                    "--hostname",
                    f"fault{k}@%h",
                    log=self.logs[-1],
                )
            )
        deadline = time.monotonic() + 600
        while sum(p.read_bytes().count(b"pool process warm in") for p in self.logs) < n:
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not warm up: " + self.logs[0].read_text())
            time.sleep(0.5)
        self.server = self.start_server()

    def _start(self, *args: str, log: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(PROOFBRIDGE), *args],
            cwd=ROOT,
            env=self.env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_server(self) -> subprocess.Popen[bytes]:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/api/v1"
        log = self.workdir / f"serve-{time.time_ns()}.log"
        server = self._start("serve", "--host", "127.0.0.1", "--port", str(self.port), log=log)
        deadline = time.monotonic() + 120
        answer = "no answer"
        while time.monotonic() < deadline:
            try:
                got = httpx.get(f"{self.base}/healthz", timeout=3)
                if got.status_code == 200:
                    return server
                answer = f"{got.status_code} {got.text}"
            except httpx.HTTPError as e:
                answer = repr(e)
            time.sleep(0.3)
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the server did not start; healthz: {answer}; its log:\n{tail}")

    def post_run(self, body: dict[str, Any]) -> int:
        answer = httpx.post(f"{self.base}/runs", json=body, headers=AUTH, timeout=600)
        answer.raise_for_status()
        return int(answer.json()["id"])

    def redis_cli(self, *args: str) -> None:
        subprocess.run(
            ["redis-cli", "-p", str(self.redis.port), *args], check=True, capture_output=True
        )

    def close(self) -> None:
        for p in [*self.workers, self.server]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in [*self.workers, self.server]:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        self.redis.stop()


class Reader:
    def __init__(self, url: str) -> None:
        self.engine = create_engine(url)

    def recorded(self, run_id: int) -> int:
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
            return list(s.scalars(select(t).where(t.run_id == run_id)))

    def recorded_names(self, run_id: int) -> set[str]:
        with Session(self.engine) as s:
            r = models.Result
            return set(s.scalars(select(r.name).where(r.run_id == run_id)))

    def named_result_times(self, run_id: int) -> list[tuple[str, datetime]]:
        with Session(self.engine) as s:
            r = models.Result
            rows = s.execute(select(r.name, r.created_at).where(r.run_id == run_id))
            return [(name, at) for name, at in rows]

    def result_times(self, run_id: int, names: set[str]) -> list[datetime]:
        with Session(self.engine) as s:
            r = models.Result
            rows = s.execute(select(r.name, r.created_at).where(r.run_id == run_id))
            return [at for name, at in rows if name in names]

    def lost_and_duplicated(self, run_id: int) -> tuple[int, int]:
        with Session(self.engine) as s:
            r = models.Result
            names = list(s.scalars(select(r.name).where(r.run_id == run_id)))
            total = self.run(run_id).total
        return total - len(set(names)), len(names) - len(set(names))

    def wait_finished(self, run_id: int, timeout: float = 7200) -> float:
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.run(run_id).status not in ("queued", "running"):
                return time.monotonic() - start
            time.sleep(0.5)
        raise RuntimeError(f"run {run_id} not finished after {timeout} s")


def inject(fault: str, cluster: Cluster, db: Reader, run_id: int, api_names: list[str]) -> Any:
    """Inject the fault; returns (the lost (run, names) pairs, the moment of the fault)."""
    running = [c for c in db.chunks(run_id) if c.status == "running"]
    done = db.recorded_names(run_id)
    if fault in ("worker", "pool"):
        first = [c for c in running if c.worker and c.worker.startswith("fault0@")]
        lost = [(run_id, {n for c in first for n in c.names} - done)]
        pid = cluster.workers[0].pid
        if fault == "worker":
            os.killpg(pid, signal.SIGKILL)
        else:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            os.kill(int(children[0]), signal.SIGKILL)
        return lost, models.utcnow()
    if fault == "redis":
        waiting = [c for c in db.chunks(run_id) if c.status in ("queued", "running")]
        lost = [(run_id, {n for c in waiting for n in c.names} - done)]
        fault_at = models.utcnow()
        cluster.redis.stop()
        time.sleep(1)
        cluster.redis.start()
        return lost, fault_at
    # api: the server caught while sending a second run's chunks
    cluster.redis_cli("client", "pause", "120000", "write")
    posted: list[int] = []
    poster = threading.Thread(
        target=lambda: _post_quietly(cluster, {"names": api_names, "trials": 16}, posted),
        daemon=True,
    )
    poster.start()
    second = _wait_for_new_run(db, after=run_id)
    while not all(c.dispatched_at for c in db.chunks(second)):
        time.sleep(0.05)
    os.killpg(cluster.server.pid, signal.SIGKILL)
    fault_at = models.utcnow()
    cluster.redis_cli("client", "unpause")
    cluster.server = cluster.start_server()
    return [(second, set(api_names))], fault_at


def _post_quietly(cluster: Cluster, body: dict[str, Any], out: list[int]) -> None:
    try:
        out.append(cluster.post_run(body))
    except httpx.HTTPError:
        pass


def _wait_for_new_run(db: Reader, *, after: int) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with Session(db.engine) as s:
            newer = s.scalar(select(func.max(models.Run.id)).where(models.Run.id > after))
        if newer is not None:
            return int(newer)
        time.sleep(0.05)
    raise RuntimeError("the server did not queue the second run")


def measure(
    fault: str, url: str, workdir: Path, args: argparse.Namespace, names: list[str]
) -> dict[str, Any]:
    db = Reader(url)
    extra = {"PROOFBRIDGE_CHUNK_SIZE": str(args.chunk_size)}
    cluster = Cluster(url, workdir / fault, args.workers, extra)
    try:
        start = time.monotonic()
        run_id = cluster.post_run({"trials": args.trials})
        total = db.run(run_id).total
        while db.recorded(run_id) < args.at * total:
            if db.run(run_id).status not in ("queued", "running"):
                raise RuntimeError(f"run {run_id} finished before the fault")
            time.sleep(0.2)
        lost, fault_at = inject(fault, cluster, db, run_id, names[: args.api_names])
        fault_s = time.monotonic() - start
        runs = sorted({run_id, *(r for r, _ in lost)})
        for r in runs:
            db.wait_finished(r)
        wall_s = time.monotonic() - start
        times = [t for r, lost_names in lost for t in db.result_times(r, lost_names)]
        delays = sorted((t - fault_at).total_seconds() for t in times)
        # which of the lost theorems' chunks the reconciler sent again after the fault, and
        # which were delivered from a message the broker still held (never lost: they wait
        # their turn in the queue like any run's chunks)
        by_way: dict[str, list[float]] = {"sent_again": [], "original_message": []}
        for r, lost_names in lost:
            when = {n: at for n, at in db.named_result_times(r) if n in lost_names}
            for c in db.chunks(r):
                way = (
                    "sent_again"
                    if c.dispatched_at is not None and c.dispatched_at > fault_at
                    else "original_message"
                )
                by_way[way] += [(when[n] - fault_at).total_seconds() for n in c.names if n in when]
        missing = duplicated = 0
        for r in runs:
            m, d = db.lost_and_duplicated(r)
            missing, duplicated = missing + m, duplicated + d
        report = {
            "fault": fault,
            "theorems": total,
            "fault_at_s": round(fault_s, 1),
            "lost_theorems": sum(len(n) for _, n in lost),
            "first_recovered_s": round(delays[0], 1) if delays else None,
            "last_recovered_s": round(delays[-1], 1) if delays else None,
            # every lost theorem's delay, to tell a chunk sent again from one that queued
            "recovered_s": [round(d, 1) for d in delays],
            **{
                f"{way}_s": [round(min(d), 1), round(max(d), 1), len(d)] if d else None
                for way, d in by_way.items()
            },
            "wall_s": round(wall_s, 1),
            "results_lost": missing,
            "results_duplicated": duplicated,
            "statuses": {r: db.run(r).status for r in runs},
        }
    finally:
        cluster.close()
        db.engine.dispose()
    print(json.dumps(report), flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("corpus", nargs="+", help="paths to ingest (files or folders)")
    ap.add_argument(
        "--faults", default=",".join(FAULTS), help="comma-separated, of " + ", ".join(FAULTS)
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--chunk-size", type=int, default=32, help="PROOFBRIDGE_CHUNK_SIZE (32)")
    ap.add_argument("--at", type=float, default=0.3, help="fault once this share is recorded")
    ap.add_argument("--api-names", type=int, default=64, help="theorems of the api fault's run")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "fault_recovery.json")
    args = ap.parse_args(argv)
    faults = [f for f in args.faults.split(",") if f]
    unknown = sorted(set(faults) - set(FAULTS))
    if unknown:
        ap.error(f"unknown faults: {', '.join(unknown)}")
    server = os.environ.get("PROOFBRIDGE_TEST_POSTGRES_URL", DEFAULT_PG)
    workdir = Path(tempfile.mkdtemp(prefix="pb-faults-"))
    schema = Schema(server)
    results: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "corpus": args.corpus,
        "workers": args.workers,
        "trials": args.trials,
        "chunk_size": args.chunk_size,
        "faults": [],
    }
    try:
        upgrade_database(schema.url)
        engine = create_engine(schema.url)
        with Session(engine) as session:
            report = ingest_paths(session, paths=args.corpus)
            session.commit()
            theorems = sorted(
                session.scalars(
                    select(models.Declaration.name).where(models.Declaration.kind == "theorem")
                )
            )
        engine.dispose()
        print(f"ingested {report.theorems} theorems", flush=True)
        for fault in faults:
            (workdir / fault).mkdir()
            results["faults"].append(measure(fault, schema.url, workdir, args, theorems))
    finally:
        schema.drop()
        shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    for r in results["faults"]:
        print(
            f"{r['fault']}: lost {r['lost_theorems']} theorems at {r['fault_at_s']} s; "
            f"checked again {r['first_recovered_s']}-{r['last_recovered_s']} s after the "
            f"fault; run {r['wall_s']} s; results lost {r['results_lost']}, duplicated "
            f"{r['results_duplicated']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
