"""Fixtures of the database tests: every test that asks for `db_url` (or `session`) runs
twice, on SQLite and on PostgreSQL.

PostgreSQL tests each get a fresh, uniquely named schema on the server of
PROOFBRIDGE_TEST_POSTGRES_URL (selected through the connection's `search_path`), dropped
afterwards, so that they can run beside other suites on the same server. Without a
reachable server the PostgreSQL half is skipped with a message, except under `CI=true`,
where it fails.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.db import make_engine
from app.models import Base
from app.settings import get_settings

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def postgres_server_url() -> str:
    return os.environ.get("PROOFBRIDGE_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


_REACHABLE: dict[str, str | None] = {}


def _postgres_problem(url: str) -> str | None:
    """None when the server answers, else why not (checked once per session)."""
    if url not in _REACHABLE:
        engine = create_engine(url, connect_args={"connect_timeout": 5})
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            _REACHABLE[url] = None
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            _REACHABLE[url] = first
        finally:
            engine.dispose()
    return _REACHABLE[url]


def require_postgres() -> str:
    """The server URL; skips (fails under CI=true) when the server cannot be reached."""
    url = postgres_server_url()
    problem = _postgres_problem(url)
    if problem is not None:
        where = make_url(url).render_as_string(hide_password=True)
        message = f"PostgreSQL at {where} is not reachable ({problem})"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI is set, so the PostgreSQL tests must run")
        pytest.skip(f"{message}: set PROOFBRIDGE_TEST_POSTGRES_URL to run these tests")
    return url


def with_schema(url: str, schema: str) -> str:
    """`url` with every connection's search_path set to `schema`."""
    parsed = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


def _admin(url: str) -> Engine:
    return create_engine(url, isolation_level="AUTOCOMMIT")


def _fresh_schema(server: str) -> Iterator[str]:
    schema = f"pbtest_{uuid.uuid4().hex[:16]}"
    admin = _admin(server)
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield with_schema(server, schema)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database (no tables): a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'proofbridge.db'}"
        return
    yield from _fresh_schema(require_postgres())


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema (for PostgreSQL-only behaviour)."""
    yield from _fresh_schema(require_postgres())


@pytest.fixture(scope="module")
def pg_module_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema shared by the tests of one module."""
    yield from _fresh_schema(require_postgres())


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on `db_url` with the tables created from the models."""
    eng = make_engine(db_url)
    Base.metadata.create_all(eng)
    try:
        yield eng
    finally:
        eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as s:
        yield s


@pytest.fixture(autouse=True)
def _isolated_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No test reads the developer's ./var, .env or PROOFBRIDGE_* variables."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    for key in list(os.environ):
        if key.startswith("PROOFBRIDGE_") and not key.startswith("PROOFBRIDGE_TEST_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PROOFBRIDGE_JAX_CACHE_DIR", "")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
