"""Parsing speed over a generated 10,000-declaration corpus.

    python bench/parse.py [--n 10000] [--seed 0] [--repeat 3]

Generates the corpus with `bench/corpus.py` (plain-text seed form), reads it
with the project's readers (not timed), then times

1. parsing alone: every statement (`parse_term`), and every binder list,
   statement and rendered equation;
2. the whole corpus parsed, resolved and serialised as stored
   (`analyse_declaration` + `Analysis.to_json` + `json.dumps`).

Reports statements per second (best of `--repeat` runs) and the whole-corpus
time; exits 1 if any declaration fails to parse.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus  # noqa: E402

from theorem_index.lean import (  # noqa: E402
    KnownNames,
    LeanParseError,
    analyse_declaration,
    parse_binders,
    parse_term,
)
from theorem_index.model import Declaration  # noqa: E402
from theorem_index.readers import read_paths  # noqa: E402


def _best(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Best wall-clock and best CPU seconds of `repeat` runs of `fn`."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        corpus.generate(args.n, "text", Path(tmp), seed=args.seed)
        batch = read_paths([Path(tmp)])
    decls: list[Declaration] = [d for doc in batch.documents for d in doc.declarations]
    statements = [d.statement for d in decls if d.statement]
    equations = [e for d in decls for e in d.equations]
    binders = [d.binders for d in decls if d.binders]
    tokens = sum(len(s.split()) for s in statements)

    failures: list[str] = []

    def parse_statements() -> None:
        for s in statements:
            parse_term(s)

    def parse_all() -> None:
        for b in binders:
            parse_binders(b)
        for s in statements:
            parse_term(s)
        for e in equations:
            try:
                parse_term(e)
            except LeanParseError:
                if "did not get rendered" not in e:
                    raise

    stored: list[str] = []

    def analyse_all() -> None:
        known = KnownNames(d.name for d in decls)
        stored.clear()
        for d in decls:
            a = analyse_declaration(d, known)
            if a.errors:
                failures.append(f"{d.name}: {a.errors[0]}")
            stored.append(json.dumps(a.to_json(), ensure_ascii=False))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    t_stmt, c_stmt = _best(parse_statements, args.repeat)
    t_all, c_all = _best(parse_all, args.repeat)
    t_whole, c_whole = _best(analyse_all, args.repeat)

    n = len(statements)
    parts = len(statements) + len(binders) + len(equations)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average {load:.1f} at the start"
    )
    print(
        f"declarations: {len(decls)}  statements: {n}  "
        f"binder lists: {len(binders)}  equations: {len(equations)}"
        f"  (~{tokens / n:.0f} words per statement)"
    )
    print(
        f"parse statements only: {t_stmt:.2f} s wall, {c_stmt:.2f} s CPU  ->  "
        f"{n / t_stmt:,.0f} statements/s wall, {n / c_stmt:,.0f} per CPU second"
    )
    print(
        f"parse binders + statements + equations ({parts} parts): {t_all:.2f} s wall, "
        f"{c_all:.2f} s CPU  ->  {len(decls) / t_all:,.0f} declarations/s wall"
    )
    print(
        f"whole corpus parsed + resolved + serialised: {t_whole:.2f} s wall, "
        f"{c_whole:.2f} s CPU  ({sum(map(len, stored)) / 1e6:.1f} MB of JSON)"
    )
    print(f"declarations with parse errors: {len(failures) // args.repeat}")
    for f in failures[:5]:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
