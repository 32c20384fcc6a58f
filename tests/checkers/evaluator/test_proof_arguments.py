"""Proof arguments carry no data: `Fin.cast h i` is i, Lean core lemmas passed as proofs
need no semantics, `_` in an argument is a proof hole."""

from __future__ import annotations

from derived_support import definition, environment, theorem

from checkers import check


def _check(statement: str, binders: str = "{a b : ℕ} (v : Vec (a * b)) (i : Fin (a * b))"):
    env = environment(theorem("Proofs.t", binders, statement))
    return check("Proofs.t", env, trials=16)


def test_fin_cast_is_the_same_index() -> None:
    ok = _check("v (Fin.cast (congrArg (· * 1) (Nat.mul_one (a * b))) i) = v i")
    assert ok.status == "pass", ok.reason
    assert _check("v (Fin.cast rfl i) = v i + 1").status == "fail"


def test_a_hole_for_a_proof_argument() -> None:
    take = definition(
        "Proofs.take",
        "{n : ℕ} (v : Vec n) (h : 0 < n)",
        "ℝ",
        "Proofs.take v h = v ⟨0, h⟩",
    )
    env = environment(take, theorem("Proofs.t", "{n : ℕ} [NeZero n] (v : Vec n)", "take v _ = v 0"))
    ok = check("Proofs.t", env, trials=16)
    assert ok.status == "pass", ok.reason
    env = environment(
        take, theorem("Proofs.t", "{n : ℕ} [NeZero n] (v : Vec n)", "take v _ = v 0 * 2")
    )
    assert check("Proofs.t", env, trials=16).status == "fail"
