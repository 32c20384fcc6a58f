"""Mutation score of the derived checkers on a whole Lean tree.

    python bench/mutation_score.py ../lean4-mlir/LeanMlir/Proofs
    python bench/mutation_score.py ../lean4-mlir/LeanMlir/Proofs --every 4 --per-theorem 4

Every theorem of the tree whose derived checker passes at the default check
(`--trials`, the default dimension draws, seed 0) has its statement mutated
(checkers/analysis/mutation.py: a numeral, a `+`/`-`, an operand order, an index shift), and
each mutant is checked the same way and classified: killed, survived, equivalent
(the edited side equals the original at every point a stronger search samples),
not-shown-false (an inequality mutant that may still be true), stillborn (no
checker) or error. The score is killed / (killed + survived): the share of the
mutants shown false that the default check catches; the raw score, killed / every
mutant that ran (equivalent and not-shown-false ones included), is printed beside it.
Writes OUT/mutation.json with every mutant, its outcome and why; prints the counts by
operator and the survivors.
Exits 1 when the score is under `--target` (0.9).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_ENV: Any = None


def _environment(tree: Path) -> Any:
    from checkers import Environment
    from theorem_index import read_paths

    batch = read_paths([tree])
    return Environment.from_declarations(d for doc in batch.documents for d in doc.declarations)


def _init(tree: str) -> None:
    global _ENV
    from checkers.runtime.jaxsetup import configure_compilation_cache

    configure_compilation_cache(None)
    _ENV = _environment(Path(tree))


def _theorem(job: tuple[str, int, int]) -> dict[str, Any]:
    """The original's check and every mutant's outcome, for one theorem, timed."""
    start = time.perf_counter()
    row = _mutated(job)
    row["seconds"] = round(time.perf_counter() - start, 3)
    return row


def _mutated(job: tuple[str, int, int]) -> dict[str, Any]:
    from checkers.analysis.mutation import classify, mutants
    from checkers.harness.check import run_checker
    from checkers.statements.checker import DerivedChecker

    name, trials, per_theorem = job
    env = _ENV
    checker = env.resolve(name, prefer="derived")
    row: dict[str, Any] = {"name": name, "mutants": []}
    if not isinstance(checker, DerivedChecker):
        row["original"] = "unsupported"
        return row
    original = run_checker(checker, trials=trials, seed=0, shrink_failures=False)
    row["original"] = original.status
    if original.status != "pass":
        return row
    decl = env.get(name)
    for m in mutants(decl, limit=per_theorem):
        try:
            outcome, why = classify(decl, m, env, trials=trials)
        except Exception as e:  # a defect of the checker machinery: recorded, not hidden
            outcome, why = "error", f"{type(e).__name__}: {e}"
        row["mutants"].append(
            {
                "operator": m.operator,
                "site": m.site,
                "relation": m.relation,
                "statement": m.statement,
                "outcome": outcome,
                "why": why[:300],
            }
        )
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("tree", type=Path, help="a Lean tree, e.g. lean4-mlir/LeanMlir/Proofs")
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--every", type=int, default=1, help="only every N-th theorem by name")
    ap.add_argument("--per-theorem", type=int, default=6, help="mutants per theorem at most")
    ap.add_argument(
        "--only",
        metavar="REGEX",
        help="of the theorems `--every` picks, only those whose name matches (re.search)",
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--target", type=float, default=0.9)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "mutation")
    args = ap.parse_args(argv)
    if not args.tree.is_dir():
        print(f"mutation_score: {args.tree} is not a folder", file=sys.stderr)
        return 2
    start = time.perf_counter()
    env = _environment(args.tree)
    names = sorted(d.name for d in env.theorems())[:: args.every]
    if args.only:
        names = [n for n in names if re.search(args.only, n)]
    jobs = [(n, args.trials, args.per_theorem) for n in names]
    ctx = multiprocessing.get_context("spawn")
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    # one line per theorem as it finishes, so a long run shows where it is and a stopped
    # one keeps what it measured
    with (
        (args.out / "progress.jsonl").open("w") as log,
        ctx.Pool(args.jobs, initializer=_init, initargs=(str(args.tree.resolve()),)) as pool,
    ):
        for row in pool.imap_unordered(_theorem, jobs):
            rows.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()
    rows.sort(key=lambda r: r["name"])
    outcomes: Counter[str] = Counter()
    by_op: dict[str, Counter[str]] = {}
    for row in rows:
        for m in row["mutants"]:
            outcomes[m["outcome"]] += 1
            by_op.setdefault(m["operator"], Counter())[m["outcome"]] += 1
    shown_false = outcomes["killed"] + outcomes["survived"]
    score = outcomes["killed"] / shown_false if shown_false else 0.0
    # raw: killed among every mutant that got a checker and ran (the equivalent and the
    # not-shown-false ones count against it, though some state true things)
    ran = shown_false + outcomes["equivalent"] + outcomes["not-shown-false"]
    raw = outcomes["killed"] / ran if ran else 0.0
    report = {
        "tree": str(args.tree),
        "theorems": len(names),
        "every": args.every,
        "only": args.only,
        "trials": args.trials,
        "per_theorem": args.per_theorem,
        "originals": dict(Counter(r["original"] for r in rows)),
        "outcomes": dict(outcomes),
        "by_operator": {op: dict(c) for op, c in sorted(by_op.items())},
        "score": round(score, 4),
        "shown_false": shown_false,
        "raw_score": round(raw, 4),
        "wall_s": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    (args.out / "mutation.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"{len(names)} theorems, originals {report['originals']}")
    print(f"mutants {dict(outcomes)}")
    for op, c in sorted(by_op.items()):
        print(f"  {op}: {dict(c)}")
    print(
        f"score {score:.4f} (killed {outcomes['killed']} of {shown_false} shown false); "
        f"raw {raw:.4f} (killed of {ran} that ran); {report['wall_s']} s"
    )
    for row in rows:
        for m in row["mutants"]:
            if m["outcome"] in ("survived", "error"):
                print(f"  {m['outcome']}: {row['name']} [{m['operator']} {m['site']}]: {m['why']}")
    return 0 if score >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
