"""Results of whole checks keep one row per part (a family of a network's gradient nodes:
its largest errors and its worst node), as JSON; NULL for every other result.

Revision ID: 0005_result_parts
Revises: 0004_webhook_deliveries
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005_result_parts"
down_revision: str | Sequence[str] | None = "0004_webhook_deliveries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSON text on SQLite, JSONB on PostgreSQL; Python None is SQL NULL.
JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("parts", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("parts")
