"""What CONTRACT.md fixes and more than one test folder checks."""

from __future__ import annotations

# every element of `check --json` (and every result record) carries at least these keys
CONTRACT_RESULT_KEYS = frozenset(
    {
        "name",
        "status",
        "checker",
        "reason",
        "trials",
        "seed",
        "dtype",
        "dims",
        "max_abs_err",
        "max_rel_err",
        "atol",
        "rtol",
        "duration_s",
        "device",
        "vacuous_trials",
    }
)
