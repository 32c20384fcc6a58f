"""Declarations record their proof status (proved, unproved, unknown) and the names their
proofs mention, so that what rests on an unproved declaration can be told.

Existing revisions keep what they said: `sorried` ones are unproved; the others are
unknown until their source is ingested again (`sorried` false never meant proved).

Revision ID: 0009_proof_status
Revises: 0008_unstable_trials
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# JSON text on SQLite, JSONB on PostgreSQL, as in 0001
JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")

revision: str = "0009_proof_status"
down_revision: str | Sequence[str] | None = "0008_unstable_trials"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMNs: a batch copy of a table on SQLite would drop the triggers 0005 keeps
    op.add_column(
        "declaration_revisions",
        sa.Column("proof", sa.String(16), server_default="unknown", nullable=False),
    )
    op.add_column(
        "declaration_revisions",
        sa.Column("proof_uses", JSON, server_default="[]", nullable=False),
    )
    op.add_column(
        "declarations",
        sa.Column("proof", sa.String(16), server_default="unknown", nullable=False),
    )
    op.add_column(
        "declarations", sa.Column("rests_on", JSON, server_default="[]", nullable=False)
    )
    op.add_column(
        "declarations", sa.Column("proof_deps", JSON, server_default="[]", nullable=False)
    )
    op.create_index("ix_declarations_proof", "declarations", ["proof"])
    # only where there is something to update: on PostgreSQL every statement that writes
    # to a table bumps the data generation (0006), even one that changes no row
    sorried = op.get_bind().execute(
        sa.text("SELECT count(*) FROM declaration_revisions WHERE sorried")
    ).scalar()
    if not sorried:
        return
    op.execute("UPDATE declaration_revisions SET proof = 'unproved' WHERE sorried")
    op.execute(
        "UPDATE declarations SET proof = 'unproved' WHERE EXISTS (SELECT 1 FROM "
        "declaration_revisions r WHERE r.declaration_id = declarations.id "
        "AND r.revision = declarations.current_revision AND r.sorried)"
    )


def downgrade() -> None:
    op.drop_index("ix_declarations_proof", "declarations")
    op.drop_column("declarations", "proof_deps")
    op.drop_column("declarations", "rests_on")
    op.drop_column("declarations", "proof")
    op.drop_column("declaration_revisions", "proof_uses")
    op.drop_column("declaration_revisions", "proof")
