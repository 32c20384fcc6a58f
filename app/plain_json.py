"""JSON values any reader takes: a non-finite float (an error of inf, a NaN in a
counterexample) as the string "NaN", "Infinity" or "-Infinity", so that the JSON a command
or a report writes is strict (no `NaN` literal)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["jsonable"]


def jsonable(value: Any) -> Any:
    """Plain JSON values: non-finite floats become "NaN" / "Infinity" / "-Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value
