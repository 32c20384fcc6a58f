"""The three hand-written checkers against their twins derived from the same statements.

Both checkers of a theorem draw the same dims and the same inputs (keys come from
the theorem name, the seed, the dims, the trial and the input's name, and both
name their inputs after the statement's binders), so each trial can be compared
side by side: same inputs, both sides agreeing within the float64 tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

from checkers import Environment, check, repro
from checkers.tolerance import tolerance_for
from theorem_index import read_paths

TWINS = {
    "Proofs.sum_fin_prod": {"m": 3, "n": 4},
    "Proofs.vit_rowDenseW_grad_bridge": {"N": 3, "a": 2, "c": 4},
    "Proofs.pdiv_rowLN_beta": {"N": 4, "D": 3},
}


@pytest.fixture(scope="module")
def env(seed_page) -> Environment:
    batch = read_paths([str(seed_page)])
    return Environment.from_declarations([d for doc in batch.documents for d in doc.declarations])


def _agree(a: list, b: list) -> bool:
    tol = tolerance_for("float64")
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.all(np.abs(x - y) <= tol.atol + tol.rtol * np.abs(y)))


@pytest.mark.parametrize("name", sorted(TWINS))
def test_resolve_registered_and_derived_twins(env, name):
    registered = env.resolve(name)
    derived = env.resolve(name, prefer="derived")
    assert getattr(registered, "kind", None) == "registered"
    assert getattr(derived, "kind", None) == "derived", getattr(derived, "reason", derived)
    assert set(derived.dim_names) == set(registered.dim_names)
    dims = TWINS[name]
    if getattr(derived, "labels", ()):  # generic: its twin at ℝ is the one at `M := ℝ`
        derived = derived.clauses[derived.labels.index("M := ℝ")]
    assert derived.input_specs(dims) == registered.input_specs(dims)


@pytest.mark.parametrize("name", sorted(TWINS))
@pytest.mark.parametrize("seed", [0, 7])
def test_twins_pass_same_draws(env, name, seed):
    mine = check(name, env, trials=64, seed=seed)
    twin = check(name, env, trials=64, seed=seed, prefer="derived")
    assert (mine.checker, twin.checker) == ("registered", "derived")
    assert mine.status == "pass", mine.reason
    assert twin.status == "pass", twin.reason
    assert mine.draws == twin.draws and len(mine.draws) == 4


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twins_agree_trial_by_trial(env, name):
    dims = TWINS[name]
    for trial in (0, 5, 63):
        mine = repro(name, env, seed=11, dims=dims, trial=trial)
        twin = repro(name, env, seed=11, dims=dims, trial=trial, prefer="derived")
        assert (mine.result.status, twin.result.status) == ("pass", "pass")
        assert (mine.result.checker, twin.result.checker) == ("registered", "derived")
        assert mine.inputs == twin.inputs and mine.inputs
        assert _agree(mine.lhs, twin.lhs), (trial, mine.lhs, twin.lhs)
        assert _agree(mine.rhs, twin.rhs), (trial, mine.rhs, twin.rhs)
        assert _agree(twin.lhs, twin.rhs)
