"""Inductive types: constructors build terms, definitions by cases on them unfold, binders
of the type are drawn as its leaf constructor, and the result says so."""

from __future__ import annotations

from derived_support import environment

from checkers import check
from checkers.statements.checker import DerivedChecker
from checkers.statements.derive import derive
from theorem_index.readers.lean_source import read_lean_source

SOURCE = """
namespace Proofs

/-- A shape-indexed expression: `den` is its value. -/
inductive Ex : Nat → Type where
  | leaf {n : Nat} (name : String) (v : Vec n) : Ex n
  | add  {n : Nat}                              : Ex n → Ex n → Ex n
  | scale {n : Nat} (c : ℝ)                     : Ex n → Ex n
  | dot  {m n : Nat} (W : Mat m n)              : Ex m → Ex n

noncomputable def den : {n : Nat} → Ex n → Vec n
  | _, .leaf _ v    => v
  | _, .add a b     => fun j => den a j + den b j
  | _, .scale c e   => fun j => c * den e j
  | _, .dot W e     => fun j => ∑ i, den e i * W i j

/-- A backward chain rooted at its input: `id`'s two indices are one. -/
inductive Chain (inp : Nat) : Nat → Type where
  | id : Chain inp inp
  | lin {m n : Nat} (A : Mat m n) : Chain inp n → Chain inp m

noncomputable def Chain.run {inp out : Nat} (e : Chain inp out) (x : Vec inp) : Vec out :=
  match e with
  | .id => x
  | .lin A e' => fun i => ∑ j, A i j * e'.run x j

def Chain.subst {inp inp' out : Nat} (e : Chain inp out) (g : Chain inp' inp) : Chain inp' out :=
  match e with
  | .id => g
  | .lin A e' => .lin A (e'.subst g)

theorem den_add {n : Nat} (a b : Ex n) : den (.add a b) = fun j => den a j + den b j := rfl
theorem den_add_wrong {n : Nat} (a b : Ex n) : den (.add a b) = fun j => den a j - den b j := sorry
theorem den_nested {m n : Nat} (W : Mat m n) (c : ℝ) (v : Vec m) :
    den (.scale c (.dot W (.leaf "x" v))) = fun j => c * ∑ i, v i * W i j := rfl
theorem den_nested_wrong {m n : Nat} (W : Mat m n) (c : ℝ) (v : Vec m) :
    den (.scale c (.dot W (.leaf "x" v))) = fun j => c * ∑ i, v i * W i j + c := sorry
theorem den_named (xN : String) {n : Nat} (v : Vec n) : den (Ex.leaf xN v) = v := rfl
theorem run_lin {k m n : Nat} (A : Mat m n) (B : Mat n k) (x : Vec k) :
    (Chain.lin A (.lin B .id)).run x = fun i => ∑ j, A i j * ∑ l, B j l * x l := rfl
theorem run_lin_wrong {k m n : Nat} (A : Mat m n) (B : Mat n k) (x : Vec k) :
    (Chain.lin A (.lin B .id)).run x = fun i => ∑ j, A i j * ∑ l, B j l * x l * 2 := sorry
theorem run_subst {k m n : Nat} (A : Mat m n) (B : Mat n k) (x : Vec k) :
    ((Chain.lin A .id).subst (.lin B .id)).run x
      = (Chain.lin A .id).run ((Chain.lin B .id).run x) := sorry
theorem run_any {m n : Nat} (A : Mat m n) (e : Chain m n) (x : Vec m) :
    (Chain.lin A e).run x = fun i => ∑ j, A i j * e.run x j := rfl

end Proofs
"""


def _env():  # type: ignore[no-untyped-def]
    doc = read_lean_source("Ex.lean", SOURCE, "Ex.lean")
    assert not doc.errors, doc.errors
    return environment(*doc.declarations)


def test_constructors_are_read_as_declarations_with_the_parameters_implicit() -> None:
    doc = read_lean_source("Ex.lean", SOURCE, "Ex.lean")
    ctors = {d.name: d for d in doc.declarations if d.kind == "ctor"}
    assert list(ctors)[:4] == [f"Proofs.Ex.{c}" for c in ("leaf", "add", "scale", "dot")]
    assert ctors["Proofs.Ex.dot"].binders == "{m n : Nat} (W : Mat m n)"
    assert ctors["Proofs.Ex.dot"].statement == "Ex m → Ex n"
    assert ctors["Proofs.Chain.id"].binders == "{inp : Nat}"
    assert ctors["Proofs.Chain.id"].statement == "Chain inp inp"
    assert ctors["Proofs.Chain.lin"].binders == "{inp : Nat} {m n : Nat} (A : Mat m n)"


