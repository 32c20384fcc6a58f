"""The check service on SQLite and PostgreSQL: runs, results, counterexamples, dependencies,
stale theorems and replays. Most tests drive it with a scripted checkers backend (the real
result records, scripted outcomes); the last one runs the real checkers on the seeds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from db_support import batch, count, declaration, definition, document, theorem
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import crud, models
from app.services.ingestion.ingest import ingest_batch, ingest_paths
from app.services.reading import views
from app.services.runs.checks import (
    CheckParams,
    SelectionError,
    execute_run,
    run_checks,
    select_theorems,
)
from app.services.runs.repro import replay

pytest.importorskip("checkers.result")

from checks_support import ScriptedBackend, failing, passing, raising  # noqa: E402

from checkers.result import CheckResult  # noqa: E402


def _ingest(session: Session, *decls: Any) -> None:
    ingest_batch(session, batch=batch(document("Proofs/A.lean", list(decls))))


def test_record_error_result_when_checker_raises_and_continue(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"), theorem("Proofs.t2"), theorem("Proofs.t3"))
    backend = ScriptedBackend({"Proofs.t1": raising, "Proofs.t2": passing()})

    outcome = run_checks(session, params=CheckParams(trials=8, seed=5), backend=backend)

    assert [(r["name"], r["status"]) for r in outcome.results] == [
        ("Proofs.t1", "error"),
        ("Proofs.t2", "pass"),
        ("Proofs.t3", "unsupported"),
    ]
    assert outcome.results[0]["reason"] == "the checker raised RuntimeError: boom"
    assert (outcome.status, outcome.exit_code) == ("error", 1)  # a theorem errored
    run = crud.get_run(session, run_id=outcome.run_id)
    assert run is not None
    assert (run.status, run.total, run.completed) == ("error", 3, 3)
    assert (run.passed, run.failed, run.errored, run.unsupported) == (1, 0, 1, 1)
    assert run.params["selection"] == ["Proofs.t1", "Proofs.t2", "Proofs.t3"]
    assert backend.calls[1] == (
        "Proofs.t2",
        {"trials": 8, "seed": 5, "dtype": "float64", "dims": None, "draws": None},
    )


def test_overwrite_results_when_run_executed_twice(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"), theorem("Proofs.t2"))
    backend = ScriptedBackend({"Proofs.t1": failing, "Proofs.t2": passing()})
    outcome = run_checks(session, params=CheckParams(), backend=backend)

    again = execute_run(session, run_id=outcome.run_id, backend=backend)

    assert again.status == "failed"  # Proofs.t1 fails
    assert count(session, models.Result) == 2
    assert count(session, models.Counterexample) == 1
    assert [r["result_id"] for r in again.results] == [r["result_id"] for r in outcome.results]


def test_store_counterexample_when_check_fails(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))

    outcome = run_checks(
        session, params=CheckParams(seed=7), backend=ScriptedBackend({"Proofs.t1": failing})
    )

    assert outcome.exit_code == 1
    result = session.scalars(select(models.Result)).one()
    assert (result.status, result.dims, result.trial, result.worst_index) == (
        "fail",
        {"n": 2},
        3,
        [0],
    )
    assert (result.max_abs_err, result.max_rel_err) == (1.0, math.inf)
    ce = session.scalars(select(models.Counterexample)).one()
    assert (ce.result_id, ce.dims, ce.seed, ce.trial) == (result.id, {"n": 2}, 7, 3)
    assert (ce.inputs, ce.lhs, ce.rhs) == ({"f": [1.0, -2.0]}, [0.5], [1.5])
    assert (ce.shrunk, ce.note) == (True, "n shrunk from 5 to 2")


def test_store_vacuous_tied_and_unstable_trial_counts(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))

    def weak(name: str, kw: Mapping[str, Any]) -> Any:
        return CheckResult(
            name=name,
            status="pass",
            checker="derived",
            reason="64 trials ...; weak: 40 of 64 trials vacuous (a hypothesis failed)",
            trials=kw["trials"],
            seed=kw["seed"],
            dtype=kw["dtype"],
            atol=1e-10 * 2.2250738585072014e-308,  # the float64 floor is subnormal
            rtol=1e-10,
            vacuous_trials=40,
            tied_trials=7,
            unstable_trials=3,
        )

    outcome = run_checks(
        session, params=CheckParams(), backend=ScriptedBackend({"Proofs.t1": weak})
    )

    first = outcome.results[0]
    assert (first["vacuous_trials"], first["tied_trials"], first["unstable_trials"]) == (40, 7, 3)
    session.expire_all()
    result = session.scalars(select(models.Result)).one()
    assert (result.vacuous_trials, result.tied_trials, result.unstable_trials) == (40, 7, 3)
    assert result.atol == 1e-10 * 2.2250738585072014e-308
    out = views.result_out(result, revision=1, counterexample=None)
    assert (out.vacuous_trials, out.tied_trials, out.unstable_trials) == (40, 7, 3)
    assert out.model_dump(mode="json")["unstable_trials"] == 3


def test_store_nan_error_as_null(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))

    def nan_error(name: str, kw: Mapping[str, Any]) -> Any:
        return CheckResult(
            name=name, status="error", checker="derived", reason="lhs is NaN", max_abs_err=math.nan
        )

    run_checks(session, params=CheckParams(), backend=ScriptedBackend({"Proofs.t1": nan_error}))

    assert session.scalars(select(models.Result.max_abs_err)).one() is None


def test_store_dependencies_with_revision_hashes(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"), definition("Proofs.helper"))
    backend = ScriptedBackend({"Proofs.t1": passing(("Proofs.helper", "Proofs.absent"))})

    run_checks(session, params=CheckParams(), backend=backend)

    t1 = declaration(session, "Proofs.t1")
    deps = crud.dependencies_of(session, declaration_id=t1.id)
    helper = declaration(session, "Proofs.helper")
    assert [(d.depends_on, d.revision_hash) for d in deps] == [
        ("Proofs.absent", None),
        ("Proofs.helper", helper.content_hash),
    ]


def test_select_changed_only_when_statement_or_dependency_changes(session: Session) -> None:
    helper = definition("Proofs.helper", "x + 1")
    t1, t2 = theorem("Proofs.t1", "1 = 1"), theorem("Proofs.t2", "2 = 2")
    _ingest(session, t1, t2, helper)
    assert select_theorems(session, changed_only=True) == ["Proofs.t1", "Proofs.t2"]  # unchecked
    backend = ScriptedBackend({"Proofs.t1": passing(("Proofs.helper",)), "Proofs.t2": passing()})
    run_checks(session, params=CheckParams(), backend=backend)
    assert select_theorems(session, changed_only=True) == []

    _ingest(session, t1, t2, definition("Proofs.helper", "x + 2"))  # a dependency changes
    assert crud.stale_theorems(session) == ["Proofs.t1"]

    _ingest(session, t1, theorem("Proofs.t2", "3 = 3"), definition("Proofs.helper", "x + 2"))
    assert select_theorems(session, changed_only=True) == ["Proofs.t1", "Proofs.t2"]

    outcome = run_checks(session, params=CheckParams(changed_only=True), backend=backend)
    assert [r["name"] for r in outcome.results] == ["Proofs.t1", "Proofs.t2"]
    assert [r["revision"] for r in outcome.results] == [1, 2]
    assert select_theorems(session, changed_only=True) == []


def test_refuse_selection_when_names_are_wrong(session: Session) -> None:
    with pytest.raises(
        SelectionError, match=r"^no theorems ingested yet: run `proofbridge ingest PATH` first$"
    ):
        select_theorems(session)
    _ingest(session, theorem("Proofs.t1"), definition("Proofs.helper"))

    with pytest.raises(SelectionError, match=r"^unknown theorem: Proofs.nope$"):
        select_theorems(session, names=["Proofs.nope"])
    with pytest.raises(SelectionError, match=r"^Proofs.helper is a def, not a theorem$"):
        select_theorems(session, names=["Proofs.helper"])
    with pytest.raises(SelectionError, match=r"^no theorems in module Nowhere$"):
        select_theorems(session, module="Nowhere")
    with pytest.raises(SelectionError, match=r"^Proofs.t1 is in module Proofs.A, not Other$"):
        select_theorems(session, names=["Proofs.t1"], module="Other")
    with pytest.raises(SelectionError, match=r"^trials must be a positive integer, got 0$"):
        CheckParams(trials=0)


def test_mark_run_failed_when_backend_breaks(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))

    class Broken(ScriptedBackend):
        class Environment:
            @classmethod
            def from_declarations(cls, decls: Any) -> Any:
                raise ImportError("no module named jaxlib")

    outcome = run_checks(session, params=CheckParams(), backend=Broken())

    assert (outcome.status, outcome.exit_code) == ("error", 1)
    assert outcome.error == "ImportError: no module named jaxlib"
    run = crud.get_run(session, run_id=outcome.run_id)
    assert run is not None and (run.status, run.error) == ("error", outcome.error)
    assert run.finished_at is not None


def test_replay_recorded_counterexample_when_dims_omitted(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))
    backend = ScriptedBackend({"Proofs.t1": failing})
    run_checks(session, params=CheckParams(seed=11, trials=16), backend=backend)

    result = replay(session, name="Proofs.t1", seed=11, backend=backend)

    call = backend.repros[0]
    assert (call["seed"], call["dims"], call["trial"], call["trials"]) == (11, {"n": 2}, 3, 16)
    assert call["counterexample"].inputs == {"f": [1.0, -2.0]}
    assert (result.dims, result.trial, result.repro.lhs, result.repro.rhs) == (
        {"n": 2},
        3,
        [1.0],
        [2.0],
    )


def test_refuse_replay_when_seed_never_recorded(session: Session) -> None:
    _ingest(session, theorem("Proofs.t1"))

    with pytest.raises(SelectionError) as err:
        replay(session, name="Proofs.t1", seed=3, backend=ScriptedBackend())

    assert str(err.value) == (
        "no recorded check of Proofs.t1 with seed 3: give the dimensions with --dims K=V,..."
    )
    replay(session, name="Proofs.t1", seed=3, dims={"n": 4}, backend=ScriptedBackend())


@pytest.mark.slow
def test_check_seeds_passes_registered_and_reports_unsupported(
    session: Session, seeds_dir: Path
) -> None:
    pytest.importorskip("checkers")
    ingest_paths(session, paths=[str(seeds_dir)])

    outcome = run_checks(session, params=CheckParams(trials=16))

    by_status: dict[str, list[str]] = {}
    for r in outcome.results:
        by_status.setdefault(r["status"], []).append(r["name"])
    assert len(outcome.results) == 28
    assert {
        "Proofs.sum_fin_prod",
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.pdiv_rowLN_beta",
        "Proofs.vit_net_tiedGB",
        "Proofs.vit_net_lossGrad",
        "Proofs.vit_net_lossGrad_smoothedCE",
        "Proofs.vitNetB_eq_vitForwardKV",
    } <= set(by_status.get("pass", []))
    assert "fail" not in by_status and "error" not in by_status
    for r in outcome.results:
        if r["status"] == "unsupported":
            assert r["reason"], r["name"]
    stored = crud.run_results(session, run_id=outcome.run_id)
    assert sorted(r.name for r in stored) == sorted(r["name"] for r in outcome.results)


@pytest.mark.slow
def test_a_few_theorems_are_checked_reading_their_declarations_when_used(
    session: Session, seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a run of a few theorems reads the declarations they use through sessions of its own
    # (checkers.registry.lazy); its results are those of a run reading every declaration
    pytest.importorskip("checkers")
    from app.services.runs import checks

    ingest_paths(session, paths=[str(seeds_dir), str(Path(__file__).parents[4] / "examples")])
    names = (
        "Proofs.vit_rowDenseW_grad_bridge",
        "Proofs.sum_fin_prod",
        "Examples.sqrt_sq_draft",
        "Examples.softmax_pos",
    )
    keep = ("name", "status", "reason", "max_abs_err", "dims", "checker", "version")

    def run() -> list[tuple[Any, ...]]:
        outcome = run_checks(session, params=CheckParams(names=names, trials=16))
        return [tuple(r[k] for k in keep) for r in outcome.results]

    asked: list[Any] = []
    read = crud.current_declaration_records

    def counted(session: Session, **kwargs: Any) -> Any:
        asked.append(kwargs.get("revisions") if not kwargs.get("structure") else "structure")
        return read(session, **kwargs)

    monkeypatch.setattr(checks.crud, "current_declaration_records", counted)
    lazy = run()
    assert asked and None not in asked  # by revision only: never every declaration
    monkeypatch.setattr(checks, "READ_WHEN_USED_AT_MOST", 0)
    assert run() == lazy
    assert None in asked
    assert {r[0]: r[1] for r in lazy} == dict.fromkeys(names, "pass") | {
        "Examples.sqrt_sq_draft": "fail"
    }


def test_declarations_read_when_used_are_read_as_they_were_when_the_run_began(
    session: Session,
) -> None:
    pytest.importorskip("checkers")
    from app.services.runs import checks

    doc = [theorem("Proofs.t1"), definition("Proofs.d", "x * 2")]
    ingest_batch(session, batch=batch(document("Proofs/A.lean", doc)))
    env = checks.build_environment(session, checks.load_backend(), selection=["Proofs.t1"])
    changed = [theorem("Proofs.t1"), definition("Proofs.d", "x * 3")]
    ingest_batch(session, batch=batch(document("Proofs/A.lean", changed)))
    session.commit()
    assert env.get("Proofs.d").equations == ("Proofs.d x = x * 2",)
    assert "Proofs.d x = x * 3" in crud.current_declaration_records(session)[0].equations


def test_a_run_that_cannot_read_its_declarations_fails_recording_nothing(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("checkers")
    from app.services.runs import checks

    _ingest(session, theorem("Proofs.t1"), definition("Proofs.d"))
    read = crud.current_declaration_records

    def broken(session: Session, **kwargs: Any) -> Any:
        if kwargs.get("revisions") is not None:
            raise RuntimeError("the database went away")
        return read(session, **kwargs)

    monkeypatch.setattr(checks.crud, "current_declaration_records", broken)
    outcome = run_checks(session, params=CheckParams(names=("Proofs.t1",), trials=8))
    assert outcome.error is not None and "the database went away" in outcome.error
    assert outcome.results == []
    assert crud.run_results(session, run_id=outcome.run_id) == []
