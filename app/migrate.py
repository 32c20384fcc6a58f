"""Schema migrations, applied programmatically (`proofbridge db upgrade`) or on start-up.

Policy: the embedded SQLite database is brought to the newest schema automatically by the
CLI and the server (when `PROOFBRIDGE_AUTO_UPGRADE` is true, the default), since it belongs
to one user and one machine. A PostgreSQL database is never migrated implicitly: when it is
behind, commands stop with a message that says to run `proofbridge db upgrade`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from app.db import make_engine, redact_url
from app.settings import Settings

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "SCHEMA_HEAD",
    "SchemaNotReady",
    "alembic_config",
    "current_revision",
    "ensure_schema",
    "head_revision",
    "upgrade_database",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS_DIR = REPO_ROOT / "migrations"


# The newest migration's revision: the schema this code needs. A test holds it equal to the
# head of migrations/, so that a command finding the database there reads one row to know
# it, without importing Alembic or reading the migration scripts.
SCHEMA_HEAD = "0009_proof_status"


class SchemaNotReady(RuntimeError):
    """The database schema is not the one this code needs."""


def alembic_config(url: str) -> Config:
    """An Alembic configuration for `url` that does not need alembic.ini."""
    from alembic.config import Config

    if not (MIGRATIONS_DIR / "env.py").is_file():
        raise SchemaNotReady(f"migrations not found at {MIGRATIONS_DIR}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["url"] = url
    config.attributes["configure_logging"] = False
    return config


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    head = script.get_current_head()
    if head is None:
        raise SchemaNotReady(f"no migration found in {MIGRATIONS_DIR}")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None for a database never migrated)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade_database(url: str, revision: str = "head") -> str:
    """Apply migrations up to `revision`; returns the revision the database is now at."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)
    engine = make_engine(url)
    try:
        return current_revision(engine) or ""
    finally:
        engine.dispose()


def ensure_schema(settings: Settings, engine: Engine) -> None:
    """Make sure the database has the schema this code needs (see the module's policy)."""
    if _stored_revision(engine) == SCHEMA_HEAD:
        return
    head = head_revision()
    current = current_revision(engine)
    if current == head:
        return
    if settings.is_sqlite and settings.auto_upgrade:
        upgrade_database(settings.database_url)
        return
    where = redact_url(settings.database_url)
    state = "has no schema yet" if current is None else f"is at schema revision {current}"
    raise SchemaNotReady(
        f"database {where} {state}; this version needs {head}: run `proofbridge db upgrade`"
    )


def _stored_revision(engine: Engine) -> str | None:
    """The revision in `alembic_version`, read with one query (None: no such table)."""
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:
        return None
