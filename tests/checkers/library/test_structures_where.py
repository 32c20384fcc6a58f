"""Structures defined in the corpus: a definition of a structure value by `where` fields
unfolds to that value, its fields are read by projection, and proof arguments (theorems,
`rfl`) carry no data."""

from __future__ import annotations

from derived_support import environment

from checkers import check
from theorem_index.readers.lean_source import read_lean_source

SOURCE = """
namespace Proofs

structure HasBack {m n : Nat} (f : Vec m → Vec n) where
  backward : Vec m → Vec n → Vec m
  correct : ∀ (x : Vec m) (dy : Vec n) (i : Fin m),
    backward x dy i = ∑ j : Fin n, pdiv f x i j * dy j

noncomputable def lin {m n : Nat} (W : Mat m n) (x : Vec m) : Vec n :=
  fun j => ∑ i, x i * W i j

theorem lin_diff {m n : Nat} (W : Mat m n) : Differentiable ℝ (lin W) := sorry

noncomputable def lin_back {m n : Nat} (W : Mat m n) : HasBack (lin W) where
  backward _x dy := fun i => ∑ j, W i j * dy j
  correct := by
    intro x dy i
    simp

noncomputable def comp_back {m n p : Nat} (f : Vec m → Vec n) (g : Vec n → Vec p)
    (hf_diff : Differentiable ℝ f) (hf : HasBack f) (hg : HasBack g) : HasBack (g ∘ f) where
  backward x dy := hf.backward x (hg.backward (f x) dy)
  correct _ _ _ := rfl

theorem lin_back_correct {m n : Nat} (W : Mat m n) (x : Vec m) (dy : Vec n) (i : Fin m) :
    (lin_back W).backward x dy i = ∑ j : Fin n, pdiv (lin W) x i j * dy j := sorry
theorem lin_back_wrong {m n : Nat} (W : Mat m n) (x : Vec m) (dy : Vec n) (i : Fin m) :
    (lin_back W).backward x dy i = ∑ j : Fin n, pdiv (lin W) x i j * dy j * 2 := sorry
theorem comp_back_correct {m n p : Nat} (A : Mat m n) (B : Mat n p) (x : Vec m) (dy : Vec p)
    (i : Fin m) :
    (comp_back (lin A) (lin B) (lin_diff A) (lin_back A) (lin_back B)).backward x dy i
      = ∑ k : Fin p, pdiv (lin B ∘ lin A) x i k * dy k := sorry
theorem comp_back_wrong {m n p : Nat} (A : Mat m n) (B : Mat n p) (x : Vec m) (dy : Vec p)
    (i : Fin m) :
    (comp_back (lin A) (lin B) (lin_diff A) (lin_back A) (lin_back B)).backward x dy i
      = ∑ k : Fin p, pdiv (lin B ∘ lin A) x i k * (dy k + 1) := sorry

end Proofs
"""


def _env():  # type: ignore[no-untyped-def]
    doc = read_lean_source("S.lean", SOURCE, "S.lean")
    assert not doc.errors, doc.errors
    return doc, environment(*doc.declarations)


def test_fields_are_read_as_projections_and_where_instances_as_equations() -> None:
    doc, _ = _env()
    decls = {d.name: d for d in doc.declarations}
    back = decls["Proofs.HasBack.backward"]
    assert back.binders == "{m n : Nat} {f : Vec m → Vec n} (self : HasBack f)"
    assert back.statement == "Vec m → Vec n → Vec m"
    assert decls["Proofs.HasBack.correct"].statement.startswith("∀ (x : Vec m)")
    # the tactic proof is left out; a field with arguments is a function
    assert decls["Proofs.lin_back"].equations == (
        "Proofs.lin_back W = { backward := (fun _x dy => (fun i => ∑ j, W i j * dy j)) }",
    )
    assert decls["Proofs.comp_back"].equations[0].endswith("correct := (fun _ _ _ => rfl) }")


def test_a_witness_unfolds_to_its_fields_and_a_wrong_backward_fails() -> None:
    _, env = _env()
    ok = check("Proofs.lin_back_correct", env, trials=16)
    assert ok.status == "pass", ok.reason
    assert check("Proofs.lin_back_wrong", env, trials=16).status == "fail"


def test_proof_arguments_carry_no_data() -> None:
    # `lin_diff A` (a theorem) is passed for `hf_diff : Differentiable ℝ f`
    _, env = _env()
    ok = check("Proofs.comp_back_correct", env, trials=16)
    assert ok.status == "pass", ok.reason
    assert check("Proofs.comp_back_wrong", env, trials=16).status == "fail"


def test_a_field_type_keeps_its_named_arguments_and_drops_a_default() -> None:
    source = """
namespace Proofs
structure Smooth (h : Nat) (v : Vec h) : Prop where
  pos : ∀ k, (scale (n := h)
               v) k ≠ 0
  size : Nat := 3
end Proofs
"""
    doc = read_lean_source("T.lean", source, "T.lean")
    assert not doc.errors, doc.errors
    decls = {d.name: d for d in doc.declarations}
    assert decls["Proofs.Smooth.pos"].statement == "∀ k, (scale (n := h) v) k ≠ 0"
    assert decls["Proofs.Smooth.size"].statement == "Nat"
