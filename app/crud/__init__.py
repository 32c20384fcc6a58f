"""Data access: keyword-only functions over a SQLAlchemy session."""

from app.crud.declarations import (
    current_declaration_records,
    current_declarations,
    get_current_revision,
    get_declaration,
    list_declarations,
    list_module_docs,
    list_revisions,
    list_theorems,
    module_summaries,
    revision_to_declaration,
)
from app.crud.runs import (
    counterexamples_for,
    dependencies_of,
    get_run,
    latest_result,
    list_runs,
    result_history,
    revision_numbers,
    run_by_idempotency_key,
    run_results,
    stale_theorems,
)

__all__ = [
    "counterexamples_for",
    "current_declaration_records",
    "current_declarations",
    "dependencies_of",
    "get_current_revision",
    "get_declaration",
    "get_run",
    "latest_result",
    "list_declarations",
    "list_module_docs",
    "list_revisions",
    "list_runs",
    "list_theorems",
    "module_summaries",
    "result_history",
    "revision_numbers",
    "revision_to_declaration",
    "run_by_idempotency_key",
    "run_results",
    "stale_theorems",
]
