"""Continuous integration: what it sends (GitHub deliveries, each queueing at most one run)
and what it reads (a run's results as JUnit XML and SARIF, at each theorem's file and line).

- `deliveries`: GitHub deliveries, each handled once
- `junit`: JUnit XML for a run's results
- `sarif`: SARIF 2.1.0 for a run's findings
- `locations`: where each theorem stands in its repository
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.ci.deliveries import (
        GITHUB_TRIGGER,
        MAX_DELIVERY_LENGTH,
        NOTHING_CHANGED,
        DeliveryOutcome,
        handle_delivery,
    )
    from app.services.ci.junit import junit_xml, repro_command
    from app.services.ci.locations import SourceLine, repository_path, source_lines
    from app.services.ci.sarif import sarif_document, sarif_json
else:
    from theorem_index.lazy import lazy_exports

    __getattr__ = lazy_exports(
        __name__,
        {
            "deliveries": [
                "GITHUB_TRIGGER",
                "MAX_DELIVERY_LENGTH",
                "NOTHING_CHANGED",
                "DeliveryOutcome",
                "handle_delivery",
            ],
            "junit": ["junit_xml", "repro_command"],
            "locations": ["SourceLine", "repository_path", "source_lines"],
            "sarif": ["sarif_document", "sarif_json"],
        },
    )

__all__ = [
    "GITHUB_TRIGGER",
    "MAX_DELIVERY_LENGTH",
    "NOTHING_CHANGED",
    "DeliveryOutcome",
    "SourceLine",
    "handle_delivery",
    "junit_xml",
    "repository_path",
    "repro_command",
    "sarif_document",
    "sarif_json",
    "source_lines",
]
