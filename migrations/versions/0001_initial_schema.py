"""Initial schema: sources, declarations and their revisions, module docs, runs, results,
counterexamples and dependencies.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSON text on SQLite, JSONB on PostgreSQL; Python None is SQL NULL.
JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("trigger", sa.String(length=32), nullable=False),
        sa.Column("params", JSON, nullable=False),
        sa.Column("commit", sa.String(length=64), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("completed", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("errored", sa.Integer(), nullable=False),
        sa.Column("unsupported", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_runs_status_known")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_index(op.f("ix_runs_status"), "runs", ["status"])

    op.create_table(
        "sources",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("module", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("module_docs_hash", sa.String(length=64), nullable=True),
        sa.Column("commit", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_ingested_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sources")),
        sa.UniqueConstraint("path", name=op.f("uq_sources_path")),
    )
    op.create_table(
        "declarations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("module", sa.Text(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=True),
        sa.Column("current_revision", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["sources.id"],
            name=op.f("fk_declarations_source_id_sources"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_declarations")),
        sa.UniqueConstraint("name", name=op.f("uq_declarations_name")),
    )
    op.create_index(op.f("ix_declarations_kind"), "declarations", ["kind"])
    op.create_index(op.f("ix_declarations_module"), "declarations", ["module"])
    op.create_index(op.f("ix_declarations_source_id"), "declarations", ["source_id"])

    op.create_table(
        "module_docs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("module", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("headings", JSON, nullable=False),
        sa.Column("mentions", JSON, nullable=False),
        sa.Column("file", sa.Text(), nullable=True),
        sa.Column("line_start", sa.Integer(), nullable=True),
        sa.Column("line_end", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["sources.id"],
            name=op.f("fk_module_docs_source_id_sources"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_module_docs")),
        sa.UniqueConstraint(
            "source_id", "position", name=op.f("uq_module_docs_source_id_position")
        ),
    )
    op.create_index(op.f("ix_module_docs_module"), "module_docs", ["module"])

    op.create_table(
        "declaration_revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("declaration_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("module", sa.Text(), nullable=False),
        sa.Column("binders", sa.Text(), nullable=False),
        sa.Column("statement", sa.Text(), nullable=False),
        sa.Column("docstring", sa.Text(), nullable=True),
        sa.Column("equations", JSON, nullable=False),
        sa.Column("equations_rendered", sa.Boolean(), nullable=False),
        sa.Column("attributes", JSON, nullable=False),
        sa.Column("modifiers", JSON, nullable=False),
        sa.Column("namespace", sa.Text(), nullable=False),
        sa.Column("opens", JSON, nullable=False),
        sa.Column("sorried", sa.Boolean(), nullable=False),
        sa.Column("links", JSON, nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=True),
        sa.Column("file", sa.Text(), nullable=True),
        sa.Column("line_start", sa.Integer(), nullable=True),
        sa.Column("line_end", sa.Integer(), nullable=True),
        sa.Column("statement_line", sa.Integer(), nullable=True),
        sa.Column("statement_column", sa.Integer(), nullable=True),
        sa.Column("commit", sa.String(length=64), nullable=True),
        sa.Column("parsed", JSON, nullable=True),
        sa.Column("parse_error", JSON, nullable=True),
        sa.Column("constants", JSON, nullable=False),
        sa.Column("unknown_constants", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["declaration_id"],
            ["declarations.id"],
            name=op.f("fk_declaration_revisions_declaration_id_declarations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["sources.id"],
            name=op.f("fk_declaration_revisions_source_id_sources"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_declaration_revisions")),
        sa.UniqueConstraint(
            "declaration_id",
            "revision",
            name=op.f("uq_declaration_revisions_declaration_id_revision"),
        ),
    )
    op.create_index(
        op.f("ix_declaration_revisions_declaration_id"), "declaration_revisions", ["declaration_id"]
    )

    op.create_table(
        "dependencies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("declaration_id", sa.Integer(), nullable=False),
        sa.Column("depends_on", sa.Text(), nullable=False),
        sa.Column("revision_hash", sa.String(length=64), nullable=True),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["declaration_id"],
            ["declarations.id"],
            name=op.f("fk_dependencies_declaration_id_declarations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dependencies")),
        sa.UniqueConstraint(
            "declaration_id", "depends_on", name=op.f("uq_dependencies_declaration_id_depends_on")
        ),
    )
    op.create_index(op.f("ix_dependencies_depends_on"), "dependencies", ["depends_on"])

    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("declaration_id", sa.Integer(), nullable=False),
        sa.Column("revision_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("checker", sa.String(length=16), nullable=False),
        sa.Column("checker_version", sa.String(length=64), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("trials", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("dtype", sa.String(length=16), nullable=False),
        sa.Column("dims", JSON, nullable=False),
        sa.Column("draws", JSON, nullable=False),
        sa.Column("max_abs_err", sa.Float(), nullable=True),
        sa.Column("max_rel_err", sa.Float(), nullable=True),
        sa.Column("atol", sa.Float(), nullable=True),
        sa.Column("rtol", sa.Float(), nullable=True),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("device", sa.String(length=16), nullable=False),
        sa.Column("worst_index", JSON, nullable=True),
        sa.Column("trial", sa.Integer(), nullable=True),
        sa.Column("assumptions", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('pass', 'fail', 'error', 'unsupported')",
            name=op.f("ck_results_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["declaration_id"],
            ["declarations.id"],
            name=op.f("fk_results_declaration_id_declarations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["revision_id"],
            ["declaration_revisions.id"],
            name=op.f("fk_results_revision_id_declaration_revisions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_results_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_results")),
        sa.UniqueConstraint(
            "run_id", "declaration_id", name=op.f("uq_results_run_id_declaration_id")
        ),
    )
    op.create_index("ix_results_declaration_id_id", "results", ["declaration_id", "id"])
    op.create_index(op.f("ix_results_revision_id"), "results", ["revision_id"])
    op.create_index(op.f("ix_results_run_id"), "results", ["run_id"])
    op.create_index(op.f("ix_results_status"), "results", ["status"])

    op.create_table(
        "counterexamples",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("dims", JSON, nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("trial", sa.Integer(), nullable=True),
        sa.Column("inputs", JSON, nullable=False),
        sa.Column("lhs", JSON, nullable=True),
        sa.Column("rhs", JSON, nullable=True),
        sa.Column("shrunk", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["result_id"],
            ["results.id"],
            name=op.f("fk_counterexamples_result_id_results"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_counterexamples")),
        sa.UniqueConstraint("result_id", name=op.f("uq_counterexamples_result_id")),
    )


def downgrade() -> None:
    op.drop_table("counterexamples")
    op.drop_index(op.f("ix_results_status"), table_name="results")
    op.drop_index(op.f("ix_results_run_id"), table_name="results")
    op.drop_index(op.f("ix_results_revision_id"), table_name="results")
    op.drop_index("ix_results_declaration_id_id", table_name="results")

    op.drop_table("results")
    op.drop_index(op.f("ix_dependencies_depends_on"), table_name="dependencies")

    op.drop_table("dependencies")
    op.drop_index(
        op.f("ix_declaration_revisions_declaration_id"), table_name="declaration_revisions"
    )

    op.drop_table("declaration_revisions")
    op.drop_index(op.f("ix_module_docs_module"), table_name="module_docs")

    op.drop_table("module_docs")
    op.drop_index(op.f("ix_declarations_source_id"), table_name="declarations")
    op.drop_index(op.f("ix_declarations_module"), table_name="declarations")
    op.drop_index(op.f("ix_declarations_kind"), table_name="declarations")

    op.drop_table("declarations")
    op.drop_table("sources")
    op.drop_index(op.f("ix_runs_status"), table_name="runs")

    op.drop_table("runs")
