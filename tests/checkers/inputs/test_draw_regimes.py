"""Inputs drawn where a false statement fails: trees of several depths, inputs a hypothesis
subtracts drawn close together, hypotheses met at their edge, and hypotheses on a
theorem's own binders sampled to hold. Self-contained statements of the shapes of the
upstream misses (tests/packs/lean4_mlir/test_upstream_draws.py has the upstream theorems)."""

from __future__ import annotations

import numpy as np
import pytest
from derived_support import environment

from checkers import Environment, check
from checkers.core import InputSpec
from checkers.harness.shrink import _simpler
from checkers.inputs import sampling
from checkers.inputs.regimes import Regimes
from theorem_index.readers.lean_source import read_lean_source

SOURCE = """
namespace Proofs

inductive SumTree where
  | leaf : ℝ → SumTree
  | node : SumTree → SumTree → SumTree

namespace SumTree
def eval : SumTree → ℝ
  | leaf x => x
  | node l r => l.eval + r.eval
def sumAbs : SumTree → ℝ
  | leaf x => |x|
  | node l r => l.sumAbs + r.sumAbs
def size : SumTree → ℕ
  | leaf _ => 1
  | node l r => l.size + r.size
end SumTree

theorem tree_abs (t : SumTree) : |t.eval| ≤ t.sumAbs := sorry
theorem tree_abs_swapped (t : SumTree) : t.sumAbs ≤ |t.eval| := sorry
theorem tree_one_le_size (t : SumTree) : 1 ≤ t.size := sorry
theorem tree_two_le_size (t : SumTree) : 2 ≤ t.size := sorry

theorem mul_close {xt x yt y ea ec A C : ℝ} (hx : |xt - x| ≤ ea) (hy : |yt - y| ≤ ec)
    (hA : |x| ≤ A) (hC : |y| ≤ C) : |xt * yt - x * y| ≤ A * ec + ea * C + ea * ec := sorry
theorem mul_close_plus {xt x yt y ea ec A C : ℝ} (hx : |xt - x| ≤ ea) (hy : |yt - y| ≤ ec)
    (hA : |x| ≤ A) (hC : |y| ≤ C) : |xt * yt + x * y| ≤ A * ec + ea * C + ea * ec := sorry

noncomputable def scale (d : ℕ) : ℝ := 1 / Real.sqrt (↑d)

theorem scaled_le {d : ℕ} {s : ℝ} (x : Vec d) (hs : |scale d| ≤ s) (i : Fin d) :
    |scale d * x i| ≤ s * |x i| := sorry
theorem scaled_le_swapped {d : ℕ} {s : ℝ} (x : Vec d) (hs : |scale d| ≤ s) (i : Fin d) :
    s * |x i| ≤ |scale d * x i| := sorry

noncomputable def softmax (c : Nat) (z : Vec c) : Vec c :=
  let e : Vec c := fun j => Real.exp (z j)
  let total := ∑ k : Fin c, e k
  fun j => e j / total
noncomputable def attnWeights (Q K : Fin 3 → Fin 2 → ℝ) (i : Fin 3) : Vec 3 :=
  softmax 3 (fun j => ∑ k, Q i k * K j k)

theorem attn_weight_sq_le_one (Q K : Fin 3 → Fin 2 → ℝ) (i : Fin 3) :
    ∑ j, attnWeights Q K i j ^ 2 ≤ 1 := sorry
theorem attn_weight_sq_le_unsaturated (Q K : Fin 3 → Fin 2 → ℝ) (i : Fin 3) :
    ∑ j, attnWeights Q K i j ^ 2 ≤ 99 / 100 := sorry

theorem quad_le (z : Fin 4 → ℝ) : (∑ k, z k) ^ 2 ≤ 3000 * ∑ k, z k ^ 2 := sorry
theorem lin_le (z : Fin 4 → ℝ) : (∑ k, z k) ^ 1 ≤ 3000 * ∑ k, z k ^ 2 := sorry
theorem pert_le (u e : Fin 3 → ℝ) :
    |∑ k, u k * e k| ≤ 100 * ∑ k, e k ^ 2 + ∑ k, u k ^ 2 / 100 := sorry
theorem pert_le_dropped (u e : Fin 3 → ℝ) : |∑ k, u k * e k| ≤ 100 * ∑ k, e k ^ 2 := sorry

end Proofs
"""


