"""Recording a checker's result: the result row (upserted under (run, declaration)), its
counterexample, and the theorem's dependencies with their revision hashes at that time."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app import models
from app.services.runs.selection import CheckParams

__all__ = ["RESULT_KEY", "count_results", "error_payload", "record_result", "record_results"]

# the unique key of a result: a task that writes it again overwrites it
RESULT_KEY = ["run_id", "declaration_id", "dtype", "seed"]


def _finite_or_none(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = {"Infinity": math.inf, "-Infinity": -math.inf}.get(value, math.nan)
    number = float(value)
    return None if math.isnan(number) else number


def _json_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A part's row with its non-finite numbers as NULL (JSONB has no infinity)."""
    return {
        str(k): None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()
    }


def error_payload(name: str, params: CheckParams, exc: BaseException) -> dict[str, Any]:
    """The result of a checker that raised: status `error`, the exception as the reason."""
    return {
        "name": name,
        "status": "error",
        "checker": "none",
        "reason": f"the checker raised {type(exc).__name__}: {exc}",
        "trials": params.trials,
        "seed": params.seed,
        "dtype": params.dtype,
        "dims": dict(params.dims or {}),
        "max_abs_err": None,
        "max_rel_err": None,
        "atol": None,
        "rtol": None,
        "duration_s": 0.0,
        "device": "cpu",
        "worst_index": None,
        "trial": None,
        "vacuous_trials": 0,
        "tied_trials": 0,
        "rescaled_trials": 0,
        "unstable_trials": 0,
        "draws": [],
        "assumptions": [],
        "dependencies": [],
        "counterexample": None,
        "version": "",
    }


def count_results(session: Session, run_id: int) -> dict[str, int]:
    """The run's results by status."""
    res = models.Result
    stmt = select(res.status, func.count()).where(res.run_id == run_id).group_by(res.status)
    return {status: int(n) for status, n in session.execute(stmt).all()}


@functools.cache
def _upsert_statement(dialect: str, table: Any, columns: tuple[str, ...]) -> Any:
    # built once per shape, the values bound at execution: building a 30-column statement
    # per result cost more than the database's work on it
    ins = postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
    changes = {c: ins.excluded[c] for c in columns if c not in RESULT_KEY and c != "created_at"}
    return ins.on_conflict_do_update(index_elements=RESULT_KEY, set_=changes)


def record_result(
    session: Session,
    *,
    run_id: int,
    declaration_id: int,
    revision_id: int,
    payload: Mapping[str, Any],
) -> int:
    """Store one result (upserted under (run, declaration)), its counterexample and the
    theorem's dependencies with their current revision hashes. Returns the result id."""
    return record_results(session, run_id=run_id, items=[(declaration_id, revision_id, payload)])[0]


