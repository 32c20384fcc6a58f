"""How the command line prints reports, results and declarations for people (and JSON)."""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from app.plain_json import jsonable
from app.services.ingestion import describe_document_kinds
from app.services.reading.proofs import (
    PROVED_FAILING,
    UNPROVED_FALSE,
    ProofState,
    proof_label,
    triage,
)
from app.visible import visible
from theorem_index.model import UNKNOWN, IngestError

if TYPE_CHECKING:  # the schemas and services load only when a command uses them
    from app import schemas
    from app.services.ingestion import IngestReport
    from app.services.runs import Replay, RunOutcome

__all__ = [
    "describe_document_kinds",
    "dumps",
    "jsonable",
    "print_check_line",
    "print_check_summary",
    "print_ingest_report",
    "print_replay",
    "print_theorem",
    "replay_json",
    "say",
    "side_errors",
    "show_value",
]


_C1 = re.compile("[\x7f-\x9f]")


def dumps(value: Any) -> str:
    """JSON for the terminal and for programs: DEL and the C1 controls, which JSON allows raw
    but a terminal obeys, written as `\\u009b` escapes (the same text once parsed)."""
    text = json.dumps(jsonable(value), ensure_ascii=False, indent=2, allow_nan=False, default=str)
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(text: str = "", *, file: TextIO | None = None, flush: bool = False) -> None:
    """Print a line for people, its control characters (but newlines and tabs) written
    visibly (`app.visible`): a name cannot move the cursor, retitle or clear the terminal."""
    print(visible(text, keep="\n\t"), file=file, flush=flush)


def _dims(dims: dict[str, Any] | None) -> str:
    return ",".join(f"{k}={v}" for k, v in (dims or {}).items()) or "-"


def _err(value: Any) -> str:
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        value = _number(value)
    return "-" if value is None else (f"{value:.3g}" if isinstance(value, float) else str(value))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _warning_line(warning: IngestError) -> str:
    """`file:line: warning: message`, placed like an error line."""
    return str(replace(warning, message=f"warning: {warning.message}"))


def print_ingest_report(report: IngestReport) -> None:
    """Warnings and errors first (stderr), then the summary (stdout); when nothing could be
    ingested, a last error line instead of an empty summary."""
    for warning in report.warnings:
        say(_warning_line(warning), file=sys.stderr)
    for error in report.errors:
        say(str(error), file=sys.stderr)
    problems = [
        _plural(len(items), word)
        for items, word in ((report.errors, "error"), (report.warnings, "warning"))
        if items
    ]
    if report.exit_code == 2:
        say(f"proofbridge: error: nothing was ingested ({', '.join(problems)})", file=sys.stderr)
        return
    if problems:
        say(", ".join(problems), file=sys.stderr)
    sys.stderr.flush()
    say(
        f"{_plural(report.files, 'file')}: {_plural(report.declarations, 'declaration')} "
        f"({_plural(report.theorems, 'theorem')}, {_plural(report.definitions, 'definition')}), "
        f"{_plural(report.module_docs, 'module doc')}"
    )
    say(
        f"{report.new} new, {report.changed} changed, {report.unchanged} unchanged, "
        f"{report.removed} removed; {report.parsed} of {report.declarations} parsed"
    )


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def _number(value: Any) -> float:
    if isinstance(value, str):  # JSON's spelling of a non-finite float
        return {"Infinity": math.inf, "-Infinity": -math.inf}.get(value, math.nan)
    return float(value)


def side_errors(lhs: Any, rhs: Any) -> tuple[float | None, float | None]:
    """max |lhs - rhs| and max |lhs - rhs| / |rhs| over the entries with rhs ≠ 0 (None when
    the sides cannot be compared entry by entry)."""
    try:
        pairs = [(_number(a), _number(b)) for a, b in zip(_flat(lhs), _flat(rhs), strict=True)]
    except (TypeError, ValueError):
        return None, None
    if not pairs:
        return None, None
    diffs = [abs(a - b) for a, b in pairs]
    rel = [d / abs(b) for d, (_, b) in zip(diffs, pairs, strict=True) if b != 0]
    return max(diffs), (max(rel) if rel else None)


def show_value(value: Any, shape: tuple[int, ...] | None = None) -> str:
    """A value for people: a scalar as a number, `1.5` not `[1.5]` (values are stored as
    lists, a 0-d one as a one-entry list). With `shape` known, only shape () is a scalar;
    without it, every one-entry list is taken for one."""
    scalar = shape == () or (shape is None and len(_flat(value)) == 1)
    if scalar and isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    return json.dumps(jsonable(value), ensure_ascii=False)


def show_decimals(value: Any) -> str:
    """Exact values (nested lists of decimal strings) without quotes: `-820.09…`, or
    `[[1.5, 2.25], [0, 1]]`; a one-entry list at the top as its entry."""
    if isinstance(value, list) and len(value) == 1 and not isinstance(value[0], list):
        value = value[0]
    return _decimals(value)


