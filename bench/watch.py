"""The author's loop: from a saved edit of one theorem to its verdict, `proofbridge watch`
warm.

    python bench/watch.py ../lean4-mlir/LeanMlir/Proofs [--edits 6]

Copies the tree to a temporary folder, starts `proofbridge watch COPY` as a fresh process
(fresh embedded database and compilation cache), waits until it has ingested the tree and
is watching, then edits one theorem's statement (`Proofs.pdivMat_scalarScale` in
Foundation/Tensor.lean) `--edits` times, each edit a statement not seen before (false ones
and, last, the original, true), and writes the file. For each edit it records the time from
the write to the verdict line of that theorem on the watcher's output, and the watcher's
own time for the round (poll, ingestion, check).

Target (issue: the author's loop): under 2 s on this machine with the watcher warm. Results
go to bench/RESULTS.md with the machine and date.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE = "Foundation/Tensor.lean"
NAME = "Proofs.pdivMat_scalarScale"
ORIGINAL = "if i = k ∧ j = l then s else 0 := by"


def _edits(n: int) -> list[tuple[str, str]]:
    """(statement tail, expected verdict): distinct false ones, then the original."""
    wrong = [(ORIGINAL.replace("then s else", f"then s + {k} else"), "FAIL") for k in range(1, n)]
    return [*wrong, (ORIGINAL, "PASS")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pb-watch-"))
    copy = work / "Proofs"
    shutil.copytree(args.tree, copy)
    target = copy / FILE
    text = target.read_text(encoding="utf-8")
    if ORIGINAL not in text:
        print(f"{FILE} no longer states {NAME} as expected", file=sys.stderr)
        return 2
    env = dict(
        os.environ,
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{work}/db.sqlite",
        PROOFBRIDGE_JAX_CACHE_DIR=str(work / "cache"),
        PYTHONUNBUFFERED="1",
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "watch", str(copy), "--interval", "0.05"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put((time.monotonic(), line.rstrip("\n")))

    threading.Thread(target=read, daemon=True).start()

    def wait_for(pattern: str, timeout: float = 600.0) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                at, line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise SystemExit(f"no line matching {pattern!r} within {timeout} s") from None
            if re.search(pattern, line):
                return at, line

    rows = []
    try:
        ready_at, ready = wait_for(r"^watching ")
        print(f"ready after {ready_at - started:.1f} s: {ready}")
        for statement, verdict in _edits(args.edits):
            time.sleep(1.0)  # a new modification time, and an idle watcher
            edited = text.replace(ORIGINAL, statement)
            written = time.monotonic()
            target.write_text(edited, encoding="utf-8")
            at, line = wait_for(rf"^(PASS|FAIL|ERROR|UNSUPPORTED)\s+{re.escape(NAME)}\b")
            _, own = wait_for(r"^  \(\d+\.\d+ s\)$")
            got = line.split()[0]
            rows.append(
                {
                    "edit": statement.split(" := ")[0],
                    "expected": verdict,
                    "verdict": got,
                    "save_to_verdict_s": round(at - written, 3),
                    "watcher_round_s": float(own.strip()[1:-3]),
                }
            )
            print(json.dumps(rows[-1], ensure_ascii=False))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    times = [r["save_to_verdict_s"] for r in rows]
    summary = {
        "theorem": NAME,
        "edits": len(rows),
        "median_s": round(statistics.median(times), 3),
        "max_s": round(max(times), 3),
        "all_verdicts_right": all(r["verdict"] == r["expected"] for r in rows),
        "rows": rows,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0 if summary["all_verdicts_right"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
