"""`proofbridge worker` refuses, saying why, to start without a broker or with an unknown
queue (its runs through real workers are in tests/app/worker/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from db_support import REPO


def _worker(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    environ.update(env, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "app", "worker", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_worker_without_broker_exits_2_naming_the_setting(tmp_path: Path) -> None:
    out = _worker(cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("proofbridge: error: PROOFBRIDGE_BROKER_URL is not set")


def test_worker_with_unknown_queue_exits_2_listing_the_queues(tmp_path: Path) -> None:
    out = _worker("--queues", "cpu,fast", cwd=tmp_path, PROOFBRIDGE_BROKER_URL="redis://x:1/0")
    assert out.returncode == 2
    assert "unknown queue 'fast': choose from cpu, gpu, light" in out.stderr
