"""Check runs: select theorems, run their checkers, record runs, results, counterexamples
and dependencies (describing a checker and replaying a trial: repro.py).

`checkers` (and with it JAX) is imported only when a check, a description or a replay is
asked for (`load_backend`), so that the web process starts without it. A run is created
(`create_run`, status `queued`) and executed (`execute_run`) separately, so that a worker
can execute a run the API created; `run_checks` does both in-process. Every result is upserted under
(run, declaration), so executing the same run twice (a redelivered task) overwrites instead
of duplicating. A checker that raises becomes an `error` result for that theorem only.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import crud, models
from app.services.runs.check_worker import check_one
from app.services.runs.execution import worker_name
from app.services.runs.lifecycle import run_status
from app.services.runs.parallel import check_in_workers, jobs_for, shared_database
from app.services.runs.recording import count_results, record_result, record_results
from app.services.runs.selection import (
    CheckParams,
    SelectionError,
    check_pinned_dims,
    select_theorems,
)
from app.settings import get_settings

__all__ = [
    "CheckParams",
    "RunOutcome",
    "SelectionError",
    "build_environment",
    "check_pinned_dims",
    "create_run",
    "execute_run",
    "load_backend",
    "record_result",
    "run_checks",
    "select_theorems",
]

ResultCallback = Callable[[dict[str, Any]], None]
StartCallback = Callable[[int], None]


@dataclass
class RunOutcome:
    run_id: int
    status: str
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    @property
    def exit_code(self) -> int:
        """0 when nothing failed or errored, else 1."""
        if self.error is not None:
            return 1
        return 1 if any(r["status"] in ("fail", "error") for r in self.results) else 0


# --- the checkers package, loaded lazily ---------------------------------------------


def load_backend() -> Any:
    """The `checkers` package, with JAX's compilation cache configured and the settings'
    `checker_modules` (which register hand-written checkers) imported."""
    import checkers
    from checkers.runtime.jaxsetup import configure_compilation_cache

    settings = get_settings()
    if settings.jax_cache_dir is not None:
        configure_compilation_cache(settings.jax_cache_dir)
    for module in settings.checker_modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise SelectionError(
                f"PROOFBRIDGE_CHECKER_MODULES names {module!r}, which cannot be imported: {exc}"
            ) from exc
    return checkers


def trigger_role(trigger: str) -> str:
    """The role recorded as a result's worker for a run checked where it was created."""
    return "cli" if trigger == "cli" else "in-process"


# A run of at most this many theorems reads each declaration when its checks first use it
# (`checkers.registry.lazy`) rather than every declaration at once: checking
# Proofs.vit_rowDenseW_grad_bridge reads 9 of the upstream tree's 12,264 records by name,
# and the 1,006 that may be constructors or fields in one read, where reading them all
# took 0.3-0.45 s of a fresh check.
READ_WHEN_USED_AT_MOST = 16


def build_environment(
    session: Session, backend: Any, *, selection: Sequence[str] | None = None
) -> Any:
    """`checkers.Environment` over every live declaration's current revision: read at once,
    or, for a `selection` of at most READ_WHEN_USED_AT_MOST theorems, each when first used
    (through sessions of their own on the same database, so that reading never holds a
    transaction open across the run's writes), each as it was when the environment was
    built."""
    lazy = getattr(backend, "LazyDeclarations", None)  # a backend without one reads all
    if lazy is None or selection is None or len(selection) > READ_WHEN_USED_AT_MOST:
        return backend.Environment.from_declarations(crud.current_declaration_records(session))
    bind = session.get_bind()
    # each declaration read later as it is now: a statement ingested during the run is
    # not mixed with the definitions it was checked against
    pinned = crud.current_revision_ids(session)

    def fetch(names: Sequence[str] | None) -> list[Any]:
        wanted = pinned.values() if names is None else [pinned[n] for n in names if n in pinned]
        with Session(bind) as reading:
            return crud.current_declaration_records(reading, revisions=list(wanted))

    def structure() -> list[Any]:
        with Session(bind) as reading:
            return crud.current_declaration_records(
                reading, revisions=list(pinned.values()), structure=True
            )

    names = list(pinned)
    return backend.Environment(lazy(names, fetch, structure))


def _checked(backend: Any, env: Any, name: str, params: CheckParams) -> dict[str, Any]:
    """`check_one`, refused (the run fails) where the environment could not read a
    declaration the check needed: its verdict would not be the theorem's."""
    payload = check_one(backend, env, name, params)
    failure = getattr(env, "read_failure", None)
    if failure is not None:
        raise SelectionError(f"reading the declarations failed while checking {name}: {failure}")
    return payload


# --- runs ----------------------------------------------------------------------------


def create_run(
    session: Session, *, params: CheckParams, commit: str | None = None, trigger: str = "cli"
) -> models.Run:
    """A queued run over the selected theorems (selection errors raise SelectionError).
    Flushed, not committed."""
    selection = select_theorems(
        session,
        names=params.names,
        module=params.module,
        changed_only=params.changed_only,
        proof=params.proof,
    )
    run = models.Run(
        status="queued",
        trigger=trigger,
        params=params.to_json() | {"selection": selection},
        commit=commit,
        total=len(selection),
        created_at=models.utcnow(),
    )
    session.add(run)
    session.flush()
    return run


def _count_results(session: Session, run: models.Run) -> dict[str, int]:
    counts = count_results(session, run.id)
    _set_counts(run, counts)
    return counts


