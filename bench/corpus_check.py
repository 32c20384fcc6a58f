"""Ingest and check a whole Lean tree; the standing correctness and speed benchmark.

    python bench/corpus_check.py ../lean4-mlir/LeanMlir/Proofs
    python bench/corpus_check.py ../lean4-mlir/LeanMlir/Proofs --against 42a2fba --trials 16

For the working tree (and then, with `--against REV`, for commit REV checked out into a
temporary worktree, measured in the same run, and for the working tree again) it runs
`proofbridge ingest PATH` and `proofbridge check --json` in fresh processes on a fresh
embedded database and a fresh compilation cache, and writes `OUT/<label>.json`: the
counts by status, the vacuous share of the passes, every `fail` and `error` with its
reason, the wall time and the peak resident memory of each phase (of its largest process,
from /usr/bin/time, and of all its processes together, sampled from /proc every 0.25 s:
`check --jobs` starts workers), the latter both as the sum of resident sets (shared
library pages counted once a process) and as the sum of proportional sets (PSS, each
shared page counted once).
Every fail or error on a tree that is proved in Lean is a defect of ProofBridge; the
benchmark exits 1 when the working tree has one. The working tree's report is written as
soon as it is done, before REV is measured.

This machine's speed drifts over minutes (a shared host: the same pure-Python loop takes
1.3 s in one phase and 2.3 s in the next), and the reference's check takes several times
as long as the working tree's. So with `--against` the working tree is checked twice, once
before REV and once after it (`head-after`), and the speed-up is REV's wall time over the
mean of the two: drift over the run then weighs on both sides alike. Every phase also
records the machine's speed while it ran: every `PROBE_EVERY_S` seconds the sampler times
a fixed pure-Python loop (`probe_ms`, the median; a few ms of every 5 s), so a ratio can
be read beside how fast the machine was during each of its terms.

With `--against`, every theorem's result is compared between the working tree and REV
(status, dependencies, dims and draws, largest absolute and relative error; the reason's
words may differ): `OUT/compare-REV.json` lists the theorems that differ, and a refactor
must leave none. REV runs with the interpreter `--against-python` (default: this one): a
commit whose packages or entry points differ from the working tree's (a pack split out of
the core) needs an environment of its own, installed from that commit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# how often the sampler times the machine (`_probe`)
PROBE_EVERY_S = 5.0


def _probe() -> float:
    """Milliseconds a fixed pure-Python loop takes now: the machine's speed, sampled."""
    start = time.perf_counter()
    x = 0
    for i in range(200_000):
        x += i
    return (time.perf_counter() - start) * 1000


