"""Does `proofbridge coverage` predict what `proofbridge check` does, theorem by theorem?

    python bench/coverage_agreement.py ../mathlib/Mathlib
    python bench/coverage_agreement.py ../lean4-mlir/LeanMlir/Proofs --trials 16

On a fresh embedded database it ingests TREE, runs `proofbridge check --json` (in a
process of its own), then decides every theorem as coverage does (`blocker`: JAX-free,
nothing traced) and compares: coverage's verdict is `checked` where it finds no blocker,
check's where the result is not `unsupported`. It prints the agreement (the share of
theorems on which the two verdicts are equal), the counts of both kinds of disagreement
with the reasons check gave, and writes every disagreement to `OUT/agreement.json`,
with check's counts by status and every `fail` and `error`; check's own output is kept as
`OUT/check.json` (bench/corpus_figures.py reads it).
The target (issue: coverage predicts check) is an agreement of at least 99 % on each
corpus. Exit 1 below it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.99


def _vacuous_share(r: dict) -> float:
    """The share of the trials drawn whose hypotheses failed (corpus_check.py's reading)."""
    per_draw = ((r.get("stats") or {}).get("per_draw")) or []
    drawn = sum(int(d.get("trials") or 0) + int(d.get("unstable_trials") or 0) for d in per_draw)
    total = drawn or (r.get("trials") or 0) * max(1, len(r.get("draws") or [None]))
    return (r.get("vacuous_trials") or 0) / total if total else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="agreement-"))
    out = args.out or data
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        PROOFBRIDGE_DATA_DIR=str(data),
        PROOFBRIDGE_DATABASE_URL=f"sqlite:///{data}/proofbridge.db",
        PROOFBRIDGE_JAX_CACHE_DIR=str(data / "jax-cache"),
    )
    env.pop("PROOFBRIDGE_BROKER_URL", None)
    py = [sys.executable, "-m", "app"]
    subprocess.run([*py, "ingest", str(args.tree)], env=env, cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    start = time.perf_counter()
    got = subprocess.run(
        [*py, "check", "--json", "--trials", str(args.trials), "--seed", str(args.seed)],
        env=env, cwd=ROOT, check=False, capture_output=True, text=True,
    )  # fmt: skip
    check_s = time.perf_counter() - start
    (out / "check.json").write_text(got.stdout)  # for bench/corpus_figures.py
    results = {r["name"]: r for r in json.loads(got.stdout)}
    os.environ.update({k: env[k] for k in ("PROOFBRIDGE_DATA_DIR", "PROOFBRIDGE_DATABASE_URL")})
    from app.db import get_sessionmaker
    from app.services.runs import build_environment, load_backend
    from checkers.analysis.coverage import blocker

    start = time.perf_counter()
    with get_sessionmaker(env["PROOFBRIDGE_DATABASE_URL"])() as session:
        environment = build_environment(session, load_backend())
        predicted = {n: blocker(n, environment) for n in sorted(results)}
    coverage_s = time.perf_counter() - start
    over: list[dict[str, str]] = []  # coverage says checked, check did not
    under: list[dict[str, str]] = []  # coverage says unsupported, check checked it
    for name, why in predicted.items():
        checked = results[name]["status"] != "unsupported"
        if why is None and not checked:
            over.append({"name": name, "check": results[name]["reason"] or ""})
        elif why is not None and checked:
            under.append({"name": name, "coverage": why.reason, "check": results[name]["status"]})
    statuses = Counter(r["status"] for r in results.values())
    # the issue counts a theorem checked only where at most 10 % of its trials were vacuous
    weak = sorted(
        r["name"] for r in results.values() if r["status"] == "pass" and _vacuous_share(r) > 0.1
    )
    broken = [
        {"name": r["name"], "status": r["status"], "reason": r["reason"]}
        for r in results.values()
        if r["status"] in ("fail", "error")
    ]
    n = len(predicted)
    agree = 1 - (len(over) + len(under)) / n if n else 1.0
    report = {
        "tree": str(args.tree),
        "theorems": n,
        "checked_by_check": sum(r["status"] != "unsupported" for r in results.values()),
        "checked_by_coverage": sum(w is None for w in predicted.values()),
        "agreement": round(agree, 4),
        "statuses": dict(statuses),
        "checked_at_most_10pc_vacuous": sum(
            r["status"] in ("pass", "fail") for r in results.values()
        )
        - len(weak),
        "weak_passes": weak,
        "fail_or_error": broken,
        "coverage_over": over,
        "coverage_under": under,
        "check_s": round(check_s, 1),
        "coverage_s": round(coverage_s, 1),
    }
    (out / "agreement.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(
        f"{n} theorems: check checked {report['checked_by_check']}, coverage predicted "
        f"{report['checked_by_coverage']}; agreement {agree:.4f} (target {TARGET}); "
        f"{len(over)} predicted checked but unsupported, {len(under)} the other way; "
        f"coverage {coverage_s:.1f} s, check {check_s:.1f} s"
    )
    print("check: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    checked = report["checked_at_most_10pc_vacuous"]
    print(
        f"checked with at most 10 % of trials vacuous: {checked} of {n} "
        f"({100 * checked / n:.1f} %); {len(weak)} passes had more (weaker checks)"
    )
    for b in broken:
        print(f"  {b['status']}: {b['name']}: {(b['reason'] or '')[:150]}")
    kinds = Counter(o["check"].split(":")[0][:90] for o in over)
    for reason, k in kinds.most_common(15):
        print(f"  {k:>5}  {reason}")
    for u in under[:15]:
        print(f"  under: {u['name']}: {u['coverage'][:90]}")
    print(f"written: {out / 'agreement.json'}")
    return 0 if agree >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
