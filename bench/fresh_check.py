"""A fresh `proofbridge check` of one theorem, its program in the store from an earlier
run, side by side with the upstream project's own check script.

    python bench/fresh_check.py ../lean4-mlir/LeanMlir/Proofs [--runs 5]

Ingests the tree into a fresh embedded database, checks `Proofs.vit_rowDenseW_grad_bridge`
once (which fills the store of compiled programs and JAX's cache), then alternates, `--runs`
times: `proofbridge check Proofs.vit_rowDenseW_grad_bridge` as a fresh process, and the
upstream `check_jacobians.py` (NumPy only, 30 finite-difference checks) as a fresh process,
each timed whole (from the process's start to its exit). Reports the medians, their ratio,
whether the fresh check imported JAX (it need not: its interpreted programs are in the
store), and the cost of importing JAX and the CLI, each in a process of its own. Each round
also times the floor of the stack a check stands on: a process that only imports NumPy,
SQLAlchemy's ORM and pydantic-settings (the array library, the data layer and the
settings), and does nothing else.

Target (issue: the author's loop): the fresh check no slower than the upstream script.
Results go to bench/RESULTS.md with the machine and date.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "Proofs.vit_rowDenseW_grad_bridge"
UPSTREAM_SCRIPT = "check_jacobians.py"


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed, proc.stdout


def _import_ms(module: str, env: dict[str, str]) -> float:
    """Cumulative import time of `module` in a fresh interpreter (-X importtime), in ms."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in reversed(proc.stderr.splitlines()):
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000
    return float("nan")


def _imports_jax(cmd: list[str], env: dict[str, str]) -> bool:
    """Whether `cmd` (a Python command) imports JAX (`-X importtime` lists it)."""
    proc = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return any(line.rsplit("|", 1)[-1].strip() == "jax" for line in proc.stderr.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    script = args.tree / UPSTREAM_SCRIPT
    if not script.is_file():
        print(f"{script} is not there", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="pb-fresh-"))
    env = dict(
        os.environ,
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{work}/db.sqlite",
        PROOFBRIDGE_JAX_CACHE_DIR=str(work / "cache"),
    )
    cli = [sys.executable, "-m", "app"]
    try:
        subprocess.run(
            [*cli, "ingest", str(args.tree)], cwd=ROOT, env=env, check=True, capture_output=True
        )
        first, out = _timed([*cli, "check", NAME], ROOT, env)
        print(f"first check (fills the store): {first:.2f} s: {out.splitlines()[0][:100]}")
        ours, theirs, floor = [], [], []
        stack = [sys.executable, "-c", "import numpy, sqlalchemy.orm, pydantic_settings"]
        for _ in range(args.runs):
            floor.append(_timed(stack, ROOT, env)[0])
            t, out = _timed([*cli, "check", NAME], ROOT, env)
            assert out.startswith("PASS"), out
            ours.append(t)
            t, out = _timed([sys.executable, UPSTREAM_SCRIPT], args.tree, dict(os.environ))
            assert re.search(r"30/30 checks passed", out), out
            theirs.append(t)
        figures = {
            "theorem": NAME,
            "runs": args.runs,
            "fresh_check_s": [round(t, 3) for t in ours],
            "upstream_script_s": [round(t, 3) for t in theirs],
            "fresh_check_median_s": round(statistics.median(ours), 3),
            "upstream_script_median_s": round(statistics.median(theirs), 3),
            "ratio": round(statistics.median(ours) / statistics.median(theirs), 2),
            "stack_floor_median_s": round(statistics.median(floor), 3),
            "stack_floor_ratio": round(statistics.median(floor) / statistics.median(theirs), 2),
            "fresh_check_imports_jax": _imports_jax([*cli, "check", NAME], env),
            "import_jax_ms": round(_import_ms("jax", env), 1),
            "import_cli_ms": round(_import_ms("app.cli", env), 1),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
