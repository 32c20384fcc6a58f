"""What the dashboard reads beyond `app.crud` and `app.services`: coverage, the theorems
that started failing in the newest run, a page of a run's results, module names, a
module's dependency graph, a theorem's errors over all its results.

Keyword-only functions over a `Session`; each is one or two bounded queries, so that the
pages stay fast with tens of thousands of theorems and results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import models
from app.crud.declarations import THEOREM_KINDS
from app.dashboard.graph import MAX_LAYERS, MAX_NODES, GraphEdge, GraphNode
from app.dashboard.render import theorem_url
from app.dashboard.svg import ErrorSample
from app.services.reading.proofs import PROVED_FAILING, UNPROVED_FALSE, ProofState, triage

__all__ = [
    "FAILING",
    "Coverage",
    "ModuleGraph",
    "NewFailure",
    "Triaged",
    "coverage",
    "failing_by_proof",
    "error_samples",
    "module_graph",
    "module_names",
    "newly_failing",
    "previous_finished_run",
    "run_results_page",
    "source_formats",
]

FAILING = ("fail", "error")
CHECKERS = ("derived", "registered")


@dataclass(frozen=True)
class Coverage:
    with_checker: int
    theorems: int

    @property
    def percent(self) -> float:
        return 100.0 * self.with_checker / self.theorems if self.theorems else 0.0


def coverage(session: Session) -> Coverage:
    """Live theorems whose newest result had a checker (derived or registered), of all."""
    d = models.Declaration
    live = (d.kind.in_(THEOREM_KINDS), d.removed.is_(False))
    theorems = session.scalar(select(func.count()).select_from(d).where(*live)) or 0
    with_checker = (
        session.scalar(
            select(func.count()).select_from(d).where(*live, d.latest_checker.in_(CHECKERS))
        )
        or 0
    )
    return Coverage(with_checker=int(with_checker), theorems=int(theorems))


def module_names(session: Session) -> list[str]:
    """Modules that hold live theorems, by name."""
    d = models.Declaration
    stmt = (
        select(d.module)
        .where(d.kind.in_(THEOREM_KINDS), d.removed.is_(False))
        .group_by(d.module)
        .order_by(d.module)
    )
    return [str(m) for m in session.scalars(stmt)]


def previous_finished_run(session: Session) -> models.Run | None:
    """The newest run that finished with results (not queued, running or empty)."""
    r = models.Run
    stmt = (
        select(r)
        .where(r.status.in_(models.FINAL_RUN_STATUSES), r.completed > 0)
        .order_by(r.id.desc())
        .limit(1)
    )
    return session.scalars(stmt).first()


@dataclass(frozen=True)
class NewFailure:
    result: models.Result
    before: str  # the status of the theorem's previous result


def newly_failing(session: Session, *, run: models.Run, limit: int = 50) -> list[NewFailure]:
    """Theorems that failed or errored in `run` whose previous result (in an earlier run)
    had passed or was unsupported: what started failing since the run before."""
    res = models.Result
    failing = list(
        session.scalars(
            select(res)
            .where(res.run_id == run.id, res.status.in_(FAILING))
            .order_by(res.name)
            .limit(1000)
        )
    )
    if not failing:
        return []
    ids = [r.declaration_id for r in failing]
    previous_ids = (
        select(func.max(res.id))
        .where(res.declaration_id.in_(ids), res.run_id < run.id)
        .group_by(res.declaration_id)
    )
    before = dict(
        session.execute(
            select(res.declaration_id, res.status).where(res.id.in_(previous_ids))
        ).all()
    )
    out = [
        NewFailure(result=r, before=str(before[r.declaration_id]))
        for r in failing
        if r.declaration_id in before and before[r.declaration_id] not in FAILING
    ]
    return out[:limit]


@dataclass(frozen=True)
class Triaged:
    """A failing theorem, by what its proof status makes of the failure."""

    name: str
    proof: str
    rests_on: tuple[str, ...]
    reason: str


def failing_by_proof(session: Session, *, limit: int = 50) -> dict[str, list[Triaged]]:
    """The theorems whose newest result is `fail`, in two groups: UNPROVED_FALSE (stop
    proving these: the counterexample is on their page) and PROVED_FAILING (a complete
    proof of a false-looking statement: a defect of the checker's semantics to triage),
    by name, at most `limit` each; a failure of unknown proof status is in neither."""
    d, res = models.Declaration, models.Result
    stmt = (
        select(d.name, d.proof, d.rests_on, res.reason)
        .join(res, res.id == d.latest_result_id)
        .where(d.latest_status == "fail", d.removed.is_(False), d.kind.in_(THEOREM_KINDS))
        .order_by(d.name)
        .limit(4 * limit)
    )
    groups: dict[str, list[Triaged]] = {UNPROVED_FALSE: [], PROVED_FAILING: []}
    for name, proof, rests, reason in session.execute(stmt):
        state = ProofState(proof, tuple(rests or ()))
        group = triage("fail", state)
        if group is not None and len(groups[group]) < limit:
            groups[group].append(Triaged(name, proof, state.rests_on, reason or ""))
    return groups


def run_results_page(
    session: Session, *, run_id: int, status: str | None, limit: int, offset: int
) -> tuple[list[models.Result], int]:
    """A page of the run's results by name (only `status`, when given), and their count."""
    res = models.Result
    where = [res.run_id == run_id]
    if status:
        where.append(res.status == status)
    count = session.scalar(select(func.count()).select_from(res).where(*where)) or 0
    stmt = select(res).where(*where).order_by(res.name).limit(limit).offset(offset)
    return list(session.scalars(stmt)), int(count)


@dataclass
class ModuleGraph:
    """The nodes and edges drawn, and how many theorems the module has (`shown` of them
    drawn: fewer when the drawing reached MAX_NODES)."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    theorems: int = 0
    shown: int = 0
    truncated: bool = False


def module_graph(session: Session, *, module: str, limit: int = MAX_NODES) -> ModuleGraph:
    """The module's live theorems (by name) with the status of their newest result, the
    definitions they used when checked (recorded in `dependencies`), and the definitions
    those used where recorded, at most `limit` nodes. One query per layer, bounded."""
    d, res, dep = models.Declaration, models.Result, models.Dependency
    live = (d.module == module, d.kind.in_(THEOREM_KINDS), d.removed.is_(False))
    total = session.scalar(select(func.count()).select_from(d).where(*live)) or 0
    theorems = session.execute(select(d.id, d.name).where(*live).order_by(d.name).limit(limit))
    ids = dict(theorems.all())
    newest = (
        select(func.max(res.id))
        .where(res.declaration_id.in_(list(ids)))
        .group_by(res.declaration_id)
    )
    rows = session.execute(select(res.declaration_id, res.status).where(res.id.in_(newest)))
    status = dict(rows.all())
    graph = ModuleGraph(theorems=int(total))
    uses: dict[str, list[str]] = {}
    for decl_id, name in session.execute(
        select(dep.declaration_id, dep.depends_on).where(dep.declaration_id.in_(list(ids)))
    ):
        uses.setdefault(ids[decl_id], []).append(name)
    placed: set[str] = set()
    for decl_id, name in sorted(ids.items(), key=lambda kv: kv[1]):
        new = [name, *(u for u in sorted(uses.get(name, ())) if u not in placed and u != name)]
        if len(placed) + len(set(new)) > limit:
            graph.truncated = True
            break
        placed.update(new)
        graph.shown += 1
        newest_status = str(status.get(decl_id, "unchecked"))
        graph.nodes.append(GraphNode(name, "theorem", newest_status, theorem_url(name)))
        graph.edges += [GraphEdge(name, u) for u in sorted(set(uses.get(name, ()))) if u != name]
    graph.truncated = graph.truncated or graph.shown < total
    theorem_names = {n.name for n in graph.nodes}
    frontier = sorted(placed - theorem_names)
    for _ in range(MAX_LAYERS - 2):
        if not frontier:
            break
        found = session.execute(select(d.id, d.name).where(d.name.in_(frontier))).all()
        by_id = {int(i): str(n) for i, n in found}
        frontier = []
        for decl_id, name in session.execute(
            select(dep.declaration_id, dep.depends_on)
            .where(dep.declaration_id.in_(list(by_id)))
            .order_by(dep.declaration_id, dep.depends_on)
        ):
            if name not in placed and len(placed) >= limit:
                graph.truncated = True
                continue
            if name not in placed:
                placed.add(name)
                frontier.append(name)
            if name != by_id[decl_id]:
                graph.edges.append(GraphEdge(by_id[decl_id], name))
    definitions = sorted(placed - theorem_names)
    known = set(session.scalars(select(d.name).where(d.name.in_(definitions))))
    graph.nodes += [
        GraphNode(name, "definition", None, theorem_url(name) if name in known else None)
        for name in definitions
    ]
    return graph


def error_samples(
    session: Session, *, declaration_id: int, limit: int = 2000
) -> tuple[list[ErrorSample], int]:
    """The measured maximum relative errors of a declaration's newest `limit` results (all
    runs, seeds and dtypes), reading only those columns, and how many results it has."""
    res = models.Result
    where = res.declaration_id == declaration_id
    total = session.scalar(select(func.count()).select_from(res).where(where)) or 0
    stmt = (
        select(res.run_id, res.seed, res.dtype, res.status, res.max_rel_err, res.rtol)
        .where(where, res.max_rel_err.is_not(None))
        .order_by(res.id.desc())
        .limit(limit)
    )
    samples = [
        ErrorSample(int(run), int(seed), str(dtype), str(status), float(err), rtol)
        for run, seed, dtype, status, err, rtol in session.execute(stmt)
        if err is not None  # so the query asked; this tells the type checker
    ]
    return samples[::-1], int(total)


def source_formats(session: Session, *, ids: set[int | None]) -> dict[int, str]:
    """The input format (`docgen-html`, `docgen-json`, `text`, `lean`) of each source."""
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    s = models.Source
    rows = session.execute(select(s.id, s.format).where(s.id.in_(wanted)))
    return {int(i): str(f) for i, f in rows}
