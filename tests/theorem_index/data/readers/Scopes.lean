/-! # Scopes and variables

Mentions `Outer.Inner.uses_both` and `Outer.top`. -/

import Mathlib

open Real

namespace Outer

variable {N a c : ℕ} (X : Mat N a) [Fact (0 < N)]

/-- Uses `X`, hence `N` and `a`, and the instance on `N`;
`c` is not mentioned. -/
theorem top : X = X := rfl

namespace Inner

variable (W : Mat a c)

theorem uses_both (i : Fin a) (j : Fin c) :
    X 0 i * W i j =
      X 0 i * W i j := by
  rfl

/- a comment with theorem fake : 1 = 2 /- nested -/ still a comment -/
theorem own_binder (X : ℕ) : X = X := rfl

end Inner

section Hidden
open scoped BigOperators
variable {M : Type*} [AddCommMonoid M]

@[simp, norm_cast] protected lemma sum_zero (n : ℕ) : ∑ _i : Fin n, (0 : M) = 0 :=
  Finset.sum_const_zero

end Hidden

private noncomputable def halve (x : ℝ) : ℝ := x / 2
  where helper := 3

def fib : ℕ → ℕ
  | 0 => 0
  | 1 => 1
  | n + 2 => fib n + fib (n + 1)
termination_by n => n

def twice (n : ℕ) : ℕ := by exact n + n

open Finset in
theorem sum_range_id (n : ℕ) : ∑ i ∈ range n, i = n * (n - 1) / 2 := by
  sorry

instance : Inhabited (Mat N a) := ⟨fun _ _ => 0⟩

structure Pair (α : Type) where
  fst : α
  snd : α

inductive Color : Type
  | red
  | green

example : 1 + 1 = 2 := rfl

theorem _root_.rootLevel : True := trivial

def label : String := "theorem not_a_decl : False -- not a comment"

theorem char_paren : '(' = '(' := rfl

end Outer

theorem after_end : (2 : ℕ) - 3 = 0 := rfl
