"""The same checks on a GPU; skipped where JAX has no GPU backend."""

from __future__ import annotations

import pytest

from checkers import Environment, check, device_kind, repro

pytestmark = pytest.mark.skipif(device_kind() != "gpu", reason="no GPU: JAX runs on the CPU here")

SEED_CHECKERS = [
    "Proofs.sum_fin_prod",
    "Proofs.vit_rowDenseW_grad_bridge",
    "Proofs.pdiv_rowLN_beta",
]


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment.from_declarations([], derive=None)


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("name", SEED_CHECKERS)
def test_pass_seed_checker_on_gpu(env, name, dtype):
    result = check(name, env, trials=64, seed=0, dtype=dtype)
    assert result.status == "pass", result.reason
    assert result.device == "gpu"
    assert len(result.draws) == 4


def test_pass_literal_vit_dims_on_gpu(env):
    dims = {"N": 197, "a": 192, "c": 768}
    result = check("Proofs.vit_rowDenseW_grad_bridge", env, trials=64, dims=dims)
    assert result.status == "pass", result.reason
    assert result.dims == dims


def test_repro_on_gpu_matches_check(env):
    result = check("Proofs.vit_rowDenseW_grad_bridge", env, seed=3, shrink=False)
    replay = repro("Proofs.vit_rowDenseW_grad_bridge", env, seed=3, dims=result.dims, trial=5)
    again = repro("Proofs.vit_rowDenseW_grad_bridge", env, seed=3, dims=result.dims, trial=5)
    assert (replay.lhs, replay.rhs) == (again.lhs, again.rhs)
    assert replay.result.device == "gpu"
