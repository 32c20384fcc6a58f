"""ViT-Tiny whole: one 200-node check at the literal dims, against jax.grad of the same loss.

    python bench/vit_tiny.py [--batches 2,8] [--dtype float32] [--runs 3] [--json PATH]

Run by hand (not a test). Each batch size runs in a fresh Python process, so that its
peak memory (the process's maximum resident set size) is its own. In that process:

- compile: the check's program (sampled inputs -> both chains -> per-node errors) is
  lowered and compiled once, and so are `jax.grad` of the smoothed loss of the whole
  net in float64 (the reference the check computes) and in the check's dtype;
- one check: `check_vit` at those dims after compilation (drawing the inputs with
  NumPy, the compiled program with both chains and the comparison, judging the 201
  values), and the compiled program alone;
- one `jax.grad`: the compiled gradient alone on the same inputs, float64 and in the
  check's dtype; the ratio of one check to one float64 `jax.grad` (the reference it
  must compute anyway) is the figure of merit.

Every timing is the median of `--runs`, the measured functions taking turns.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _interleaved(fns: dict[str, Any], runs: int) -> dict[str, float]:
    """The median time of each function, run in turn `runs` times, so that a busy
    machine's load falls on all of them alike."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {k: round(statistics.median(v), 3) for k, v in times.items()}


def measure(batch: int, dtype: str, runs: int) -> dict[str, Any]:
    """One batch size, in this process."""
    sys.path.insert(0, str(REPO))
    import jax
    from proofbridge_lean4_mlir.registered.vit_tiny import compare, model
    from proofbridge_lean4_mlir.registered.vit_tiny.checker import GRADIENT, check_vit
    from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims
    from proofbridge_lean4_mlir.registered.vit_tiny.sampling import sample_trials

    import checkers  # noqa: F401  (float64 on)

    dims = VitDims(B=batch)
    inputs = sample_trials(0, 1, dims)
    program = compare.program(dims, dtype, GRADIENT)
    start = time.perf_counter()
    compiled = program.lower(inputs).compile()
    compile_check = time.perf_counter() - start
    # check_vit calls the jitted program, which compiles on its first call: do it now
    jax.block_until_ready(program(inputs))
    one = {
        k: (v[0] if k != "params" else {n: a[0] for n, a in v.items()}) for k, v in inputs.items()
    }

    def grad_fn(cast: Any) -> Any:
        def g(params: Any, images: Any, scales: Any, targets: Any) -> Any:
            return jax.grad(model.net_loss)(params, images, scales, targets, dims)

        args = jax.tree_util.tree_map(
            lambda x: jax.numpy.asarray(x, dtype=cast),
            (one["params"], one["images"], one["scales"], one["targets"]),
        )
        start = time.perf_counter()
        c = jax.jit(g).lower(*args).compile()
        took = time.perf_counter() - start
        return c, args, took

    low = {"float32": jax.numpy.float32, "bfloat16": jax.numpy.float32, "float64": None}[dtype]
    g64, a64, compile_g64 = grad_fn(jax.numpy.float64)
    out: dict[str, Any] = {
        "B": batch,
        "dtype": dtype,
        "compile_check_s": round(compile_check, 2),
        "compile_grad_f64_s": round(compile_g64, 2),
    }
    fns = {
        "check_s": lambda: check_vit({"B": batch}, dtype, 0, 1),
        "program_s": lambda: jax.block_until_ready(compiled(inputs)),
        "grad_f64_s": lambda: jax.block_until_ready(g64(*a64)),
    }
    if low is not None:
        glow, alow, compile_glow = grad_fn(low)
        out["compile_grad_low_s"] = round(compile_glow, 2)
        fns["grad_low_s"] = lambda: jax.block_until_ready(glow(*alow))
    out.update(_interleaved(fns, runs))
    result = check_vit({"B": batch}, dtype, 0, 1)
    out["status"] = result.status
    out["worst"] = result.stats["worst_node"]
    out["ratio_check_to_grad_f64"] = round(out["check_s"] / out["grad_f64_s"], 2)
    if "grad_low_s" in out:
        out["ratio_check_to_grad_low"] = round(out["check_s"] / out["grad_low_s"], 2)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", default="2,8")
    p.add_argument("--dtype", default="float32", choices=("float64", "float32", "bfloat16"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--json", type=Path)
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the child process
    args = p.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.dtype, args.runs)))
        return 0
    import jax

    rows = []
    for batch in (int(b) for b in args.batches.split(",")):
        command = [sys.executable, __file__, "--one", str(batch), "--dtype", args.dtype]
        command += ["--runs", str(args.runs)]
        env = {**os.environ, "PROOFBRIDGE_JAX_CACHE_DIR": ""}  # compile for real
        child = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    report = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "cpus": os.cpu_count(),
        "load": os.getloadavg(),
        "jax": jax.__version__,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "rows": rows,
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
