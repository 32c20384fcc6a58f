"""Engines and sessions for the two supported databases: embedded SQLite and PostgreSQL.

SQLite is opened in WAL mode with foreign keys on and a busy timeout, and SQLAlchemy (not
the sqlite3 module) emits BEGIN, so that a SELECT runs inside the transaction like on any
other database. A session that must write without interleaving (ingestion) asks for the
database's write lock with `lock_for_writing`: `BEGIN IMMEDIATE` on SQLite, a
transaction-level advisory lock on PostgreSQL.

SQLite serves one writer at a time beside any number of readers. A write waits for the
writer before it (the busy timeout), but a transaction that read first and then writes
after another writer committed cannot wait: SQLite refuses it at once ("database is
locked"), since its reads are stale. Hence: a transaction that reads before it writes
takes the write lock first (`lock_for_writing`, or every transaction of a `writer`
session), and may run as a unit that is retried (`run_in_transaction`); none stays open
across a long computation; and a COMMIT that finds the database locked is retried a
bounded number of times.
"""

from __future__ import annotations

import logging
import sqlite3
import time
import weakref
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.settings import get_settings

__all__ = [
    "after_fork",
    "get_engine",
    "get_sessionmaker",
    "is_locked",
    "is_postgresql",
    "lock_for_writing",
    "make_engine",
    "redact_url",
    "run_in_transaction",
    "session_scope",
    "sqlite_file",
]

log = logging.getLogger("proofbridge.db")
T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 60_000
LOCKED_ATTEMPTS = 5
LOCKED_BACKOFF_S = 0.05
_WRITE_LOCK_OPTION = "proofbridge_write_lock"


def is_locked(exc: BaseException) -> bool:
    """Whether `exc` is SQLite's "database is locked" (or "database table is locked")."""
    orig = getattr(exc, "orig", exc)
    return isinstance(orig, sqlite3.OperationalError) and "is locked" in str(orig)


def _backoff(attempt: int) -> float:
    return float(LOCKED_BACKOFF_S * 2**attempt)


def _retrying_commit(do_commit: Callable[[Any], None]) -> Callable[[Any], None]:
    # A COMMIT refused with SQLITE_BUSY leaves the transaction open and may be repeated.
    def commit(dbapi_connection: Any) -> None:
        for attempt in range(LOCKED_ATTEMPTS):
            try:
                do_commit(dbapi_connection)
                return
            except sqlite3.OperationalError as exc:
                if not is_locked(exc) or attempt == LOCKED_ATTEMPTS - 1:
                    raise
                log.info("COMMIT found the database locked; retrying (%d)", attempt + 1)
                time.sleep(_backoff(attempt))

    return commit


def sqlite_file(url: str) -> Path | None:
    """The file behind a SQLite URL (None for in-memory databases and other backends)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def redact_url(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def _install_sqlite_hooks(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy emit BEGIN itself (see `_on_begin`).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(_WRITE_LOCK_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    dialect: Any = engine.dialect
    dialect.do_commit = _retrying_commit(dialect.do_commit)


_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def after_fork() -> None:
    """In a process forked from one that had engines (a worker's pool process): leave the
    parent's connections to the parent and start with fresh engines."""
    for engine in list(_ENGINES):
        engine.dispose(close=False)
    get_sessionmaker.cache_clear()
    get_engine.cache_clear()


def make_engine(url: str, **kwargs: Any) -> Engine:
    """A new engine for `url`; creates the folder of a SQLite file when it is missing."""
    engine = _make_engine(url, **kwargs)
    _ENGINES.add(engine)
    return engine


def _make_engine(url: str, **kwargs: Any) -> Engine:
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        path = sqlite_file(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        _install_sqlite_hooks(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


@lru_cache(maxsize=8)
def get_engine(url: str | None = None) -> Engine:
    """The process-wide engine for `url` (default: the configured database)."""
    return make_engine(url or get_settings().database_url)


@lru_cache(maxsize=8)
def get_sessionmaker(url: str | None = None, *, writer: bool = False) -> sessionmaker[Session]:
    """Sessions on the process-wide engine. A `writer`'s every transaction holds the write
    lock from its start on SQLite (`BEGIN IMMEDIATE`): for a process that writes as it goes
    (the run worker), whose reads would otherwise go stale before its writes."""
    engine = get_engine(url)
    if writer and engine.dialect.name == "sqlite":
        engine = engine.execution_options(**{_WRITE_LOCK_OPTION: True})
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """A session that commits when the block succeeds and rolls back when it raises."""
    session = get_sessionmaker(url)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def run_in_transaction(
    session: Session, work: Callable[[], T], *, attempts: int = LOCKED_ATTEMPTS
) -> T:
    """`work()` in a transaction of its own, committed; when SQLite refuses it as locked
    (its reads went stale before it wrote), rolled back and run again, at most `attempts`
    times in all. Any other error rolls back and propagates. `work` must only touch the
    database through `session`, so that running it again is harmless."""
    if session.in_transaction():
        session.commit()
    for attempt in range(attempts):
        try:
            result = work()
            session.commit()
            return result
        except OperationalError as exc:
            session.rollback()
            if not is_locked(exc) or attempt == attempts - 1:
                raise
            log.info("a transaction found the database locked; retrying (%d)", attempt + 1)
            time.sleep(_backoff(attempt))
        except BaseException:
            session.rollback()
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def is_postgresql(session: Session) -> bool:
    bind = session.get_bind()
    return bind.dialect.name == "postgresql"


def _advisory_key(name: str) -> int:
    # A stable signed 32-bit key per lock name.
    return zlib.crc32(name.encode()) - 2**31


def lock_for_writing(session: Session, name: str) -> None:
    """Start the session's transaction holding the database-wide write lock called `name`.

    Must be the first thing the transaction does: on SQLite the lock is taken by
    `BEGIN IMMEDIATE`, which only a new transaction can issue. Concurrent callers wait
    (PostgreSQL: indefinitely; SQLite: up to the busy timeout) and then see everything the
    previous holder committed.
    """
    if session.in_transaction():
        raise RuntimeError("lock_for_writing must start a new transaction")
    connection = session.connection(execution_options={_WRITE_LOCK_OPTION: True})
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _advisory_key(name)})
