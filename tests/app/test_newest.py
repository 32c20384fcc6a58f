"""Each declaration's newest result and status, kept by the triggers of `app.triggers`, on
SQLite and PostgreSQL, in schemas made by `create_all` and by the migrations (whose
upgrade also fills them in from the results already recorded)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from app import models
from app.db import make_engine
from app.migrate import alembic_config, upgrade_database


def _declaration(session: Session, name: str) -> int:
    decl = models.Declaration(
        name=name, kind="theorem", module="M", current_revision=1, content_hash="h"
    )
    session.add(decl)
    session.flush()
    rev = models.DeclarationRevision(
        declaration_id=decl.id,
        revision=1,
        content_hash="h",
        kind="theorem",
        module="M",
        binders="",
        statement="1 = 1",
        docstring=None,
        equations=[],
        attributes=[],
        modifiers=[],
        opens=[],
        links=[],
        constants=[],
        unknown_constants=[],
    )
    session.add(rev)
    session.flush()
    return decl.id


def _run(session: Session) -> int:
    run = models.Run(status="running", trigger="test", params={}, total=0)
    session.add(run)
    session.flush()
    return run.id


def _result(decl_id: int, run_id: int, status: str, *, seed: int = 0) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "declaration_id": decl_id,
        "revision_id": None,
        "name": "T",
        "status": status,
        "checker": "derived",
        "seed": seed,
        "dtype": "float64",
        "dims": {},
        "draws": [],
        "assumptions": [],
    }


def _insert(session: Session, decl_id: int, run_id: int, status: str, **kw: Any) -> int:
    rev = session.scalar(
        select(models.DeclarationRevision.id).where(
            models.DeclarationRevision.declaration_id == decl_id
        )
    )
    row = _result(decl_id, run_id, status, **kw) | {"revision_id": rev}
    return int(session.execute(insert(models.Result).returning(models.Result.id), [row]).scalar())


def _newest(session: Session, decl_id: int) -> tuple[int | None, str | None]:
    d = models.Declaration
    row = session.execute(select(d.latest_result_id, d.latest_status).where(d.id == decl_id)).one()
    return row[0], row[1]


@pytest.fixture(params=["create_all", "migrations"])
def engine(request: pytest.FixtureRequest, db_url: str) -> Iterator[Engine]:
    if request.param == "migrations":
        upgrade_database(db_url)
    eng = make_engine(db_url)
    if request.param == "create_all":
        models.Base.metadata.create_all(eng)
    try:
        yield eng
    finally:
        eng.dispose()


def test_insert_moves_the_newest_forward_and_never_back(engine: Engine) -> None:
    with Session(engine) as s:
        a, b = _declaration(s, "A"), _declaration(s, "B")
        run = _run(s)
        assert _newest(s, a) == (None, None)
        first = _insert(s, a, run, "pass")
        assert _newest(s, a) == (first, "pass")
        assert _newest(s, b) == (None, None)
        second = _insert(s, a, run, "fail", seed=1)
        assert _newest(s, a) == (second, "fail")
        # an insert with a smaller id (as a transaction that drew its id first and commits
        # last) leaves the newer one in place
        rev = s.scalar(select(models.DeclarationRevision.id))
        early = _result(a, run, "error", seed=2) | {"id": first - 1, "revision_id": rev}
        s.execute(insert(models.Result), [early])
        assert _newest(s, a) == (second, "fail")
        s.commit()


def test_status_update_of_the_newest_follows_and_of_an_older_does_not(engine: Engine) -> None:
    with Session(engine) as s:
        a = _declaration(s, "A")
        run = _run(s)
        older = _insert(s, a, run, "pass")
        newer = _insert(s, a, run, "pass", seed=1)
        res = models.Result
        s.execute(update(res).where(res.id == older).values(status="fail"))
        assert _newest(s, a) == (newer, "pass")
        s.execute(update(res).where(res.id == newer).values(status="error"))
        assert _newest(s, a) == (newer, "error")
        d = models.Declaration
        assert s.scalar(select(d.latest_checker).where(d.id == a)) == "derived"
        s.execute(update(res).where(res.id == newer).values(checker="none"))
        assert s.scalar(select(d.latest_checker).where(d.id == a)) == "none"
        s.execute(update(res).where(res.id == older).values(checker="registered"))
        assert s.scalar(select(d.latest_checker).where(d.id == a)) == "none"
        s.commit()


def test_upsert_of_the_newest_follows(engine: Engine) -> None:
    with Session(engine) as s:
        a = _declaration(s, "A")
        run = _run(s)
        rid = _insert(s, a, run, "pass")
        rev = s.scalar(select(models.DeclarationRevision.id))
        row = _result(a, run, "fail") | {"revision_id": rev}
        dialect = engine.dialect.name
        ins = (postgresql if dialect == "postgresql" else sqlite).insert(models.Result)
        upsert = ins.values(row).on_conflict_do_update(
            index_elements=["run_id", "declaration_id", "dtype", "seed"],
            set_={"status": ins.excluded.status},
        )
        s.execute(upsert)
        assert _newest(s, a) == (rid, "fail")
        s.commit()


def test_deleting_the_newest_hands_over_to_the_next(engine: Engine) -> None:
    with Session(engine) as s:
        a = _declaration(s, "A")
        run = _run(s)
        older = _insert(s, a, run, "fail")
        newer = _insert(s, a, run, "pass", seed=1)
        res = models.Result
        s.execute(delete(res).where(res.id == older))
        assert _newest(s, a) == (newer, "pass")
        kept = _insert(s, a, run, "error", seed=2)
        s.execute(delete(res).where(res.id == kept))
        assert _newest(s, a) == (newer, "pass")
        s.execute(delete(res).where(res.id == newer))
        assert _newest(s, a) == (None, None)
        d = models.Declaration
        assert s.scalar(select(d.latest_checker).where(d.id == a)) is None
        s.commit()


def test_upgrade_fills_in_the_newest_of_results_recorded_before(db_url: str) -> None:
    config = alembic_config(db_url)
    command.upgrade(config, "0004_webhook_deliveries")
    eng = make_engine(db_url)
    try:
        with eng.begin() as c:
            c.execute(
                text(
                    "INSERT INTO declarations (id, name, kind, module, current_revision, "
                    "content_hash, removed, created_at, updated_at) VALUES "
                    "(1, 'A', 'theorem', 'M', 1, 'h', false, :t, :t), "
                    "(2, 'B', 'theorem', 'M', 1, 'h', false, :t, :t)"
                ),
                {"t": models.utcnow()},
            )
            c.execute(
                text(
                    "INSERT INTO declaration_revisions (id, declaration_id, revision, "
                    "content_hash, kind, module, binders, statement, equations, "
                    "equations_rendered, attributes, modifiers, constants, unknown_constants, "
                    "sorried, opens, links, namespace, created_at) VALUES "
                    "(1, 1, 1, 'h', 'theorem', 'M', '', '1 = 1', '[]', true, '[]', '[]', "
                    "'[]', '[]', false, '[]', '[]', '', :t), "
                    "(2, 2, 1, 'h', 'theorem', 'M', '', '1 = 1', '[]', true, '[]', '[]', "
                    "'[]', '[]', false, '[]', '[]', '', :t)"
                ),
                {"t": models.utcnow()},
            )
            c.execute(
                text(
                    "INSERT INTO runs (id, status, trigger, params, total, completed, passed, "
                    "failed, errored, unsupported, created_at) VALUES "
                    "(1, 'passed', 'test', '{}', 2, 2, 1, 1, 0, 0, :t)"
                ),
                {"t": models.utcnow()},
            )
            for rid, seed, status in ((5, 0, "fail"), (9, 1, "pass")):
                c.execute(
                    text(
                        "INSERT INTO results (id, run_id, declaration_id, revision_id, name, "
                        "status, checker, reason, trials, seed, dtype, dims, draws, "
                        "duration_s, device, vacuous_trials, tied_trials, rescaled_trials, "
                        "assumptions, created_at) VALUES (:id, 1, 1, 1, 'A', :status, "
                        "'derived', '', 1, :seed, 'float64', '{}', '[]', 0, 'cpu', 0, 0, 0, "
                        "'[]', :t)"
                    ),
                    {"id": rid, "seed": seed, "status": status, "t": models.utcnow()},
                )
        command.upgrade(config, "head")
        with Session(eng) as s:
            assert _newest(s, 1) == (9, "pass")
            assert _newest(s, 2) == (None, None)
            # and the triggers are in place after the upgrade
            _insert(s, 2, 1, "error")
            assert _newest(s, 2)[1] == "error"
    finally:
        eng.dispose()
