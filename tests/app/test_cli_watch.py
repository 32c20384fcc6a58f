"""`proofbridge watch`: a real process that prints a verdict, with its proof status and
counterexample, each time a file is saved, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from cli_support import upgraded
from db_support import PROOF_SOURCE, REPO


def test_watch_prints_each_verdict_as_the_file_is_saved(db_url: str, tmp_path: Path) -> None:
    url = upgraded(db_url, tmp_path)
    src = tmp_path / "src"
    src.mkdir()
    (src / "P.lean").write_text(PROOF_SOURCE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO), PROOFBRIDGE_DATABASE_URL=url)
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "watch", str(src), "--trials", "8", "--interval", "0.05"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line.rstrip("\n")) for line in proc.stdout or ()], daemon=True
    ).start()
    seen: list[str] = []

    def until(prefix: str) -> str:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert proc.poll() is None, "\n".join(seen)
                continue
            seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError("\n".join(seen))

    try:
        assert "6 theorems" in until("watching 1 file")
        time.sleep(0.05)
        (src / "P.lean").write_text(
            PROOF_SOURCE.replace("x + 0 = x := by simp", "x + 0 = x + 1 := by simp"),
            encoding="utf-8",
        )
        assert until(f"{src / 'P.lean'} saved: ").endswith("1 theorem to check")
        verdict = until("FAIL")
        assert verdict.startswith("FAIL        P.apart  [derived] 8 trials")
        assert "counterexample" in verdict and "proofbridge repro" not in verdict
        assert until("  1 proved yet failing: P.apart")
        proc.send_signal(signal.SIGINT)
        assert until("stopped watching")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
