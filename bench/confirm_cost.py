"""What confirming failures exactly costs (checkers/harness/confirming.py), and what it changes.

    python bench/confirm_cost.py [--reps 25]
    python bench/confirm_cost.py --tree ../lean4-mlir/LeanMlir/Proofs --every 10 [--rounds 3]

For statements in the style of Mathlib's `Real.exp`, `Real.log` and `Real.rpow` lemmas,
true ones and false variants, each checked with the exact evaluation of failing trials
and, in the same process, without it (`settle` replaced by a no-op): the status either
way, the trials left out as unstable, how many trials were evaluated exactly and how long
that took, and the median time of a check. Passing statements examine nothing: their
two timings differ only by the search for trials to examine.

With `--tree`, every `--every`-th theorem of a Lean tree is checked (16 trials) with
confirmation and without it, in one process, alternating which goes first in each of
`--rounds` rounds after a warm-up that derives every checker and builds its programs:
the CPU seconds of each, summed over the theorems, and their ratio. On a corpus where
everything passes this is what confirming costs a passing check (the search for trials to
examine, and the exact decision of closed statements that float64 passed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import checkers.harness.confirming as confirming
import checkers.harness.evaluation as evaluation
from checkers import Environment, check
from theorem_index.model import Declaration

TRUE = [
    ("log_rpow", "(x y : ℝ) (hx : 0 < x)", "Real.log (x ^ y) = y * Real.log x"),
    ("rpow_add", "(x y z : ℝ) (hx : 0 < x)", "x ^ (y + z) = x ^ y * x ^ z"),
    ("exp_add", "(x y : ℝ)", "Real.exp (x + y) = Real.exp x * Real.exp y"),
    (
        "log_div",
        "(x y : ℝ) (hx : x ≠ 0) (hy : y ≠ 0)",
        "Real.log (x / y) = Real.log x - Real.log y",
    ),
    ("add_one_le_exp", "(x : ℝ)", "x + 1 ≤ Real.exp x"),
    ("lt_log_one_add", "{x : ℝ} (hx : 0 < x)", "2 * x / (x + 2) < Real.log (1 + x)"),
    (
        "sigmoid_inj",
        "(a b : ℝ) (ha : 0 < a) (hb : 0 < b) "
        "(h : 1 / (1 + Real.exp (-a)) = 1 / (1 + Real.exp (-b)))",
        "a = b",
    ),
    ("sum_add", "{n : ℕ} (v w : Fin n → ℝ)", "∑ i, (v i + w i) = ∑ i, v i + ∑ i, w i"),
]
FALSE = [
    ("log_rpow+1", "(x y : ℝ) (hx : 0 < x)", "Real.log (x ^ y) = (y + 1) * Real.log x"),
    ("exp_add_swap", "(x y : ℝ)", "Real.exp (x + y) = Real.exp x + Real.exp y"),
    ("exp_lt_exp_weak", "(x y : ℝ) (h : x ≤ y)", "Real.exp x < Real.exp y"),
    ("log_one_add_flip", "{x : ℝ} (hx : 0 < x)", "Real.log (1 + x) < 2 * x / (x + 2)"),
    ("softmax_sum_2", "{n : ℕ} (z : Fin n → ℝ)", "∑ j, Real.exp (z j) / ∑ k, Real.exp (z k) = 2"),
]


def _env(binders: str, statement: str) -> Environment:
    decl = Declaration(
        name="Proofs.t",
        kind="theorem",
        module="Bench",
        binders=binders,
        statement=statement,
        namespace="Proofs",
    )
    return Environment.from_declarations([decl])


def _skip(session: Any, specs: Any, dims: Any, progs: Any, rows: Any, size: int) -> Any:
    return confirming.Settled(rows)


def _median_s(env: Environment, reps: int) -> tuple[Any, float]:
    result = check("Proofs.t", env)  # derivation and programs, once
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = check("Proofs.t", env)
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def _tree(path: str, every: int, rounds: int, trials: int) -> None:
    from pathlib import Path

    from theorem_index import read_paths

    batch = read_paths([Path(path)])
    env = Environment.from_declarations(d for doc in batch.documents for d in doc.declarations)
    names = sorted(d.name for d in env.theorems())[::every]
    real = evaluation.settle

    def run(confirm: bool) -> tuple[float, list[str]]:
        evaluation.settle = real if confirm else _skip
        start = time.process_time()
        statuses = [check(n, env, trials=trials, seed=0).status for n in names]
        return time.process_time() - start, statuses

    run(True)  # derivation and programs, once for both
    with_s: list[float] = []
    without_s: list[float] = []
    for k in range(rounds):
        for confirm in (True, False) if k % 2 == 0 else (False, True):
            seconds, statuses = run(confirm)
            (with_s if confirm else without_s).append(seconds)
    evaluation.settle = real
    ratios = [w / o for w, o in zip(with_s, without_s, strict=True)]
    print(f"{len(names)} theorems ({path}, every {every}th, {trials} trials), {rounds} rounds")
    print("with confirmation, CPU s:   ", " ".join(f"{x:.2f}" for x in with_s))
    print("without confirmation, CPU s:", " ".join(f"{x:.2f}" for x in without_s))
    print(
        f"ratio with / without: median {statistics.median(ratios):.3f} "
        f"({', '.join(f'{r:.3f}' for r in ratios)})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--tree", help="a Lean tree: time its checks with and without confirming")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--trials", type=int, default=16)
    args = ap.parse_args()
    if args.tree:
        _tree(args.tree, args.every, args.rounds, args.trials)
        return
    real = evaluation.settle
    print(
        f"{'statement':18s} {'without':12s} {'with':12s} unstable examined confirm_ms "
        "check_ms(without) check_ms(with)"
    )
    for group, rows in (("true", TRUE), ("false", FALSE)):
        print(f"-- {group}")
        for name, binders, statement in rows:
            env = _env(binders, statement)
            evaluation.settle = _skip
            before, off = _median_s(env, args.reps)
            evaluation.settle = real
            after, on = _median_s(env, args.reps)
            draws = after.stats.get("per_draw") or []
            examined = sum(d.get("examined_trials", 0) for d in draws)
            confirm_ms = 1e3 * sum(d.get("confirm_s", 0.0) for d in draws)
            print(
                f"{name:18s} {before.status:12s} {after.status:12s} {after.unstable_trials:8d} "
                f"{examined:8d} {confirm_ms:10.1f} {off * 1e3:17.1f} {on * 1e3:14.1f}"
            )


if __name__ == "__main__":
    main()
