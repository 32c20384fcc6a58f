"""Two OS processes ingesting the same files at the same time end with one copy of each
declaration (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory lock, backed by the unique
constraints)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from db_support import REPO, count
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.db import make_engine
from app.migrate import upgrade_database

FILES, PER_FILE = 4, 150

WORKER = """
import json, os, sys, time
from pathlib import Path
from sqlalchemy.orm import Session
from app.db import make_engine
from app.services.ingestion.ingest import ingest_paths

url, corpus, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
engine = make_engine(url)
with engine.connect():
    pass  # connected before the start signal, so both start together
deadline = time.monotonic() + 60
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("no start signal")
    time.sleep(0.005)
with Session(engine) as session:
    report = ingest_paths(session, paths=[corpus])
print(json.dumps(report.to_json()))
"""


def _write_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    corpus.mkdir()
    for f in range(FILES):
        lines = [f"Concurrency page {f}", ""]
        for i in range(PER_FILE):
            name = f"Proofs.C{f}.sum_swap_{i}"
            lines += [
                f"theorem {name} (n : ℕ) (f : Fin n → ℝ) : "
                f"∑ i : Fin n, f i * {i} = ∑ i : Fin n, {i} * f i",
                "",
                f"Swapping the factors of summand {i}.",
                "",
            ]
        (corpus / f"page_{f}.txt").write_text("\n".join(lines), encoding="utf-8")
    return corpus


@pytest.mark.slow
def test_keep_one_copy_when_two_processes_ingest_together(db_url: str, tmp_path: Path) -> None:
    upgrade_database(db_url)
    corpus = _write_corpus(tmp_path)
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, db_url, str(corpus), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for _ in range(2)
    ]
    time.sleep(1.5)  # both interpreters up and connected
    go.touch()
    outputs = [p.communicate(timeout=300) for p in procs]

    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    reports = [json.loads(out) for out, _ in outputs]
    total = FILES * PER_FILE
    assert all(r["declarations"] == total and r["errors"] == [] for r in reports)
    assert sorted(r["new"] for r in reports) == [0, total]
    assert sorted(r["unchanged"] for r in reports) == [0, total]

    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            assert count(session, models.Declaration) == total
            assert count(session, models.DeclarationRevision) == total
            assert count(session, models.Source) == FILES
            d = models.Declaration
            assert session.scalar(select(func.count(func.distinct(d.name)))) == total
    finally:
        engine.dispose()
