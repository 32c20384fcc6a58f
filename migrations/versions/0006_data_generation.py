"""A count of the writes to this database (PostgreSQL): every statement that writes to
one of the application's tables adds one to its backend's row of `data_generation` (see
`app.triggers`); the sum keys the page cache. On SQLite the table stays empty (its
`data_version` does the same).

Revision ID: 0006_data_generation
Revises: 0005_newest_results
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_data_generation"
down_revision: str | Sequence[str] | None = "0005_newest_results"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = (
    "sources",
    "declarations",
    "declaration_revisions",
    "module_docs",
    "runs",
    "run_tasks",
    "results",
    "counterexamples",
    "dependencies",
    "webhook_deliveries",
)
FUNCTION = """CREATE OR REPLACE FUNCTION data_generation_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO data_generation AS g (slot, n)
       VALUES (pg_backend_pid(), 1)
  ON CONFLICT (slot) DO UPDATE SET n = g.n + 1;
  RETURN NULL;
END
$$"""


def upgrade() -> None:
    op.create_table(
        "data_generation",
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_data_generation")),
    )
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(FUNCTION)
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION data_generation_bump()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_generation ON {table}")
        op.execute("DROP FUNCTION IF EXISTS data_generation_bump()")
    op.drop_table("data_generation")
