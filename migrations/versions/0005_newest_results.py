"""Each declaration's newest result, its status and its checker, kept on `declarations` by triggers on
`results` (see `app.triggers`), filled in from the results already recorded.

Revision ID: 0005_newest_results
Revises: 0004_webhook_deliveries
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_newest_results"
down_revision: str | Sequence[str] | None = "0004_webhook_deliveries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE = [
    """CREATE TRIGGER results_newest_insert AFTER INSERT ON results BEGIN
  UPDATE declarations SET latest_result_id = NEW.id, latest_status = NEW.status,
         latest_checker = NEW.checker
   WHERE id = NEW.declaration_id
     AND (latest_result_id IS NULL OR latest_result_id <= NEW.id);
END""",
    """CREATE TRIGGER results_newest_update AFTER UPDATE OF status, checker ON results BEGIN
  UPDATE declarations SET latest_status = NEW.status, latest_checker = NEW.checker
   WHERE id = NEW.declaration_id AND latest_result_id = NEW.id;
END""",
    """CREATE TRIGGER results_newest_delete AFTER DELETE ON results BEGIN
  UPDATE declarations
     SET latest_result_id = (SELECT max(id) FROM results
                              WHERE declaration_id = OLD.declaration_id),
         latest_status = (SELECT status FROM results WHERE id =
                           (SELECT max(id) FROM results
                             WHERE declaration_id = OLD.declaration_id)),
         latest_checker = (SELECT checker FROM results WHERE id =
                            (SELECT max(id) FROM results
                              WHERE declaration_id = OLD.declaration_id))
   WHERE id = OLD.declaration_id AND latest_result_id = OLD.id;
END""",
]

POSTGRESQL = [
    """CREATE OR REPLACE FUNCTION results_newest() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE declarations SET latest_result_id = NEW.id, latest_status = NEW.status,
         latest_checker = NEW.checker
     WHERE id = NEW.declaration_id
       AND (latest_result_id IS NULL OR latest_result_id <= NEW.id);
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE declarations SET latest_status = NEW.status, latest_checker = NEW.checker
     WHERE id = NEW.declaration_id AND latest_result_id = NEW.id
       AND (latest_status IS DISTINCT FROM NEW.status
            OR latest_checker IS DISTINCT FROM NEW.checker);
  ELSE
    UPDATE declarations AS d
       SET latest_result_id = n.id, latest_status = n.status, latest_checker = n.checker
      FROM (SELECT OLD.declaration_id AS declaration_id) AS o
      LEFT JOIN LATERAL (SELECT r.id, r.status, r.checker FROM results AS r
                          WHERE r.declaration_id = o.declaration_id
                          ORDER BY r.id DESC LIMIT 1) AS n ON true
     WHERE d.id = o.declaration_id AND d.latest_result_id = OLD.id;
  END IF;
  RETURN NULL;
END
$$""",
    """CREATE TRIGGER results_newest AFTER INSERT OR DELETE OR UPDATE OF status, checker ON results
FOR EACH ROW EXECUTE FUNCTION results_newest()""",
]


def upgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.add_column(sa.Column("latest_result_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("latest_status", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("latest_checker", sa.String(length=16), nullable=True))
        batch.create_index(batch.f("ix_declarations_latest_result_id"), ["latest_result_id"])
        batch.create_index(batch.f("ix_declarations_latest_status"), ["latest_status"])
    op.execute(
        "UPDATE declarations SET latest_result_id = "
        "(SELECT max(r.id) FROM results AS r WHERE r.declaration_id = declarations.id)"
    )
    op.execute(
        "UPDATE declarations SET "
        "latest_status = (SELECT r.status FROM results AS r "
        "WHERE r.id = declarations.latest_result_id), "
        "latest_checker = (SELECT r.checker FROM results AS r "
        "WHERE r.id = declarations.latest_result_id) "
        "WHERE latest_result_id IS NOT NULL"
    )
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE, "postgresql": POSTGRESQL}.get(dialect, []):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS results_newest_{name}")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS results_newest ON results")
        op.execute("DROP FUNCTION IF EXISTS results_newest()")
    with op.batch_alter_table("declarations") as batch:
        batch.drop_index(batch.f("ix_declarations_latest_status"))
        batch.drop_index(batch.f("ix_declarations_latest_result_id"))
        batch.drop_column("latest_checker")
        batch.drop_column("latest_status")
        batch.drop_column("latest_result_id")
