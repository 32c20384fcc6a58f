"""Bounds planned as a whole when the greedy plan (bounds.py `plan_all`) would let an
input's lower bound cross its upper one.

`l ≤ z → z ≤ u → u ≤ 0` planned greedily bounds z by l below and u above, and half
the trials (those with l > u) are vacuous; planned as a whole it is the chain
`l ≤ z ≤ u ≤ 0` (l bounded above by z, z above by u, u above by 0), where every
trial meets every hypothesis. `search` tries every way of meeting every part of
every hypothesis (up to `_SEARCH` assignments) and takes the first in which no
bound may cross another and no input reads itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from checkers.premises.bound_plans import BoundPlan, crosses, reaches

__all__ = ["search"]

_SEARCH = 4096  # assignments tried at most


def search(
    found: Sequence[tuple[str, list[list[list[BoundPlan]]]]], existing: Sequence[BoundPlan]
) -> dict[str, list[BoundPlan]] | None:
    """The assignment of a way to every part of every hypothesis with the fewest bounds
    that may cross and no input reading itself; None when there are too many to try or
    none is better than crossing."""
    slots = [(hyp, options) for hyp, ways in found for options in ways]
    total = 1
    for _, options in slots:
        total *= len(options)
    if total > _SEARCH:
        return None
    best: tuple[int, dict[str, list[BoundPlan]]] | None = None
    for pick in itertools.product(*(options for _, options in slots)):
        plans = [p for option in pick for p in option]
        deps: dict[str, set[str]] = {}
        for b in [*existing, *plans]:
            deps.setdefault(b.target, set()).update(b.names)
        if any(reaches(p.names, p.target, deps) for p in plans):
            continue
        score = crosses(pick, existing)
        if best is None or score < best[0]:
            out: dict[str, list[BoundPlan]] = {}
            for (hyp, _), option in zip(slots, pick, strict=True):
                out.setdefault(hyp, []).extend(option)
            best = (score, out)
            if score == 0:
                break
    return best[1] if best is not None and best[0] == 0 else None