@pytest.fixture(scope="module")
def env() -> Environment:
    doc = read_lean_source("Regimes.lean", SOURCE, "Regimes.lean")
    assert not doc.errors, doc.errors
    return environment(*doc.declarations)


def test_check_tree_statement_at_several_depths(env: Environment) -> None:
    # equal at a leaf, strict at a node of leaves of both signs: only a tree sees the swap
    assert check("Proofs.tree_abs", env, trials=16).status == "pass"
    assert check("Proofs.tree_one_le_size", env, trials=16).status == "pass"
    swapped = check("Proofs.tree_abs_swapped", env, trials=16)
    assert swapped.status == "fail", swapped.reason
    assert "t_leaves=2" in (swapped.reason or "")  # shrunk to the fewest leaves that fail
    # ... and a leaf is still among the draws: false only there
    assert check("Proofs.tree_two_le_size", env, trials=16).status == "fail"


def test_fail_difference_statement_only_where_the_pair_is_close(
    env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert check("Proofs.mul_close", env, trials=16).status == "pass"
    assert check("Proofs.mul_close_plus", env, trials=16).status == "fail"
    # drawn as before (no near or tight trials), the false statement passes
    none = np.zeros(16, dtype=bool)
    monkeypatch.setattr(sampling, "regimes", lambda t, dtype: Regimes(*(none[: len(t)],) * 4))
    assert check("Proofs.mul_close_plus", env, trials=16).status == "pass"


def test_fail_statement_false_only_where_one_input_is_tiny(
    env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    # linear against quadratic (the upstream `hS24U` with `^ 2` made `^ 1`): false only where
    # z is tiny; a perturbation's bound without its `u` term: false only where e ≪ u
    assert check("Proofs.quad_le", env, trials=16).status == "pass"
    assert check("Proofs.pert_le", env, trials=16).status == "pass"
    for name in ("Proofs.lin_le", "Proofs.pert_le_dropped"):
        result = check(name, env, trials=16)
        assert result.status == "fail", (name, result.reason)
        assert "confirmed exactly" in (result.reason or "")
    # drawn without the lopsided trials, both false statements pass
    real = sampling.regimes

    def no_lopsided(t: np.ndarray, dtype: str) -> Regimes:
        r = real(t, dtype)
        return Regimes(r.near, r.tight, r.boundary, np.zeros_like(r.lopsided))

    monkeypatch.setattr(sampling, "regimes", no_lopsided)
    for name in ("Proofs.lin_le", "Proofs.pert_le_dropped"):
        assert check(name, env, trials=16).status == "pass", name


def test_fail_attention_bound_false_only_where_attention_saturates(
    env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the squared weights of a row sum past 0.99 only where one score leads the others by
    # ~5: the stressed scales (10, 1e3) saturate the attention, unit-scale draws do not
    assert check("Proofs.attn_weight_sq_le_one", env, trials=16).status == "pass"
    result = check("Proofs.attn_weight_sq_le_unsaturated", env, trials=16)
    assert result.status == "fail", result.reason
    assert "confirmed exactly" in (result.reason or "")
    monkeypatch.setattr(sampling, "STRESS_CYCLE", (1.0,) * len(sampling.STRESS_CYCLE))
    assert check("Proofs.attn_weight_sq_le_unsaturated", env, trials=16).status == "pass"


def test_sample_theorem_binder_bounded_by_a_definition_to_hold(env: Environment) -> None:
    result = check("Proofs.scaled_le", env, trials=16)
    assert result.status == "pass", result.reason
    assert result.vacuous_trials == 0
    assert check("Proofs.scaled_le_swapped", env, trials=16).status == "fail"


def test_shrink_tiny_counterexample_to_its_signs() -> None:
    """A counterexample drawn tiny (a lopsided trial) shrinks to ±1 entrywise where that
    still fails (the README's `Real.sqrt (x ^ 2) = x` at x ≈ -2.4e-4 is shown at x = -1):
    rounding sends it to 0, where such a statement holds."""
    spec = InputSpec.real((3,))
    options = dict(_simpler(spec, np.array([-2.4e-4, 3e-5, 0.0])))
    assert options["small integers"].tolist() == [0.0, 0.0, 0.0]
    assert options["signs"].tolist() == [-1.0, 1.0, 0.0]
    positive = InputSpec.real((), constraint="positive")
    assert dict(_simpler(positive, np.array(2.4e-4)))["signs"] == 1.0
