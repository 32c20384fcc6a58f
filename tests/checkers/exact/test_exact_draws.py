"""Sides that are exact constants are decided exactly, at every dims draw; the check as a
whole is compared at tolerance 0 only where it has a single draw, so that a draw whose
sides happen to be constants (an empty list) never makes the others exact too."""

from __future__ import annotations

import numpy as np
import pytest
from derived_support import environment, theorem

from checkers import check
from checkers.exact.sides import exact_sides
from checkers.language.values import Arr


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_draw_with_constant_sides_leaves_the_others_their_tolerance(seed: int) -> None:
    # at a length 0 both sides are the constant 0, decided exactly; at the other lengths
    # the sides are sums computed in floats, compared within the float64 tolerance
    env = environment(
        theorem(
            "Proofs.t",
            "(xs ys : List ℤ)",
            "(List.zipWith (· * ·) xs ys).sum = (List.zipWith (· * ·) ys xs).sum",
        )
    )
    result = check("Proofs.t", env, trials=32, seed=seed)
    assert result.status == "pass", result.reason
    assert any(0 in d.values() for d in result.draws)
    assert result.rtol and result.rtol > 0


def test_a_statement_with_one_draw_is_compared_exactly() -> None:
    env = environment(theorem("Proofs.t", "", "(1000000000000 : ℤ) + 1 = 1000000000000"))
    result = check("Proofs.t", env, trials=4, seed=0)
    assert result.status == "fail"
    assert result.atol == 0 and result.rtol == 0


def _const(v: int) -> Arr:
    return Arr(v, "int")


@pytest.mark.parametrize(
    "op, a, b, holds",
    [
        ("=", 10**12 + 1, 10**12, False),
        ("=", 10**12, 10**12, True),
        ("<", 10**12, 10**12, False),
        ("<", 10**12, 10**12 + 1, True),
        (">", 10**12, 10**12, False),
        ("≤", 10**12 + 1, 10**12, False),
        ("≥", 10**12, 10**12 + 1, False),
    ],
)
def test_tolerant_exact_sides_are_decided_within_any_tolerance(
    op: str, a: int, b: int, holds: bool
) -> None:
    got = exact_sides(op, _const(a), _const(b), np.float64, tolerant=True)
    assert got is not None
    x, y = (float(np.asarray(s.data)) for s in got)
    assert {x, y} <= {0.0, 1.0}
    # a tolerance of 0.5 absolute and 0.4 relative at these magnitudes decides them so
    close = abs(x - y) <= 0.5 + 0.4 * max(abs(x), abs(y))
    decided = {
        "=": close,
        "<": x < y and not close,
        ">": x > y and not close,
        "≤": x <= y or close,
        "≥": x >= y or close,
    }[op]
    assert decided == holds
