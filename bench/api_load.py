"""Latency under load: 100 concurrent clients against the API list and the dashboard pages.

    python bench/api_load.py --tree ../lean4-mlir/LeanMlir/Proofs

The tree is ingested into a fresh PostgreSQL schema (PROOFBRIDGE_TEST_POSTGRES_URL) and
given generated results up to `--results` (default 100,000: runs over every theorem, with
statuses drawn like a real corpus's; ANALYZEd, as a finished run of that size is), then
`proofbridge serve --processes N` is started on a free port (`--database URL` uses a
database prepared before, as `--keep` leaves one). For each target
(`GET /api/v1/theorems?limit=50`, the overview page `/`, a theorem page, then the list at
every offset and the pages of 500 theorems drawn from all, where most answers are not in
the page cache yet) `--clients` httpx clients on loopback send requests for `--seconds`, each
client bounded to `--rate` requests a second (an open load of clients x rate; 0: as fast
as the answers come). Reported per target: requests, errors (anything but 200, and
transport errors), answers from the page cache, requests per second, p50, p90 and p99
latency in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from sqlalchemy import create_engine, insert, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from app import models  # noqa: E402
from app.migrate import upgrade_database  # noqa: E402
from app.services.ingestion import ingest_paths  # noqa: E402

PROOFBRIDGE = Path(sys.executable).with_name("proofbridge")
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TOKEN = "load-bench-token-4d1f8a2c9e"
STATUSES = ["pass"] * 9 + ["unsupported"] * 88 + ["fail", "error"] + ["pass"]


def _schema(server: str) -> tuple[str, str, Any]:
    name = f"pbload_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{name}"'))
    url = (
        make_url(server)
        .update_query_dict({"options": f"-csearch_path={name}"})
        .render_as_string(hide_password=False)
    )
    return name, url, admin


def _generate_results(url: str, total: int, seed: int = 0) -> int:
    """Runs over every theorem, with results, until there are `total` results."""
    rng = random.Random(seed)
    engine = create_engine(url)
    d, r = models.Declaration, models.DeclarationRevision
    with Session(engine) as session:
        targets = session.execute(
            select(d.id, r.id, d.name)
            .join(r, (r.declaration_id == d.id) & (r.revision == d.current_revision))
            .where(d.kind.in_(("theorem", "lemma")))
        ).all()
        made = 0
        while made < total:
            now = models.utcnow()
            run = models.Run(
                status="passed", trigger="bench", params={}, total=len(targets), created_at=now
            )
            session.add(run)
            session.flush()
            rows = []
            for decl_id, rev_id, name in targets[: total - made]:
                status = rng.choice(STATUSES)
                rows.append(
                    {
                        "run_id": run.id,
                        "declaration_id": decl_id,
                        "revision_id": rev_id,
                        "name": name,
                        "status": status,
                        "checker": "none" if status == "unsupported" else "derived",
                        "reason": "",
                        "trials": 16,
                        "seed": 0,
                        "dtype": "float64",
                        "dims": {},
                        "draws": [],
                        "max_abs_err": rng.random() * 1e-12,
                        "max_rel_err": rng.random() * 1e-11,
                        "atol": 1e-12,
                        "rtol": 1e-10,
                        "duration_s": rng.random() / 10,
                        "device": "cpu",
                        "worker": "bench",
                        "vacuous_trials": 0,
                        "tied_trials": 0,
                        "rescaled_trials": 0,
                        "assumptions": [],
                        "created_at": now,
                    }
                )
            session.execute(insert(models.Result), rows)
            run.completed = len(rows)
            made += len(rows)
            session.commit()
        # as the runs that record this many results do when they finish
        session.execute(text("ANALYZE results"))
        session.commit()
    engine.dispose()
    return made


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _client(
    http: httpx.AsyncClient, paths: list[str], until: float, rate: float, out: list[Any]
) -> None:
    rng = random.Random()
    await asyncio.sleep(rng.random() / max(rate, 1.0))  # spread the clients' starts
    while time.perf_counter() < until:
        path = rng.choice(paths)
        start = time.perf_counter()
        kind = ""
        try:
            response = await http.get(path)
            ok = response.status_code == 200
            hit = response.headers.get("x-cache") == "hit"
            kind = "" if ok else f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            ok = hit = False
            kind = f"{type(exc).__name__}: {exc}"
        elapsed = time.perf_counter() - start
        out.append((elapsed, ok, hit, kind))
        if rate > 0:
            await asyncio.sleep(max(0.0, 1.0 / rate - elapsed))


async def _load(
    base: str, label: str, paths: list[str], clients: int, seconds: float, rate: float
) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    samples: list[Any] = []
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
        for path in paths[:3]:  # warm up
            await http.get(path)
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_client(http, paths, until, rate, samples) for _ in range(clients)))
    latencies = sorted(s[0] for s in samples)

    def pct(q: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    return {
        "target": label,
        "paths": len(paths),
        "requests": len(samples),
        "errors": sum(1 for s in samples if not s[1]),
        "error_kinds": dict(Counter(s[3] for s in samples if not s[1]).most_common()),
        "cache_hits": sum(1 for s in samples if s[2]),
        "requests_per_s": len(samples) / seconds,
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
    }


def _targets(base: str, sample: int) -> list[tuple[str, list[str]]]:
    """The three targets, each once at one URL and once spread over many: list pages at
    every offset, theorem pages of `sample` theorems drawn from all."""
    listed = httpx.get(f"{base}/api/v1/theorems", params={"limit": 1}).json()
    count = int(listed["count"])
    names: list[str] = []
    for offset in range(0, count, 1000):
        page = httpx.get(f"{base}/api/v1/theorems", params={"limit": 1000, "offset": offset})
        names += [t["name"] for t in page.json()["data"]]
    rng = random.Random(0)
    drawn = rng.sample(names, min(sample, len(names)))
    offsets = range(0, count, 50)
    return [
        ("GET /api/v1/theorems?limit=50", ["/api/v1/theorems?limit=50"]),
        ("overview /", ["/"]),
        ("a theorem page", [f"/theorems/{names[0]}"]),
        (
            f"list pages at all {len(offsets)} offsets",
            [f"/api/v1/theorems?limit=50&offset={o}" for o in offsets],
        ),
        (f"theorem pages of {len(drawn)} theorems", [f"/theorems/{n}" for n in drawn]),
    ]


def _prepare(server: str, tree: Path, results: int) -> tuple[str, str, Any, int]:
    schema, url, admin = _schema(server)
    upgrade_database(url)
    engine = create_engine(url)
    with Session(engine) as session:
        report = ingest_paths(session, paths=[str(tree)])
        session.commit()
    engine.dispose()
    made = _generate_results(url, results)
    print(f"ingested {report.theorems} theorems; {made} results", flush=True)
    return schema, url, admin, made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tree", type=Path, help="the Lean tree to ingest into a fresh schema")
    ap.add_argument("--database", help="use this prepared database instead (as --keep leaves one)")
    ap.add_argument("--keep", action="store_true", help="keep the prepared schema, print its URL")
    ap.add_argument("--results", type=int, default=100_000)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--rate", type=float, default=1.0, help="requests a second per client")
    ap.add_argument("--processes", type=int, default=1, help="`proofbridge serve --processes`")
    ap.add_argument("--page-cache-mb", type=int, default=64, help="0: the page cache off")
    ap.add_argument("--sample", type=int, default=500, help="theorem pages in the spread target")
    ap.add_argument("--only", help="comma-separated target numbers (1-5) to run")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "api_load.json")
    args = ap.parse_args(argv)
    if (args.tree is None) == (args.database is None):
        ap.error("give --tree (prepare a fresh schema) or --database (use a prepared one)")
    server = os.environ.get("PROOFBRIDGE_TEST_POSTGRES_URL", DEFAULT_PG)
    schema = admin = None
    if args.database:
        url, made = args.database, -1
    else:
        schema, url, admin, made = _prepare(server, args.tree, args.results)
        if args.keep:
            print(f"prepared database: {url}", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="pb-load-"))
    proc = None
    results = []
    try:
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
        env.update(
            PROOFBRIDGE_DATABASE_URL=url,
            PROOFBRIDGE_API_TOKEN=TOKEN,
            PROOFBRIDGE_DATA_DIR=str(workdir),
            PROOFBRIDGE_PAGE_CACHE_MB=str(args.page_cache_mb),
            PYTHONPATH=str(ROOT),
        )
        if args.processes > 1:  # several processes need a broker (nothing is checked here)
            env["PROOFBRIDGE_BROKER_URL"] = "redis://127.0.0.1:6379/15"
        log = (workdir / "serve.log").open("wb")
        command = [str(PROOFBRIDGE), "serve", "--port", str(port)]
        proc = subprocess.Popen(
            [*command, "--processes", str(args.processes)],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(f"{base}/api/v1/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        targets = _targets(base, args.sample)
        if args.only:
            chosen = {int(n) for n in args.only.split(",")}
            targets = [t for i, t in enumerate(targets, 1) if i in chosen]
        for label, paths in targets:
            m = asyncio.run(_load(base, label, paths, args.clients, args.seconds, args.rate))
            print(
                f"{label}: {m['requests']} requests, {m['errors']} errors, "
                f"{m['cache_hits']} cache hits, {m['requests_per_s']:.0f}/s, "
                f"p50 {m['p50_ms']:.1f} ms, p90 {m['p90_ms']:.1f} ms, p99 {m['p99_ms']:.1f} ms",
                flush=True,
            )
            for kind, n in m["error_kinds"].items():
                print(f"  {n} x {kind}", flush=True)
            results.append(m)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        if admin is not None and not args.keep:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "cpus": os.cpu_count(),
                "load_average_at_start": os.getloadavg()[0],
                "clients": args.clients,
                "rate_per_client": args.rate,
                "seconds": args.seconds,
                "processes": args.processes,
                "page_cache_mb": args.page_cache_mb,
                "results_in_database": made,
                "targets": results,
            },
            indent=2,
        )
    )
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
