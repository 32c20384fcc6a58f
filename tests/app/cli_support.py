"""Running `proofbridge` as a real process (`python -m app`) in the command-line tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from db_support import REPO


def cli(
    *args: str, url: str | None, cwd: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PROOFBRIDGE_DATABASE_URL", None)
    if url is not None:
        env["PROOFBRIDGE_DATABASE_URL"] = url
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def upgraded(url: str, cwd: Path) -> str:
    proc = cli("db", "upgrade", url=url, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("database ") and "is at schema revision" in proc.stdout
    return url
