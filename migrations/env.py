"""Alembic environment: the URL and the metadata come from the application itself.

The URL is, in order: `config.attributes["url"]` (set by `app.migrate`), the
`sqlalchemy.url` option, then the application's settings (PROOFBRIDGE_DATABASE_URL).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from app.db import make_engine
from app.models import Base
from app.settings import get_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
    return url or get_settings().database_url


def _configure(**kwargs: object) -> None:
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        compare_server_default=True,
        render_as_batch=_url().startswith("sqlite"),
        **kwargs,
    )


def run_migrations_offline() -> None:
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                # Batch migrations rebuild tables; with foreign keys on, dropping the old
                # table would cascade into its children. The pragma only works outside a
                # transaction, so it goes straight to the driver before BEGIN.
                connection.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")  # type: ignore[union-attr]
            # SQLAlchemy emits BEGIN on SQLite too (app.db), so DDL is transactional there.
            _configure(connection=connection, transactional_ddl=True)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
