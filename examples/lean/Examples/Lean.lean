import Mathlib
import LeanMlir.Proofs.Foundation.Tensor

/-!
# Examples in Lean source

ProofBridge's example module in the fourth form: what an author types.
`Examples.sum_fin_prod` restates the flat-index sum at `ℝ`,
`Examples.rowDense_weight_grad_zero_cot` says a zero cotangent gives a
zero weight gradient (a statement about `Proofs.rowDense_weight_grad`),
and `natPred` is written by pattern matching so that its equations
come from the alternatives.

## Lean's total arithmetic

`Examples.natPred_eq_sub` only holds because natural subtraction
truncates at zero; `Examples.div_zero_real` and
`Examples.sqrt_sq_abs` pin down division by zero and `Real.sqrt`;
`Examples.sqrt_sq_draft` is its false first draft, left unproved.
-/

open BigOperators Finset

namespace Examples

variable {m n : ℕ}

/-- The flat-index sum at `ℝ`: a sum over `Fin (m * n)` is the double sum
over rows and columns, through `finProdFinEquiv`. -/
theorem sum_fin_prod (f : Fin (m * n) → ℝ) :
    ∑ idx : Fin (m * n), f idx =
      ∑ r : Fin m, ∑ k : Fin n, f (finProdFinEquiv (r, k)) := by
  -- reindex, then split the product sum /- a nested comment -/ in two
  rw [← Fintype.sum_prod_type', ← finProdFinEquiv.sum_comp]

/-- A zero output cotangent gives a zero weight gradient. -/
@[simp]
theorem rowDense_weight_grad_zero_cot {N a c : ℕ} (X : Mat N a) (i : Fin a) (j : Fin c) :
    Proofs.rowDense_weight_grad X (fun _ _ => 0) i j = 0 := by
  simp [Proofs.rowDense_weight_grad]

/-- Predecessor on `ℕ`, by cases. -/
def natPred : ℕ → ℕ
  | 0 => 0
  | k + 1 => k

/-- Natural subtraction truncates: `natPred` is `n - 1`, also at `0`. -/
theorem natPred_eq_sub (k : ℕ) : natPred k = k - 1 := by
  cases k <;> rfl

/-- The squared norm of a vector, as a sum of squares. -/
noncomputable def sumSq (x : Fin n → ℝ) : ℝ :=
  ∑ i : Fin n, x i * x i

theorem sumSq_nonneg (x : Fin n → ℝ) : 0 ≤ sumSq x := by
  unfold sumSq
  exact Finset.sum_nonneg fun i _ => mul_self_nonneg (x i)

/-- A label; comment markers inside a string literal are text. -/
def divLabel : String := "x / 0 -- is 0 in Lean, /- not NaN"

/-- Division by zero is zero in Lean. -/
theorem div_zero_real (x : ℝ) : x / 0 = 0 :=
  div_zero x

/-- `Real.sqrt` of a square is the absolute value. -/
theorem sqrt_sq_abs (x : ℝ) :
    Real.sqrt (x ^ 2) = |x| :=
  Real.sqrt_sq_eq_abs x

/-- A first draft of `sqrt_sq_abs`, stated before it is proved: it forgets the absolute
value. It is false (take `x = -1`), and `proofbridge check` says so with a
counterexample before anyone spends time on the proof. -/
theorem sqrt_sq_draft (x : ℝ) :
    Real.sqrt (x ^ 2) = x := by
  sorry

section Softmax

variable (c : ℕ)

/-- Softmax probabilities are positive. -/
theorem softmax_pos (z : Fin (c + 1) → ℝ) (j : Fin (c + 1)) :
    0 < softmax (c + 1) z j := by
  unfold softmax
  positivity

end Softmax

example : natPred 3 = 2 := rfl

end Examples
