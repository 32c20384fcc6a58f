"""Runs executed by workers: run statuses passed, failed, error and cancelled (a finished
run was `done`, and `failed` meant the run itself broke); an idempotency key per run; the
chunks of a run (`run_tasks`) that tasks check; which worker checked each result; results
keyed by (run, theorem, dtype, seed).

Revision ID: 0003_workers
Revises: 0002_trial_counts
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003_workers"
down_revision: str | Sequence[str] | None = "0002_trial_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NEW_STATUSES = "status IN ('queued', 'running', 'passed', 'failed', 'error', 'cancelled')"
OLD_STATUSES = "status IN ('queued', 'running', 'done', 'failed')"
JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint(op.f("ck_runs_status_known"), type_="check")
    # a run that broke was `failed`; a finished one `done`, now named by its results
    op.execute("UPDATE runs SET status = 'error' WHERE status = 'failed'")
    op.execute(
        "UPDATE runs SET status = CASE WHEN failed > 0 THEN 'failed' "
        "WHEN errored > 0 THEN 'error' ELSE 'passed' END WHERE status = 'done'"
    )
    with op.batch_alter_table("runs") as batch:
        batch.create_check_constraint("status_known", NEW_STATUSES)
        batch.add_column(sa.Column("idempotency_key", sa.String(length=200), nullable=True))
        batch.create_unique_constraint(op.f("uq_runs_idempotency_key"), ["idempotency_key"])

    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("worker", sa.String(length=200), nullable=True))
        batch.alter_column(
            "device", existing_type=sa.String(length=16), type_=sa.String(length=64)
        )
        batch.drop_constraint(op.f("uq_results_run_id_declaration_id"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_results_run_id_declaration_id_dtype_seed"),
            ["run_id", "declaration_id", "dtype", "seed"],
        )

    op.create_table(
        "run_tasks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("names", JSON, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=True),
        sa.Column("current", sa.Text(), nullable=True),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'cancelled')",
            name=op.f("ck_run_tasks_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_tasks_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_tasks")),
        sa.UniqueConstraint("run_id", "position", name=op.f("uq_run_tasks_run_id_position")),
    )
    op.create_index(op.f("ix_run_tasks_run_id"), "run_tasks", ["run_id"])
    op.create_index(op.f("ix_run_tasks_status"), "run_tasks", ["status"])


def downgrade() -> None:
    op.drop_index(op.f("ix_run_tasks_status"), table_name="run_tasks")
    op.drop_index(op.f("ix_run_tasks_run_id"), table_name="run_tasks")
    op.drop_table("run_tasks")
    with op.batch_alter_table("results") as batch:
        batch.drop_constraint(op.f("uq_results_run_id_declaration_id_dtype_seed"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_results_run_id_declaration_id"), ["run_id", "declaration_id"]
        )
        batch.alter_column(
            "device", existing_type=sa.String(length=64), type_=sa.String(length=16)
        )
        batch.drop_column("worker")
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint(op.f("uq_runs_idempotency_key"), type_="unique")
        batch.drop_column("idempotency_key")
        batch.drop_constraint(op.f("ck_runs_status_known"), type_="check")
    op.execute("UPDATE runs SET status = 'done' WHERE status IN ('passed', 'failed', 'cancelled')")
    op.execute("UPDATE runs SET status = 'failed' WHERE status = 'error'")
    with op.batch_alter_table("runs") as batch:
        batch.create_check_constraint("status_known", OLD_STATUSES)