def record_results(
    session: Session, *, run_id: int, items: Sequence[tuple[int, int, Mapping[str, Any]]]
) -> list[int]:
    """Store the results of one run given as (declaration id, revision id, payload), each as
    `record_result` stores it, in a handful of statements for the whole batch (one per
    result each took the recording process of a whole-tree run 8 CPU seconds, taken from
    the workers checking beside it). Returns the result ids, in the order of `items`.
    Where two items share a result's key, or a declaration, the later one wins, as when
    recorded one after the other."""
    if not items:
        return []
    now = models.utcnow()
    rows = [
        _result_row(run_id, decl_id, rev_id, payload, now) for decl_id, rev_id, payload in items
    ]
    table = models.Result.__table__
    # executed row by row (no RETURNING): a later item with a result's key updates what an
    # earlier one wrote
    session.execute(_upsert_statement(session.get_bind().dialect.name, table, tuple(rows[0])), rows)
    res = models.Result
    ids = {
        (run_id, decl_id, dtype, seed): result_id
        for result_id, decl_id, dtype, seed in session.execute(
            select(res.id, res.declaration_id, res.dtype, res.seed).where(
                res.run_id == run_id,
                res.declaration_id.in_(sorted({row["declaration_id"] for row in rows})),
            )
        )
    }
    result_ids = [ids[_key(row)] for row in rows]

    kept = {
        result_id: payload for result_id, (_, _, payload) in zip(result_ids, items, strict=True)
    }
    session.execute(
        delete(models.Counterexample).where(models.Counterexample.result_id.in_(sorted(kept)))
    )
    counterexamples = [
        _counterexample_row(result_id, payload, now)
        for result_id, payload in kept.items()
        if payload.get("counterexample")
    ]
    if counterexamples:
        session.execute(insert(models.Counterexample), counterexamples)

    deps_of = {decl_id: _dependencies(payload) for decl_id, _, payload in items}  # last wins
    session.execute(
        delete(models.Dependency).where(models.Dependency.declaration_id.in_(sorted(deps_of)))
    )
    wanted = sorted(set().union(*deps_of.values()))
    if wanted:
        d = models.Declaration
        hashes = dict(
            session.execute(
                select(d.name, d.content_hash).where(d.name.in_(wanted), d.removed.is_(False))
            ).all()
        )
        session.execute(
            insert(models.Dependency),
            [
                {
                    "declaration_id": decl_id,
                    "depends_on": dep,
                    "revision_hash": hashes.get(dep),
                    "computed_at": now,
                }
                for decl_id, deps in deps_of.items()
                for dep in deps
            ],
        )
    return result_ids


def _key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(row[k] for k in RESULT_KEY)


def _dependencies(payload: Mapping[str, Any]) -> list[str]:
    return sorted(set(payload.get("dependencies") or ()) - {payload["name"]})


def _result_row(
    run_id: int, declaration_id: int, revision_id: int, payload: Mapping[str, Any], now: Any
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "declaration_id": declaration_id,
        "revision_id": revision_id,
        "name": payload["name"],
        "status": payload["status"],
        "checker": payload.get("checker") or "none",
        "checker_version": (payload.get("version") or None),
        "reason": payload.get("reason") or "",
        "trials": int(payload.get("trials") or 0),
        "seed": int(payload.get("seed") or 0),
        "dtype": payload.get("dtype") or "float64",
        "dims": dict(payload.get("dims") or {}),
        "draws": list(payload.get("draws") or []),
        "max_abs_err": _finite_or_none(payload.get("max_abs_err")),
        "max_rel_err": _finite_or_none(payload.get("max_rel_err")),
        "atol": _finite_or_none(payload.get("atol")),
        "rtol": _finite_or_none(payload.get("rtol")),
        "duration_s": float(payload.get("duration_s") or 0.0),
        "device": payload.get("device") or "cpu",
        "worker": payload.get("worker"),
        "worst_index": payload.get("worst_index"),
        "trial": payload.get("trial"),
        "vacuous_trials": int(payload.get("vacuous_trials") or 0),
        "tied_trials": int(payload.get("tied_trials") or 0),
        "rescaled_trials": int(payload.get("rescaled_trials") or 0),
        "unstable_trials": int(payload.get("unstable_trials") or 0),
        "assumptions": list(payload.get("assumptions") or []),
        "parts": [_json_row(p) for p in payload["parts"]] if payload.get("parts") else None,
        "created_at": now,
    }


def _counterexample_row(result_id: int, payload: Mapping[str, Any], now: Any) -> dict[str, Any]:
    ce = payload["counterexample"]
    return {
        "result_id": result_id,
        "dims": dict(ce.get("dims") or {}),
        "seed": int(ce.get("seed", int(payload.get("seed") or 0))),
        "trial": ce.get("trial"),
        "inputs": dict(ce.get("inputs") or {}),
        "lhs": ce.get("lhs"),
        "rhs": ce.get("rhs"),
        "shrunk": bool(ce.get("shrunk", False)),
        "note": str(ce.get("note") or ""),
        "created_at": now,
    }