def _set_counts(run: models.Run, counts: Mapping[str, int]) -> None:
    run.passed = counts.get("pass", 0)
    run.failed = counts.get("fail", 0)
    run.errored = counts.get("error", 0)
    run.unsupported = counts.get("unsupported", 0)
    run.completed = sum(counts.values())


def execute_run(
    session: Session,
    *,
    run_id: int,
    backend: Any = None,
    env: Any = None,
    on_result: ResultCallback | None = None,
    on_start: StartCallback | None = None,
    jobs: int | None = 1,
) -> RunOutcome:
    """Run the checks of a created run, recording each result as soon as it is known
    (committed one by one, so progress is visible). Safe to call again for the same run.
    `env` is the environment to check in (default: built from the database); `on_start`
    is told how many theorems the run checks before the first is checked. With `jobs`
    above 1 (None: as many as `parallel.jobs_for` finds worth it) and the default
    backend and environment, the checks run in that many worker processes; the results
    are then recorded as they finish and listed in the selection's order."""
    run = crud.get_run(session, run_id=run_id)
    if run is None:
        raise SelectionError(f"no run with id {run_id}")
    params = CheckParams.from_json(run.params)
    selection: list[str] = list(run.params.get("selection") or [])
    run.status, run.started_at, run.error = "running", models.utcnow(), None
    session.commit()
    outcome = RunOutcome(run_id=run.id, status="running")
    try:
        url = session.get_bind().engine.url.render_as_string(hide_password=False)
        workers = 1
        if backend is None and env is None and shared_database(url):
            workers = jobs_for(jobs, len(selection))
        if workers == 1:
            backend = backend if backend is not None else load_backend()
            if env is None:
                env = build_environment(session, backend, selection=selection)
        d, r = models.Declaration, models.DeclarationRevision
        targets = {
            name: (decl_id, rev_id, revision)
            for name, decl_id, rev_id, revision in session.execute(
                select(d.name, d.id, r.id, r.revision)
                .join(r, (r.declaration_id == d.id) & (r.revision == d.current_revision))
                .where(d.name.in_(selection))
            )
        }
        # End the read transaction before checking: one open across the checks would make
        # SQLite refuse the first result if another writer committed meanwhile.
        session.commit()
        # the run's counts, kept up to date result by result (a run executed again
        # replaces its earlier results), and counted from the table once at the end
        res = models.Result
        statuses = dict(
            session.execute(
                select(res.declaration_id, res.status).where(res.run_id == run.id)
            ).all()
        )
        tally = Counter(statuses.values())
        if on_start is not None:
            on_start(len(selection))
        names = [name for name in selection if name in targets]
        # declarations are never deleted, so a name missing from targets is only a safeguard
        if workers > 1:
            cache = get_settings().jax_cache_dir
            batches: Iterator[list[dict[str, Any]]] = check_in_workers(
                names,
                params,
                jobs=workers,
                database_url=url,
                jax_cache_dir=None if cache is None else str(cache),
            )
        else:  # each result recorded as soon as it is known
            batches = ([_checked(backend, env, name, params)] for name in names)
        worker = worker_name(trigger_role(run.trigger))
        for batch in batches:
            # a batch (what one worker answered at once) is recorded in one transaction: a
            # commit per result took the recording process 21 CPU seconds instead of 16
            # over the upstream tree, taken from the workers checking beside it
            payloads = [p | {"worker": p.get("worker") or worker} for p in batch]
            result_ids = record_results(
                session,
                run_id=run_id,
                items=[(*targets[p["name"]][:2], p) for p in payloads],
            )
            elements = []
            for payload, result_id in zip(payloads, result_ids, strict=True):
                decl_id, _, revision = targets[payload["name"]]
                if decl_id in statuses:
                    tally[statuses[decl_id]] -= 1
                statuses[decl_id] = payload["status"]
                tally[payload["status"]] += 1
                element = dict(payload) | {"run_id": run_id, "result_id": result_id}
                element["revision"] = revision
                elements.append(element)
            _set_counts(run, tally)
            session.commit()
            for element in elements:
                outcome.results.append(element)
                if on_result is not None:
                    on_result(element)
        order = {name: k for k, name in enumerate(names)}
        outcome.results.sort(key=lambda e: order[e["name"]])
        run.status = run_status(_count_results(session, run))
        run.finished_at = models.utcnow()
        session.commit()
        outcome.status = run.status
    except Exception as exc:
        session.rollback()
        run = session.get(models.Run, run_id) or run
        run.status, run.finished_at = "error", models.utcnow()
        run.error = f"{type(exc).__name__}: {exc}"
        session.commit()
        outcome.status, outcome.error = "error", run.error
    return outcome


def run_checks(
    session: Session,
    *,
    params: CheckParams,
    commit: str | None = None,
    trigger: str = "cli",
    backend: Any = None,
    on_result: ResultCallback | None = None,
    on_start: StartCallback | None = None,
    jobs: int | None = 1,
) -> RunOutcome:
    """Create a run and execute it (`jobs`: see `execute_run`). Pinned dimensions that no selected
    theorem has are refused (SelectionError) before the run is created."""
    run = create_run(session, params=params, commit=commit, trigger=trigger)
    env = None
    if params.dims:
        backend = backend if backend is not None else load_backend()
        env = build_environment(session, backend)
        try:
            selection = list(run.params.get("selection") or [])
            check_pinned_dims(backend, env, names=selection, dims=params.dims)
        except SelectionError:
            session.rollback()
            raise
    session.commit()
    return execute_run(
        session,
        run_id=run.id,
        backend=backend,
        env=env,
        on_result=on_result,
        on_start=on_start,
        jobs=jobs,
    )