def _decimals(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_decimals(v) for v in value) + "]"
    return visible(str(value))


def _tolerances(result: dict[str, Any]) -> str:
    return f"atol {_err(result.get('atol'))}, rtol {_err(result.get('rtol'))}"


def _errors(result: dict[str, Any]) -> str:
    return (
        f"max abs err {_err(result.get('max_abs_err'))}, "
        f"max rel err {_err(result.get('max_rel_err'))}"
    )


def _counterexample(ce: dict[str, Any]) -> str:
    """The counterexample's own numbers: its dims, trial, sides (when scalar) and errors."""
    abs_err, rel_err = side_errors(ce.get("lhs"), ce.get("rhs"))
    shrunk = " (shrunk)" if ce.get("shrunk") else ""
    sides = ""
    if all(isinstance(ce.get(k), list) and len(_flat(ce[k])) == 1 for k in ("lhs", "rhs")):
        sides = f"lhs {show_value(ce['lhs'])}, rhs {show_value(ce['rhs'])}, "
    return (
        f"counterexample dims {_dims(ce.get('dims'))}{shrunk}, trial {ce.get('trial')}: "
        f"{sides}abs err {_err(abs_err)}, rel err {_err(rel_err)}"
    )


def print_check_line(result: dict[str, Any]) -> None:
    """One line per theorem. A failure shows its counterexample's own dims and errors, and
    labels the maxima over every draw as such; a pass shows the tolerances it met."""
    status = str(result["status"]).upper()
    head = f"{status:<11} {visible(str(result['name']))}"
    if "proof" in result:  # beside the status, what is known of the proof
        label = proof_label(ProofState(result["proof"], tuple(result.get("rests_on") or ())))
        head += f" ({label})" if label else ""
    if result["status"] in ("pass", "fail"):
        setup = (
            f"[{result['checker']}] {result['trials']} trials, seed {result['seed']}, "
            f"{result['dtype']}, {_tolerances(result)}"
        )
        ce = result.get("counterexample")
        draws = len(result.get("draws") or ())
        if result["status"] == "fail" and ce:
            numbers = f"{_counterexample(ce)}; over all draws {_errors(result)}"
        elif draws > 1:
            numbers = (
                f"dims {_dims(result.get('dims'))} (worst of {draws} draws), {_errors(result)}"
            )
        else:
            numbers = f"dims {_dims(result.get('dims'))}, {_errors(result)}"
        tail = f"{setup}, {numbers} ({float(result.get('duration_s') or 0):.2f} s)"
        if (result["status"] == "fail" or result.get("parts")) and result.get("reason"):
            tail += f": {result['reason']}"
    else:
        tail = str(result.get("reason") or "")
    say(f"{head}  {tail}", flush=True)
    for line in part_lines(result.get("parts") or ()):
        say(f"    {line}", flush=True)


def part_lines(parts: Any) -> list[str]:
    """A whole check's rows (one per family of nodes) as aligned lines."""
    if not parts:
        return []
    width = max(len(str(p.get("family", ""))) for p in parts)
    lines = []
    for p in parts:
        ratio = p.get("worst_ratio")
        share = f"{ratio:.2g}" if isinstance(ratio, int | float) else "?"
        failing = f", {p.get('failing')} failing" if p.get("failing") else ""
        lines.append(
            f"{str(p.get('status', '')):<4} {str(p.get('family', '')):<{width}}  "
            f"{p.get('nodes')} node{'s' if p.get('nodes') != 1 else ' '}  "
            f"max abs err {_err(p.get('max_abs_err'))}, max rel err {_err(p.get('max_rel_err'))}, "
            f"worst {p.get('worst_node')} at {share} of rtol {_err(p.get('rtol'))}{failing}"
        )
    return lines


def print_check_summary(outcome: RunOutcome) -> None:
    counts: dict[str, int] = {}
    for r in outcome.results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("pass", "fail", "error", "unsupported"))
    n = len(outcome.results)
    say(f"run {outcome.run_id}: {n} theorem{'' if n == 1 else 's'} checked: {parts}")
    groups: dict[str, list[str]] = {UNPROVED_FALSE: [], PROVED_FAILING: []}
    for r in outcome.results:
        state = ProofState(r.get("proof", UNKNOWN), tuple(r.get("rests_on") or ()))
        group = triage(r["status"], state)
        if group is not None:
            groups[group].append(visible(str(r["name"])))
    for group, names in groups.items():
        if names:  # the first: stop proving these; the second: a defect of the checker
            more = f" and {len(names) - 10} more" if len(names) > 10 else ""
            shown = ", ".join(names[:10]) + more
            say(f"  {len(names)} {group}: {shown}")


def _shown_inputs(replay: Replay) -> str:
    """Which inputs a replay shows: the stored (shrunk) counterexample's, or a sampled trial."""
    return "counterexample" if replay.counterexample else "sampled"


