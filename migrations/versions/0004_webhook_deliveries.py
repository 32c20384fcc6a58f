"""Webhook deliveries: each GitHub delivery id handled once, with its event, the commit it
named and the run it queued, so that a delivery sent again is ignored.

Revision ID: 0004_webhook_deliveries
Revises: 0003_workers
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_webhook_deliveries"
down_revision: str | Sequence[str] | None = "0003_workers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery", sa.String(length=200), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("commit", sa.String(length=64), nullable=True),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_webhook_deliveries_run_id_runs"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint("delivery", name=op.f("uq_webhook_deliveries_delivery")),
    )


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
