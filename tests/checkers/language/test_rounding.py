"""`⌊x⌋`, `⌈x⌉` (`Int.floor`, `Int.ceil`) and `⌊x⌋₊`, `⌈x⌉₊` (`Nat.floor`, `Nat.ceil`)."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem, value

from checkers import check


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(⌈(7 : ℝ) / 2⌉ : ℤ)", 4),
        ("(⌊(7 : ℝ) / 2⌋ : ℤ)", 3),
        ("(⌈(-7 : ℝ) / 2⌉ : ℤ)", -3),
        ("(⌊(-7 : ℝ) / 2⌋ : ℤ)", -4),
        ("(⌈(3 : ℝ)⌉ : ℤ)", 3),
        ("⌈(-7 : ℝ) / 2⌉₊", 0),  # Mathlib: 0 below 0
        ("⌊(7 : ℝ) / 2⌋₊", 3),
    ],
)
def test_rounding_of_exact_constants(text: str, expected: int) -> None:
    assert int(value(text)) == expected


def _status(statement: str) -> str:
    env = environment(theorem("Proofs.t", "(q : ℚ)", statement))
    return check("Proofs.t", env, trials=64).status


def test_rounding_of_sampled_values() -> None:
    # `ratCeil9 q = ⌈q * 10^9⌉ / 10^9` of the upstream certificates, at 10^3
    assert _status("q ≤ ((⌈q * 1000⌉ : ℤ) : ℚ) / 1000") == "pass"
    assert _status("((⌊q * 1000⌋ : ℤ) : ℚ) / 1000 ≤ q") == "pass"
    # rounding the wrong way is refuted
    assert _status("q ≤ ((⌊q * 1000⌋ : ℤ) : ℚ) / 1000") == "fail"
    assert _status("(⌈q⌉ : ℚ) < q + 1 ∧ q ≤ ⌈q⌉") == "pass"
