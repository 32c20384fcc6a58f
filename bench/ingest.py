"""Ingestion benchmark: a 10,000-declaration corpus into SQLite and PostgreSQL.

    .venv/bin/python bench/ingest.py                    # text and Lean forms, both databases
    .venv/bin/python bench/ingest.py --write-results    # also update bench/RESULTS.md

For each input form (the seed pages' plain text, Lean source) and each database, a fresh
process reads the corpus with the readers and ingests it twice: the first ingestion (every
declaration new: parsed and written) and a re-ingestion of the unchanged corpus (nothing
new). It reports seconds and declarations per second for both, and peak memory: the
process's peak RSS plus, when the batch is parsed in worker processes, theirs.
Targets on the 2-core development machine: first ingestion under 20 s, re-ingestion under
5 s, memory under 1 GB. PostgreSQL runs in a fresh schema that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SECTION = "## Ingestion (issue 2)"
TARGETS = {"first_s": 20.0, "again_s": 5.0, "memory_mb": 1024.0}


def _peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    # ru_maxrss is in kilobytes on Linux; for RUSAGE_CHILDREN, the largest child's.
    return resource.getrusage(who).ru_maxrss / 1024


def _cpu_s() -> float:
    """CPU seconds of this process and its finished children (the parse workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _child(form_dir: str, url: str) -> dict[str, Any]:
    """Runs in a fresh process: migrate, then ingest the corpus twice."""
    from sqlalchemy.orm import Session

    from app.db import make_engine
    from app.migrate import upgrade_database
    from app.services.ingestion import Parser, ingest_batch
    from theorem_index.readers import read_paths

    upgrade_database(url)
    engine = make_engine(url)
    out: dict[str, Any] = {}
    for label in ("first", "again"):
        c0 = _cpu_s()
        t0 = time.perf_counter()
        batch = read_paths([form_dir])
        t1 = time.perf_counter()
        with Session(engine) as session:
            report = ingest_batch(session, batch=batch)
        t2 = time.perf_counter()
        out[f"{label}_read_s"] = t1 - t0
        out[f"{label}_s"] = t2 - t0
        out[f"{label}_cpu_s"] = _cpu_s() - c0
        out[f"{label}_report"] = {k: v for k, v in report.to_json().items() if k != "errors"}
        out[f"{label}_errors"] = len(report.errors)
        del batch
    engine.dispose()
    out["peak_rss_mb"] = _peak_rss_mb()
    out["worker_rss_mb"] = _peak_rss_mb(resource.RUSAGE_CHILDREN)
    out["workers"] = Parser([]).workers
    used = out["workers"] if out["worker_rss_mb"] > 0 else 0
    out["memory_mb"] = out["peak_rss_mb"] + used * out["worker_rss_mb"]
    return out


def _postgres_schema(url: str, action: str, schema: str) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        if action == "create":
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        else:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()
    parsed = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


def _run_child(form_dir: Path, url: str, workers: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(form_dir), url]
    env = dict(os.environ, PROOFBRIDGE_PARSE_WORKERS=str(workers))
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{proc.stderr}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def _row(form: str, db: str, n: int, r: dict[str, Any]) -> str:
    first, again = r["first_s"], r["again_s"]
    return (
        f"| {form} | {db} | {n} | {first:.2f} s ({n / first:,.0f}/s) | {r['first_cpu_s']:.2f} s "
        f"| {r['first_read_s']:.2f} s | {again:.2f} s ({n / again:,.0f}/s) "
        f"| {r['again_cpu_s']:.2f} s | {r['again_read_s']:.2f} s | {r['memory_mb']:.0f} MB "
        f"({r['peak_rss_mb']:.0f} + {r['workers']} × {r['worker_rss_mb']:.0f}) "
        f"| {r['first_report']['parsed']} | {r['again_report']['new']} |"
    )


def _write_results(body: str) -> None:
    path = REPO / "bench" / "RESULTS.md"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    block = f"{SECTION}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: block + "\n", text, count=1).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + block
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--forms", default="text,lean")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "ingest")
    parser.add_argument(
        "--postgres-url", default=os.environ.get("PROOFBRIDGE_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    )
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument(
        "--parse-workers", type=int, default=0, help="parsing processes (0: one per core)"
    )
    parser.add_argument("--write-results", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("DIR", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return 0

    from bench.corpus import generate

    rows: list[str] = []
    failures: list[str] = []
    for form in args.forms.split(","):
        form_dir = args.out / f"corpus-{form}-{args.n}"
        if not form_dir.exists():
            generate(args.n, form, form_dir, seed=0)
        dbs = [("SQLite", None)] + ([] if args.skip_postgres else [("PostgreSQL", "pg")])
        for db, _ in dbs:
            if db == "SQLite":
                db_file = args.out / f"bench-{form}.db"
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db_file}{suffix}").unlink(missing_ok=True)
                result = _run_child(form_dir, f"sqlite:///{db_file}", args.parse_workers)
            else:
                schema = f"bench_{uuid.uuid4().hex[:10]}"
                url = _postgres_schema(args.postgres_url, "create", schema)
                try:
                    result = _run_child(form_dir, url, args.parse_workers)
                finally:
                    _postgres_schema(args.postgres_url, "drop", schema)
            row = _row(form, db, result["first_report"]["declarations"], result)
            print(row, flush=True)
            rows.append(row)
            for key, limit in TARGETS.items():
                if result[key] > limit:
                    failures.append(f"{form}/{db}: {key} = {result[key]:.2f} > {limit}")

    header = (
        "| form | database | declarations | first ingestion (wall) | CPU | of which reading "
        "| unchanged re-ingestion (wall) | CPU | of which reading "
        "| peak memory (main + workers × worker) | parsed | new on re-ingestion |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    body = "\n".join(
        [
            f"Machine: {_machine()}. Date: {datetime.now(UTC):%Y-%m-%d}. "
            f"Command: `.venv/bin/python bench/ingest.py --n {args.n} "
            f"--parse-workers {args.parse_workers}`.",
            "",
            "Each row is a fresh process: read the corpus with the readers and ingest it "
            "(parse every statement, write declarations and revisions in one transaction), "
            "then read and ingest the unchanged corpus again. Targets: first ingestion "
            "< 20 s, re-ingestion < 5 s, peak memory < 1 GB.",
            "",
            header,
            *rows,
            "",
            "All targets met." if not failures else "Targets missed: " + "; ".join(failures),
        ]
    )
    print()
    print(body)
    if args.write_results:
        _write_results(body)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
