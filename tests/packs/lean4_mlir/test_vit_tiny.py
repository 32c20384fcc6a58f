"""ViT-Tiny whole: the explicit backward chain against jax.grad, at small dims."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from proofbridge_lean4_mlir.registered.vit_tiny import tolerance
from proofbridge_lean4_mlir.registered.vit_tiny.checker import FORWARD, check_vit, trial_count
from proofbridge_lean4_mlir.registered.vit_tiny.dims import FAMILIES, LITERAL, VitDims
from proofbridge_lean4_mlir.registered.vit_tiny.sampling import sample_scales, sample_trial
from vit_tiny_support import SMALL

from checkers import REGISTRY, Environment, check
from theorem_index.model import Declaration

TRIALS = 2  # one trial count (one program shape) for every test here
NAMES = (
    "Proofs.vit_net_tiedGB",
    "Proofs.vit_net_lossGrad",
    "Proofs.vit_net_lossGrad_smoothedCE",
    "Proofs.vitNetB_eq_vitForwardKV",
)


def test_count_parameters_of_vit_tiny_at_literal_dims() -> None:
    nodes = LITERAL.nodes()
    assert len(nodes) == 200 and len({n for n, _, _ in nodes}) == 200
    sizes = sum(math.prod(s) for s in LITERAL.shapes().values())
    # timm's vit_tiny_patch16_224 has 5,717,416 parameters with 1000 classes
    assert sizes == 5_717_416 - (192 * 1000 + 1000) + (192 * 10 + 10)
    assert nodes[0] == ("head.W", "head.W", None) and nodes[-1] == ("patch.b", "patch.b", None)


def test_refuse_unknown_or_inconsistent_dims() -> None:
    with pytest.raises(ValueError, match="unknown ViT dimension width"):
        VitDims.from_mapping({"width": 3})
    with pytest.raises(ValueError, match="D = 10 is not a multiple of heads = 3"):
        VitDims.from_mapping({"D": 10})


@pytest.mark.slow  # a compiled program per dtype (each ~10 s on a busy 2-core machine)
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_pass_chain_against_jax_grad_with_drops(dtype: str) -> None:
    out = check_vit({**SMALL, "drop": 60}, dtype, 0, TRIALS)
    assert out.status == "pass", out.reason
    assert out.stats["dropped_branches"] > 0
    assert [p["family"] for p in out.parts] == ["loss cotangent", *FAMILIES]
    assert sum(p["nodes"] for p in out.parts) == 8 + 16 * 2 + 1
    assert all(p["status"] == "pass" and p["worst_ratio"] < 1 for p in out.parts)
    assert out.reason.startswith("40 parameter-gradient nodes and the logits' cotangent agree")


def test_pass_chain_without_drops_says_no_drop() -> None:
    out = check_vit(SMALL, "float32", 1, TRIALS)
    assert out.status == "pass", out.reason
    assert "(2 trials, no drop)" in out.reason and out.stats["dropped_branches"] == 0


@pytest.mark.slow
def test_bf16_kind_errors_exceed_float32_in_dense_weight_nodes_only() -> None:
    f32 = {p["family"]: p for p in check_vit(SMALL, "float32", 2, TRIALS).parts}
    bf16 = {p["family"]: p for p in check_vit(SMALL, "bfloat16", 2, TRIALS).parts}
    for family in ("MLP fc1 W", "attention out W", "patch conv W"):
        assert bf16[family]["max_rel_err"] > 100 * f32[family]["max_rel_err"]
    for family in ("classifier W", "LN₁ γ/β", "CLS token", "MLP fc2 b"):
        assert bf16[family]["max_rel_err"] == pytest.approx(f32[family]["max_rel_err"])


def test_pass_batched_forward_equals_one_example_at_a_time() -> None:
    out = check_vit({**SMALL, "drop": 50}, "float64", 0, TRIALS, FORWARD)
    assert out.status == "pass", out.reason
    assert [p["family"] for p in out.parts] == ["forward"]


def test_drop_flags_scale_each_example_by_its_keep() -> None:
    dims = VitDims(**SMALL, drop=100)  # keep 1 at block 0, 0 at block 1
    flags, scales = sample_scales(np.random.default_rng(0), dims)
    assert flags.shape == (2, 2, 2)
    assert (flags[:, 0] == 1).all() and (scales[:, 0] == 1).all()
    assert (flags[:, 1] == 0).all() and (scales[:, 1] == 0).all()
    half = VitDims(**{**SMALL, "depth": 3}, drop=50)  # block 2 keeps with 0.5
    flags, scales = sample_scales(np.random.default_rng(0), half)
    np.testing.assert_array_equal(scales[:, 2], flags[:, 2] / 0.5)


def test_sample_same_trial_twice_identically() -> None:
    dims = VitDims(**SMALL)
    a, b = sample_trial(7, 3, dims), sample_trial(7, 3, dims)
    np.testing.assert_array_equal(a["params"]["attn.Wq"], b["params"]["attn.Wq"])
    assert not np.array_equal(a["images"], sample_trial(7, 4, dims)["images"])
    np.testing.assert_allclose(a["targets"].sum(axis=1), 1.0)


def test_rate_grows_with_depth_above_and_bf16_adds_its_rounding() -> None:
    dims = LITERAL
    deep, shallow = (
        tolerance.rate("mlp.W1", 0, dims, "float32"),
        tolerance.rate("mlp.W1", 11, dims, "float32"),
    )
    assert deep > 5 * shallow
    ub = 2.0**-8
    assert tolerance.rate("mlp.W1", 0, dims, "bfloat16") == pytest.approx(deep + 2 * ub + ub * ub)
    assert tolerance.rate("mlp.b1", 0, dims, "bfloat16") == deep
    f64 = tolerance.rate("mlp.W1", 0, dims, "float64")
    assert f64 == pytest.approx(deep * 2.0**-29)


def test_cap_trials_by_example_tokens() -> None:
    assert trial_count(LITERAL, 64) == 1
    assert trial_count(VitDims(**SMALL), 64) == 51
    assert trial_count(VitDims(**SMALL), 3) == 3


def test_register_four_prose_theorems() -> None:
    claims = REGISTRY.prose_claims()
    assert {n: claims[n] for n in NAMES} == {n: n.removeprefix("Proofs.") for n in NAMES}
    assert REGISTRY[NAMES[1]].dim_names == VitDims.names()


def _prose(name: str, text: str) -> Declaration:
    return Declaration(name=name, kind="prose", module="M", binders="", statement=text)


def test_error_when_paragraph_changed_since_checker_was_written() -> None:
    env = Environment.from_declarations([_prose(NAMES[1], "A paragraph of other words.")])
    result = check(NAMES[1], env, trials=1, dims=SMALL)
    assert result.status == "error"
    assert "the paragraph, which changed since the checker was written" in result.reason
    assert result.reason.startswith("registered checker set aside: ")


@pytest.mark.slow
def test_check_registered_prose_theorem_through_harness(seeds_dir) -> None:
    from theorem_index import read_paths
    from theorem_index.prose_claims import add_prose_declarations

    docs = add_prose_declarations(read_paths([seeds_dir]).documents, REGISTRY.prose_claims())
    decls = [d for doc in docs for d in doc.declarations]
    env = Environment.from_declarations(decls, derive=None)
    result = check(NAMES[1], env, trials=TRIALS, dtype="float32", dims={**SMALL, "drop": 40})
    assert (result.status, result.checker) == ("pass", "registered"), result.reason
    assert "no derived checker to compare with" in result.reason
    assert len(result.parts) == 1 + len(FAMILIES) and result.dims["drop"] == 40
    again = dataclasses.replace(result, reason="")
    assert again.from_json(again.to_json()).parts == result.parts
    refused = check(NAMES[1], env, trials=1, dims={"N": 3})
    assert refused.status == "error"
    assert refused.reason.startswith(f"no dimension N (dimensions: {', '.join(VitDims.names())})")
