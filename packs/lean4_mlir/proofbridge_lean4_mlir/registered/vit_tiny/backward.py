"""The explicit backward chain, node by node, without autodiff.

The chain starts from the smoothed loss's cotangent in the logits (the
softmaxDiv cotangent the render emits, `(softmax(z) − t + αt − α/K)/B`, valid
when each target row sums to one) and threads a cotangent down through the
classifier, the final LayerNorm, the blocks from the last to the first, and
the embedding. At every parameterised op it emits that parameter's node:

- per-token dense W/b (Wq Wk Wv Wo, fc1 fc2): `dW = Σ_{n,tokens} x ⊗ dy`,
  `db = Σ_{n,tokens} dy`; in the bf16 kind, `x` and `dy` are rounded to
  bfloat16 before the contraction (accumulated in float32), as the render's
  precision switch does;
- LayerNorm γ/β: `dγ = Σ dy·x̂`, `dβ = Σ dy`; its input cotangent
  `istd·(dx̂ − mean dx̂ − x̂·mean(dx̂·x̂))` with `dx̂ = γ·dy`;
- attention per head: `dS = A ⊙ (dA − rowsum(dA ⊙ A))`, `dQ = dS K·scale`,
  `dK = dSᵀ Q·scale`, `dV = Aᵀ dO`, heads merged back for Wq/Wk/Wv;
- a drop site scales the branch's cotangent by example n's own factor;
- the classifier on the CLS row and its bias, whose batch sum is inside the
  node (biasGradB), and the CLS token, a batch sum of row 0;
- the position embedding (the identity Jacobian, summed over the batch) and
  the patch conv: `dWp = Σ_{n,p} dy_{p+1} ⊗ patch_p` (bf16-rounded operands in
  the bf16 kind), `dbp = Σ_{n,p} dy_{p+1}` (the CLS row excluded).

The formulas a node depends on are the fields of `Rules`, so that a test can
perturb one of them (`dataclasses.replace(RULES, gelu_grad=...)`) and watch the
checker name the node it broke.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from checkers.pack import jax, jnp
from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims
from proofbridge_lean4_mlir.registered.vit_tiny.model import (
    GELU_A,
    GELU_C,
    SMOOTHING,
    block_params,
    merge_heads,
    split_heads,
)


def logits_cotangent(logits: Any, targets: Any) -> Any:
    """∂L/∂z = (softmax(z) − t + αt − α/K)/B."""
    B, K = logits.shape
    p = jax.nn.softmax(logits, axis=-1)
    return (p - targets + SMOOTHING * targets - SMOOTHING / K) / B


def gelu_grad(x: Any) -> Any:
    """d/dx of the tanh-form GELU."""
    t = jnp.tanh(GELU_C * (x + GELU_A * x**3))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x)


def batch_sum(dy: Any) -> Any:
    """The batch sum inside the classifier bias and CLS nodes."""
    return jnp.sum(dy, axis=0)


def attention_core_grad(dO: Any, q: Any, k: Any, v: Any, A: Any, scale: float) -> tuple[Any, ...]:
    """Per head (B, H, T, d): the cotangents of Q, K and V from that of the output."""
    dA = jnp.einsum("bhtd,bhsd->bhts", dO, v)
    dv = jnp.einsum("bhts,bhtd->bhsd", A, dO)
    dS = A * (dA - jnp.sum(dA * A, axis=-1, keepdims=True))
    dq = jnp.einsum("bhts,bhsd->bhtd", dS, k) * scale
    dk = jnp.einsum("bhts,bhtd->bhsd", dS, q) * scale
    return dq, dk, dv


@dataclass(frozen=True)
class Rules:
    """The formulas of the chain that a mutation test may replace."""

    logits_cotangent: Callable[[Any, Any], Any] = logits_cotangent
    gelu_grad: Callable[[Any], Any] = gelu_grad
    head_bias_sum: Callable[[Any], Any] = batch_sum
    cls_sum: Callable[[Any], Any] = batch_sum
    attention: Callable[..., tuple[Any, ...]] = attention_core_grad


RULES = Rules()


def _round_bf16(x: Any, bf16: bool) -> Any:
    return x.astype(jnp.bfloat16).astype(x.dtype) if bf16 else x


def dense_weight_grad(x: Any, dy: Any, bf16: bool) -> Any:
    """`Σ_{n,tokens} x ⊗ dy` (rowDenseWeightGradBAt): bf16-rounded operands when `bf16`."""
    return jnp.einsum("btd,bte->de", _round_bf16(x, bf16), _round_bf16(dy, bf16))


def dense_bias_grad(dy: Any) -> Any:
    return jnp.sum(dy, axis=(0, 1))


# --- the size of each node's terms (what its rounding error is proportional to) -------


def product_scale(x: Any, dy: Any) -> Any:
    """A bound on the terms of `Σ_r x_{r,i} dy_{r,j}`: by Cauchy–Schwarz every entry is at
    most max_i ‖x_{:,i}‖ · max_j ‖dy_{:,j}‖, and so is the error of its rounded terms."""
    axes = tuple(range(x.ndim - 1))
    nx = jnp.sqrt(jnp.max(jnp.sum(x * x, axis=axes)))
    ny = jnp.sqrt(jnp.max(jnp.sum(dy * dy, axis=axes)))
    return nx * ny


def sum_scale(dy: Any, axes: tuple[int, ...]) -> Any:
    """The largest `Σ |dy|` over the summed axes: the terms of a bias-like node."""
    return jnp.max(jnp.sum(jnp.abs(dy), axis=axes))


def layer_norm_grad(dy: Any, xhat: Any, istd: Any, gamma: Any) -> tuple[Any, Any, Any]:
    """(dγ, dβ, dx) of the rowwise per-feature LayerNorm over the last axis."""
    axes = tuple(range(dy.ndim - 1))
    dgamma = jnp.sum(dy * xhat, axis=axes)
    dbeta = jnp.sum(dy, axis=axes)
    dxhat = dy * gamma
    mean = jnp.mean(dxhat, axis=-1, keepdims=True)
    mean_x = jnp.mean(dxhat * xhat, axis=-1, keepdims=True)
    return dgamma, dbeta, istd * (dxhat - mean - xhat * mean_x)


class _Nodes:
    """The nodes a chain step emits, with the scale of each one's terms."""

    def __init__(self) -> None:
        self.grads: dict[str, Any] = {}
        self.scales: dict[str, Any] = {}

    def dense(self, w: str, b: str, x: Any, dy: Any, bf16: bool) -> None:
        self.grads[w] = dense_weight_grad(x, dy, bf16)
        self.scales[w] = product_scale(x, dy)
        self.grads[b] = dense_bias_grad(dy)
        self.scales[b] = sum_scale(dy, (0, 1))

    def layer_norm(self, prefix: str, dy: Any, xhat: Any, istd: Any, gamma: Any) -> Any:
        dgamma, dbeta, dx = layer_norm_grad(dy, xhat, istd, gamma)
        self.grads[f"{prefix}.gamma"], self.grads[f"{prefix}.beta"] = dgamma, dbeta
        self.scales[f"{prefix}.gamma"] = product_scale(xhat, dy)
        self.scales[f"{prefix}.beta"] = sum_scale(dy, tuple(range(dy.ndim - 1)))
        return dx


