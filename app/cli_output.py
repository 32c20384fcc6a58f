"""How the command line prints reports, results and declarations for people (and JSON)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from app import schemas
from app.services.checks import Replay, RunOutcome
from app.services.ingest import IngestReport

__all__ = [
    "dumps",
    "jsonable",
    "print_check_line",
    "print_check_summary",
    "print_ingest_report",
    "print_replay",
    "print_theorem",
]


def jsonable(value: Any) -> Any:
    """Plain JSON values: non-finite floats become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def dumps(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False, indent=2, allow_nan=False, default=str)


def _dims(dims: dict[str, Any] | None) -> str:
    return ",".join(f"{k}={v}" for k, v in (dims or {}).items()) or "-"


def _err(value: Any) -> str:
    return "-" if value is None else (f"{value:.3g}" if isinstance(value, float) else str(value))


def print_ingest_report(report: IngestReport) -> None:
    print(
        f"{report.files} files: {report.declarations} declarations "
        f"({report.theorems} theorems, {report.definitions} definitions), "
        f"{report.module_docs} module docs"
    )
    print(
        f"{report.new} new, {report.changed} changed, {report.unchanged} unchanged, "
        f"{report.removed} removed; {report.parsed} of {report.declarations} parsed"
    )
    for error in report.errors:
        print(str(error), file=sys.stderr)
    if report.errors:
        print(f"{len(report.errors)} errors", file=sys.stderr)


def print_check_line(result: dict[str, Any]) -> None:
    status = str(result["status"]).upper()
    head = f"{status:<11} {result['name']}"
    if result["status"] in ("pass", "fail"):
        tail = (
            f"[{result['checker']}] {result['trials']} trials, seed {result['seed']}, "
            f"{result['dtype']}, dims {_dims(result.get('dims'))}, "
            f"max abs err {_err(result.get('max_abs_err'))}, "
            f"max rel err {_err(result.get('max_rel_err'))} "
            f"({float(result.get('duration_s') or 0):.2f} s)"
        )
        if result["status"] == "fail" and result.get("reason"):
            tail += f": {result['reason']}"
    else:
        tail = str(result.get("reason") or "")
    print(f"{head}  {tail}", flush=True)


def print_check_summary(outcome: RunOutcome) -> None:
    counts: dict[str, int] = {}
    for r in outcome.results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("pass", "fail", "error", "unsupported"))
    n = len(outcome.results)
    print(f"run {outcome.run_id}: {n} theorem{'' if n == 1 else 's'} checked: {parts}")


def print_replay(replay: Replay) -> None:
    repro = replay.repro
    result = repro.result
    print(
        f"{replay.name}: seed {replay.seed}, dims {_dims(replay.dims)}, "
        f"trial {repro.trial if repro.trial is not None else replay.trial}: {result.status}"
    )
    if result.reason:
        print(f"  reason: {result.reason}")
    for key, value in repro.inputs.items():
        print(f"  {key} = {json.dumps(jsonable(value))}")
    print(f"  lhs = {json.dumps(jsonable(repro.lhs))}")
    print(f"  rhs = {json.dumps(jsonable(repro.rhs))}")


def print_theorem(detail: schemas.TheoremDetail) -> None:
    removed = ", removed" if detail.removed else ""
    print(" ".join((*detail.modifiers, detail.kind, detail.name)))
    print(f"  module {detail.module}, revision {detail.revision}{removed}")
    loc = detail.location
    if loc.file:
        lines = f":{loc.line_start}-{loc.line_end}" if loc.line_start else ""
        print(f"  source {loc.file}{lines}")
    if detail.binders:
        print(f"  {detail.binders}")
    print(f"  : {detail.statement}")
    if detail.docstring:
        print()
        for line in detail.docstring.splitlines():
            print(f"  {line}")
    if detail.equations:
        print("\nEquations")
        for eq in detail.equations:
            print(f"  • {eq}")
    if detail.parse_error:
        pe = detail.parse_error
        print(f"\nparse error ({pe.get('part')}): {pe.get('message')}")
    if detail.unknown_constants:
        print(f"\nunknown constants: {', '.join(detail.unknown_constants)}")
    checker = detail.checker
    print(f"\nchecker: {checker.kind}" + (f" ({checker.reason})" if checker.reason else ""))
    if checker.dependencies:
        print(f"  uses: {', '.join(checker.dependencies)}")
    if checker.statement:
        print(f"  registered for: {checker.statement}")
        if checker.statement_matches is not None:
            same = "yes" if checker.statement_matches else f"no, {checker.statement_difference}"
            print(f"  matches the ingested statement: {same}")
    print(f"status: {detail.status}" + (" (stale: needs a rerun)" if detail.stale else ""))
    if detail.results:
        print("results (newest first):")
        for r in detail.results:
            print(
                f"  run {r.run_id} {r.created_at:%Y-%m-%d %H:%M} rev {r.revision} {r.status} "
                f"[{r.checker}] {r.trials} trials, seed {r.seed}, {r.dtype}, dims {_dims(r.dims)}, "
                f"max abs err {_err(r.max_abs_err)}"
            )
    if len(detail.revisions) > 1:
        print(f"revisions: {len(detail.revisions)}")
        for rev in detail.revisions:
            print(f"  {rev.revision} {rev.created_at:%Y-%m-%d %H:%M} {rev.commit or ''}")
