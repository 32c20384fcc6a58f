"""The registered checkers of the ViT-Tiny prose theorems, and how their results read.

The seed page states four theorems in prose (namespace `Proofs`): at ViT-Tiny's
literal dims each of the 200 parameter-gradient nodes the emitted backward
chain computes is the derivative of the label-smoothed loss of the whole
batched net in that parameter (`vit_net_tiedGB`, the chain's top being the
smoothed-loss cotangent; `vit_net_lossGrad`, composed through the whole net;
`vit_net_lossGrad_smoothedCE`, for the smoothed loss itself), and the batched
net is the one-example net mapped over the batch (`vitNetB_eq_vitForwardKV`).
Numerically the first three are one fact: the chain's nodes (and the logits'
cotangent it starts from) against `jax.grad` of the smoothed loss; the fourth
is the batched forward against the forward of one example at a time.

A check samples weights, images, targets and drop flags (`sampling`), runs
both chains and compares every node (`compare`), each against its own
tolerance (`tolerance`). The result has one row per family of nodes
(`dims.FAMILIES`) with its largest absolute error, its largest error relative
to the size of its nodes' terms, and its worst node; its reason names the first
node in the chain's order that is outside its tolerance (where an error
enters the chain: every node below it reads its cotangent) and the worst one.

`--dims` takes `VitDims`'s keys (B, depth, D, heads, mlp, img, patch, chans,
K, drop); the literal dims are the defaults. `trials` samples run in one
program, at most as many as 512 example-tokens allow (one at the literal dims).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from checkers.pack import WholeOutcome, register_prose
from proofbridge_lean4_mlir.registered.vit_tiny import compare, tolerance
from proofbridge_lean4_mlir.registered.vit_tiny.backward import RULES, Rules
from proofbridge_lean4_mlir.registered.vit_tiny.dims import FAMILIES, FAMILY_OF, VitDims

# theorem_index.prose_claims.paragraph_hash of the paragraph the checkers were written for
PARAGRAPH_SHA256 = "2e373a06567dbb0f28d70bea26d8e40b2068ce118033458e9985c6c6a42cc3aa"
TOKEN_BUDGET = 512
GRADIENT, FORWARD = ("gradient",), ("forward",)
DEPENDENCIES = (
    "Proofs.vitNetB",
    "Proofs.vitForwardKV",
    "Proofs.smoothedBatchLossDiv",
    "Proofs.rowDenseWeightGradBAt",
    "Proofs.patchEmbedWeightGradBAt",
    "Proofs.biasGradB",
    "Proofs.geluScalar",
    "Proofs.layerNormVec",
)
LOSS_FAMILY, FORWARD_FAMILY = "loss cotangent", "forward"


def trial_count(dims: VitDims, trials: int) -> int:
    return max(1, min(trials, TOKEN_BUDGET // (dims.B * dims.tokens)))


def _rows(dims: VitDims, dtype: str, parts: tuple[str, ...]) -> list[tuple[str, str, str, Any]]:
    """(node, family, key in the program's output, block or None) in chain order."""
    rows: list[tuple[str, str, str, Any]] = []
    if "gradient" in parts:
        rows.append(("dlogits", LOSS_FAMILY, "dlogits", None))
        rows += [(node, FAMILY_OF[p], p, block) for node, p, block in dims.nodes()]
    if "forward" in parts:
        rows.append(("logits", FORWARD_FAMILY, "logits", None))
    return rows


def _rate(key: str, block: Any, dims: VitDims, dtype: str) -> float:
    if key in ("dlogits", "logits"):
        return tolerance.forward_rate(dims, dtype)
    return tolerance.rate(key, block, dims, dtype)


def judge(
    dims: VitDims, dtype: str, parts: tuple[str, ...], out: Mapping[str, Any], trials: int
) -> WholeOutcome:
    """The outcome of a program's output (see the module doc)."""
    nodes: list[dict[str, Any]] = []
    for node, family, key, block in _rows(dims, dtype, parts):
        err, big, scale = (np.asarray(x, dtype=np.float64) for x in out[key])
        if block is not None:
            err, big, scale = err[:, block], big[:, block], scale[:, block]
        node_rate = _rate(key, block, dims, dtype)
        allowed = node_rate * scale + tolerance.floor(dtype, node_rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(scale > 0, err / scale, np.where(err > 0, np.inf, 0.0))
            ratio = err / allowed
        t = int(np.nanargmax(ratio)) if np.isfinite(ratio).any() else 0
        nodes.append(
            {
                "node": node,
                "family": family,
                "abs": float(np.max(err)),
                "rel": float(np.max(rel)),
                "rtol": node_rate,
                "ratio": float(ratio[t]),
                "trial": t,
                "finite": bool(np.isfinite(err).all() and np.isfinite(big).all()),
                "fails": bool(np.any(~(err <= allowed))),
            }
        )
    dropped = int(np.sum(out["dropped"]))
    common: dict[str, Any] = {"dims": dims.as_dict(), "trials": trials}
    broken = next((n for n in nodes if not n["finite"]), None)
    worst = max(nodes, key=lambda n: n["ratio"] if math.isfinite(n["ratio"]) else math.inf)
    families = _families(nodes)
    stats = {"worst_node": worst["node"], "dropped_branches": dropped, "nodes": len(nodes)}
    errs = {
        "max_abs_err": max(n["abs"] for n in nodes),
        "max_rel_err": max(n["rel"] for n in nodes),
        "rtol": worst["rtol"],
        "atol": tolerance.floor(dtype, worst["rtol"]),
        "parts": families,
        "trial": worst["trial"],
    }
    if broken is not None:
        reason = f"non-finite value at node {broken['node']} ({broken['family']})"
        return WholeOutcome("error", reason, stats=stats, **common, **errs)
    failing = [n for n in nodes if n["fails"]]
    what = _what(parts, trials, dropped)
    head = (
        f"worst node {worst['node']} ({worst['family']}): abs err {worst['abs']:.3g}, "
        f"rel err {worst['rel']:.3g}, {worst['ratio']:.2g} of its tolerance "
        f"(rtol {worst['rtol']:.3g})"
    )
    if not failing:
        reason = f"{_counted(nodes)} agree {what}; {head}"
        return WholeOutcome("pass", reason, stats=stats, **common, **errs)
    first = failing[0]
    reason = (
        f"{len(failing)} of {_counted(nodes)} outside their tolerance {what}; first in the "
        f"chain: node {first['node']} ({first['family']}): abs err {first['abs']:.3g}, rel err "
        f"{first['rel']:.3g} > rtol {first['rtol']:.3g} at trial {first['trial']}; {head}"
    )
    stats["first_failing_node"] = first["node"]
    return WholeOutcome("fail", reason, stats=stats, **common, **errs)


def _counted(nodes: list[dict[str, Any]]) -> str:
    params = sum(n["family"] not in (LOSS_FAMILY, FORWARD_FAMILY) for n in nodes)
    if not params:
        return "the logits" if len(nodes) == 1 else f"{len(nodes)} values"
    extra = " and the logits' cotangent" if len(nodes) > params else ""
    return f"{params} parameter-gradient nodes{extra}"


def _what(parts: tuple[str, ...], trials: int, dropped: int) -> str:
    against = (
        "with jax.grad of the label-smoothed loss of the whole net"
        if "gradient" in parts
        else "with the net run on one example at a time"
    )
    drops = f"{dropped} branch{'es' if dropped != 1 else ''} dropped" if dropped else "no drop"
    return f"{against} ({trials} trial{'s' if trials != 1 else ''}, {drops})"


def _families(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    order = [LOSS_FAMILY, *FAMILIES, FORWARD_FAMILY]
    rows = []
    for family in order:
        members = [n for n in nodes if n["family"] == family]
        if not members:
            continue
        worst = max(members, key=lambda n: n["ratio"])
        rows.append(
            {
                "family": family,
                "nodes": len(members),
                "max_abs_err": max(n["abs"] for n in members),
                "max_rel_err": max(n["rel"] for n in members),
                "worst_node": worst["node"],
                "worst_ratio": worst["ratio"],
                "rtol": worst["rtol"],
                "failing": sum(n["fails"] for n in members),
                "status": "fail" if any(n["fails"] for n in members) else "pass",
            }
        )
    return rows


def check_vit(
    pins: Mapping[str, int],
    dtype: str,
    seed: int,
    trials: int,
    parts: tuple[str, ...] = GRADIENT,
    rules: Rules = RULES,
) -> WholeOutcome:
    """One whole check at `pins` over the literal dims (ValueError: bad dims)."""
    dims = VitDims.from_mapping(pins)
    n = trial_count(dims, trials)
    out = compare.run(dims, dtype, seed, n, parts, rules)
    return judge(dims, dtype, parts, out, n)


def _registered(name: str, parts: tuple[str, ...]) -> None:
    def run(pins: Mapping[str, int], dtype: str, seed: int, trials: int) -> WholeOutcome:
        return check_vit(pins, dtype, seed, trials, parts)

    run.__qualname__ = run.__name__ = f"check_{name}"
    register_prose(
        f"Proofs.{name}",
        mention=name,
        paragraph_sha256=PARAGRAPH_SHA256,
        dims=VitDims.names(),
        version="1",
        dependencies=DEPENDENCIES,
    )(run)


for _name in ("vit_net_tiedGB", "vit_net_lossGrad", "vit_net_lossGrad_smoothedCE"):
    _registered(_name, GRADIENT)
_registered("vitNetB_eq_vitForwardKV", FORWARD)