def test_a_definition_by_cases_on_constructors_unfolds_and_catches_a_wrong_case() -> None:
    env = _env()
    assert check("Proofs.den_add", env, trials=16).status == "pass"
    assert check("Proofs.den_add_wrong", env, trials=16).status == "fail"
    nested = check("Proofs.den_nested", env, trials=16)
    assert nested.status == "pass", nested.reason
    assert check("Proofs.den_nested_wrong", env, trials=16).status == "fail"


def test_a_binder_of_the_type_is_drawn_as_trees_of_its_node_and_the_result_says_so() -> None:
    # `add : Ex n → Ex n → Ex n` is a node: a binder is a tree of `add` over `leaf`, its
    # leaves' data stacked over a dimension of its own
    env = _env()
    checker = derive("Proofs.den_add", env)
    assert isinstance(checker, DerivedChecker)
    specs = checker.input_specs({"n": 3, "a_leaves": 2, "b_leaves": 4})
    assert {k: s.shape for k, s in specs.items()} == {"a": (2, 3), "b": (4, 3)}
    notes = [a for a in checker.assumptions if "drawn as trees of `Ex.add` over `Ex.leaf`" in a]
    assert len(notes) == 2 and notes[0].startswith("a : Ex n")


def test_a_string_binder_is_fixed_and_said() -> None:
    env = _env()
    result = check("Proofs.den_named", env, trials=8)
    assert result.status == "pass", result.reason
    checker = derive("Proofs.den_named", env)
    assert isinstance(checker, DerivedChecker)
    assert any(a.startswith('xN : String fixed to "xN"') for a in checker.assumptions)


def test_indices_known_equal_settle_each_other() -> None:
    # `.id : Chain inp inp` settles nothing alone; `lin B .id` fixes inp = k from B
    env = _env()
    result = check("Proofs.run_lin", env, trials=16)
    assert result.status == "pass", result.reason
    assert check("Proofs.run_lin_wrong", env, trials=16).status == "fail"
    sub = check("Proofs.run_subst", env, trials=16)
    assert sub.status == "pass", sub.reason


def test_a_type_without_a_leaf_is_not_sampled() -> None:
    # `Chain.id` holds no data and fixes its two indices equal: no draw covers `Chain m n`
    env = _env()
    result = check("Proofs.run_any", env, trials=8)
    assert result.status == "unsupported"
    assert "e : Chain m n" in (result.reason or "")


FUNCTIONS = """
namespace Proofs

noncomputable def mapAll {a b : Nat} (f : Vec a → Vec b) (x : Vec a) : Vec b := f x

noncomputable def lin {m n : Nat} (W : Mat m n) (v : Vec m) : Vec n := fun j => ∑ i, v i * W i j

theorem mapAll_scale {n : Nat} (x : Vec n) : mapAll (fun v i => 2 * v i) x = fun i => 2 * x i :=
  rfl
theorem mapAll_scale_wrong {n : Nat} (x : Vec n) :
    mapAll (fun v i => 2 * v i) x = fun i => 3 * x i := sorry
theorem mapAll_partial {m n : Nat} (W : Mat m n) (x : Vec m) :
    mapAll (lin W) x = fun j => ∑ i, x i * W i j := rfl
theorem mapAll_partial_wrong {m n : Nat} (W : Mat m n) (x : Vec m) :
    mapAll (lin W) x = fun j => ∑ i, x i * W i j * W i j := sorry

end Proofs
"""


def test_a_function_arguments_codomain_is_read_off_its_value() -> None:
    # `b` of `f : Vec a → Vec b` is settled by f's value at a vector of size a
    doc = read_lean_source("F.lean", FUNCTIONS, "F.lean")
    env = environment(*doc.declarations)
    assert check("Proofs.mapAll_scale", env, trials=16).status == "pass"
    assert check("Proofs.mapAll_scale_wrong", env, trials=16).status == "fail"
    result = check("Proofs.mapAll_partial", env, trials=16)
    assert result.status == "pass", result.reason
    assert check("Proofs.mapAll_partial_wrong", env, trials=16).status == "fail"
