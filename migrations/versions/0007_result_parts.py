"""Results of whole checks keep one row per part (a family of a network's gradient nodes:
its largest errors and its worst node), as JSON; NULL for every other result.

Revision ID: 0007_result_parts
Revises: 0006_data_generation
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007_result_parts"
down_revision: str | Sequence[str] | None = "0006_data_generation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSON text on SQLite, JSONB on PostgreSQL; Python None is SQL NULL.
JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    # a plain ADD COLUMN on both databases: a batch copy of the table on SQLite would
    # drop the triggers 0005 keeps on `results`
    op.add_column("results", sa.Column("parts", JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("results", "parts")
