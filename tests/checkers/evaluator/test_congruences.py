"""Congruences `a ≡ b [ZMOD n]` and `[MOD n]` (Mathlib's `Int.ModEq n a b := a % n = b % n`,
Nat's likewise), divisibility `a ∣ b`, and finset membership stated as a clause: parsed,
printed as written, read with Lean's `%` (`b % 0 = b`), unfolded wherever they stand,
and every wrong statement fails confirmed."""

from __future__ import annotations

import pytest
from derived_support import environment, theorem

from checkers import check
from theorem_index.lean import parse_term, print_term, resolve
from theorem_index.lean.syntax import App, Const, Var


@pytest.mark.parametrize(
    "text",
    [
        "a ≡ b [ZMOD n]",
        "(l.map f).prod ≡ (l.map g).prod [ZMOD n]",
        "a + c ≡ b + d [MOD n] ∧ p",
        "r ≡ s [PMOD 2 * π]",
    ],
)
def test_congruence_prints_as_written(text: str) -> None:
    assert print_term(parse_term(text)) == text


def test_congruence_resolves_to_mathlibs_relation() -> None:
    got = resolve(parse_term("a ≡ b [ZMOD n]"), bound={"a", "b", "n"}).term
    assert got == App(Const("Int.ModEq"), (Var("n"), Var("a"), Var("b")))
    nat = resolve(parse_term("a ≡ b [MOD n]"), bound={"a", "b", "n"})
    assert nat.constants == ("Nat.ModEq",)


STATEMENTS = {
    "add": (
        "{n a b c d : ℤ} (h₁ : a ≡ b [ZMOD n]) (h₂ : c ≡ d [ZMOD n])",
        "a + c ≡ b + d [ZMOD n]",
    ),
    "emod": ("(n a : ℤ)", "a % n ≡ a [ZMOD n]"),
    "nat_mul_left": ("(n a b c : ℕ) (h : a ≡ b [MOD n])", "c * a ≡ c * b [MOD n]"),
    "iff_dvd": ("(n a b : ℤ)", "a ≡ b [ZMOD n] ↔ n ∣ b - a"),
    "list_sum": ("{n : ℤ} {l : List ℤ} (h : ∀ x ∈ l, x ≡ 0 [ZMOD n])", "l.sum ≡ 0 [ZMOD n]"),
    "dvd_add": ("(a b c : ℤ) (h₁ : a ∣ b) (h₂ : a ∣ c)", "a ∣ b + c"),
    "dvd_mul": ("(a b : ℕ)", "a ∣ a * b"),
    "zero_dvd": ("(b : ℤ)", "0 ∣ b ↔ b = 0"),
    "dvd_field": ("(a b : ℝ) (h : a ≠ 0)", "a ∣ b"),
    "mem_range": ("(n i : ℕ) (h : i < n)", "i ∈ Finset.range n"),
    # mutants: any two integers congruent, a shifted residue, a sum divisible by a
    # summand, an element past the range, the field's divisibility without a ≠ 0
    "any_wrong": ("(n a b : ℤ)", "a ≡ b [ZMOD n]"),
    "shift_wrong": ("(n a : ℤ)", "a ≡ a + 1 [ZMOD n]"),
    "dvd_add_wrong": ("(a b : ℕ)", "a ∣ a + b"),
    "mem_range_wrong": ("(n i : ℕ) (h : i ≤ n)", "i ∈ Finset.range n"),
    "dvd_field_wrong": ("(a b : ℝ)", "a ∣ b"),
}


@pytest.fixture(scope="module")
def env():
    return environment(*(theorem(f"Proofs.{n}", b, s) for n, (b, s) in STATEMENTS.items()))


@pytest.mark.parametrize("name", [n for n in STATEMENTS if not n.endswith("_wrong")])
def test_true_congruence_or_divisibility_passes(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "pass", result.reason


@pytest.mark.parametrize("name", [n for n in STATEMENTS if n.endswith("_wrong")])
def test_wrong_congruence_or_divisibility_fails_confirmed(env, name: str) -> None:
    result = check(f"Proofs.{name}", env, trials=64)
    assert result.status == "fail", result.reason
    assert "confirmed" in result.reason, result.reason


def test_a_congruence_is_mathlibs_definition_and_says_nothing_is_left_out(env) -> None:
    result = check("Proofs.emod", env, trials=16)
    assert not any("ModEq" in a for a in result.assumptions), result.assumptions
