"""Recording results in batches (what a run's workers answer at once), on SQLite and
PostgreSQL: a batch stores exactly what recording its results one by one stores."""

from __future__ import annotations

from typing import Any

from db_support import batch, declaration, definition, document, theorem
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import crud, models
from app.services.ingestion.ingest import ingest_batch
from app.services.runs.checks import CheckParams, create_run
from app.services.runs.recording import record_result, record_results


def _payload(name: str, status: str, *, deps: tuple[str, ...] = (), **extra: Any) -> dict:
    return {"name": name, "status": status, "trials": 8, "dependencies": list(deps)} | extra


def _failing(name: str, lhs: float) -> dict:
    ce = {"dims": {"n": 2}, "trial": 3, "inputs": {"x": [1.0]}, "lhs": [lhs], "rhs": [0.0]}
    return _payload(name, "fail", counterexample=ce, max_abs_err=abs(lhs))


def _stored(session: Session, run_id: int) -> list[tuple[Any, ...]]:
    """What a run's results hold: per result its row, its counterexample, its theorem's
    dependencies (ids left out: they differ between runs)."""
    res, ce = models.Result, models.Counterexample
    rows = []
    for result in session.scalars(select(res).where(res.run_id == run_id).order_by(res.name)):
        example = session.scalars(select(ce).where(ce.result_id == result.id)).one_or_none()
        deps = crud.dependencies_of(session, declaration_id=result.declaration_id)
        rows.append(
            (
                result.name,
                result.status,
                result.max_abs_err,
                None if example is None else (example.lhs, example.trial, example.dims),
                [(d.depends_on, d.revision_hash) for d in deps],
            )
        )
    return rows


def _targets(session: Session, *names: str) -> dict[str, tuple[int, int]]:
    out = {}
    for name in names:
        decl = declaration(session, name)
        out[name] = (decl.id, crud.get_current_revision(session, declaration=decl).id)
    return out


def test_store_batch_as_one_by_one_when_keys_repeat(session: Session) -> None:
    names = ("Proofs.t1", "Proofs.t2", "Proofs.t3")
    decls = [theorem(n) for n in names] + [definition("Proofs.helper")]
    ingest_batch(session, batch=batch(document("Proofs/A.lean", decls)))
    targets = _targets(session, *names)
    items = [
        ("Proofs.t1", _failing("Proofs.t1", 5.0)),
        ("Proofs.t2", _payload("Proofs.t2", "pass", deps=("Proofs.helper", "Proofs.absent"))),
        ("Proofs.t3", _payload("Proofs.t3", "unsupported")),
        # the same result again, later in the batch: it replaces the first, as it would
        ("Proofs.t1", _failing("Proofs.t1", 7.0) | {"dependencies": ["Proofs.helper"]}),
    ]
    one_run = create_run(session, params=CheckParams())
    batch_run = create_run(session, params=CheckParams())
    session.commit()

    ids_one = [
        record_result(
            session,
            run_id=one_run.id,
            declaration_id=targets[name][0],
            revision_id=targets[name][1],
            payload=payload,
        )
        for name, payload in items
    ]
    one_by_one = _stored(session, one_run.id)
    ids = record_results(
        session,
        run_id=batch_run.id,
        items=[(*targets[name], payload) for name, payload in items],
    )
    session.commit()

    assert _stored(session, batch_run.id) == one_by_one
    helper = declaration(session, "Proofs.helper").content_hash
    assert one_by_one == [
        ("Proofs.t1", "fail", 7.0, ([7.0], 3, {"n": 2}), [("Proofs.helper", helper)]),
        (
            "Proofs.t2",
            "pass",
            None,
            None,
            [("Proofs.absent", None), ("Proofs.helper", helper)],
        ),
        ("Proofs.t3", "unsupported", None, None, []),
    ]
    # each item gets its result's id; the repeated result's two items the same one
    assert ids[0] == ids[3] and len(set(ids)) == 3 and len(set(ids_one)) == 3
    assert session.scalar(select(models.Result.name).where(models.Result.id == ids[1])) == (
        "Proofs.t2"
    )


def test_replace_counterexample_when_batch_records_result_again(session: Session) -> None:
    ingest_batch(session, batch=batch(document("Proofs/A.lean", [theorem("Proofs.t1")])))
    targets = _targets(session, "Proofs.t1")
    run = create_run(session, params=CheckParams())
    session.commit()
    item = (*targets["Proofs.t1"], _failing("Proofs.t1", 5.0))
    (first,) = record_results(session, run_id=run.id, items=[item])
    session.commit()

    (again,) = record_results(
        session, run_id=run.id, items=[(*targets["Proofs.t1"], _payload("Proofs.t1", "pass"))]
    )
    session.commit()

    assert again == first
    assert _stored(session, run.id) == [("Proofs.t1", "pass", None, None, [])]
    assert record_results(session, run_id=run.id, items=[]) == []
