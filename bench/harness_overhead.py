"""What the harness costs per check: compilation per dims draw, trials per second, caches.

    python bench/harness_overhead.py [--trials 64] [--seeds 3] [--literal] [--json]

For each registered seed checker, in a fresh process: the first check (every
dims draw compiled), the same check again (compiled programs reused in-process),
and checks at new seeds (new dims draws, so new compilations). Then the same
first check in two further fresh processes sharing a persistent JAX
compilation cache directory (the first fills it, the second reads it).
`--literal` adds `Proofs.vit_rowDenseW_grad_bridge` at ViT-Tiny's N=197, a=192,
c=768. Timings are wall-clock on whatever machine runs this; the device is
reported ('cpu' or 'gpu').
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED_CHECKERS = (
    "Proofs.sum_fin_prod",
    "Proofs.vit_rowDenseW_grad_bridge",
    "Proofs.pdiv_rowLN_beta",
)


def _measure(trials: int, seeds: int, literal: bool, dtypes: list[str]) -> dict:
    """Runs inside one fresh process."""
    start = time.perf_counter()
    import checkers
    from checkers import Environment, check

    import_s = time.perf_counter() - start
    env = Environment.from_declarations([], derive=None)
    rows = []
    for dtype in dtypes:
        for name in SEED_CHECKERS:
            row: dict = {"name": name, "dtype": dtype}
            t = time.perf_counter()
            first = check(name, env, trials=trials, seed=0, dtype=dtype)
            row["first_s"] = time.perf_counter() - t
            row["status"] = first.status
            row["draws"] = len(first.draws)
            row["compile_s"] = first.stats["compile_s"]
            row["programs"] = first.stats["programs_compiled"]
            row["compile_per_program_s"] = first.stats["compile_s"] / max(
                1, first.stats["programs_compiled"]
            )
            t = time.perf_counter()
            again = check(name, env, trials=trials, seed=0, dtype=dtype)
            row["cached_s"] = time.perf_counter() - t
            row["cached_programs"] = again.stats["programs_compiled"]
            run_s = again.stats["run_s"]
            row["trials_per_s_run"] = trials * len(again.draws) / run_s if run_s else None
            row["trials_per_s_cached_check"] = trials * len(again.draws) / row["cached_s"]
            t = time.perf_counter()
            for s in range(1, seeds + 1):
                check(name, env, trials=trials, seed=s, dtype=dtype)
            row["new_seed_s"] = (time.perf_counter() - t) / max(1, seeds)
            rows.append(row)
    out: dict = {"device": checkers.device_kind(), "import_s": import_s, "rows": rows}
    if literal:
        dims = {"N": 197, "a": 192, "c": 768}
        lit = {}
        for n in (1, trials):
            t = time.perf_counter()
            r = check("Proofs.vit_rowDenseW_grad_bridge", env, trials=n, dims=dims)
            lit[f"trials_{n}_s"] = time.perf_counter() - t
            lit[f"trials_{n}_status"] = r.status
            lit[f"trials_{n}_compile_s"] = r.stats["compile_s"]
            lit[f"trials_{n}_run_s"] = r.stats["run_s"]
            lit[f"trials_{n}_sample_s"] = r.stats["sample_s"]
        try:
            import resource

            lit["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        except ImportError:
            pass
        out["literal"] = lit
    return out


def _first_check_s(cache_dir: str, trials: int) -> dict:
    """A fresh process running the first check of every seed checker with the persistent cache."""
    code = (
        "import time, json\n"
        "t = time.perf_counter()\n"
        "from checkers import Environment, check\n"
        "env = Environment.from_declarations([], derive=None)\n"
        "out = {}\n"
        f"for name in {SEED_CHECKERS!r}:\n"
        "    s = time.perf_counter()\n"
        f"    r = check(name, env, trials={trials})\n"
        "    out[name] = [round(time.perf_counter() - s, 4), r.stats['compile_s']]\n"
        "out['total_s'] = round(time.perf_counter() - t, 4)\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "PROOFBRIDGE_JAX_CACHE_DIR": cache_dir}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--literal", action="store_true")
    parser.add_argument("--dtypes", default="float64")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-cache-runs", action="store_true")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    dtypes = args.dtypes.split(",")
    if args.inner:
        print(json.dumps(_measure(args.trials, args.seeds, args.literal, dtypes)))
        return
    env = {**os.environ}
    env.pop("PROOFBRIDGE_JAX_CACHE_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [
        sys.executable,
        __file__,
        "--inner",
        "--trials",
        str(args.trials),
        "--seeds",
        str(args.seeds),
        "--dtypes",
        args.dtypes,
    ]
    if args.literal:
        cmd.append("--literal")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if not args.no_cache_runs:
        with tempfile.TemporaryDirectory() as cache:
            report["persistent_cache"] = {
                "fill": _first_check_s(cache, args.trials),
                "reuse": _first_check_s(cache, args.trials),
            }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"device {report['device']}, import checkers {report['import_s']:.2f} s")
    print(
        f"{'checker':38} {'dtype':8} {'first':>7} {'compile/prog':>12} {'cached':>7} "
        f"{'new seed':>8} {'trials/s run':>13} {'trials/s check':>14}"
    )
    for r in report["rows"]:
        print(
            f"{r['name']:38} {r['dtype']:8} {r['first_s']:7.3f} {r['compile_per_program_s']:12.3f} "
            f"{r['cached_s']:7.3f} {r['new_seed_s']:8.3f} {r['trials_per_s_run'] or 0:13.0f} "
            f"{r['trials_per_s_cached_check']:14.0f}"
        )
    if "literal" in report:
        print("literal dims N=197 a=192 c=768:", json.dumps(report["literal"]))
    if "persistent_cache" in report:
        print(
            "persistent cache, fresh process, first checks:", json.dumps(report["persistent_cache"])
        )


if __name__ == "__main__":
    main()
