"""Check throughput: the seed page cold and warm, and ProofBridge against finite differences.

    python bench/checks.py [--runs 3] [--sizes 8,32,128] [--sxs-trials 64,64,8]
                           [--skip-page] [--skip-sxs] [--gpu] [--json PATH]

Run by hand (not a test). Every measurement runs in a fresh Python process
(`subprocess`), so "fresh process" means a new interpreter that imports JAX and
`checkers` from scratch; the wall time of a run is measured around that
process and includes the interpreter's start and every import.

1. The seed page (`<repo>/../shared/seeds/004_…txt`, `--seed-page`): every
   theorem checked at float64 with 64 trials over 4 dims draws (seed 0), all
   24 must pass. *Cold*: a fresh process whose persistent cache directory
   (`PROOFBRIDGE_JAX_CACHE_DIR`) is new and empty, so everything is traced and
   compiled (and written to the cache, as a first run of the CLI does). *Warm*:
   a fresh process on the cache the cold run filled. `--runs` pairs, each on
   its own new directory; medians are reported, with the CPU time of the
   child (user + sys) beside the wall time, since the machine may be shared.

2. Side by side, in one fresh process: statements checked by ProofBridge's
   derived checker and by a central finite-difference (FD) check in NumPy in
   the style of the upstream project's `check_jacobians.py` (two forward
   evaluations per input coordinate, step 1e-5), at N = a = c = d for d in
   `--sizes`. Both sides check the *whole* conclusion in every trial, on the
   same inputs (the FD side takes ProofBridge's sampled inputs), for the same
   number of trials (`--sxs-trials`, one count per size). Statements:
   - `vit_rowDenseW_grad_bridge` with its index binders `(i : Fin a) (j : Fin c)`
     moved into `fun i j => …` on both sides (the same theorem by function
     extensionality), so that one trial checks every entry (i, j);
   - `vit_rowlnGamma_grad_bridge` as it stands (it has no index binders);
   - `vit_patchW_grad_bridge` with `(d c kh kw)` lifted the same way, at
     N = D = d, ic = 3, P = 2, H = W = 2⌈√d⌉.
   ProofBridge *cold* is the derivation of the checker plus its first check at
   those dims (tracing, compiling and filing the program); *warm* is the same
   check in the same process after the in-process program cache was emptied,
   so the program comes from the program store as in a later process; *hot*
   is the median of 5 more checks with the program in memory, as in a worker
   that checks again. All three include drawing the inputs, running, comparing
   and the result record. The FD time includes drawing as many inputs of the
   same shapes with numpy's default generator (upstream draws with
   `np.random.randn`; the values are then set aside and ProofBridge's are
   evaluated, so that both sides judge the same inputs), the forward
   evaluations (each from scratch, as upstream's `f` is), the formula side and
   the comparison.

`--gpu` refuses to run unless JAX's default backend is a GPU; every child
prints the device it ran on either way (FD always runs in NumPy on the CPU).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PAGE = ROOT.parent / "shared" / "seeds" / "004_6d8c43833ffb9c10.txt"
FD_STEP = 1e-5  # as upstream's check_jacobians.py
HOT_REPEATS = 5
FD_TOL = 1e-4  # upstream's tolerance, relative to max(1, |value|) here (inputs reach scale 10)


# --- children ------------------------------------------------------------------------


def _device() -> dict[str, str]:
    import jax

    d = jax.devices()[0]
    return {"backend": jax.default_backend(), "device": str(d.device_kind)}


def _page_child(page: str, trials: int, draws: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    import checkers
    import theorem_index
    from checkers import Environment, check

    imported = time.perf_counter()
    batch = theorem_index.read_paths([page])
    decls = [d for doc in batch.documents for d in doc.declarations]
    env = Environment.from_declarations(decls)
    theorems = [d.name for d in env.theorems()]
    read = time.perf_counter()
    for name in theorems:
        env.resolve(name)
    resolved = time.perf_counter()
    rows = []
    sums: dict[str, float] = {}
    for name in theorems:
        r = check(name, env, trials=trials, seed=seed, draws=draws)
        stats = r.stats or {}
        rows.append(
            {
                "name": name,
                "status": r.status,
                "checker": r.checker,
                "duration_s": r.duration_s,
                "draws": len(r.draws),
                "reason": r.reason if r.status != "pass" else "",
            }
        )
        for k, v in stats.items():
            if isinstance(v, int | float):
                sums[k] = sums.get(k, 0.0) + float(v)
        sums["trials"] = sums.get("trials", 0.0) + sum(
            d.get("trials", 0) for d in stats.get("per_draw", [])
        )
    done = time.perf_counter()
    return {
        **_device(),
        "cache_dir": checkers.configure_compilation_cache(),
        "import_s": imported - start,
        "read_s": read - imported,
        "resolve_s": resolved - read,
        "checks_s": done - resolved,
        "in_process_s": done - start,
        "theorems": rows,
        "totals": sums,
    }


def _lift(decl: Any, index_binders: str) -> Any:
    """The same theorem with trailing index binders moved into `fun … =>` on both sides."""
    import dataclasses

    if not decl.binders.endswith(index_binders):
        raise SystemExit(f"{decl.name}: binders do not end with {index_binders!r}")
    lhs, rhs = decl.statement.split(" = ", 1)
    lam = f"fun {index_binders.strip()} =>"
    return dataclasses.replace(
        decl,
        name=decl.name + "_all_indices",
        binders=decl.binders[: -len(index_binders)].rstrip(),
        statement=f"({lam} {lhs}) = {lam} {rhs}",
    )


# FD sides, in NumPy, following Lean's semantics where a statement needs it.


def _fd_vjp(forward: Any, x: Any, dy: Any) -> Any:
    """Σ_o J[o, k] dy_o for every input coordinate k, by central differences (2 evals per k)."""
    import numpy as np

    flat = np.asarray(x, dtype=np.float64).ravel()
    out = np.zeros_like(flat)
    for k in range(flat.size):
        xp = flat.copy()
        xp[k] += FD_STEP
        xm = flat.copy()
        xm[k] -= FD_STEP
        out[k] = np.dot((forward(xp) - forward(xm)) / (2 * FD_STEP), dy)
    return out


def _fd_row_dense(dims: dict[str, int], x: dict[str, Any]) -> tuple[Any, Any]:
    N, a, c = dims["N"], dims["a"], dims["c"]
    X, bb, dy = x["X"], x["bb"], x["dy"]

    def forward(v: Any) -> Any:  # Mat.flatten fun r => dense (Mat.unflatten v) bb (X r)
        return (X @ v.reshape(a, c) + bb).ravel()

    lhs = X.T @ dy.reshape(N, c)  # rowDense_weight_grad X (Mat.unflatten dy) i j, every i j
    return lhs.ravel(), _fd_vjp(forward, x["W"], dy)


def _fd_row_ln_gamma(dims: dict[str, int], x: dict[str, Any]) -> tuple[Any, Any]:
    import numpy as np

    D = dims["D"]
    X, dy, eps, beta = x["X"], x["dy"], float(x["ε"]), float(x["β"])

    def normalised() -> Any:  # (X r - mean) * istd, every row, with Lean's total operations
        mean = X.sum(axis=1, keepdims=True) / D if D else np.zeros((X.shape[0], 1))
        var = ((X - mean) ** 2).sum(axis=1, keepdims=True) / D if D else np.zeros_like(mean)
        s = var + eps
        root = np.where(s > 0, np.sqrt(np.where(s > 0, s, 1.0)), 0.0)  # Real.sqrt
        istd = np.where(root == 0, 0.0, 1.0 / np.where(root == 0, 1.0, root))  # 1 / 0 = 0
        return (X - mean) * istd

    def forward(g: Any) -> Any:  # Mat.flatten fun r => layerNormForward D ε (γ' 0) β (X r)
        return (g[0] * normalised() + beta).ravel()  # from scratch, as upstream's `f` is

    xhat = normalised()
    lhs = np.sum(dy.reshape(xhat.shape) * xhat)  # rowLN_grad_gamma N D ε X (Mat.unflatten dy)
    return np.atleast_1d(lhs), _fd_vjp(forward, x["γ"], dy)


def _patch_reads(dims: dict[str, int], img: Any) -> Any:
    """patchRead ic H W P img c kh kw p for every p < N, c, kh, kw (Lean's ℕ arithmetic)."""
    import numpy as np

    ic, H, W, P, N = dims["ic"], dims["H"], dims["W"], dims["P"], dims["N"]
    wp = W // P if P else 0
    p = np.arange(N)[:, None, None, None]
    c = np.arange(ic)[None, :, None, None]
    kh = np.arange(P)[None, None, :, None]
    kw = np.arange(P)[None, None, None, :]
    hp = p // wp if wp else np.zeros_like(p)
    wq = p % wp if wp else p
    hh, ww = hp * P + kh, wq * P + kw
    inside = (hh < H) & (ww < W)
    index = np.where(inside, (c * H + hh) * W + ww, 0)
    return np.where(inside, img[index], 0.0)


def _fd_patch_w(dims: dict[str, int], x: dict[str, Any]) -> tuple[Any, Any]:
    import numpy as np

    ic, P, N, D = dims["ic"], dims["P"], dims["N"], dims["D"]
    img, dy = x["img"], x["dy"]

    def forward(v: Any) -> Any:  # patchEmbed_flat ic H W P N D (Kernel4.unflatten v) bc cls pos img
        reads = _patch_reads(dims, img).reshape(N, ic * P * P)
        out = x["pos"].copy()
        out[0] += x["cls"]
        out[1:] += x["bc"] + reads @ v.reshape(D, ic * P * P).T
        return out.ravel()

    reads = _patch_reads(dims, img)
    lhs = np.einsum("ncyx,nd->dcyx", reads, dy.reshape(N + 1, D)[1:])  # patchEmbed_weight_grad
    return lhs.ravel(), _fd_vjp(forward, x["Wc"], dy)


def _sxs_dims(statement: str, d: int) -> dict[str, int]:
    if statement == "rowDenseW":
        return {"N": d, "a": d, "c": d}
    if statement == "rowlnGamma":
        return {"N": d, "D": d}
    g = math.ceil(math.sqrt(d))
    return {"ic": 3, "H": 2 * g, "W": 2 * g, "P": 2, "N": d, "D": d}


def _sxs_child(page: str, sizes: list[int], trials: list[int], seed: int) -> dict[str, Any]:
    import numpy as np

    import theorem_index
    from checkers import Environment, check
    from checkers.harness.programs import clear_program_cache
    from checkers.inputs.sampling import draw_key, fin_plan, sample_batch

    batch = theorem_index.read_paths([page])
    decls = [d for doc in batch.documents for d in doc.declarations]
    by_name = {d.name: d for d in decls}
    lifted = [
        _lift(by_name["Proofs.vit_rowDenseW_grad_bridge"], " (i : Fin a) (j : Fin c)"),
        _lift(
            by_name["Proofs.vit_patchW_grad_bridge"], " (d : Fin D) (c : Fin ic) (kh kw : Fin P)"
        ),
    ]
    statements = {
        "rowDenseW": (lifted[0].name, _fd_row_dense),
        "rowlnGamma": ("Proofs.vit_rowlnGamma_grad_bridge", _fd_row_ln_gamma),
        "patchW": (lifted[1].name, _fd_patch_w),
    }
    rows = []
    for label, (name, fd_side) in statements.items():
        env = Environment.from_declarations(decls + lifted)  # a fresh one: derivation is timed
        for size, count in zip(sizes, trials, strict=True):
            dims = _sxs_dims(label, size)
            row: dict[str, Any] = {"statement": label, "name": name, "size": size, "trials": count}
            t = time.perf_counter()
            checker = env.resolve(name, prefer="derived")
            row["derive_s"] = time.perf_counter() - t
            if getattr(checker, "kind", None) != "derived":
                row["error"] = f"no derived checker: {getattr(checker, 'reason', checker)}"
                rows.append(row)
                continue
            t = time.perf_counter()
            cold = check(name, env, trials=count, seed=seed, dims=dims, draws=1, prefer="derived")
            row["pb_cold_s"] = row["derive_s"] + time.perf_counter() - t
            clear_program_cache()
            t = time.perf_counter()
            warm = check(name, env, trials=count, seed=seed, dims=dims, draws=1, prefer="derived")
            row["pb_warm_s"] = time.perf_counter() - t
            hot = []
            for _ in range(HOT_REPEATS):
                t = time.perf_counter()
                again = check(
                    name, env, trials=count, seed=seed, dims=dims, draws=1, prefer="derived"
                )
                hot.append(time.perf_counter() - t)
                assert again.status == warm.status
            row["pb_hot_s"] = statistics.median(hot)
            row["pb_status"] = [cold.status, warm.status]
            row["pb_max_abs_err"] = warm.max_abs_err
            row["pb_programs"] = [
                cold.stats.get("programs_compiled"),
                warm.stats.get("programs_loaded"),
            ]
            row["pb_stats"] = {k: warm.stats.get(k) for k in ("run_s", "sample_s", "load_s")}
            # the FD side, on exactly the inputs ProofBridge drew
            specs = checker.input_specs(dims)
            inputs = sample_batch(
                specs, fin_plan(specs, count), draw_key(name, seed, dims), range(count)
            )
            worst = 0.0
            failing = 0
            rng = np.random.default_rng(seed)
            t = time.perf_counter()
            for k in range(count):
                # an FD check draws its own inputs (upstream: np.random.randn); it draws
                # as many, of the same shapes, then evaluates ProofBridge's, so that both
                # sides judge the same values
                for spec in specs.values():
                    rng.standard_normal(spec.shape) if spec.kind == "real" else rng.integers(9)
                lhs, rhs = fd_side(dims, {n: v[k] for n, v in inputs.items()})
                err = float(np.max(np.abs(lhs - rhs) / np.maximum(1.0, np.abs(lhs))))
                worst = max(worst, err)
                failing += err > FD_TOL
            row["fd_s"] = time.perf_counter() - t
            row["fd_max_scaled_err"] = worst
            row["fd_failing_trials"] = failing
            row["fd_evaluations_per_trial"] = 2 * sum(
                s.size for n, s in specs.items() if n in ("W", "γ", "Wc")
            )
            row["ratio_hot"] = row["fd_s"] / row["pb_hot_s"]
            row["ratio_warm"] = row["fd_s"] / row["pb_warm_s"]
            row["ratio_cold"] = row["fd_s"] / row["pb_cold_s"]
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return {**_device(), "rows": rows}


# --- parent ----------------------------------------------------------------------------


def _child(args: list[str], cache_dir: str | None) -> tuple[dict[str, Any], float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PROOFBRIDGE_JAX_CACHE_DIR"}
    if cache_dir is not None:
        env["PROOFBRIDGE_JAX_CACHE_DIR"] = cache_dir
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True, env=env, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(done.stdout.strip().splitlines()[-1]), wall, cpu


def _page_runs(page: str, runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {"cold": [], "warm": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="pb-bench-cache-") as cache:
            for phase in ("cold", "warm"):
                load = os.getloadavg()[0]
                report, wall, cpu = _child(["--inner-page", "--seed-page", page], cache)
                report.update(wall_s=wall, cpu_s=cpu, load_before=load)
                out[phase].append(report)
                bad = [t for t in report["theorems"] if t["status"] != "pass"]
                print(
                    f"{phase}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, load {load:.1f}, "
                    f"{len(report['theorems']) - len(bad)}/{len(report['theorems'])} pass "
                    f"on {report['backend']} ({report['device']})",
                    flush=True,
                )
                for t in bad:
                    print(f"   {t['name']}: {t['status']}: {t['reason']}", flush=True)
    return out


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _summarise_page(page: dict[str, Any]) -> None:
    print(f"\n## Seed page (median of {len(page['cold'])} runs)")
    print("| run | wall s | CPU s | theorem-checks/s | trials/s | all pass |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for phase in ("cold", "warm"):
        reps = page[phase]
        n = len(reps[0]["theorems"])
        trials = reps[0]["totals"].get("trials", 0)
        wall = _median([r["wall_s"] for r in reps])
        cpu = _median([r["cpu_s"] for r in reps])
        ok = all(t["status"] == "pass" for r in reps for t in r["theorems"])
        print(f"| {phase} | {wall:.2f} | {cpu:.2f} | {n / wall:.2f} | {trials / wall:.0f} | {ok} |")
    print("\nharness breakdown (median, seconds; compile = trace + lower + XLA):")
    for phase in ("cold", "warm"):
        reps = page[phase]
        keys = (
            "import_s",
            "resolve_s",
            "checks_s",
        )
        parts = {k: _median([r[k] for r in reps]) for k in keys}
        tot = {
            k: _median([r["totals"].get(k, 0.0) for r in reps])
            for k in (
                "compile_s",
                "trace_s",
                "xla_s",
                "load_s",
                "compile_wait_s",
                "run_s",
                "sample_s",
                "programs_compiled",
                "programs_loaded",
                "trials",
            )
        }
        programs = tot["programs_compiled"] or 0
        per = f", compile per draw {tot['compile_s'] / programs:.3f}" if programs else ""
        loaded = tot["programs_loaded"] or 0
        per_load = f", load per draw {tot['load_s'] / loaded * 1000:.1f} ms" if loaded else ""
        run_rate = tot["trials"] / tot["run_s"] if tot["run_s"] else float("nan")
        print(
            f"  {phase}: " + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()) + ", "
            f"{', '.join(f'{k} {v:.2f}' for k, v in tot.items())}{per}{per_load}, "
            f"trials/s while running {run_rate:.0f}"
        )


def _summarise_sxs(sxs: dict[str, Any]) -> None:
    print(f"\n## ProofBridge vs central finite differences ({sxs['backend']}, {sxs['device']})")
    print(
        "| statement | d | trials | FD evals/trial | FD s | PB hot s | PB warm s | PB cold s "
        "| FD / PB hot | FD / PB warm | FD / PB cold | PB pass | FD max scaled err |"
    )
    print("| --- " + "| ---: " * 10 + "| --- | ---: |")
    for r in sxs["rows"]:
        if "error" in r:
            print(f"| {r['statement']} | {r['size']} | {r['trials']} | {r['error']} |")
            continue
        print(
            f"| {r['statement']} | {r['size']} | {r['trials']} | {r['fd_evaluations_per_trial']} "
            f"| {r['fd_s']:.3f} | {r['pb_hot_s']:.4f} | {r['pb_warm_s']:.4f} "
            f"| {r['pb_cold_s']:.3f} | {r['ratio_hot']:.1f}x | {r['ratio_warm']:.1f}x "
            f"| {r['ratio_cold']:.1f}x | {'/'.join(r['pb_status'])} "
            f"| {r['fd_max_scaled_err']:.1e} |"
        )
    ok = [r for r in sxs["rows"] if "error" not in r]
    print("\nall statements together, per size (sum of FD times / sum of ProofBridge times):")
    for size in sorted({r["size"] for r in ok}):
        rows = [r for r in ok if r["size"] == size]
        fd = sum(r["fd_s"] for r in rows)
        ratios = ", ".join(
            f"{phase} {fd / sum(r[f'pb_{phase}_s'] for r in rows):.1f}x"
            for phase in ("hot", "warm", "cold")
        )
        print(f"  d = {size}: FD {fd:.3f} s; FD / PB {ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed-page", default=str(DEFAULT_PAGE))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="8,32,128")
    parser.add_argument("--sxs-trials", default="64,64,8", help="trials per size, both sides")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-page", action="store_true")
    parser.add_argument("--skip-sxs", action="store_true")
    parser.add_argument("--gpu", action="store_true", help="refuse to run without a GPU")
    parser.add_argument("--json", help="write every measurement here")
    parser.add_argument("--inner-page", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--inner-sxs", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--inner-device", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    trials = [int(s) for s in args.sxs_trials.split(",")]
    if len(trials) == 1:
        trials = trials * len(sizes)
    if len(trials) != len(sizes):
        parser.error("--sxs-trials needs one count, or one per size")
    if args.inner_device:
        import checkers  # noqa: F401  (the configuration every check runs under)

        print(json.dumps(_device()))
        return
    if args.inner_page:
        print(json.dumps(_page_child(args.seed_page, 64, 4, args.seed)))
        return
    if args.inner_sxs:
        print(json.dumps(_sxs_child(args.seed_page, sizes, trials, args.seed)))
        return
    if not Path(args.seed_page).is_file():
        raise SystemExit(f"seed page not found: {args.seed_page} (use --seed-page)")
    machine = {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
    print(json.dumps(machine))
    report: dict[str, Any] = {"machine": machine}
    device, _, _ = _child(["--inner-device"], None)
    print(f"JAX device: {device['backend']} ({device['device']})", flush=True)
    report["device"] = device
    if args.gpu and device["backend"] not in ("gpu", "cuda", "rocm"):
        raise SystemExit(f"--gpu: JAX runs on {device['backend']} ({device['device']}) here")
    if not args.skip_page:
        report["page"] = _page_runs(args.seed_page, args.runs)
        _summarise_page(report["page"])
    if not args.skip_sxs:
        with tempfile.TemporaryDirectory(prefix="pb-bench-sxs-") as cache:
            sxs_args = ["--inner-sxs", "--seed-page", args.seed_page, "--sizes", args.sizes]
            sxs_args += ["--sxs-trials", ",".join(map(str, trials)), "--seed", str(args.seed)]
            sxs, wall, _ = _child(sxs_args, cache)
        sxs["wall_s"] = wall
        report["sxs"] = sxs
        _summarise_sxs(sxs)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
