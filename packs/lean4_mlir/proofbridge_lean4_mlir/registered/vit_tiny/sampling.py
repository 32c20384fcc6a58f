"""One trial's inputs: weights, images, targets and drop flags, from a key.

Weights are drawn at the scale a trained network keeps its activations at
(dense W ~ N(0, 1/fan_in), LayerNorm γ ~ 1 + N(0, 0.1²), biases, β, CLS and
position ~ N(0, 0.1²)), images ~ N(0, 1), targets are rows on the simplex
(the softmax of N(0, 2²) logits, so every row sums to one: the smoothed
loss's hypothesis), and a drop flag keeps example n's branch at block i with
probability keep_i. Every value is a function of (seed, trial) alone, drawn
with NumPy on the host (compiling JAX's random bits for 24 tensors cost more
than the whole check at small dims).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims


def _fan_in(name: str, shape: tuple[int, ...], dims: VitDims) -> int | None:
    if name == "patch.W":
        return dims.patch_len
    if name.endswith(("W", "Wq", "Wk", "Wv", "Wo", "W1", "W2")):
        return shape[-2]
    return None


def sample_params(rng: np.random.Generator, dims: VitDims) -> dict[str, Any]:
    """Float64 weights for every parameter tensor (see the module doc)."""
    out: dict[str, Any] = {}
    for name, shape in sorted(dims.shapes().items()):
        z = rng.standard_normal(shape)
        fan_in = _fan_in(name, shape, dims)
        if fan_in is not None:
            out[name] = z / math.sqrt(fan_in)
        elif name.endswith("gamma"):
            out[name] = 1.0 + 0.1 * z
        else:
            out[name] = 0.1 * z
    return out


def sample_scales(rng: np.random.Generator, dims: VitDims) -> tuple[Any, Any]:
    """(flags, scales), each (B, depth, 2): flags 1 where a branch is kept; its factor
    is 1/keep_i when kept and 0 when dropped. At drop 0 ("none") every factor is 1."""
    keep = np.asarray([dims.keep(i) for i in range(dims.depth)])[None, :, None]
    u = rng.random((dims.B, dims.depth, 2))
    flags = (u < keep).astype(np.float64)
    # keep_i = 0 (a rate of 100 % at the last block) drops the branch everywhere
    return flags, np.divide(flags, keep, out=np.zeros_like(flags), where=keep > 0)


def sample_trial(seed: int, trial: int, dims: VitDims) -> dict[str, Any]:
    """Everything trial `trial` of `seed` reads, in float64."""
    rng = np.random.default_rng([seed & (2**63 - 1), trial, 0x56_49_54])
    params = sample_params(rng, dims)
    images = rng.standard_normal((dims.B, dims.chans, dims.img, dims.img))
    logits = 2.0 * rng.standard_normal((dims.B, dims.K))
    targets = np.exp(logits - logits.max(axis=1, keepdims=True))
    targets /= targets.sum(axis=1, keepdims=True)
    flags, scales = sample_scales(rng, dims)
    return {
        "params": params,
        "images": images,
        "targets": targets,
        "flags": flags,
        "scales": scales,
    }


def sample_trials(seed: int, trials: int, dims: VitDims) -> dict[str, Any]:
    """Trials 0..trials-1 stacked on a leading axis."""
    each = [sample_trial(seed, t, dims) for t in range(trials)]
    stack: dict[str, Any] = {
        k: np.stack([e[k] for e in each]) for k in ("images", "targets", "flags", "scales")
    }
    stack["params"] = {k: np.stack([e["params"][k] for e in each]) for k in each[0]["params"]}
    return stack