def replay_json(replay: Replay) -> dict[str, Any]:
    """`repro --json`: the replayed trial, with `inputs_from` saying whose inputs these are
    ("counterexample": the stored, possibly shrunk counterexample; "sampled": the trial
    drawn from the seed) and `dims` / `trial` those of the very inputs shown."""
    dims, trial = _replayed_at(replay)
    return (
        {"name": replay.name, "seed": replay.seed}
        | replay.repro.to_json()
        | {"dims": dims, "trial": trial, "inputs_from": _shown_inputs(replay)}
    )


def _replayed_at(replay: Replay) -> tuple[dict[str, int], int | None]:
    """The dims and trial of the inputs shown (those asked for when none could be shown)."""
    repro = replay.repro
    dims = dict(repro.dims) if repro.dims or repro.inputs else dict(replay.dims)
    return dims, repro.trial if repro.trial is not None else replay.trial


def print_replay(replay: Replay) -> None:
    repro = replay.repro
    result = repro.result
    dims, trial = _replayed_at(replay)
    if replay.counterexample:
        shrunk = " (shrunk)" if replay.counterexample.get("shrunk") else ""
        where = f"the stored counterexample's inputs{shrunk}"
    else:
        where = "the sampled trial's inputs"
    head = f"{visible(replay.name)}: seed {replay.seed}, dims {_dims(dims)}, trial {trial}"
    say(f"{head}: {result.status}")
    say(f"  showing {where}")
    if result.reason:
        say(f"  the check at these dims: {result.reason}")
    if repro.error:
        say(f"  no trial replayed: {repro.error}")
    for key, value in repro.inputs.items():
        say(f"  {key} = {show_value(value, replay.shapes.get(key))}")
    say(f"  lhs = {show_value(repro.lhs)}")
    say(f"  rhs = {show_value(repro.rhs)}")
    if repro.lhs_exact is not None and repro.rhs_exact is not None:
        say(f"  lhs, evaluated exactly = {show_decimals(repro.lhs_exact)}")
        say(f"  rhs, evaluated exactly = {show_decimals(repro.rhs_exact)}")
    if repro.exact:
        say(f"  exactly: {repro.exact}")


def print_theorem(detail: schemas.TheoremDetail, *, checker_source: str = "described") -> None:
    removed = ", removed" if detail.removed else ""
    say(" ".join((*detail.modifiers, detail.kind, visible(detail.name))))
    say(f"  module {visible(detail.module)}, revision {detail.revision}{removed}")
    loc = detail.location
    if loc.file:
        lines = f":{loc.line_start}-{loc.line_end}" if loc.line_start else ""
        say(f"  source {loc.file}{lines}")
    if detail.binders:
        say(f"  {detail.binders}")
    say(f"  : {detail.statement}")
    if detail.docstring:
        say()
        for line in detail.docstring.splitlines():
            say(f"  {line}")
    if detail.equations:
        say("\nEquations")
        for eq in detail.equations:
            say(f"  • {eq}")
    if detail.parse_error:
        pe = detail.parse_error
        say(f"\nparse error ({pe.get('part')}): {pe.get('message')}")
    if detail.unknown_constants:
        say(f"\nunknown constants: {', '.join(detail.unknown_constants)}")
    checker = detail.checker
    recorded = (
        f", as recorded by run {detail.results[0].run_id}"
        if checker_source == "recorded" and detail.results
        else ""
    )
    reason = f" ({checker.reason})" if checker.reason else ""
    say(f"\nchecker: {checker.kind}{reason}{recorded}")
    if checker.dependencies:
        say(f"  uses: {', '.join(checker.dependencies)}")
    if checker.statement:
        say(f"  registered for: {checker.statement}")
        if checker.statement_matches is not None:
            same = "yes" if checker.statement_matches else f"no, {checker.statement_difference}"
            say(f"  matches the ingested statement: {same}")
    say(f"status: {detail.status}" + (" (stale: needs a rerun)" if detail.stale else ""))
    proof = f"proof: {detail.proof}"
    if detail.rests_on:
        proof += f" (rests on unproved {', '.join(detail.rests_on)})"
    say(proof)
    if detail.results:
        say("results (newest first):")
        for r in detail.results:
            say(
                f"  run {r.run_id} {r.created_at:%Y-%m-%d %H:%M} rev {r.revision} {r.status} "
                f"[{r.checker}] {r.trials} trials, seed {r.seed}, {r.dtype}, dims {_dims(r.dims)}, "
                f"max abs err {_err(r.max_abs_err)}"
            )
    if len(detail.revisions) > 1:
        say(f"revisions: {len(detail.revisions)}")
        for rev in detail.revisions:
            say(f"  {rev.revision} {rev.created_at:%Y-%m-%d %H:%M} {rev.commit or ''}")
