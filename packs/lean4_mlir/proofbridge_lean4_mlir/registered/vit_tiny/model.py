"""ViT-Tiny's forward, written once, and the label-smoothed loss.

`forward(params, images, scales, dims)` is the batched network (vitNetB): the
patch embedding (a stride-P convolution read as one dense map of each patch),
the CLS token and the position embedding, `depth` pre-LN blocks

    h = x + s_attn · Wo·attn(LN₁ x)        y = h + s_mlp · fc2(GELU(fc1(LN₂ h)))

(scaled dot-product attention per head, scale 1/√head_dim, row softmax; the
tanh form of GELU; LayerNorms with per-feature γ, β and ε = 1e-5), the final
LayerNorm of the CLS row and the classifier. `scales[n, i]` holds example n's
factors at block i's two drop sites (attention, MLP): 0 for a dropped branch,
1/keep_i otherwise, all 1 for "none". Nothing couples examples.

It returns the logits and the values the explicit backward chain reads
(`saves`, the render's blkSaves); `jax.grad` of `loss` over it is the
reference, and what it does not read is dropped when compiled.
"""

from __future__ import annotations

import math
from typing import Any

from checkers.pack import jax, jnp
from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims

EPS = 1e-5
SMOOTHING = 0.1
GELU_C = math.sqrt(2.0 / math.pi)
GELU_A = 0.044715

Params = dict[str, Any]


def gelu(x: Any) -> Any:
    """geluScalar: ½x(1 + tanh(√(2/π)(x + 0.044715x³)))."""
    return 0.5 * x * (1.0 + jnp.tanh(GELU_C * (x + GELU_A * x**3)))


def layer_norm(x: Any, gamma: Any, beta: Any) -> tuple[Any, Any, Any]:
    """Rowwise LayerNorm over the last axis: (γ·x̂ + β, x̂, 1/√(var + ε))."""
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    istd = 1.0 / jnp.sqrt(var + EPS)
    xhat = (x - mu) * istd
    return gamma * xhat + beta, xhat, istd


def patches(images: Any, dims: VitDims) -> Any:
    """(B, C, H, W) -> (B, grid², C·P·P): patch p = h'·grid + w', entries in (c, kh, kw)
    order, so `patch.W` flattened OIHW reads them (patchRead at stride P)."""
    B, C, P, g = images.shape[0], dims.chans, dims.patch, dims.grid
    x = images[:, :, : g * P, : g * P].reshape(B, C, g, P, g, P)
    return x.transpose(0, 2, 4, 1, 3, 5).reshape(B, g * g, C * P * P)


def split_heads(x: Any, heads: int) -> Any:
    B, T, D = x.shape
    return x.reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)


def merge_heads(x: Any) -> Any:
    B, H, T, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * d)


def _block(dims: VitDims, X: Any, p: Params, s: Any) -> tuple[Any, dict[str, Any]]:
    """One pre-LN block over the batch; `s` is (B, 2): the two sites' factors."""
    a, xhat1, istd1 = layer_norm(X, p["ln1.gamma"], p["ln1.beta"])
    q = split_heads(a @ p["attn.Wq"] + p["attn.bq"], dims.heads)
    k = split_heads(a @ p["attn.Wk"] + p["attn.bk"], dims.heads)
    v = split_heads(a @ p["attn.Wv"] + p["attn.bv"], dims.heads)
    scale = 1.0 / math.sqrt(dims.head_dim)
    A = jax.nn.softmax(jnp.einsum("bhtd,bhsd->bhts", q, k) * scale, axis=-1)
    heads_out = merge_heads(jnp.einsum("bhts,bhsd->bhtd", A, v))
    h = X + s[:, 0, None, None] * (heads_out @ p["attn.Wo"] + p["attn.bo"])
    m, xhat2, istd2 = layer_norm(h, p["ln2.gamma"], p["ln2.beta"])
    f1 = m @ p["mlp.W1"] + p["mlp.b1"]
    g = gelu(f1)
    y = h + s[:, 1, None, None] * (g @ p["mlp.W2"] + p["mlp.b2"])
    saves = {
        "a": a,
        "xhat1": xhat1,
        "istd1": istd1,
        "q": q,
        "k": k,
        "v": v,
        "A": A,
        "O": heads_out,
        "m": m,
        "xhat2": xhat2,
        "istd2": istd2,
        "f1": f1,
        "g": g,
    }
    return y, saves


def block_params(params: Params) -> Params:
    return {k: v for k, v in params.items() if k.startswith(("attn.", "mlp.", "ln1.", "ln2."))}


def forward(params: Params, images: Any, scales: Any, dims: VitDims) -> tuple[Any, dict[str, Any]]:
    """The batched network: logits (B, K) and the saves (block saves stacked over blocks)."""
    B, D = images.shape[0], dims.D
    P = patches(images, dims)
    Wp = params["patch.W"].reshape(D, dims.patch_len)
    tokens = P @ Wp.T + params["patch.b"]
    cls = jnp.broadcast_to(params["cls"], (B, 1, D))
    X0 = jnp.concatenate([cls, tokens], axis=1) + params["pos"]

    def step(X: Any, xs: tuple[Params, Any]) -> tuple[Any, dict[str, Any]]:
        p, s = xs
        return _block(dims, X, p, s)

    # scales (B, depth, 2) -> (depth, B, 2): one slice per block
    XL, blocks = jax.lax.scan(step, X0, (block_params(params), jnp.swapaxes(scales, 0, 1)))
    c, xhat_f, istd_f = layer_norm(XL[:, 0], params["norm.gamma"], params["norm.beta"])
    logits = c @ params["head.W"] + params["head.b"]
    saves = {"patches": P, "blocks": blocks, "c": c, "xhat_f": xhat_f, "istd_f": istd_f}
    return logits, saves


def smoothed_targets(targets: Any, K: int) -> Any:
    """t' = (1 − α)t + α/K."""
    return (1.0 - SMOOTHING) * targets + SMOOTHING / K


def loss(logits: Any, targets: Any) -> Any:
    """L = (1/B) Σ_n −Σ_k t'_{n,k} log softmax(z_n)_k (smoothedBatchLossDiv)."""
    B, K = logits.shape
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.sum(smoothed_targets(targets, K) * logp) / B


def net_loss(params: Params, images: Any, scales: Any, targets: Any, dims: VitDims) -> Any:
    """The loss of the whole batched net: what `jax.grad` differentiates for the reference."""
    return loss(forward(params, images, scales, dims)[0], targets)


def per_example_logits(params: Params, images: Any, scales: Any, dims: VitDims) -> Any:
    """The network run on one example at a time (batchMap of the one-example forward)."""

    def one(xs: tuple[Any, Any]) -> Any:
        image, s = xs
        return forward(params, image[None], s[None], dims)[0][0]

    return jax.lax.map(one, (images, scales))
