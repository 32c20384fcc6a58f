"""Whole-process times of the read-only commands against the floor of importing the CLI.

    python bench/cli_start.py [--runs 5]

Sets up what `make demo` leaves (the examples ingested and checked, embedded SQLite, in a
temporary data folder), then times each command as a fresh process `--runs` times and
reports the median, and whether that process imported JAX:

- `proofbridge show Examples.sqrt_sq_draft --json` (a checked theorem: the checker as its
  current result recorded it) and with `--describe` (described afresh),
- `proofbridge coverage --json`, as kept by the coverage store (a repeated call) and as
  computed (`PROOFBRIDGE_COVERAGE_STORE=0`),
- the floors: `python -c pass`, `python -c "import app.cli"`, `python -c "import jax"`.

Each is timed twice: with the project's bytecode compiled (`python -m compileall`, as `make
install` and the Dockerfile do, and as Python does itself on a first run unless
PYTHONDONTWRITEBYTECODE is set), and with every source compiled as the process starts
(a copy of the packages without bytecode first on PYTHONPATH, PYTHONDONTWRITEBYTECODE=1;
the installed dependencies keep their bytecode).

Target (issue: the first hour): `show` and `coverage --json` under 0.5 s, reported beside
the import floor. Results go to bench/RESULTS.md with the machine and date.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NAME = "Examples.sqrt_sq_draft"
PROBE = (
    "import sys; sys.argv = ['proofbridge', *sys.argv[1:]]; from app.cli import main; "
    "code = main(sys.argv[1:]); print('JAX' if 'jax' in sys.modules else 'no JAX', "
    "file=sys.stderr); sys.exit(code)"
)


PACKAGES = ("app", "theorem_index", "checkers")


def _env(data: Path, sources: Path | None) -> dict[str, str]:
    """The commands' environment; `sources`: a copy of the packages without bytecode, put
    first on the path (the installed dependencies keep theirs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFBRIDGE_")}
    env["PROOFBRIDGE_DATA_DIR"] = str(data)
    if sources is not None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(sources), env.get("PYTHONPATH"))))
    return env


def _timed(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "cli_start.json")
    args = ap.parse_args(argv)
    python = sys.executable
    proofbridge = str(Path(python).with_name("proofbridge"))
    subprocess.run([python, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pb-cli-start-") as tmp:
        work = Path(tmp)
        env = _env(work / "var", None)
        bare = work / "sources"
        for package in PACKAGES:
            shutil.copytree(
                ROOT / package, bare / package, ignore=shutil.ignore_patterns("__pycache__")
            )
        for setup in (["db", "upgrade"], ["ingest", str(ROOT / "examples")], ["check"]):
            proc = subprocess.run(
                [proofbridge, *setup], env=env, cwd=work, capture_output=True, text=True
            )
            assert proc.returncode in (0, 1), proc.stderr
        commands = {
            f"show {NAME} --json": (["show", NAME, "--json"], {}),
            f"show {NAME} --json --describe": (["show", NAME, "--json", "--describe"], {}),
            "coverage --json (kept)": (["coverage", "--json"], {}),
            "coverage --json (computed)": (
                ["coverage", "--json"],
                {"PROOFBRIDGE_COVERAGE_STORE": "0"},
            ),
        }
        floors = {
            "python -c pass": [python, "-c", "pass"],
            "python -c 'import app.cli'": [python, "-c", "import app.cli"],
            "python -c 'import jax'": [python, "-c", "import jax"],
        }
        for bytecode in (True, False):
            env = _env(work / "var", None if bytecode else bare)
            state = "bytecode" if bytecode else "no bytecode"
            for label, (command, extra) in commands.items():
                probe = subprocess.run(
                    [python, "-c", PROBE, *command],
                    env={**env, **extra},
                    cwd=work,
                    capture_output=True,
                    text=True,
                )
                jax = probe.stderr.strip().splitlines()[-1]
                times = _timed([proofbridge, *command], {**env, **extra}, work, args.runs)
                rows.append(
                    {
                        "command": f"proofbridge {label}",
                        "state": state,
                        "imports": jax,
                        "times_s": times,
                    }
                )
            for label, command in floors.items():
                times = _timed(command, env, work, args.runs)
                rows.append({"command": label, "state": state, "imports": "", "times_s": times})
    for row in rows:
        row["median_s"] = statistics.median(row["times_s"])
        print(f"{row['median_s']:6.2f} s  {row['state']:<11}  {row['command']}  {row['imports']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "cpus": os.cpu_count(),
                "runs": args.runs,
                "rows": rows,
            },
            indent=2,
        )
    )
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
