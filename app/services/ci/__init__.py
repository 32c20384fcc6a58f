"""Continuous integration: what it sends (GitHub deliveries, each queueing at most one run)
and what it reads (a run's results as JUnit XML).

- `deliveries`: GitHub deliveries, each handled once
- `junit`: JUnit XML for a run's results
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
else:
    from app.services.lazy import lazy_exports

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
        },
    )

__all__ = [
    "GITHUB_TRIGGER",
    "MAX_DELIVERY_LENGTH",
    "NOTHING_CHANGED",
    "DeliveryOutcome",
    "handle_delivery",
    "junit_xml",
    "repro_command",
]
