"""One whole check as a compiled program: sample, run both chains, measure every node.

`program(dims, dtype, parts, rules)` is compiled once per arguments and maps a
batch of trials' inputs (`sampling`) to per-node numbers, for each trial:

- "gradient": the explicit chain (`backward`, in the dtype's compute dtype;
  bf16-rounded operands where the bf16 kind rounds them) against `jax.grad` of
  the smoothed loss of the whole net (`model.net_loss`) in float64 at the same
  (rounded) inputs: per node the largest |chain − reference|, the largest
  |reference| and the size of the node's terms; and the same for the logits'
  cotangent the chain starts from (against `jax.grad` of the loss in them);
- "forward": the batched net against the net run on one example at a time
  (float64 from the same inputs): nothing may couple examples.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from checkers.pack import jax, jnp
from proofbridge_lean4_mlir.registered.vit_tiny import model
from proofbridge_lean4_mlir.registered.vit_tiny.backward import RULES, Rules, backward
from proofbridge_lean4_mlir.registered.vit_tiny.dims import VitDims
from proofbridge_lean4_mlir.registered.vit_tiny.sampling import sample_trials
from proofbridge_lean4_mlir.registered.vit_tiny.tolerance import compute_dtype

DTYPE = {"float64": "float64", "float32": "float32"}  # jnp's dtypes, by name


def _cast(tree: Any, dtype: Any) -> Any:
    return jax.tree_util.tree_map(lambda x: x.astype(dtype), tree)


def _gradient(tr: dict[str, Any], dims: VitDims, dtype: str, rules: Rules) -> dict[str, Any]:
    cd = getattr(jnp, DTYPE[compute_dtype(dtype)])
    low = _cast({k: tr[k] for k in ("params", "images", "scales", "targets")}, cd)
    logits, saves = model.forward(low["params"], low["images"], low["scales"], dims)
    chain = backward(
        low["params"], saves, logits, low["targets"], low["scales"], dims,
        bf16=dtype == "bfloat16", rules=rules,
    )  # fmt: skip
    ref_in = _cast(low, jnp.float64)

    def net(params: Any) -> tuple[Any, Any]:
        z = model.forward(params, ref_in["images"], ref_in["scales"], dims)[0]
        return model.loss(z, ref_in["targets"]), z

    ref, ref_logits = jax.grad(net, has_aux=True)(ref_in["params"])
    ref_dz = jax.grad(model.loss)(ref_logits, ref_in["targets"])
    out: dict[str, Any] = {}
    for name, r in ref.items():
        block = name not in ("patch.W", "patch.b", "cls", "pos") and not name.startswith(
            ("head.", "norm.")
        )
        g = chain.grads[name].astype(jnp.float64)
        if block:
            axes = tuple(range(1, r.ndim))
            err = jnp.max(jnp.abs(g - r), axis=axes)
            big = jnp.max(jnp.abs(r), axis=axes)
        else:
            err, big = jnp.max(jnp.abs(g - r)), jnp.max(jnp.abs(r))
        out[name] = (err, big, chain.scales[name].astype(jnp.float64))
    dz = chain.dlogits.astype(jnp.float64)
    big = jnp.max(jnp.abs(ref_dz))
    out["dlogits"] = (jnp.max(jnp.abs(dz - ref_dz)), big, big)
    return out


def _forward(tr: dict[str, Any], dims: VitDims, dtype: str) -> dict[str, Any]:
    cd = getattr(jnp, DTYPE[compute_dtype(dtype)])
    low = _cast({k: tr[k] for k in ("params", "images", "scales")}, cd)
    batched = model.forward(low["params"], low["images"], low["scales"], dims)[0]
    ref_in = _cast(low, jnp.float64)
    one = model.per_example_logits(ref_in["params"], ref_in["images"], ref_in["scales"], dims)
    big = jnp.max(jnp.abs(one))
    return {"logits": (jnp.max(jnp.abs(batched.astype(jnp.float64) - one)), big, big)}


@functools.cache
def program(dims: VitDims, dtype: str, parts: tuple[str, ...], rules: Rules = RULES) -> Any:
    """trials' inputs -> {node: (err, |ref|, scale)}, each (trials,) or (trials, depth)."""

    def one(tr: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "gradient" in parts:
            out.update(_gradient(tr, dims, dtype, rules))
        if "forward" in parts:
            out.update(_forward(tr, dims, dtype))
        out["dropped"] = jnp.sum(1.0 - tr["flags"])
        return out

    return jax.jit(jax.vmap(one))


def run(
    dims: VitDims, dtype: str, seed: int, trials: int, parts: tuple[str, ...], rules: Rules = RULES
) -> dict[str, Any]:
    """Run the compiled program on trials 0..trials-1 of `seed`; NumPy values."""
    inputs = sample_trials(seed, trials, dims)
    # the drop rate only decides the sampled flags: one program serves every rate
    out = program(dataclasses.replace(dims, drop=0), dtype, parts, rules)(inputs)
    return jax.device_get(out)
