"""Section `variable`s join the declarations that refer to them, as in Lean 4."""

from __future__ import annotations

from theorem_index.model import Declaration
from theorem_index.readers import read_bytes


def _decls(text: str) -> dict[str, Declaration]:
    doc = read_bytes("Src/Mod.lean", text.encode())
    assert doc.errors == []
    return {d.name: d for d in doc.declarations}


LINEAR = """
namespace P
variable {m n : Nat} (W : Mat m n) (b : Vec n) (x : Vec m)

theorem uses_all : den (fwd W b x) = lin W b x := rfl
theorem uses_b (i : Fin n) : b i = b i := rfl
theorem uses_none : (1 : Nat) = 1 := rfl
def graph : G n := .add b (.dot W (.arg x))
def back (dy : Vec n) : G m := .dotOut W (.arg dy)
end P
"""


def test_read_variables_used_in_statement_join_in_declaration_order() -> None:
    decls = _decls(LINEAR)
    assert decls["P.uses_all"].binders == "{m n : Nat} (W : Mat m n) (b : Vec n) (x : Vec m)"
    assert decls["P.uses_b"].binders == "{n : Nat} (b : Vec n) (i : Fin n)"


def test_read_unused_variables_do_not_join() -> None:
    assert _decls(LINEAR)["P.uses_none"].binders == ""


def test_read_definition_takes_the_variables_its_body_uses_as_arguments() -> None:
    decls = _decls(LINEAR)
    graph = decls["P.graph"]
    assert graph.binders == "{m n : Nat} (W : Mat m n) (b : Vec n) (x : Vec m)"
    assert graph.equations == ("P.graph W b x = .add b (.dot W (.arg x))",)
    back = decls["P.back"]
    assert back.binders == "{m n : Nat} (W : Mat m n) (dy : Vec n)"
    assert back.equations == ("P.back W dy = .dotOut W (.arg dy)",)


def test_read_theorem_proof_does_not_bring_variables() -> None:
    decls = _decls("variable (x : Nat)\ntheorem t : (1 : Nat) = 1 := by simp [x]\n")
    assert decls["t"].binders == ""


def test_read_bound_names_and_named_arguments_are_not_references() -> None:
    text = """
variable {n : Nat} (x : Vec n)
theorem sum_bound (N : Nat) (v : Vec N) : ∑ n : Fin N, v n = ∑ i : Fin N, v i := rfl
theorem named (N : Nat) : f (n := N) = f (n := N) := rfl
theorem lam : (fun x : Nat => x) = id := rfl
def local_let (y : Nat) : Nat := let x := y; x + 1
"""
    decls = _decls(text)
    assert decls["sum_bound"].binders == "(N : Nat) (v : Vec N)"
    assert decls["named"].binders == "(N : Nat)"
    assert decls["lam"].binders == ""
    assert decls["local_let"].binders == "(y : Nat)"
    assert decls["local_let"].equations == ("local_let y = (let x := y; x + 1)",)


def test_read_own_binder_shadows_a_variable() -> None:
    decls = _decls("variable (x : Vec 3)\ntheorem t (x : Nat) : x = x := rfl\n")
    assert decls["t"].binders == "(x : Nat)"


def test_read_nested_sections_inherit_and_end_drops_variables() -> None:
    text = """
section A
variable {n : Nat}
section B
variable (v : Vec n)
theorem inner : v = v := rfl
end B
theorem outer (w : Vec n) : w = w := rfl
theorem no_v : v = v := rfl
end A
theorem after (v : Nat) : v = v := rfl
"""
    decls = _decls(text)
    assert decls["inner"].binders == "{n : Nat} (v : Vec n)"
    assert decls["outer"].binders == "{n : Nat} (w : Vec n)"
    # `v` was declared in the section that ended: it is an unknown name here
    assert decls["no_v"].binders == ""
    assert decls["after"].binders == "(v : Nat)"


def test_read_variable_update_changes_binder_kind_until_its_scope_ends() -> None:
    text = """
variable (n : Nat) (v : Vec n)
section
variable {n}
theorem implicit_n : v = v := rfl
end
theorem explicit_n : v = v := rfl
"""
    decls = _decls(text)
    assert decls["implicit_n"].binders == "{n : Nat} (v : Vec n)"
    assert decls["explicit_n"].binders == "(n : Nat) (v : Vec n)"


def test_read_instance_binder_joins_when_its_variables_do() -> None:
    text = """
variable {n : Nat} [NeZero n] {E : Type} [MeasurableSpace E]
theorem on_n (i : Fin n) : i = i := rfl
theorem on_E (e : E) : e = e := rfl
theorem on_neither : (1 : Nat) = 1 := rfl
"""
    decls = _decls(text)
    assert decls["on_n"].binders == "{n : Nat} [NeZero n] (i : Fin n)"
    assert decls["on_E"].binders == "{E : Type} [MeasurableSpace E] (e : E)"
    assert decls["on_neither"].binders == ""


def test_read_omit_in_leaves_an_instance_binder_out_of_one_declaration() -> None:
    text = """
variable {E : Type} [MeasurableSpace E]
omit [MeasurableSpace E] in
theorem without (e : E) : e = e := rfl
theorem with_it (e : E) : e = e := rfl
"""
    decls = _decls(text)
    assert decls["without"].binders == "{E : Type} (e : E)"
    assert decls["with_it"].binders == "{E : Type} [MeasurableSpace E] (e : E)"


def test_read_include_adds_a_variable_the_statement_does_not_mention() -> None:
    text = """
variable (M : Model) (k : Nat)
section
include M
theorem needs_model : (1 : Nat) = 1 := rfl
end
theorem plain : (1 : Nat) = 1 := rfl
variable (h : k = 1) in
theorem with_h : True := trivial
theorem after_in : True := trivial
"""
    decls = _decls(text)
    assert decls["needs_model"].binders == "(M : Model)"
    assert decls["plain"].binders == ""
    # `variable … in` declares for the next command only; it is not mentioned there
    assert decls["with_h"].binders == ""
    assert decls["after_in"].binders == ""


def test_read_variable_in_applies_to_the_next_declaration_only() -> None:
    text = "variable (x : Nat) in\ntheorem a : x = x := rfl\ntheorem b : x = x := rfl\n"
    decls = _decls(text)
    assert decls["a"].binders == "(x : Nat)"
    assert decls["b"].binders == ""


def test_read_variable_types_bring_the_variables_they_mention() -> None:
    text = "variable {a b : Nat} (h : a ≤ b)\ntheorem t : h = h := rfl\n"
    assert _decls(text)["t"].binders == "{a b : Nat} (h : a ≤ b)"


def test_read_constructor_binders_are_not_section_variables() -> None:
    text = """
variable (b : Vec 3)
inductive Raw where
  | add (b : String) : Raw
"""
    assert _decls(text)["Raw"].binders == ""
