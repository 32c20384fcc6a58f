"""Planted mutants of upstream theorems that the inputs once never reached (issue 30).

Each mutant is one of `checkers.analysis.mutation.mutants` of a theorem that passes, checked as
`bench/mutation_score.py` checks it (16 trials, seed 0, the default dims draws): it must
fail. Before, each passed because of how inputs were drawn: a `SumTree` drawn only as a
leaf, `xt` never near `x`, a hypothesis `|sdpa_scale d| ≤ scaleA` met in under a third of
the trials. The theorems are read from the upstream tree in place (the `upstream_tree`
fixture skips when it is absent), with only the files that declare what they use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from checkers import Environment, check
from checkers.analysis.mutation import mutants, mutated, overlay
from checkers.core import Unsupported
from checkers.harness.check import run_checker
from checkers.statements.derive import derive
from theorem_index.readers import read_paths

FLOAT = ("Float/FloatBridge.lean",)
TREE = ("Codegen/TreeReduceBridge.lean", *FLOAT)
SDPA = (
    "Architectures/Attention.lean",
    "Float/SoftmaxBackFloatBridge.lean",
    "Float/ViTAttentionFloatBridge.lean",
    "Float/SdpaBackFloatBridge.lean",
    *FLOAT,
)

# (files, theorem, operator, the edited site as `mutants` prints it)
KILLED = [
    pytest.param(
        TREE,
        "Proofs.FloatModel.tree_close",
        "swap",
        "|M.evalTreeWith id t - t.eval| ≤ ((1 + M.u) ^ t.depth - 1) * t.sumAbs",
        id="leaf-only-tree",
    ),
    pytest.param(TREE, "Proofs.SumTree.eval_abs_le", "swap", "|t.eval| ≤ t.sumAbs", id="tree-abs"),
    pytest.param(
        FLOAT, "Proofs.FloatModel.mul_close", "plus-minus", "M.mul xt yt - x * y", id="mul_close"
    ),
    pytest.param(
        SDPA,
        "Proofs.sdpa_back_Q_sub_abs_le",
        "plus-minus",
        "sdpa_back_Q n d Q K V dOutt i j - sdpa_back_Q n d Q K V dOuta i j",
        id="sdpa_back_Q",
    ),
]


def _env(tree: Path, files: tuple[str, ...]) -> Environment:
    batch = read_paths([tree / f for f in files])
    return Environment.from_declarations([d for doc in batch.documents for d in doc.declarations])


def _mutant_check(env: Environment, name: str, operator: str, site: str) -> Any:
    decl = env.get(name)
    assert decl is not None
    found = [m for m in mutants(decl) if m.operator == operator and m.site == site]
    assert found, [(m.operator, m.site) for m in mutants(decl)]
    checker = derive(name, overlay(env, mutated(decl, found[0].statement)))
    assert not isinstance(checker, Unsupported), checker.reason
    return run_checker(checker, trials=16, seed=0, shrink_failures=False)


@pytest.mark.parametrize(("files", "name", "operator", "site"), KILLED)
def test_fail_planted_mutant_once_out_of_reach(
    upstream_tree: Path, files: tuple[str, ...], name: str, operator: str, site: str
) -> None:
    env = _env(upstream_tree, files)
    original = check(name, env, trials=16, seed=0)
    assert original.status == "pass", original.reason
    result = _mutant_check(env, name, operator, site)
    assert result.status == "fail", result.reason


def test_pass_sdpa_bound_with_no_vacuous_trial(upstream_tree: Path) -> None:
    # `(hscaleA : |sdpa_scale d| ≤ scaleA)`: scaleA is drawn as |sdpa_scale d| + s, s ≥ 0
    env = _env(upstream_tree, SDPA)
    result = check("Proofs.sdpa_back_Q_abs_le", env, trials=16, seed=0)
    assert result.status == "pass", result.reason
    assert result.vacuous_trials == 0, result.reason
