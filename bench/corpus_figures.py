"""The coverage figures of a whole-tree check: relational theorems with a checker that ran,
overall and outside `Certificates/`, the vacuous share of their trials, and the theorems
whose head is not a relation that got one, by the form of their head.

    python bench/corpus_figures.py ../lean4-mlir/LeanMlir/Proofs bench/out/corpus/head.check

`head.check` is `proofbridge check --json`'s output (bench/corpus_check.py writes it). A
theorem is relational when its statement, after its leading `∀ x,` and `P →`, is an `=`,
`≤`, `<`, `≥` or `>` (checkers.analysis.mutation.relation_of); a checker ran when its status is
`pass`, `fail` or `error`. Prints the figures and writes them beside the check as
`<label>.figures.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RAN = ("pass", "fail", "error")


def _head_form(statement: str) -> str:
    """The form of a statement's head after its binders (`∧`, `≠`, a predicate's name)."""
    from theorem_index.lean import LeanParseError, parse_term
    from theorem_index.lean import syntax as S

    try:
        t = parse_term(statement)
    except LeanParseError:
        return "does not parse"
    while True:
        if isinstance(t, S.Paren):
            t = t.term
        elif isinstance(t, S.Quant) and t.q == "∀" and t.bound is None:
            t = t.body
        elif isinstance(t, S.BinOp) and t.op == "→":
            t = t.rhs
        else:
            break
    if isinstance(t, S.BinOp):
        return t.op
    if isinstance(t, S.App):
        h = t.fn
        return getattr(h, "name", type(h).__name__)
    if isinstance(t, S.Quant):
        return t.q + (" (bounded)" if t.bound is not None else "")
    return type(t).__name__


def figures(tree: Path, results: list[dict[str, Any]]) -> dict[str, Any]:
    from checkers.analysis.mutation import relation_of
    from theorem_index import read_paths

    batch = read_paths([tree])
    decls = {d.name: d for doc in batch.documents for d in doc.declarations}
    rel = {"all": Counter(), "outside": Counter(), "inside": Counter()}
    trials = vacuous = 0
    heads: Counter[str] = Counter()
    heads_ran: Counter[str] = Counter()
    for r in results:
        d = decls.get(r["name"])
        if d is None:
            continue
        inside = "Certificates" in (d.location.file if d.location else "") or d.module.startswith(
            "Certificates"
        )
        ran = r["status"] in RAN
        if relation_of(d.statement) is not None:
            for key in ("all", "inside" if inside else "outside"):
                rel[key]["theorems"] += 1
                rel[key]["ran"] += ran
                rel[key]["pass"] += r["status"] == "pass"
            if ran:
                draws = max(1, len(r.get("draws") or [None]))
                trials += (r.get("trials") or 0) * draws
                vacuous += r.get("vacuous_trials") or 0
        else:
            form = _head_form(d.statement)
            heads[form] += 1
            heads_ran[form] += ran
    share = {
        k: round(v["ran"] / v["theorems"], 4) if v["theorems"] else 0.0 for k, v in rel.items()
    }
    return {
        "relational": {k: dict(v) for k, v in rel.items()},
        "relational_ran_share": share,
        "relational_vacuous_trial_share": round(vacuous / trials, 4) if trials else 0.0,
        "not_relation": {
            "theorems": sum(heads.values()),
            "ran": sum(heads_ran.values()),
            "by_head": {h: [heads_ran[h], heads[h]] for h, _ in heads.most_common()},
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("tree", type=Path)
    ap.add_argument("check", type=Path, help="proofbridge check --json output")
    args = ap.parse_args(argv)
    out = figures(args.tree, json.loads(args.check.read_text()))
    target = args.check.with_suffix(".figures.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    r, s = out["relational"], out["relational_ran_share"]
    for key in ("all", "outside", "inside"):
        v = r[key]
        print(
            f"relational {key}: {v.get('ran', 0)} of {v.get('theorems', 0)} ran "
            f"({100 * s[key]:.1f} %), {v.get('pass', 0)} pass"
        )
    print(
        f"vacuous share of the relational checks' trials: "
        f"{100 * out['relational_vacuous_trial_share']:.1f} %"
    )
    n = out["not_relation"]
    print(f"not a relation: {n['ran']} of {n['theorems']} ran; by head (ran/all):")
    for h, (ran, total) in list(n["by_head"].items())[:25]:
        print(f"  {h}: {ran}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
