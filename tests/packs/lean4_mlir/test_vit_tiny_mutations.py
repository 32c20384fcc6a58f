"""A perturbed formula of one node fails the ViT-Tiny check, naming that node."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import jax.scipy.special
import pytest
from proofbridge_lean4_mlir.registered.vit_tiny.backward import (
    RULES,
    attention_core_grad,
    logits_cotangent,
)
from proofbridge_lean4_mlir.registered.vit_tiny.checker import GRADIENT, check_vit
from vit_tiny_support import SMALL

pytestmark = pytest.mark.slow  # each mutation compiles a program of its own


def _erf_gelu_grad(x):
    """d/dx of x·Φ(x), the erf GELU (the chain is written for the tanh form)."""
    return 0.5 * (1.0 + jax.scipy.special.erf(x / jnp.sqrt(2.0))) + x * jnp.exp(
        -0.5 * x * x
    ) / jnp.sqrt(2.0 * jnp.pi)


def _swapped_qk(dO, q, k, v, A, scale):
    return attention_core_grad(dO, k, q, v, A, scale)


MUTATIONS = {
    "drop the batch sum of the classifier bias": (
        dataclasses.replace(RULES, head_bias_sum=lambda dz: dz[0]),
        "head.b",
    ),
    "swap Q and K": (dataclasses.replace(RULES, attention=_swapped_qk), "blocks.1.attn.Wq"),
    "forget the 1/B": (
        dataclasses.replace(RULES, logits_cotangent=lambda z, t: logits_cotangent(z, t) * 2),
        "dlogits",
    ),
    "erf GELU instead of tanh": (
        dataclasses.replace(RULES, gelu_grad=_erf_gelu_grad),
        "blocks.1.mlp.W1",
    ),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_fail_naming_the_mutated_node(mutation: str) -> None:
    rules, node = MUTATIONS[mutation]
    out = check_vit({**SMALL, "drop": 30}, "float32", 0, 2, GRADIENT, rules)  # 2 trials
    assert out.status == "fail", out.reason
    assert out.stats["first_failing_node"] == node
    assert f"first in the chain: node {node} " in out.reason
    if mutation == "drop the batch sum of the classifier bias":  # nothing reads that node
        assert [p["family"] for p in out.parts if p["status"] == "fail"] == ["classifier b"]
