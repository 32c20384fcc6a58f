"""Coverage: which of the ingested theorems get a checker (per module, with the missing
vocabulary ranked), and which checker a theorem gets.

- `report`: the coverage report (`proofbridge coverage`, `GET /coverage`)
- `store`: reports kept on disk, keyed by the code and the declarations they describe
- `describer`: which checker a theorem gets, for a long-lived process (the web server)
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.coverage.describer import CheckerDescriber
    from app.services.coverage.report import CoverageReporter, coverage_report
    from app.services.coverage.store import CoverageStore, code_identity
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "describer": ["CheckerDescriber"],
            "report": ["CoverageReporter", "coverage_report"],
            "store": ["CoverageStore", "code_identity"],
        },
    )

__all__ = [
    "CheckerDescriber",
    "CoverageReporter",
    "CoverageStore",
    "code_identity",
    "coverage_report",
]
