"""The hypotheses of a declaration, read from its binders' syntax."""

from __future__ import annotations

import pytest

from theorem_index.lean import hypotheses


@pytest.mark.parametrize(
    ("binders", "expected"),
    [
        ("(x : ℝ) (h : x ≤ 0)", ("x ≤ 0",)),
        ("{N a c : ℕ} (bb : Vec c) [inst : Fact (0 < n)] (h : 0 < ε)", ("0 < ε",)),
        ("(f : Fin n → ℝ) (hf : ∀ i, 0 ≤ f i)", ("∀ i, 0 ≤ f i",)),
        ("(h : x > 0 → y > 0) (g : ℝ → ℝ)", ("x > 0 → y > 0",)),
        ("(h₁ h₂ : a ∣ b) (hn : ¬(n = 0))", ("a ∣ b", "¬(n = 0)")),
        ("(x : ℝ) (hx :\n    x ∈ Set.Icc 0 1)", ("x ∈ Set.Icc 0 1",)),
        ("{s t : Set ℝ} (h : s ⊆ t ∧ t ⊆ s)", ("s ⊆ t ∧ t ⊆ s",)),
        ("(h : ∃ k, n = 2 * k) (t : True)", ("∃ k, n = 2 * k", "True")),
        ("(x : ℝ × ℝ) (f : ℕ → ℕ) (n : ℕ)", ()),
        ("(p : Prop) (hf : Continuous f)", ()),  # predicates alone are not told from types
        ("", ()),
        ("((x : ", ()),  # does not parse
    ],
)
def test_hypotheses_are_binders_whose_type_is_a_proposition(
    binders: str, expected: tuple[str, ...]
) -> None:
    assert hypotheses(binders) == expected
