"""The database: SQLAlchemy 2 ORM models (the pydantic I/O schemas are in `schemas.py`).

Declarations are never deleted: a changed declaration gets a new row in
`declaration_revisions` (history kept), and one that disappears from its source file is
marked `removed`. Check runs own their results; a result is unique per (run, declaration)
so that a redelivered task overwrites instead of duplicating. `dependencies` records, per
theorem, the definitions its checker used and the revision hash each had at the time, which
is what makes a theorem stale when one of them changes.

Column types work on SQLite and PostgreSQL alike: JSON is JSONB on PostgreSQL and JSON text
on SQLite; times are stored in UTC and always read back timezone-aware.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from app.triggers import install as install_triggers

__all__ = [
    "NAMING_CONVENTION",
    "RUN_STATUSES",
    "RESULT_STATUSES",
    "Base",
    "Counterexample",
    "DataGeneration",
    "Declaration",
    "DeclarationRevision",
    "Dependency",
    "ModuleDoc",
    "Result",
    "Run",
    "RunTask",
    "RUN_TASK_STATUSES",
    "FINAL_RUN_STATUSES",
    "Source",
    "WebhookDelivery",
    "utcnow",
]

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# queued -> running -> passed | failed | error | cancelled: `passed` when no theorem failed
# or errored, `failed` when one failed, `error` when one errored (and none failed) or the
# run itself could not be executed, `cancelled` when stopped on request
RUN_STATUSES = ("queued", "running", "passed", "failed", "error", "cancelled")
FINAL_RUN_STATUSES = ("passed", "failed", "error", "cancelled")
RUN_TASK_STATUSES = ("queued", "running", "done", "cancelled")
RESULT_STATUSES = ("pass", "fail", "error", "unsupported")

# JSON that maps Python None to SQL NULL (so "IS NULL" finds it) and is JSONB on PostgreSQL.
JSONType = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and read back timezone-aware on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSONType,
        list[Any]: JSONType,
    }


class Source(Base):
    """One input file, by the path it was read from."""

    __tablename__ = "sources"

    id: Mapped[int] = mapped_column(primary_key=True)
    path: Mapped[str] = mapped_column(Text, unique=True)
    format: Mapped[str] = mapped_column(String(32))
    module: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    module_docs_hash: Mapped[str | None] = mapped_column(String(64))
    commit: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_ingested_at: Mapped[datetime] = mapped_column(default=utcnow)


class Declaration(Base):
    """A declaration by fully qualified name; its content lives in its revisions."""

    __tablename__ = "declarations"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    module: Mapped[str] = mapped_column(Text, index=True)
    source_id: Mapped[int | None] = mapped_column(
        ForeignKey("sources.id", ondelete="SET NULL"), index=True
    )
    current_revision: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    removed_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # its newest result and that result's status and checker, kept by triggers (`app.triggers`)
    latest_result_id: Mapped[int | None] = mapped_column(Integer, index=True)
    latest_status: Mapped[str | None] = mapped_column(String(16), index=True)
    latest_checker: Mapped[str | None] = mapped_column(String(16))
    # its current revision's proof status (`theorem_index.model.PROOF_STATES`), for filters
    proof: Mapped[str] = mapped_column(
        String(16), default="unknown", server_default="unknown", index=True
    )
    # the unproved declarations its proof rests on, through other proofs (kept by ingestion:
    # `app.services.ingestion.proof_graph`)
    rests_on: Mapped[list[Any]] = mapped_column(default=list, server_default="[]")
    # the declarations its proof mentions, resolved (kept by ingestion, as `rests_on`)
    proof_deps: Mapped[list[Any]] = mapped_column(default=list, server_default="[]")


class DeclarationRevision(Base):
    """One version of a declaration's text, with its parse tree (or parse error)."""

    __tablename__ = "declaration_revisions"
    __table_args__ = (UniqueConstraint("declaration_id", "revision"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    declaration_id: Mapped[int] = mapped_column(
        ForeignKey("declarations.id", ondelete="CASCADE"), index=True
    )
    revision: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    module: Mapped[str] = mapped_column(Text)
    binders: Mapped[str] = mapped_column(Text)
    statement: Mapped[str] = mapped_column(Text)
    docstring: Mapped[str | None] = mapped_column(Text)
    equations: Mapped[list[Any]]
    equations_rendered: Mapped[bool] = mapped_column(Boolean, default=True)
    attributes: Mapped[list[Any]]
    modifiers: Mapped[list[Any]]
    namespace: Mapped[str] = mapped_column(Text, default="")
    opens: Mapped[list[Any]]
    sorried: Mapped[bool] = mapped_column(Boolean, default=False)
    # proved | unproved | unknown, and the names its proof mentions (`theorem_index.proofs`)
    proof: Mapped[str] = mapped_column(String(16), default="unknown", server_default="unknown")
    proof_uses: Mapped[list[Any]] = mapped_column(default=list, server_default="[]")
    links: Mapped[list[Any]]
    source_id: Mapped[int | None] = mapped_column(ForeignKey("sources.id", ondelete="SET NULL"))
    file: Mapped[str | None] = mapped_column(Text)
    line_start: Mapped[int | None] = mapped_column(Integer)
    line_end: Mapped[int | None] = mapped_column(Integer)
    statement_line: Mapped[int | None] = mapped_column(Integer)
    statement_column: Mapped[int | None] = mapped_column(Integer)
    commit: Mapped[str | None] = mapped_column(String(64))
    parsed: Mapped[dict[str, Any] | None]
    parse_error: Mapped[dict[str, Any] | None]
    constants: Mapped[list[Any]]
    unknown_constants: Mapped[list[Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ModuleDoc(Base):
    """A module-doc block of a source file: prose, headings, mentioned declaration names."""

    __tablename__ = "module_docs"
    __table_args__ = (UniqueConstraint("source_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    module: Mapped[str] = mapped_column(Text, index=True)
    text: Mapped[str] = mapped_column(Text)
    headings: Mapped[list[Any]]
    mentions: Mapped[list[Any]]
    file: Mapped[str | None] = mapped_column(Text)
    line_start: Mapped[int | None] = mapped_column(Integer)
    line_end: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Run(Base):
    """One check run over a selection of theorems."""

    __tablename__ = "runs"
    __table_args__ = (
        CheckConstraint(
            "status IN ('queued', 'running', 'passed', 'failed', 'error', 'cancelled')",
            name="status_known",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    trigger: Mapped[str] = mapped_column(String(32), default="cli")
    params: Mapped[dict[str, Any]]
    commit: Mapped[str | None] = mapped_column(String(64))
    # a client's key for "this trigger": a second request with the same key gets this run
    idempotency_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    error: Mapped[str | None] = mapped_column(Text)
    total: Mapped[int] = mapped_column(Integer, default=0)
    completed: Mapped[int] = mapped_column(Integer, default=0)
    passed: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    errored: Mapped[int] = mapped_column(Integer, default=0)
    unsupported: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class RunTask(Base):
    """A chunk of a run's theorems, checked in one go by one task (on a worker, or by the
    server's in-process runner). `current` is the theorem being checked and `losses` how
    many attempts ended (their process lost) while checking it; `heartbeat_at` is renewed
    every few seconds while an attempt is alive."""

    __tablename__ = "run_tasks"
    __table_args__ = (
        UniqueConstraint("run_id", "position"),
        CheckConstraint(
            "status IN ('queued', 'running', 'done', 'cancelled')", name="status_known"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    names: Mapped[list[Any]]
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(200))
    current: Mapped[str | None] = mapped_column(Text)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    dispatched_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class Result(Base):
    """The outcome of checking one theorem (at one revision) in one run."""

    __tablename__ = "results"
    __table_args__ = (
        # a redelivered task writes the same key again: it overwrites, never duplicates
        UniqueConstraint("run_id", "declaration_id", "dtype", "seed"),
        CheckConstraint("status IN ('pass', 'fail', 'error', 'unsupported')", name="status_known"),
        Index("ix_results_declaration_id_id", "declaration_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    declaration_id: Mapped[int] = mapped_column(ForeignKey("declarations.id", ondelete="CASCADE"))
    revision_id: Mapped[int] = mapped_column(
        ForeignKey("declaration_revisions.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    checker: Mapped[str] = mapped_column(String(16))
    checker_version: Mapped[str | None] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text, default="")
    trials: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[int] = mapped_column(BigInteger, default=0)
    dtype: Mapped[str] = mapped_column(String(16))
    dims: Mapped[dict[str, Any]]
    draws: Mapped[list[Any]]
    max_abs_err: Mapped[float | None] = mapped_column(Float)
    max_rel_err: Mapped[float | None] = mapped_column(Float)
    atol: Mapped[float | None] = mapped_column(Float)
    rtol: Mapped[float | None] = mapped_column(Float)
    duration_s: Mapped[float] = mapped_column(Float, default=0.0)
    device: Mapped[str] = mapped_column(String(64), default="cpu")
    # what checked it: a Celery worker's node name, `in-process@host` or `cli@host`
    worker: Mapped[str | None] = mapped_column(String(200))
    worst_index: Mapped[list[Any] | None]
    trial: Mapped[int | None] = mapped_column(Integer)
    # trials in which a hypothesis failed (the statement held vacuously)
    vacuous_trials: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # trials of an inequality whose sides agree within the tolerance
    tied_trials: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # trials drawn again at a smaller scale because float64 overflowed at their stress scale
    rescaled_trials: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # trials failing in float64 that held at high precision (float artefacts), drawn again
    unstable_trials: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    assumptions: Mapped[list[Any]]
    # a whole check's rows, one per family of nodes (`checkers.registry.prose`); NULL otherwise
    parts: Mapped[list[Any] | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Counterexample(Base):
    """A (shrunk) failing trial of a result, replayable with `proofbridge repro`."""

    __tablename__ = "counterexamples"

    id: Mapped[int] = mapped_column(primary_key=True)
    result_id: Mapped[int] = mapped_column(
        ForeignKey("results.id", ondelete="CASCADE"), unique=True
    )
    dims: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    trial: Mapped[int | None] = mapped_column(Integer)
    inputs: Mapped[dict[str, Any]]
    lhs: Mapped[list[Any] | None]
    rhs: Mapped[list[Any] | None]
    shrunk: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Dependency(Base):
    """A definition a theorem's checker used, with that definition's revision hash then."""

    __tablename__ = "dependencies"
    __table_args__ = (UniqueConstraint("declaration_id", "depends_on"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    declaration_id: Mapped[int] = mapped_column(ForeignKey("declarations.id", ondelete="CASCADE"))
    depends_on: Mapped[str] = mapped_column(Text, index=True)
    # The dependency's content hash when the check ran; NULL when it was not ingested.
    revision_hash: Mapped[str | None] = mapped_column(String(64))
    computed_at: Mapped[datetime] = mapped_column(default=utcnow)


class WebhookDelivery(Base):
    """A webhook delivery handled once: GitHub's `X-GitHub-Delivery` id, the event, the
    commit it named and the run it queued (NULL when it queued none). A delivery sent again
    finds its row and is ignored."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(primary_key=True)
    delivery: Mapped[str] = mapped_column(String(200), unique=True)
    event: Mapped[str] = mapped_column(String(64))
    commit: Mapped[str | None] = mapped_column(String(64))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    received_at: Mapped[datetime] = mapped_column(default=utcnow)


class DataGeneration(Base):
    """Writes to this database, counted per backend process by triggers on PostgreSQL
    (`app.triggers`); their sum keys the page cache (`app.generation`)."""

    __tablename__ = "data_generation"

    slot: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    n: Mapped[int] = mapped_column(BigInteger, default=0)


install_triggers(Base.metadata)
