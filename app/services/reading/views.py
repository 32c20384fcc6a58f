"""Rows to I/O schemas: what `show --json`, `check --json` and the HTTP API print."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.orm import Session

from app import crud, models, schemas
from app.crud.declarations import THEOREM_KINDS

if TYPE_CHECKING:
    from app.services.ingestion import IngestReport

__all__ = [
    "checker_from_results",
    "declaration_summary",
    "ingest_report_out",
    "module_doc_out",
    "result_out",
    "results_out",
    "run_out",
    "theorem_detail",
    "theorem_summary",
]


def _location(file: str | None, start: int | None, end: int | None) -> schemas.LocationOut:
    return schemas.LocationOut(file=file, line_start=start, line_end=end)


def ingest_report_out(report: IngestReport) -> schemas.IngestReportOut:
    return schemas.IngestReportOut.model_validate(report.to_json())


def result_out(
    result: models.Result,
    *,
    revision: int | None = None,
    counterexample: models.Counterexample | None = None,
) -> schemas.ResultOut:
    ce = None
    if counterexample is not None:
        ce = schemas.CounterexampleOut(
            dims=counterexample.dims,
            seed=counterexample.seed,
            trial=counterexample.trial,
            inputs=counterexample.inputs,
            lhs=counterexample.lhs,
            rhs=counterexample.rhs,
            shrunk=counterexample.shrunk,
            note=counterexample.note,
        )
    return schemas.ResultOut(
        id=result.id,
        run_id=result.run_id,
        name=result.name,
        revision=revision,
        status=result.status,  # type: ignore[arg-type]
        checker=result.checker,
        checker_version=result.checker_version,
        reason=result.reason,
        trials=result.trials,
        seed=result.seed,
        dtype=result.dtype,
        dims=result.dims,
        draws=result.draws,
        max_abs_err=result.max_abs_err,
        max_rel_err=result.max_rel_err,
        atol=result.atol,
        rtol=result.rtol,
        duration_s=result.duration_s,
        device=result.device,
        worker=result.worker,
        worst_index=result.worst_index,
        trial=result.trial,
        vacuous_trials=result.vacuous_trials,
        tied_trials=result.tied_trials,
        rescaled_trials=result.rescaled_trials,
        unstable_trials=result.unstable_trials,
        assumptions=result.assumptions,
        created_at=result.created_at,
        counterexample=ce,
        parts=[_part(p) for p in result.parts or ()],
    )


def _part(row: dict[str, Any]) -> schemas.ResultPartOut:
    def number(key: str) -> float | None:
        value = row.get(key)
        return float(value) if isinstance(value, int | float) and math.isfinite(value) else None

    return schemas.ResultPartOut(
        family=str(row.get("family", "")),
        nodes=int(row.get("nodes") or 0),
        max_abs_err=number("max_abs_err"),
        max_rel_err=number("max_rel_err"),
        worst_node=str(row.get("worst_node", "")),
        worst_ratio=number("worst_ratio"),
        rtol=number("rtol"),
        failing=int(row.get("failing") or 0),
        status=str(row.get("status", "")),
    )


def results_out(session: Session, results: Sequence[models.Result]) -> list[schemas.ResultOut]:
    """Results with their revision numbers and counterexamples (two queries in all)."""
    numbers = crud.revision_numbers(session, revision_ids=[r.revision_id for r in results])
    ces = crud.counterexamples_for(session, result_ids=[r.id for r in results])
    return [
        result_out(r, revision=numbers.get(r.revision_id), counterexample=ces.get(r.id))
        for r in results
    ]


def checker_from_results(
    results: Sequence[models.Result], dependencies: Sequence[models.Dependency]
) -> schemas.CheckerOut:
    """The checker as the newest result recorded it (no checker code is loaded)."""
    if not results:
        return schemas.CheckerOut(kind="unknown", reason="not checked yet")
    newest = results[0]
    if newest.checker in ("registered", "derived"):
        kind = newest.checker
    else:
        kind = "unsupported" if newest.status == "unsupported" else "unknown"
    return schemas.CheckerOut(
        kind=kind,
        reason=newest.reason if kind in ("unsupported", "unknown") else "",
        dependencies=[d.depends_on for d in dependencies],
        version=newest.checker_version or "",
        assumptions=list(newest.assumptions or []),
    )


def theorem_detail(
    session: Session,
    *,
    name: str,
    checker: Mapping[str, Any] | None = None,
    results_limit: int = 20,
) -> schemas.TheoremDetail | None:
    """Everything about one declaration; None when there is no such name. `checker` is a
    live `CheckerInfo.to_json()`; without it the newest result says which checker ran."""
    decl = crud.get_declaration(session, name=name)
    if decl is None:
        return None
    rev = crud.get_current_revision(session, declaration=decl)
    results, _ = crud.result_history(session, declaration_id=decl.id, limit=results_limit)
    deps = crud.dependencies_of(session, declaration_id=decl.id)
    if decl.kind not in THEOREM_KINDS:
        checker_out = schemas.CheckerOut(
            kind="none", reason=f"{decl.name} is a {decl.kind}, not a theorem"
        )
    elif checker is not None:
        checker_out = schemas.CheckerOut.model_validate(
            {k: checker[k] for k in schemas.CheckerOut.model_fields if k in checker}
        )
    else:
        checker_out = checker_from_results(results, deps)
    stale = (
        decl.kind in THEOREM_KINDS
        and not decl.removed
        and bool(crud.stale_theorems(session, declaration_ids=[decl.id]))
    )
    revisions = [
        schemas.RevisionOut(
            revision=r.revision,
            content_hash=r.content_hash,
            binders=r.binders,
            statement=r.statement,
            docstring=r.docstring,
            commit=r.commit,
            location=_location(r.file, r.line_start, r.line_end),
            parsed_ok=r.parse_error is None and r.parsed is not None,
            created_at=r.created_at,
        )
        for r in crud.list_revisions(session, declaration_id=decl.id)
    ]
    return schemas.TheoremDetail(
        name=decl.name,
        kind=decl.kind,
        module=decl.module,
        revision=decl.current_revision,
        removed=decl.removed,
        removed_at=decl.removed_at,
        binders=rev.binders,
        statement=rev.statement,
        docstring=rev.docstring,
        equations=list(rev.equations),
        equations_rendered=rev.equations_rendered,
        attributes=list(rev.attributes),
        modifiers=list(rev.modifiers),
        namespace=rev.namespace,
        location=_location(rev.file, rev.line_start, rev.line_end),
        commit=rev.commit,
        parsed=rev.parsed,
        parse_error=rev.parse_error,
        constants=list(rev.constants),
        unknown_constants=list(rev.unknown_constants),
        checker=checker_out,
        status=results[0].status if results else "unchecked",
        proof=cast(schemas.ProofStatus, decl.proof),
        rests_on=list(decl.rests_on or ()),
        stale=stale,
        results=results_out(session, results),
        revisions=revisions,
    )


def theorem_summary(
    decl: models.Declaration, rev: models.DeclarationRevision, result: models.Result | None
) -> schemas.TheoremSummary:
    return schemas.TheoremSummary(
        name=decl.name,
        kind=decl.kind,
        module=decl.module,
        binders=rev.binders,
        statement=rev.statement,
        status=result.status if result is not None else "unchecked",
        proof=cast(schemas.ProofStatus, decl.proof),
        rests_on=list(decl.rests_on or ()),
        checker=result.checker if result is not None else None,
        last_checked=result.created_at if result is not None else None,
        removed=decl.removed,
    )


def declaration_summary(
    decl: models.Declaration, rev: models.DeclarationRevision
) -> schemas.DeclarationSummary:
    return schemas.DeclarationSummary(
        name=decl.name,
        kind=decl.kind,
        module=decl.module,
        binders=rev.binders,
        statement=rev.statement,
        docstring=rev.docstring,
        revision=decl.current_revision,
        removed=decl.removed,
        location=_location(rev.file, rev.line_start, rev.line_end),
    )


def module_doc_out(doc: models.ModuleDoc) -> schemas.ModuleDocOut:
    return schemas.ModuleDocOut(
        module=doc.module,
        text=doc.text,
        headings=list(doc.headings),
        mentions=list(doc.mentions),
        location=_location(doc.file, doc.line_start, doc.line_end),
    )


def run_out(run: models.Run) -> schemas.RunOut:
    return schemas.RunOut.model_validate(run, from_attributes=True)