def _block_grad(
    dims: VitDims, rules: Rules, bf16: bool, dY: Any, p: dict[str, Any], sv: dict[str, Any], s: Any
) -> tuple[Any, tuple[dict[str, Any], dict[str, Any]]]:
    """One block's 16 nodes from the cotangent at its output; returns the input's."""
    out = _Nodes()
    # y = h + s_mlp · (GELU(m W1 + b1) W2 + b2)
    df2 = s[:, 1, None, None] * dY
    out.dense("mlp.W2", "mlp.b2", sv["g"], df2, bf16)
    df1 = (df2 @ p["mlp.W2"].T) * rules.gelu_grad(sv["f1"])
    out.dense("mlp.W1", "mlp.b1", sv["m"], df1, bf16)
    dh = dY + out.layer_norm("ln2", df1 @ p["mlp.W1"].T, sv["xhat2"], sv["istd2"], p["ln2.gamma"])
    # h = X + s_attn · (attn(LN₁ X) Wo + bo)
    do = s[:, 0, None, None] * dh
    out.dense("attn.Wo", "attn.bo", sv["O"], do, bf16)
    dO = split_heads(do @ p["attn.Wo"].T, dims.heads)
    scale = 1.0 / math.sqrt(dims.head_dim)
    dq, dk, dv = (
        merge_heads(t) for t in rules.attention(dO, sv["q"], sv["k"], sv["v"], sv["A"], scale)
    )
    a = sv["a"]
    out.dense("attn.Wv", "attn.bv", a, dv, bf16)
    out.dense("attn.Wq", "attn.bq", a, dq, bf16)
    out.dense("attn.Wk", "attn.bk", a, dk, bf16)
    da = dq @ p["attn.Wq"].T + dk @ p["attn.Wk"].T + dv @ p["attn.Wv"].T
    dX = dh + out.layer_norm("ln1", da, sv["xhat1"], sv["istd1"], p["ln1.gamma"])
    return dX, (out.grads, out.scales)


