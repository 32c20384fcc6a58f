"""The words of a derived check's reason: counts of dims draws agree in number ("at 1 dims
draw", "in 3 of 3 dims draws", "at each of 4 dims draws")."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check


@pytest.mark.parametrize(
    ("binders", "statement", "draws", "where"),
    [
        ("(x : ℝ)", "x * 1 = x + 1", 1, " at 1 dims draw ("),
        ("(n : ℕ) (x : Fin n → ℝ)", "∑ i, x i = ∑ i, x i + 1", 3, " in 3 of 3 dims draws ("),
    ],
)
def test_fail_reason_counts_dims_draws_in_number(
    binders: str, statement: str, draws: int, where: str
) -> None:
    env = environment(theorem("T.wrong", binders, statement))

    result = check("T.wrong", env, trials=8, draws=draws, shrink=False)

    assert result.status == "fail", result.reason
    assert result.reason.startswith(
        f"{8 * draws} of {8 * draws} trials outside atol=2.22507e-318, rtol=1e-10{where}"
    )


@pytest.mark.parametrize(
    ("draws", "where"), [(1, "at 1 dims draw"), (4, "at each of 4 dims draws")]
)
def test_pass_reason_counts_dims_draws_in_number(draws: int, where: str) -> None:
    env = environment(theorem("T.right", "(n : ℕ) (x : Fin n → ℝ)", "∑ i, x i = ∑ i, x i"))

    result = check("T.right", env, trials=8, draws=draws, shrink=False)

    assert result.status == "pass", result.reason
    assert result.reason.startswith(f"8 trials {where} agree within atol=")
