"""Pydantic I/O schemas: what the CLI's `--json` and the HTTP API return and accept.

Separate from the ORM models (`models.py`); `app.services.reading.views` builds these from rows.
List responses are `Page[...]`, i.e. `{data, count}`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

__all__ = [
    "CheckerOut",
    "CounterexampleOut",
    "CoverageOut",
    "DeclarationSummary",
    "IngestErrorOut",
    "IngestReportOut",
    "LocationOut",
    "ModuleCoverageOut",
    "ModuleDocOut",
    "ModuleSummary",
    "Page",
    "ReasonCountOut",
    "ResultOut",
    "RevisionOut",
    "RunOut",
    "TheoremDetail",
    "TheoremSummary",
    "VocabularyNeedOut",
]

T = TypeVar("T")
Dtype = Literal["float64", "float32", "bfloat16"]
ResultStatus = Literal["pass", "fail", "error", "unsupported"]


class Page(BaseModel, Generic[T]):
    data: list[T]
    count: int


class IngestErrorOut(BaseModel):
    file: str
    line: int | None
    column: int | None
    message: str


class IngestReportOut(BaseModel):
    files: int
    declarations: int
    theorems: int
    definitions: int
    new: int
    changed: int
    unchanged: int
    removed: int
    parsed: int
    module_docs: int
    errors: list[IngestErrorOut]
    warnings: list[IngestErrorOut] = []


class LocationOut(BaseModel):
    file: str | None
    line_start: int | None
    line_end: int | None


class CounterexampleOut(BaseModel):
    dims: dict[str, int]
    seed: int
    trial: int | None
    inputs: dict[str, Any]
    lhs: Any
    rhs: Any
    shrunk: bool
    note: str


class ResultPartOut(BaseModel):
    """One family of a whole check's nodes (say, every block's attention Q W/b)."""

    family: str
    nodes: int
    max_abs_err: float | None
    max_rel_err: float | None = Field(
        description="the largest error relative to the size of a node's terms"
    )
    worst_node: str
    worst_ratio: float | None = Field(description="the worst node's error over its allowance")
    rtol: float | None
    failing: int
    status: str


class ResultOut(BaseModel):
    """One theorem's result in one run: CONTRACT.md's `check --json` element, and more."""

    id: int
    run_id: int
    name: str
    revision: int | None
    status: ResultStatus
    checker: str
    checker_version: str | None
    reason: str
    trials: int
    seed: int
    dtype: str
    dims: dict[str, int]
    draws: list[dict[str, int]]
    max_abs_err: float | None
    max_rel_err: float | None
    atol: float | None
    rtol: float | None
    duration_s: float
    device: str
    worker: str | None = Field(
        default=None, description="what checked it: a worker's node name, in-process@host, cli@host"
    )
    worst_index: list[int] | None
    trial: int | None
    vacuous_trials: int = Field(
        0, description="trials in which a hypothesis failed (the statement held vacuously)"
    )
    tied_trials: int = Field(
        0,
        description="trials of an inequality whose sides agree within the tolerance "
        "(a tie fails < and >, and holds ≤ and ≥)",
    )
    rescaled_trials: int = Field(
        0,
        description=(
            "trials drawn again at a smaller scale (float64 overflowed at their stress scale)"
        ),
    )
    unstable_trials: int = Field(
        0,
        description="trials that failed in float64 but held when evaluated again at high "
        "precision (float artefacts: not evidence against the statement; drawn again)",
    )
    assumptions: list[str]
    created_at: datetime
    counterexample: CounterexampleOut | None = None
    parts: list[ResultPartOut] = Field(
        default_factory=list,
        description="a whole check's rows, one per family of nodes (empty for other checks)",
    )


class RevisionOut(BaseModel):
    revision: int
    content_hash: str
    binders: str
    statement: str
    docstring: str | None
    commit: str | None
    location: LocationOut
    parsed_ok: bool
    created_at: datetime


class CheckerOut(BaseModel):
    """Which checker a theorem gets: `registered`, `derived`, `unsupported` (or, before any
    check has run in a process without the checkers loaded, `unknown`)."""

    kind: str
    reason: str
    dependencies: list[str] = Field(default_factory=list)
    version: str = ""
    assumptions: list[str] = Field(default_factory=list)
    # where a checker is registered under the name: the Lean text it was written for, and
    # whether that is the statement ingested (null: not known, or nothing to compare)
    statement: str = ""
    statement_matches: bool | None = None
    statement_difference: str = ""


# whether the declaration's own proof is complete (`theorem_index.model.PROOF_STATES`);
# `rests_on` beside it names the unproved declarations its proof uses, through other proofs
ProofStatus = Literal["proved", "unproved", "unknown"]


class TheoremDetail(BaseModel):
    name: str
    kind: str
    module: str
    revision: int
    removed: bool
    removed_at: datetime | None
    binders: str
    statement: str
    docstring: str | None
    equations: list[str]
    equations_rendered: bool
    attributes: list[str]
    modifiers: list[str]
    namespace: str
    location: LocationOut
    commit: str | None
    parsed: dict[str, Any] | None
    parse_error: dict[str, Any] | None
    constants: list[str]
    unknown_constants: list[str]
    checker: CheckerOut
    status: str
    proof: ProofStatus
    rests_on: list[str]
    stale: bool
    results: list[ResultOut]
    revisions: list[RevisionOut]


class TheoremSummary(BaseModel):
    name: str
    kind: str
    module: str
    binders: str
    statement: str
    status: str
    proof: ProofStatus
    rests_on: list[str]
    checker: str | None
    last_checked: datetime | None
    removed: bool


class DeclarationSummary(BaseModel):
    name: str
    kind: str
    module: str
    binders: str
    statement: str
    docstring: str | None
    revision: int
    removed: bool
    location: LocationOut


class ModuleDocOut(BaseModel):
    module: str
    text: str
    headings: list[str]
    mentions: list[str]
    location: LocationOut


class ModuleSummary(BaseModel):
    module: str
    declarations: int
    theorems: int
    statuses: dict[str, int]


class RunOut(BaseModel):
    id: int
    status: Literal["queued", "running", "passed", "failed", "error", "cancelled"]
    trigger: str
    params: dict[str, Any]
    commit: str | None
    error: str | None
    total: int
    completed: int
    passed: int
    failed: int
    errored: int
    unsupported: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class ModuleCoverageOut(BaseModel):
    module: str
    theorems: int
    checked: int = Field(description="theorems that get a checker (registered or derived)")
    unsupported: int


class VocabularyNeedOut(BaseModel):
    name: str = Field(description="a constant without semantics")
    sole_blocker: int = Field(description="theorems for which it is the only missing constant")
    blocks: int = Field(description="theorems whose missing constants include it")
    example: str = Field(description="the first of those theorems by name")


class ReasonCountOut(BaseModel):
    reason: str
    theorems: int


class CoverageOut(BaseModel):
    """Which theorems get a checker, decided statically (nothing is traced or compiled),
    and the vocabulary to register next, ranked by sole blocker, then blocks, then name."""

    theorems: int
    checked: int
    unsupported: int
    modules: Page[ModuleCoverageOut]
    vocabulary: Page[VocabularyNeedOut]
    other_reasons: Page[ReasonCountOut] = Field(
        description="why the unsupported theorems that lack no vocabulary are, by frequency"
    )