@dataclass(frozen=True)
class Chain:
    """What the chain computed: every node (block nodes stacked over the blocks), the
    size of each node's terms (same keys; one number per node), and the logits'
    cotangent it started from."""

    grads: dict[str, Any]
    scales: dict[str, Any]
    dlogits: Any


def backward(
    params: dict[str, Any],
    saves: dict[str, Any],
    logits: Any,
    targets: Any,
    scales: Any,
    dims: VitDims,
    *,
    bf16: bool = False,
    rules: Rules = RULES,
) -> Chain:
    """Run the chain from the smoothed loss's cotangent down to the patch embedding."""
    top = _Nodes()
    dz = rules.logits_cotangent(logits, targets)
    top.grads["head.W"] = jnp.einsum("bd,bk->dk", saves["c"], dz)
    top.scales["head.W"] = product_scale(saves["c"], dz)
    top.grads["head.b"] = rules.head_bias_sum(dz)
    top.scales["head.b"] = sum_scale(dz, (0,))
    dcls = top.layer_norm(
        "norm", dz @ params["head.W"].T, saves["xhat_f"], saves["istd_f"], params["norm.gamma"]
    )
    B, T, D = dims.B, dims.tokens, dims.D
    dX = jnp.zeros((B, T, D), dz.dtype).at[:, 0].set(dcls)

    def step(dY: Any, xs: tuple[Any, Any, Any]) -> tuple[Any, Any]:
        p, sv, s = xs
        return _block_grad(dims, rules, bf16, dY, p, sv, s)

    xs = (block_params(params), saves["blocks"], jnp.swapaxes(scales, 0, 1))
    dX0, (block_grads, block_scales) = jax.lax.scan(step, dX, xs, reverse=True)
    grads, node_scales = {**top.grads, **block_grads}, {**top.scales, **block_scales}
    grads["pos"] = jnp.sum(dX0, axis=0)
    node_scales["pos"] = sum_scale(dX0, (0,))
    grads["cls"] = rules.cls_sum(dX0[:, 0])
    node_scales["cls"] = sum_scale(dX0[:, 0], (0,))
    dtok, P = dX0[:, 1:], saves["patches"]
    dWp = jnp.einsum("bpd,bpk->dk", _round_bf16(dtok, bf16), _round_bf16(P, bf16))
    grads["patch.W"] = dWp.reshape(D, dims.chans, dims.patch, dims.patch)
    node_scales["patch.W"] = product_scale(dtok, P)
    grads["patch.b"] = dense_bias_grad(dtok)
    node_scales["patch.b"] = sum_scale(dtok, (0, 1))
    return Chain(grads, node_scales, dz)
