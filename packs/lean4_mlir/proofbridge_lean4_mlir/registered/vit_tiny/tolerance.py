"""How much rounding error each node may carry, from unit roundoff and contraction lengths.

A node's error is measured against the size of its terms, `scale` (see
`backward.product_scale`: for `Σ_r x_{r,i} dy_{r,j}` the Cauchy–Schwarz bound
max ‖x_{:,i}‖·max ‖dy_{:,j}‖; for a bias-like sum `Σ |dy|`): rounding error is
proportional to the terms, not to the sum, which may cancel (the key bias's
node is exactly 0: softmax ignores a shift shared by all keys).

The allowed error of a node computed in a dtype with unit roundoff u is

    allowed = (κ·u·path + bf16_part) · scale

- `path` adds √n over every contraction of length n on the way from the loss to
  the node, in the forward pass (which rounds the activations the node reads)
  and in the chain (which rounds the cotangent it reads): the classifier (D),
  the softmax (K); per block at or above the node's, the Q/K/V/out projections
  (D each), fc1 (D), fc2 (mlp), the scores (head_dim), the attention sum (T)
  and the two LayerNorm means (D); then the node's own sum (B·T tokens, B for
  the classifier, the CLS token and the position). Rounding errors of a sum of
  n terms grow like √n·u when they are independent (n·u at worst), and
  relative errors of a chain of operations add, to first order;
- κ = 4 leaves room for the constants of that estimate and the conditioning of
  LayerNorm and softmax at the sampled weights, and for nothing else;
- in the bf16 kind, the dense weight nodes and the patch-embedding weight node
  contract operands rounded to bfloat16 (u_bf16 = 2⁻⁸): each term is off by at
  most (2u_bf16 + u_bf16²) relative, so their sum by that much of the
  Cauchy–Schwarz scale: `bf16_part = 2u_bf16 + u_bf16²`, a bound, not an
  estimate. The other nodes carry no flag (no render switches them).

The reference is float64 from the very inputs the dtype saw (rounded to it),
so the difference is the dtype's rounding alone. `floor` (the smallest normal
number times the rate) only keeps a node whose terms are all 0 decidable.
"""

from __future__ import annotations

import math

from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims

UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "bfloat16": 2.0**-8}
SMALLEST_NORMAL = {"float64": 2.2250738585072014e-308, "float32": 1.1754944e-38}
KAPPA = 4.0
# the chain of the bf16 kind runs in float32 and rounds only these nodes' operands
BF16_NODES = frozenset({"mlp.W1", "mlp.W2", "attn.Wq", "attn.Wk", "attn.Wv", "attn.Wo", "patch.W"})


def compute_dtype(dtype: str) -> str:
    """The dtype the chain runs in: float32 for the bf16 kind."""
    return "float32" if dtype == "bfloat16" else dtype


def _block_path(dims: VitDims) -> float:
    D = math.sqrt(dims.D)
    attention = math.sqrt(dims.head_dim) + math.sqrt(dims.tokens)
    return 4 * D + D + math.sqrt(dims.mlp) + attention + 2 * D


def _own_length(param: str, dims: VitDims) -> int:
    if param.startswith("head."):
        return dims.B
    if param in ("cls", "pos"):
        return dims.B
    if param.startswith("patch."):
        return dims.B * (dims.tokens - 1)
    if param.startswith("norm."):
        return dims.B * dims.D
    return dims.B * dims.tokens


def path(param: str, block: int | None, dims: VitDims) -> float:
    """Σ √n over the contractions between the loss and the node, forward and chain."""
    above = dims.depth if block is None and not param.startswith(("head.", "norm.")) else 0
    if block is not None:
        above = dims.depth - block
    top = math.sqrt(dims.D) + math.sqrt(dims.K)
    return 2 * (top + above * _block_path(dims)) + math.sqrt(_own_length(param, dims))


def rate(param: str, block: int | None, dims: VitDims, dtype: str) -> float:
    """The allowed error of a node, relative to its scale (see the module doc)."""
    u = UNIT_ROUNDOFF[compute_dtype(dtype)]
    r = KAPPA * u * path(param, block, dims)
    if dtype == "bfloat16" and param in BF16_NODES:
        ub = UNIT_ROUNDOFF["bfloat16"]
        r += 2 * ub + ub * ub
    return r


def floor(dtype: str, node_rate: float) -> float:
    return SMALLEST_NORMAL[compute_dtype(dtype)] * node_rate


def forward_rate(dims: VitDims, dtype: str) -> float:
    """The logits of two equal computations in one dtype (batched and one example at a
    time): the forward path alone, relative to the logits' size."""
    u = UNIT_ROUNDOFF[compute_dtype(dtype)]
    embed = math.sqrt(dims.D) + math.sqrt(dims.patch_len)
    return KAPPA * u * (embed + dims.depth * _block_path(dims))