def _tree_memory_kb(root: int) -> tuple[int, int]:
    """The memory of process `root` and all its descendants, in KB: the sum of their
    resident sets (shared pages, such as the libraries' code, counted in each process: an
    upper bound) and the sum of their proportional sets (PSS: a shared page divided among
    the processes that share it, so the sum is what the tree holds of the machine)."""
    children: dict[int, list[int]] = {}
    pages: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/statm") as f:
                resident = int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
        pages[int(entry)] = resident
    total = pss = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        total += pages.get(pid, 0)
        pss += _pss_kb(pid)
        todo.extend(children.get(pid, []))
    return total * os.sysconf("SC_PAGE_SIZE") // 1024, pss


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _timed(
    cmd: list[str], *, cwd: Path, env: dict[str, str], out: Path
) -> tuple[float, int, tuple[int, int], int, float]:
    """Run `cmd`, stdout to `out`; (wall seconds, peak RSS of its largest process in MB,
    peak memory of all its processes together in MB as (RSS sum, PSS sum), each sampled
    every 0.25 s, exit code, the median `_probe` while it ran in ms)."""
    rss_file = out.with_suffix(".rss")
    start = time.perf_counter()
    total_kb = pss_kb = 0
    probes: list[float] = []
    next_probe = start
    with out.open("wb") as sink, out.with_suffix(".stderr").open("wb") as err:
        proc = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *cmd],
            cwd=cwd,
            env=env,
            stdout=sink,
            stderr=err,
        )
        while proc.poll() is None:
            rss_sum, pss_sum = _tree_memory_kb(proc.pid)
            total_kb, pss_kb = max(total_kb, rss_sum), max(pss_kb, pss_sum)
            if time.perf_counter() >= next_probe:
                probes.append(_probe())
                next_probe += PROBE_EVERY_S
            time.sleep(0.25)
    wall = time.perf_counter() - start
    try:
        rss_mb = int(rss_file.read_text().split()[-1]) // 1024
    except (OSError, ValueError, IndexError):
        rss_mb = -1
    probe_ms = sorted(probes)[len(probes) // 2] if probes else 0.0
    return wall, rss_mb, (total_kb // 1024, pss_kb // 1024), proc.returncode, probe_ms


def run_tree(
    source: Path,
    tree: Path,
    *,
    label: str,
    out: Path,
    trials: int,
    seed: int,
    every: int = 1,
    jobs: int | None = None,
    python: str | None = None,
) -> dict:
    data = Path(tempfile.mkdtemp(prefix=f"corpus-{label}-"))
    env = dict(os.environ)
    env.update(
        PROOFBRIDGE_DATA_DIR=str(data),
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{data}/proofbridge.db",
        PROOFBRIDGE_JAX_CACHE_DIR=str(data / "jax-cache"),
        PYTHONPATH=str(source),
    )
    env.pop("PROOFBRIDGE_BROKER_URL", None)
    py = [python or sys.executable, "-m", "app"]
    report: dict[str, Any] = {"label": label, "source": str(source), "trials": trials}
    try:
        wall, rss, (total, pss), rc, probe = _timed(
            [*py, "ingest", str(tree), "--json"], cwd=source, env=env, out=out / f"{label}.ingest"
        )
        report["ingest"] = {
            "wall_s": round(wall, 1),
            "peak_rss_mb": rss,
            "peak_total_rss_mb": total,
            "peak_total_pss_mb": pss,
            "exit": rc,
            "probe_ms": round(probe, 1),
        }
        print(
            f"[{label}] ingest: {wall:.1f} s, {rss} MB (all: {total} MB RSS, {pss} MB PSS), "
            f"exit {rc}",
            flush=True,
        )
        cmd = [*py, "check", "--json", "--trials", str(trials), "--seed", str(seed)]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
            report["jobs"] = jobs
        if every > 1:
            cmd += _sample(data, every)
            report["every"] = every
        wall, rss, (total, pss), rc, probe = _timed(
            cmd, cwd=source, env=env, out=out / f"{label}.check"
        )
        report["check"] = {
            "wall_s": round(wall, 1),
            "peak_rss_mb": rss,
            "peak_total_rss_mb": total,
            "peak_total_pss_mb": pss,
            "exit": rc,
            "probe_ms": round(probe, 1),
        }
        print(
            f"[{label}] check: {wall:.1f} s, {rss} MB (all processes: {total} MB RSS, "
            f"{pss} MB PSS), exit {rc}; machine probe {probe:.1f} ms",
            flush=True,
        )
        try:
            results = json.loads((out / f"{label}.check").read_text())
        except ValueError:
            results = []
        report.update(summarise(results))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return report


def _sample(data: Path, every: int) -> list[str]:
    """Every `every`-th ingested theorem by name (a fixed sample for speed ratios)."""
    import sqlite3

    with sqlite3.connect(data / "proofbridge.db") as db:
        rows = db.execute(
            "SELECT name FROM declarations WHERE kind IN ('theorem', 'lemma') ORDER BY name"
        ).fetchall()
    return [name for k, (name,) in enumerate(rows) if k % every == 0]


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(r["status"] for r in results)
    passes = [r for r in results if r["status"] == "pass"]
    with_vacuous = [r for r in passes if (r.get("vacuous_trials") or 0) > 0]
    mostly = [r for r in passes if _vacuous_share(r) > 0.25]
    unstable = [r for r in passes if (r.get("unstable_trials") or 0) > 0]
    branching = [
        r["name"]
        for r in passes
        if any(d.get("branching_trials") for d in (r.get("stats") or {}).get("per_draw") or [])
    ]
    return {
        "theorems": len(results),
        "counts": dict(sorted(counts.items())),
        "passes_with_vacuous_trials": len(with_vacuous),
        "passes_over_quarter_vacuous": len(mostly),
        "passes_with_unstable_trials": len(unstable),
        # passes some of whose failing trials the exact evaluation could not finish (a
        # branch no precision decided): their replacement is no evidence of an artefact
        "passes_with_branching_trials": branching,
        "problems": [
            {"name": r["name"], "status": r["status"], "reason": r.get("reason", "")}
            for r in results
            if r["status"] in ("fail", "error")
        ],
        "unsupported_reasons": Counter(
            (r.get("reason") or "")[:80] for r in results if r["status"] == "unsupported"
        ).most_common(25),
    }


# what must not change between two commits that should give the same results
SAME = ("status", "checker", "dependencies", "dims", "draws", "max_abs_err", "max_rel_err")


def compare(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, Any]:
    """The theorems whose results differ in any field of `SAME`, or that only one side has."""
    a = {r["name"]: r for r in ours}
    b = {r["name"]: r for r in theirs}
    differ = []
    for name in sorted(a.keys() & b.keys()):
        fields = [f for f in SAME if a[name].get(f) != b[name].get(f)]
        if fields:
            differ.append({"name": name, **{f: [a[name].get(f), b[name].get(f)] for f in fields}})
    return {
        "theorems": len(a.keys() & b.keys()),
        "identical": len(a.keys() & b.keys()) - len(differ),
        "differ": differ,
        "only_ours": sorted(a.keys() - b.keys()),
        "only_theirs": sorted(b.keys() - a.keys()),
    }


def _results(out: Path, label: str) -> list[dict[str, Any]]:
    try:
        loaded = json.loads((out / f"{label}.check").read_text())
    except (OSError, ValueError):
        return []
    return loaded if isinstance(loaded, list) else []


def _vacuous_share(r: dict[str, Any]) -> float:
    """The share of the trials drawn whose hypotheses failed (vacuous ones are replaced by
    fresh trials, so a draw may have drawn more than the trials asked for)."""
    per_draw = ((r.get("stats") or {}).get("per_draw")) or []
    drawn = sum(int(d.get("trials") or 0) + int(d.get("unstable_trials") or 0) for d in per_draw)
    total = drawn or (r.get("trials") or 0) * max(1, len(r.get("draws") or [None]))
    return (r.get("vacuous_trials") or 0) / total if total else 0.0


def _worktree(rev: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=f"corpus-ref-{rev[:12]}-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(path), rev],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("tree", type=Path, help="a Lean tree, e.g. lean4-mlir/LeanMlir/Proofs")
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--against", metavar="REV", help="also measure commit REV, in the same run")
    ap.add_argument(
        "--against-python",
        metavar="PYTHON",
        help="the interpreter REV runs with (an environment installed from REV)",
    )
    ap.add_argument(
        "--every", type=int, default=1, help="check only every N-th theorem by name (speed ratios)"
    )
    ap.add_argument(
        "--jobs", type=int, help="the working tree's `check --jobs` (default: the command's own)"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "corpus")
    args = ap.parse_args(argv)
    if not args.tree.is_dir():
        print(f"corpus_check: {args.tree} is not a folder", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    tree = args.tree.resolve()
    reports = []
    ref = _worktree(args.against) if args.against else None

    def measure(
        source: Path, label: str, jobs: int | None, python: str | None = None
    ) -> dict[str, Any]:
        report = run_tree(
            source,
            tree,
            label=label,
            out=args.out,
            trials=args.trials,
            seed=args.seed,
            every=args.every,
            jobs=jobs,
            python=python,
        )
        _save(args.out, report)
        return report

    try:
        # the working tree first: its correctness figures come before the (slower) reference's
        reports.append(measure(ROOT, "head", args.jobs))
        if ref is not None:
            # no --jobs for the reference: it may predate the option
            reports.append(measure(ref, f"ref-{args.against}", None, args.against_python))
            # drift over the run weighs on both sides
            reports.append(measure(ROOT, "head-after", args.jobs))
    finally:
        if ref is not None:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(ref)],
                cwd=ROOT,
                check=False,
                capture_output=True,
            )
    for rep in reports:
        _save(args.out, rep)
        print(
            f"{rep['label']}: {rep['theorems']} theorems {rep['counts']}; passes with vacuous "
            f"trials {rep['passes_with_vacuous_trials']} (over a quarter: "
            f"{rep['passes_over_quarter_vacuous']}); with unstable trials "
            f"{rep.get('passes_with_unstable_trials')}, of which with branching trials "
            f"{len(rep.get('passes_with_branching_trials') or [])}; "
            f"check {rep['check']['wall_s']} s, "
            f"{rep['check']['peak_rss_mb']} MB, machine probe {rep['check']['probe_ms']} ms"
        )
        for p in rep["problems"]:
            print(f"  {p['status']}: {p['name']}: {p['reason'][:200]}")
    problems = bool(reports[0]["problems"])
    if len(reports) == 3:
        first, reference, after = reports
        if after["counts"] != first["counts"] or after["problems"] != first["problems"]:
            print("the working tree's second check disagrees with its first", file=sys.stderr)
            problems = True
        same = compare(_results(args.out, "head"), _results(args.out, reference["label"]))
        (args.out / f"compare-{args.against}.json").write_text(json.dumps(same, indent=1) + "\n")
        print(
            f"results against {args.against}: {same['identical']} of {same['theorems']} "
            f"theorems identical (status, dependencies, dims, draws, largest errors); "
            f"{len(same['differ'])} differ, {len(same['only_ours'])} only here, "
            f"{len(same['only_theirs'])} only there"
        )
        for d in same["differ"][:20]:
            print(f"  differs: {d}"[:300])
        wall = reference["check"]["wall_s"]
        mean = (first["check"]["wall_s"] + after["check"]["wall_s"]) / 2
        print(
            f"check speed-up of the working tree over {args.against}: {wall / mean:.2f}x "
            f"({wall} s over the mean of {first['check']['wall_s']} s and "
            f"{after['check']['wall_s']} s; against each alone "
            f"{wall / first['check']['wall_s']:.2f}x and {wall / after['check']['wall_s']:.2f}x)"
        )
    return 1 if problems else 0


def _save(out: Path, report: dict[str, Any]) -> None:
    (out / f"{report['label']}.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
