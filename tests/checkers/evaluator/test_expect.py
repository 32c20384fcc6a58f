"""Mathlib's average over a finite set, `𝔼 i ∈ s, f i` (`Finset.expect`, Mathlib/Algebra/
BigOperators/Expect.lean): `(#s : ℚ≥0)⁻¹ • ∑ i ∈ s, f i`, 0 over an empty set. Its
values against a loop, its `[Module ℚ≥0 M]` met at ℝ alone, and wrong statements fail."""

from __future__ import annotations

import pytest
from derived_support import environment, nat, theorem, value

from checkers import check
from theorem_index.lean import parse_term, print_term

EXPECT = "{ι M : Type*} [AddCommMonoid M] [Module ℚ≥0 M] (s : Finset ι) (f g : ι → M)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("𝔼 i ∈ Finset.range n, (i : ℝ)", (0 + 1 + 2 + 3 + 4) / 5),
        ("𝔼 i ∈ Finset.Icc 2 n, (i : ℝ) ^ 2", (4 + 9 + 16 + 25) / 4),
        ("𝔼 i ∈ Finset.Icc n 2, (i : ℝ)", 0.0),  # empty: Lean's x / 0 = 0
    ],
)
def test_average_over_a_finset_matches_a_loop(text: str, expected: float) -> None:
    assert value(text, {"n": nat(5)}) == pytest.approx(expected, rel=1e-15)


def test_the_notation_prints_as_written() -> None:
    # the canonical text keeps `𝔼`; a name that starts with the letter stays a name
    assert print_term(parse_term("𝔼 i ∈ s, f i + 1")) == "𝔼 i ∈ s, f i + 1"
    assert print_term(parse_term("𝔼x + 1")) == "𝔼x + 1"


STATEMENTS = {
    "card_mul": (
        "{ι M : Type*} [Semiring M] [Module ℚ≥0 M] (s : Finset ι) (f : ι → M)",
        "#s * 𝔼 i ∈ s, f i = ∑ i ∈ s, f i",
    ),
    "add_distrib": (EXPECT, "𝔼 i ∈ s, (f i + g i) = 𝔼 i ∈ s, f i + 𝔼 i ∈ s, g i"),
    "univ": ("(n : ℕ) (f : Fin n → ℝ)", "𝔼 i, f i * (n : ℝ) = ∑ i, f i"),
    # mutants: the average taken as the sum; a constant's average without s nonempty
    "sum_wrong": (EXPECT, "𝔼 i ∈ s, f i = ∑ i ∈ s, f i"),
    "const_wrong": ("{ι : Type*} (s : Finset ι) (c : ℝ)", "𝔼 _i ∈ s, c = c"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", ["card_mul", "add_distrib", "univ"])
def test_true_average_statement_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", ["sum_wrong", "const_wrong"])
def test_wrong_average_statement_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason


def test_scalar_actions_hold_where_the_scalars_are_contained() -> None:
    from checkers.language.instances import holds

    assert holds("Module", ["ℚ≥0", "ℝ"]) and holds("SMul", ["ℤ", "ℝ"])
    assert not holds("Module", ["ℚ≥0", "ℤ"]) and not holds("Module", ["ℝ", "ℕ"])
