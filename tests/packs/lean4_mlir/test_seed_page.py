"""The seed page end to end through the checkers: three registered passes, the rest unsupported."""

from __future__ import annotations

import pytest

from checkers import Environment, check, describe
from theorem_index import read_paths

REGISTERED = {
    "Proofs.sum_fin_prod",
    "Proofs.vit_rowDenseW_grad_bridge",
    "Proofs.pdiv_rowLN_beta",
}


@pytest.fixture(scope="module")
def seed_env(seeds_dir) -> Environment:
    batch = read_paths([str(seeds_dir)])
    decls = [d for doc in batch.documents for d in doc.declarations]
    return Environment.from_declarations(decls, derive=None)


def test_check_seed_theorems_registered_pass_rest_unsupported(seed_env):
    theorems = [d.name for d in seed_env.theorems()]
    assert len(theorems) == 24 and REGISTERED <= set(theorems)
    for name in theorems:
        result = check(name, seed_env, trials=64, seed=0)
        if name in REGISTERED:
            assert (result.status, result.checker) == ("pass", "registered"), result.reason
            assert len(result.draws) == 4
        else:
            assert (result.status, result.checker) == ("unsupported", "none")
            assert result.reason == "no registered checker, and derived checkers are switched off"


def test_describe_seed_definitions_unsupported(seed_env):
    info = describe("Proofs.rowDense_weight_grad", seed_env)
    assert info.kind == "unsupported"
    assert info.reason == (
        "Proofs.rowDense_weight_grad is a def, not a theorem: it states nothing to check"
    )


def test_describe_registered_over_derived_hook(seeds_dir):
    batch = read_paths([str(seeds_dir)])
    decls = [d for doc in batch.documents for d in doc.declarations]
    env = Environment.from_declarations(decls)  # the default hook: checkers.statements, if present
    for name in REGISTERED:
        assert describe(name, env).kind == "registered"
