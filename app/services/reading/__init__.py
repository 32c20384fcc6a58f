"""Reading: what the CLI and the HTTP API read beyond `app.crud`, and the I/O schemas they
answer with.

- `queries`: module docs by page, counts by status, a requested selection's problems
- `views`: rows to I/O schemas (`show --json`, `check --json`, the HTTP API)
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.reading.queries import (
        count_by_status,
        declaration_modules,
        list_module_docs_page,
        module_doc_counts,
        run_selection_problems,
        theorem_status_counts,
    )
    from app.services.reading.views import (
        checker_from_results,
        declaration_summary,
        ingest_report_out,
        module_doc_out,
        result_out,
        results_out,
        run_out,
        theorem_detail,
        theorem_summary,
    )
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "queries": [
                "count_by_status",
                "declaration_modules",
                "list_module_docs_page",
                "module_doc_counts",
                "run_selection_problems",
                "theorem_status_counts",
            ],
            "views": [
                "checker_from_results",
                "declaration_summary",
                "ingest_report_out",
                "module_doc_out",
                "result_out",
                "results_out",
                "run_out",
                "theorem_detail",
                "theorem_summary",
            ],
        },
    )

__all__ = [
    "checker_from_results",
    "count_by_status",
    "declaration_modules",
    "declaration_summary",
    "ingest_report_out",
    "list_module_docs_page",
    "module_doc_counts",
    "module_doc_out",
    "result_out",
    "results_out",
    "run_out",
    "run_selection_problems",
    "theorem_detail",
    "theorem_status_counts",
    "theorem_summary",
]
