/-! Definitions whose bodies depend on layout, precedence and alternatives. -/

namespace Eqs

structure Ref where
  name : String
  fast : Bool
  ms : Nat

def params (dim blocks : ℕ) : ℕ :=
  let perBlock := 2 * dim +
      3 * dim
  let extra := dim
  blocks * perBlock + extra

def ref : Ref :=
  { name := "IREE", fast := false
    ms := 12 }

def isAlign (ctl : String) : Bool := ctl == "align"

def wide (xs : List ℕ) : Prop := xs.length ≥ 2

def scaled (x : ℕ) : ℕ := Nat.mul x 2

def pick (b : Bool) (x : ℕ) : ℕ := if b then x else 0

def count (n : ℕ) : ℕ := Id.run do
  let mut s := 0
  for i in [0:n] do
    s := s + i
  return s

def idx : Ref → ℕ
  | ⟨_, true, _⟩ => 0 | ⟨_, false, ms⟩ => ms

def isEdge : ℕ → Bool
  | 0 | 1 => true
  | _ => false

def addPred (k : ℕ) : ℕ → ℕ → ℕ
  | 0, m => k + m
  | n+1, m => match m with
    | 0 => n | _ => k
  | _, _ => k

def short : ℕ → ℕ | 0 => 1 | n + 1 => n

def banner : String := "one \
    two"

def withHelper (x : ℕ) : ℕ := helper x + 1
  where helper (y : ℕ) : ℕ := y

end Eqs
