"""Results count their unstable trials: failing in float64 but not at high precision (a float
artefact), so not evidence against the statement.

Revision ID: 0008_unstable_trials
Revises: 0007_result_parts
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_unstable_trials"
down_revision: str | Sequence[str] | None = "0007_result_parts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ADD COLUMN on both databases: a batch copy of the table on SQLite would
    # drop the triggers 0005 keeps on `results`
    op.add_column(
        "results",
        sa.Column("unstable_trials", sa.Integer(), server_default="0", nullable=False),
    )


def downgrade() -> None:
    op.drop_column("results", "unstable_trials")
