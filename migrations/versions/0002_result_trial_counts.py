"""Results count their vacuous trials (a hypothesis failed), tied trials (an
inequality's sides agree within the tolerance) and rescaled trials (drawn again at
scale 1 because float64 overflowed at their stress scale).

Revision ID: 0002_trial_counts
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_trial_counts"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(
            sa.Column("vacuous_trials", sa.Integer(), server_default="0", nullable=False)
        )
        batch.add_column(sa.Column("tied_trials", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(
            sa.Column("rescaled_trials", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("rescaled_trials")
        batch.drop_column("tied_trials")
        batch.drop_column("vacuous_trials")
